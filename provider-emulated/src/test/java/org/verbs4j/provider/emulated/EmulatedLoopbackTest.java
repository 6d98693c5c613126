package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;
import org.verbs4j.QpType;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcFlags;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

class EmulatedLoopbackTest {
    @Test
    void rdmaWriteMovesTheBytesAndCompletes() {
        try (Pair p = new Pair(QpType.RC)) {
            for (int i = 0; i < 64; i++) {
                p.bufA.set(ValueLayout.JAVA_BYTE, i, (byte) (i + 1));
            }
            try (WrSession s = p.a.startWr()) {
                s.wrId(42);
                s.wrFlags(SendFlags.SIGNALED);
                s.rdmaWrite(p.mrB.rkey(), p.mrB.address() + 100);
                s.setSge(p.mrA.lkey(), p.mrA.address(), 64);
                s.complete();
            }
            WorkCompletionBatch wc = new WorkCompletionBatch(8);
            assertEquals(1, p.cqA.poll(wc));
            assertEquals(42, wc.wrId(0));
            assertEquals(WcStatus.SUCCESS, wc.status(0));
            assertEquals(WcOpcode.RDMA_WRITE, wc.opcode(0));
            for (int i = 0; i < 64; i++) {
                assertEquals((byte) (i + 1), p.bufB.get(ValueLayout.JAVA_BYTE, 100 + i));
            }
            assertEquals(0, p.bufB.get(ValueLayout.JAVA_BYTE, 99));
            assertEquals(0, p.bufB.get(ValueLayout.JAVA_BYTE, 164));
        }
    }

    @Test
    void sendWithImmediateLandsInTheReceiveBuffer() {
        try (Pair p = new Pair(QpType.RC)) {
            p.b.postRecv(new RecvWr(7, Sge.of(p.mrB, 0, 256)));
            p.bufA.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0x1122334455667788L);
            p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_IMM).immData(0xCAFE)
                    .sendFlags(SendFlags.SIGNALED).sgList(Sge.of(p.mrA, 0, 8)));
            WorkCompletionBatch wc = new WorkCompletionBatch(8);
            assertEquals(1, p.cqB.poll(wc));
            assertEquals(7, wc.wrId(0));
            assertEquals(WcOpcode.RECV, wc.opcode(0));
            assertEquals(8, wc.byteLen(0));
            assertEquals(0xCAFE, wc.immData(0));
            assertTrue((wc.wcFlags(0) & WcFlags.WITH_IMM) != 0);
            assertEquals(p.a.qpNum(), wc.srcQp(0));
            assertEquals(0x1122334455667788L, p.bufB.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            assertEquals(1, p.cqA.poll(wc));
            assertEquals(WcStatus.SUCCESS, wc.status(0));
        }
    }

    @Test
    void badRkeyFailsWithRemoteAccessErrorAndFlushesTheRest() {
        try (Pair p = new Pair(QpType.RC)) {
            p.a.postRecv(new RecvWr(99, Sge.of(p.mrA, 1024, 64)));
            try (WrSession s = p.a.startWr()) {
                s.wrId(1);
                s.wrFlags(0);
                s.rdmaWrite(p.mrB.rkey() ^ 0x100, p.mrB.address());
                s.setSge(p.mrA.lkey(), p.mrA.address(), 8);
                s.wrId(2);
                s.rdmaWrite(p.mrB.rkey(), p.mrB.address());
                s.setSge(p.mrA.lkey(), p.mrA.address(), 8);
                s.complete();
            }
            WorkCompletionBatch wc = new WorkCompletionBatch(8);
            assertEquals(3, p.cqA.poll(wc));
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(0));
            assertEquals(1, wc.wrId(0));
            assertEquals(99, wc.wrId(1));
            assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(1));
            assertEquals(2, wc.wrId(2));
            assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(2));
            assertEquals(org.verbs4j.QpState.ERR, p.a.state());
            assertEquals(org.verbs4j.QpState.ERR, p.b.state());
        }
    }

    @Test
    void invalidBatchIsDiscardedWhole() {
        try (Pair p = new Pair(QpType.RC)) {
            WrSession s = p.a.startWr();
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(p.mrB.rkey(), p.mrB.address());
            s.setSge(p.mrA.lkey(), p.mrA.address(), 8);
            s.rdmaWrite(p.mrB.rkey(), p.mrB.address());
            var e = assertThrows(org.verbs4j.VerbsException.class, s::complete);
            assertEquals(org.verbs4j.Errno.EINVAL, e.errno());
            assertEquals(0, p.cqA.poll(new WorkCompletionBatch(4)));
            assertTrue(!s.isActive());
        }
    }
}
