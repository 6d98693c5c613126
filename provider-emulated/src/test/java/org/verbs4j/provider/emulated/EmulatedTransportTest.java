package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.AsyncEvent;
import org.verbs4j.AsyncEventType;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.PostRecvException;
import org.verbs4j.PostSendException;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.WcFlags;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

class EmulatedTransportTest {
    private final WorkCompletionBatch wc = new WorkCompletionBatch(16);

    @Test
    void stateMachineRefusesIllegalTransitionsAndMissingAttributes() {
        try (Pair p = new Pair(QpType.RC)) {
            QueuePair qp = p.pd.createQp(QpInitAttributes.builder(QpType.RC).cq(p.cqA).build());
            var e = assertThrows(VerbsException.class, () -> qp.modify(QpAttributes.toState(QpState.RTS)));
            assertEquals(Errno.EINVAL, e.errno());
            assertEquals(QpState.RESET, qp.state());
            e = assertThrows(VerbsException.class,
                    () -> qp.modify(new QpAttributes().state(QpState.INIT).port(1).pkeyIndex(0)));
            assertEquals(Errno.EINVAL, e.errno());
            assertEquals(QpState.RESET, qp.state());
            qp.modify(QpAttributes.toInit(1, 0, 0));
            assertEquals(QpState.INIT, qp.state());
            e = assertThrows(VerbsException.class, () -> qp.modify(new QpAttributes().state(QpState.RTR)
                    .ahAttr(AhAttributes.roce(p.ctx.queryGid(1, 1), 1, 1)).pathMtu(org.verbs4j.Mtu.MTU_1024)));
            assertEquals(QpState.INIT, qp.state());
            var ps = assertThrows(PostSendException.class, () -> qp.postSend(new SendWr()));
            assertEquals(Errno.EINVAL, ps.errno());
            qp.modify(QpAttributes.toState(QpState.ERR));
            assertEquals(QpState.ERR, qp.state());
            qp.modify(QpAttributes.toState(QpState.RESET));
            var pr = assertThrows(PostRecvException.class, () -> qp.postRecv(new RecvWr(1, Sge.of(p.mrA))));
            assertEquals(Errno.EINVAL, pr.errno());
        }
    }

    @Test
    void readAndAtomicsAndMisalignedAtomic() {
        try (Pair p = new Pair(QpType.RC)) {
            p.bufB.set(ValueLayout.JAVA_LONG, 8, 100);
            p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                    .atomic(p.mrB.address() + 8, 5, 0, p.mrB.rkey()).sgList(Sge.of(p.mrA, 0, 8)));
            assertEquals(1, p.cqA.poll(wc));
            assertEquals(WcStatus.SUCCESS, wc.status(0));
            assertEquals(WcOpcode.FETCH_ADD, wc.opcode(0));
            assertEquals(100, p.bufA.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(105, p.bufB.get(ValueLayout.JAVA_LONG, 8));

            p.a.postSend(new SendWr().wrId(2).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sendFlags(SendFlags.SIGNALED)
                    .atomic(p.mrB.address() + 12, 5, 0, p.mrB.rkey()).sgList(Sge.of(p.mrA, 0, 8)));
            assertEquals(1, p.cqA.poll(wc));
            assertEquals(WcStatus.REM_INV_REQ_ERR, wc.status(0));
            assertEquals(QpState.ERR, p.a.state());
        }
    }

    @Test
    void readToAResponderWithoutReadResourcesIsAnInvalidRequest() {
        try (Pair p = new Pair(QpType.RC)) {
            QueuePair a = p.pd.createQp(QpInitAttributes.builder(QpType.RC).cq(p.cqA).build());
            QueuePair b = p.pd.createQp(QpInitAttributes.builder(QpType.RC).cq(p.cqB).build());
            p.connect(a, b, QpType.RC, 7);
            b.modify(QpAttributes.toInit(1, 0, AccessFlags.REMOTE_READ));
            b.modify(QpAttributes.toRtr(AhAttributes.roce(p.ctx.queryGid(1, 1), 1, 1), org.verbs4j.Mtu.MTU_1024,
                    a.qpNum(), 0, 0, 1));
            a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).rdma(p.mrB.address(), p.mrB.rkey())
                    .sgList(Sge.of(p.mrA, 0, 8)));
            assertEquals(1, p.cqA.poll(wc));
            assertEquals(WcStatus.REM_INV_REQ_ERR, wc.status(0));
            assertEquals(QpState.ERR, b.state());
        }
    }

    @Test
    void shortReceiveBufferIsALengthErrorAtTheReceiver() {
        try (Pair p = new Pair(QpType.RC)) {
            p.b.postRecv(new RecvWr(10, Sge.of(p.mrB, 0, 16)));
            p.b.postRecv(new RecvWr(11, Sge.of(p.mrB, 64, 16)));
            p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sgList(Sge.of(p.mrA, 0, 32)));
            assertEquals(1, p.cqA.poll(wc));
            assertEquals(WcStatus.REM_INV_REQ_ERR, wc.status(0));
            assertEquals(2, p.cqB.poll(wc));
            assertEquals(10, wc.wrId(0));
            assertEquals(WcStatus.LOC_LEN_ERR, wc.status(0));
            assertEquals(11, wc.wrId(1));
            assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(1));
        }
    }

    @Test
    void badLkeyIsALocalProtectionError() {
        try (Pair p = new Pair(QpType.RC)) {
            p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).rdma(p.mrB.address(), p.mrB.rkey())
                    .sgList(new Sge(p.mrA.address() + 4000, 200, p.mrA.lkey())));
            assertEquals(1, p.cqA.poll(wc));
            assertEquals(WcStatus.LOC_PROT_ERR, wc.status(0));
            assertEquals(QpState.ERR, p.a.state());
        }
    }

    @Test
    void rnrRetryZeroFailsAndSevenWaitsForAReceive() throws Exception {
        try (Pair p = new Pair(QpType.RC, 0, QpInitAttributes.builder(QpType.RC))) {
            p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sgList(Sge.of(p.mrA, 0, 8)));
            assertEquals(1, p.await(p.cqA, wc, 1));
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, wc.status(0));
        }
        try (Pair p = new Pair(QpType.RC, 2, QpInitAttributes.builder(QpType.RC))) {
            p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sgList(Sge.of(p.mrA, 0, 8)));
            assertEquals(1, p.await(p.cqA, wc, 1));
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, wc.status(0));
        }
        try (Pair p = new Pair(QpType.RC, 7, QpInitAttributes.builder(QpType.RC))) {
            p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(p.mrA, 0, 8)));
            Thread.sleep(50);
            assertEquals(0, p.cqA.poll(wc));
            p.b.postRecv(new RecvWr(5, Sge.of(p.mrB, 0, 64)));
            assertEquals(1, p.await(p.cqA, wc, 1));
            assertEquals(WcStatus.SUCCESS, wc.status(0));
            assertEquals(1, p.cqB.poll(wc));
            assertEquals(5, wc.wrId(0));
        }
    }

    /**
     * As rxe's build_rdma_network_hdr: between IPv4-mapped GIDs (RoCE v2 over IPv4) the GRH area is 20 unused bytes
     * and the IPv4 header; else the IPv6 header. Either way ibv_init_ah_from_wc's rules find the sender again.
     */
    @Test
    void udGrhAreaIsTheIpv4HeaderBetweenIpv4GidsAndAnswersTheSender() {
        try (Pair p = new Pair(QpType.UD)) {
            for (int sgidIndex = 0; sgidIndex < 2; sgidIndex++) {
                Gid gid = p.ctx.queryGid(1, sgidIndex);
                AddressHandle ah = p.pd.createAh(AhAttributes.roce(gid, sgidIndex, 1));
                p.bufB.fill((byte) 0x77);
                p.b.postRecv(new RecvWr(1, Sge.of(p.mrB, 0, 128)));
                p.a.postSend(new SendWr().wrId(2).sendFlags(SendFlags.SIGNALED).sgList(Sge.of(p.mrA, 0, 4))
                        .ud(ah, p.b.qpNum(), 0x1111));
                assertEquals(1, p.cqA.poll(wc));
                assertEquals(1, p.cqB.poll(wc));
                var r = new org.verbs4j.WorkCompletion(wc.wrId(0), wc.status(0), wc.opcode(0), 0, wc.byteLen(0), 0,
                        wc.qpNum(0), wc.srcQp(0), wc.wcFlags(0), 0, 0, 0, 0);
                var be = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
                if (sgidIndex == 1) {
                    assertEquals(0, p.bufB.get(be, 0), "the 20 bytes before the IPv4 header are unused");
                    assertEquals(0x45, p.bufB.get(ValueLayout.JAVA_BYTE, 20) & 0xff, "IPv4, 5 words");
                    assertEquals((int) gid.interfaceId(), p.bufB.get(be, 32), "source address");
                    assertEquals((int) gid.interfaceId(), p.bufB.get(be, 36), "destination address");
                    int sum = 0;
                    for (int i = 20; i < 40; i += 2) {
                        sum += p.bufB.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), i)
                                & 0xffff;
                    }
                    sum = (sum & 0xffff) + (sum >>> 16);
                    assertEquals(0xffff, (sum & 0xffff) + (sum >>> 16), "a valid IPv4 header checksum");
                } else {
                    assertEquals(6, p.bufB.get(be, 0) >>> 28, "an IPv6 header");
                }
                AhAttributes back = p.ctx.initAhAttributes(1, r, p.bufB);
                assertEquals(gid, back.grh().dgid(), "the sender's GID, from GRH index " + sgidIndex);
                assertEquals(sgidIndex, back.grh().sgidIndex(), "the index the datagram was sent to");
            }
        }
    }

    @Test
    void udPutsAGrhFirstAndDropsAWrongQkey() {
        try (Pair p = new Pair(QpType.UD)) {
            AddressHandle ah = p.pd.createAh(AhAttributes.roce(p.ctx.queryGid(1, 1), 1, 1));
            p.b.postRecv(new RecvWr(1, Sge.of(p.mrB, 0, 128)));
            p.bufA.set(ValueLayout.JAVA_INT_UNALIGNED, 0, 0x5a5a5a5a);
            try (WrSession s = p.a.startWr()) {
                s.wrId(9);
                s.wrFlags(SendFlags.SIGNALED);
                s.send();
                s.setSge(p.mrA.lkey(), p.mrA.address(), 4);
                s.setUdAddr(ah, p.b.qpNum(), 0x2222);
                s.send();
                s.setSge(p.mrA.lkey(), p.mrA.address(), 4);
                s.setUdAddr(ah, p.b.qpNum(), 0x1111);
                s.complete();
            }
            assertEquals(2, p.cqA.poll(wc));
            assertEquals(WcStatus.SUCCESS, wc.status(1));
            assertEquals(1, p.cqB.poll(wc));
            assertEquals(44, wc.byteLen(0));
            assertTrue((wc.wcFlags(0) & WcFlags.GRH) != 0);
            assertEquals(p.a.qpNum(), wc.srcQp(0));
            assertEquals(0x5a5a5a5a, p.bufB.get(ValueLayout.JAVA_INT_UNALIGNED, 40));

            WrSession s = p.a.startWr();
            s.send();
            s.setSge(p.mrA.lkey(), p.mrA.address(), 4);
            var e = assertThrows(VerbsException.class, s::complete);
            assertEquals(Errno.EINVAL, e.errno());

            MemorySegment big = p.arena.allocate(8192);
            var bigMr = p.pd.registerMemory(big, AccessFlags.LOCAL_WRITE, p.arena);
            p.a.postSend(new SendWr().wrId(4).sgList(Sge.of(bigMr, 0, 4097)).ud(ah, p.b.qpNum(), 0x1111));
            assertEquals(1, p.cqA.poll(wc));
            assertEquals(4, wc.wrId(0));
            assertEquals(WcStatus.LOC_LEN_ERR, wc.status(0));
        }
    }

    @Test
    void typeTwoWindowGrantsAccessUntilInvalidated() {
        try (Pair p = new Pair(QpType.RC)) {
            MemoryWindow mw = p.pd.allocMw(MwType.TYPE_2);
            int rkey = (mw.rkey() & ~0xff) | ((mw.rkey() + 1) & 0xff);
            try (WrSession s = p.b.startWr()) {
                s.wrId(1);
                s.wrFlags(SendFlags.SIGNALED);
                s.bindMw(mw, rkey, new MwBindInfo(p.mrB, p.mrB.address() + 256, 256,
                        AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE));
                s.complete();
            }
            assertEquals(1, p.cqB.poll(wc));
            assertEquals(WcStatus.SUCCESS, wc.status(0));
            assertEquals(WcOpcode.BIND_MW, wc.opcode(0));
            assertEquals(rkey, mw.rkey());
            var busy = assertThrows(VerbsException.class, p.mrB::close);
            assertEquals(Errno.EBUSY, busy.errno());

            p.bufA.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 77);
            p.a.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .rdma(p.mrB.address() + 300, rkey).sgList(Sge.of(p.mrA, 0, 8)));
            assertEquals(1, p.cqA.poll(wc));
            assertEquals(WcStatus.SUCCESS, wc.status(0));
            assertEquals(77, p.bufB.get(ValueLayout.JAVA_LONG_UNALIGNED, 300));

            try (WrSession s = p.b.startWr()) {
                s.wrId(3);
                s.wrFlags(SendFlags.SIGNALED);
                s.localInv(rkey);
                s.complete();
            }
            assertEquals(1, p.cqB.poll(wc));
            assertEquals(WcStatus.SUCCESS, wc.status(0));
            p.a.postSend(new SendWr().wrId(4).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .rdma(p.mrB.address() + 300, rkey).sgList(Sge.of(p.mrA, 0, 8)));
            assertEquals(1, p.cqA.poll(wc));
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(0));
        }
    }

    @Test
    void typeOneWindowOutOfBoundsIsRefused() {
        try (Pair p = new Pair(QpType.RC)) {
            MemoryWindow mw = p.pd.allocMw(MwType.TYPE_1);
            int rkey = p.b.bindMw(mw, 1, SendFlags.SIGNALED, new MwBindInfo(p.mrB, p.mrB.address(), 64,
                    AccessFlags.REMOTE_READ));
            assertEquals(1, p.cqB.poll(wc));
            assertEquals(WcStatus.SUCCESS, wc.status(0));
            p.a.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .rdma(p.mrB.address() + 32, rkey).sgList(Sge.of(p.mrA, 0, 64)));
            assertEquals(1, p.cqA.poll(wc));
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(0));
        }
    }

    @Test
    void srqLimitEventAndSolicitedCompletionEvent() {
        try (Pair p = new Pair(QpType.RC)) {
            SharedReceiveQueue srq = p.pd.createSrq(new SrqInitAttributes(8, 1, 0));
            CompletionChannel ch = p.ctx.createCompletionChannel();
            CompletionQueue cq = p.ctx.createCq(16, ch, 0);
            QueuePair rx = p.pd.createQp(QpInitAttributes.builder(QpType.RC).sendCq(cq).recvCq(cq).srq(srq).build());
            QueuePair tx = p.pd.createQp(QpInitAttributes.builder(QpType.RC).cq(p.cqA).build());
            p.connect(rx, tx, QpType.RC, 7);
            p.connect(tx, rx, QpType.RC, 7);
            srq.postRecv(new RecvWr(1, Sge.of(p.mrB, 0, 64)));
            srq.postRecv(new RecvWr(2, Sge.of(p.mrB, 64, 64)));
            srq.armLimit(2);
            cq.requestNotify(true);
            tx.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sgList(Sge.of(p.mrA, 0, 8)));
            assertNull(ch.awaitEvent(0, TimeUnit.MILLISECONDS));
            AsyncEvent ev = p.ctx.pollAsyncEvent(1, TimeUnit.SECONDS);
            assertNotNull(ev);
            assertEquals(AsyncEventType.SRQ_LIMIT_REACHED, ev.type());
            assertEquals(srq, ev.srq());
            tx.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SOLICITED)
                    .sgList(Sge.of(p.mrA, 0, 8)));
            assertEquals(cq, ch.awaitEvent(1, TimeUnit.SECONDS));
            assertEquals(2, cq.poll(wc));
        }
    }

    @Test
    void closeWithChildrenIsBusyAndContextCloseReleasesAll() {
        Pair p = new Pair(QpType.RC);
        var e = assertThrows(VerbsException.class, p.pd::close);
        assertEquals(Errno.EBUSY, e.errno());
        assertThrows(IllegalArgumentException.class,
                () -> p.pd.registerMemory(MemorySegment.ofArray(new byte[16]), AccessFlags.LOCAL_WRITE));
        p.close();
        assertTrue(p.a.isClosed());
        assertTrue(p.mrA.isClosed());
        assertThrows(IllegalStateException.class, () -> p.a.postSend(new SendWr()));
    }

    @Test
    void fullSendQueueIsEnomem() {
        try (Pair p = new Pair(QpType.RC, 7, QpInitAttributes.builder(QpType.RC).maxSendWr(4))) {
            assertEquals(4, p.a.initAttributes().cap().maxSendWr());
            // Nothing is posted at the peer, so the first SEND waits (RNR) and holds every WR behind it.
            for (int i = 0; i < 4; i++) {
                p.a.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sgList(Sge.of(p.mrA, 0, 8)));
            }
            var e = assertThrows(PostSendException.class,
                    () -> p.a.postSend(new SendWr().wrId(9).opcode(WrOpcode.SEND).sgList(Sge.of(p.mrA, 0, 8))));
            assertEquals(Errno.ENOMEM, e.errno());
            p.a.modify(QpAttributes.toState(QpState.ERR));
            assertEquals(4, p.cqA.poll(wc));
            for (int i = 0; i < 4; i++) {
                assertEquals(i, wc.wrId(i));
                assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(i));
            }
        }
    }
}
