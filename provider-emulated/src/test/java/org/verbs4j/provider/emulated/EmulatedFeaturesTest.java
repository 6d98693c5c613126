package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.AsyncEvent;
import org.verbs4j.AsyncEventType;
import org.verbs4j.Capabilities;
import org.verbs4j.CompletionQueue;
import org.verbs4j.DataInOrder;
import org.verbs4j.Errno;
import org.verbs4j.Flush;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.ThreadDomain;
import org.verbs4j.VerbsException;
import org.verbs4j.WcFlags;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

class EmulatedFeaturesTest {
    private final WorkCompletionBatch wc = new WorkCompletionBatch(16);

    @Test
    void everyClaimedOpcodeCanBeRequestedAndNothingElse() {
        try (Pair p = new Pair(QpType.RC)) {
            Capabilities caps = p.ctx.capabilities();
            for (QpType type : caps.qpTypes()) {
                for (WrOpcode op : WrOpcode.values()) {
                    QpInitAttributes.Builder b = QpInitAttributes.builder(type).cq(p.cqA).sendOps(op);
                    if (caps.supports(type, op)) {
                        assertTrue(op.isValidFor(type));
                        p.pd.createQp(b.build()).close();
                    } else if (!op.isValidFor(type)) {
                        assertThrows(IllegalArgumentException.class, () -> p.pd.createQp(b.build()));
                    } else {
                        var e = assertThrows(VerbsException.class, () -> p.pd.createQp(b.build()));
                        assertEquals(Errno.EOPNOTSUPP, e.errno());
                    }
                }
            }
        }
    }

    @Test
    void dataInOrderIsReportedForReadWriteAndSendOnly() {
        try (Pair p = new Pair(QpType.RC)) {
            assertEquals(1, p.a.queryDataInOrder(WrOpcode.RDMA_WRITE, 0));
            assertEquals(Set.of(DataInOrder.WHOLE_MSG, DataInOrder.ALIGNED_128_BYTES),
                    p.a.dataInOrder(WrOpcode.SEND));
            assertEquals(0, p.a.queryDataInOrder(WrOpcode.ATOMIC_FETCH_AND_ADD, 0));
            assertEquals(0, p.a.queryDataInOrder(WrOpcode.ATOMIC_FETCH_AND_ADD, DataInOrder.RETURN_CAPS));
            assertThrows(IllegalArgumentException.class, () -> p.a.queryDataInOrder(WrOpcode.SEND, 4));
        }
    }

    @Test
    void atomicWriteAndFlush() {
        try (Pair p = new Pair(QpType.RC)) {
            var mr = p.pd.registerMemory(p.arena.allocate(64, 64), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
                    | AccessFlags.FLUSH_GLOBAL, p.arena);
            try (WrSession s = p.a.startWr()) {
                s.wrFlags(SendFlags.SIGNALED);
                s.wrId(1);
                s.atomicWrite(mr.rkey(), mr.address() + 8, 0x0102030405060708L);
                s.wrId(2);
                s.flush(mr.rkey(), mr.address(), 16, Flush.TYPE_GLOBAL, Flush.LEVEL_RANGE);
                s.wrId(3);
                s.flush(p.mrB.rkey(), p.mrB.address(), 16, Flush.TYPE_GLOBAL, Flush.LEVEL_RANGE);
                s.complete();
            }
            assertEquals(3, p.cqA.poll(wc));
            assertEquals(WcStatus.SUCCESS, wc.status(0));
            assertEquals(WcStatus.SUCCESS, wc.status(1));
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(2));
            assertEquals(0x0102030405060708L, mr.segment().get(ValueLayout.JAVA_LONG, 8));
        }
    }

    @Test
    void aStaleRkeyNeverReachesTheRegionThatReusesItsSlot() {
        try (Pair p = new Pair(QpType.RC)) {
            var old = p.pd.registerMemory(p.arena.allocate(64), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE, p.arena);
            int stale = old.rkey();
            old.close();
            var fresh = p.pd.registerMemory(p.arena.allocate(64), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE, p.arena);
            assertTrue(fresh.rkey() != stale, "a reused key-table slot must get a new key");
            p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).rdma(fresh.address(), stale)
                    .sgList(Sge.of(p.mrA, 0, 8)));
            assertEquals(1, p.cqA.poll(wc));
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(0));
        }
    }

    @Test
    void sendWithInvalidateInvalidatesTheRegion() {
        try (Pair p = new Pair(QpType.RC)) {
            var target = p.pd.registerMemory(p.arena.allocate(64), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE, p.arena);
            p.b.postRecv(new RecvWr(1, Sge.of(p.mrB, 0, 64)));
            p.a.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(target.rkey())
                    .sgList(Sge.of(p.mrA, 0, 4)));
            assertEquals(1, p.cqB.poll(wc));
            assertEquals(WcStatus.SUCCESS, wc.status(0));
            assertTrue((wc.wcFlags(0) & WcFlags.WITH_INV) != 0);
            assertEquals(target.rkey(), wc.immData(0));
            p.a.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).rdma(target.address(), target.rkey())
                    .sgList(Sge.of(p.mrA, 0, 4)));
            assertEquals(1, p.cqA.poll(wc));
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(0));
        }
    }

    @Test
    void ucDropsWhatTheResponderRefusesAndTheSenderSucceeds() {
        try (Pair p = new Pair(QpType.UC)) {
            p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(p.mrA, 0, 8)));
            p.a.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .rdma(p.mrB.address(), p.mrB.rkey() + 0x100).sgList(Sge.of(p.mrA, 0, 8)));
            assertEquals(2, p.cqA.poll(wc));
            assertEquals(WcStatus.SUCCESS, wc.status(0));
            assertEquals(WcStatus.SUCCESS, wc.status(1));
            assertEquals(0, p.cqB.poll(wc));
            assertEquals(QpState.RTS, p.b.state());
            assertThrows(IllegalArgumentException.class, () -> p.pd.createQp(
                    QpInitAttributes.builder(QpType.UC).cq(p.cqA).sendOps(WrOpcode.RDMA_READ).build()));
        }
    }

    @Test
    void qpsOfTwoContextsConnectByGidAndQpn() {
        try (var arena = java.lang.foreign.Arena.ofConfined();
             var c1 = new EmulatedProvider().devices().get(0).open();
             var c2 = new EmulatedProvider().devices().get(0).open()) {
            QueuePair[] qps = new QueuePair[2];
            org.verbs4j.MemoryRegion[] mrs = new org.verbs4j.MemoryRegion[2];
            CompletionQueue[] cqs = new CompletionQueue[2];
            org.verbs4j.Context[] ctxs = {c1, c2};
            for (int i = 0; i < 2; i++) {
                var pd = ctxs[i].allocPd();
                cqs[i] = ctxs[i].createCq(8);
                mrs[i] = pd.registerMemory(arena.allocate(64), Pair.ALL_ACCESS, arena);
                qps[i] = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cqs[i]).build());
            }
            for (int i = 0; i < 2; i++) {
                QueuePair q = qps[i];
                int peer = qps[1 - i].qpNum();
                var gid = ctxs[1 - i].queryGid(1, 1);
                q.modify(org.verbs4j.QpAttributes.toInit(1, 0, AccessFlags.REMOTE_WRITE));
                q.modify(org.verbs4j.QpAttributes.toRtr(org.verbs4j.AhAttributes.roce(gid, 1, 1),
                        org.verbs4j.Mtu.MTU_1024, peer, 0, 1, 12));
                q.modify(org.verbs4j.QpAttributes.toRts(0, 14, 7, 7, 1));
            }
            mrs[0].segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 1234567);
            qps[0].postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .rdma(mrs[1].address(), mrs[1].rkey()).sgList(Sge.of(mrs[0], 0, 8)));
            assertEquals(1, cqs[0].poll(wc));
            assertEquals(WcStatus.SUCCESS, wc.status(0));
            assertEquals(1234567, mrs[1].segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        }
    }

    @Test
    void cqOverflowReportsCqErr() {
        try (Pair p = new Pair(QpType.RC)) {
            CompletionQueue tiny = p.ctx.createCq(1);
            QueuePair a = p.pd.createQp(QpInitAttributes.builder(QpType.RC).cq(tiny).sqSigAll(true).build());
            QueuePair b = p.pd.createQp(QpInitAttributes.builder(QpType.RC).cq(p.cqB).build());
            p.connect(a, b, QpType.RC, 7);
            p.connect(b, a, QpType.RC, 7);
            for (int i = 0; i < 2; i++) {
                a.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).rdma(p.mrB.address(), p.mrB.rkey())
                        .sgList(Sge.of(p.mrA, 0, 8)));
            }
            AsyncEvent ev = p.ctx.pollAsyncEvent(2, TimeUnit.SECONDS);
            assertNotNull(ev);
            assertEquals(AsyncEventType.CQ_ERR, ev.type());
            assertEquals(tiny, ev.cq());
        }
    }

    @Test
    void independentQpsPostFromTwoThreads() throws Exception {
        try (Pair p1 = new Pair(QpType.RC); Pair p2 = new Pair(QpType.RC)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread t1 = new Thread(() -> writeMany(p1, failure));
            Thread t2 = new Thread(() -> writeMany(p2, failure));
            t1.start();
            t2.start();
            t1.join();
            t2.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
        }
    }

    private static void writeMany(Pair p, AtomicReference<Throwable> failure) {
        try {
            WorkCompletionBatch batch = new WorkCompletionBatch(16);
            int done = 0;
            for (int round = 0; round < 2000; round++) {
                try (WrSession s = p.a.startWr()) {
                    for (int i = 0; i < 8; i++) {
                        s.wrId(round * 8L + i);
                        s.wrFlags(i == 7 ? SendFlags.SIGNALED : 0);
                        s.rdmaWrite(p.mrB.rkey(), p.mrB.address() + i * 64);
                        s.setSge(p.mrA.lkey(), p.mrA.address() + i * 64, 64);
                    }
                    s.complete();
                }
                int n = p.cqA.poll(batch);
                for (int i = 0; i < n; i++) {
                    assertEquals(WcStatus.SUCCESS, batch.status(i));
                }
                done += n;
            }
            assertEquals(2000, done);
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }

    @Test
    void threadDomainSessionsWork() {
        try (Pair p = new Pair(QpType.RC)) {
            ThreadDomain td = p.ctx.allocTd();
            QueuePair a = p.pd.createQp(QpInitAttributes.builder(QpType.RC).cq(p.cqA).threadDomain(td)
                    .sendOps(WrOpcode.RDMA_WRITE).build());
            QueuePair b = p.pd.createQp(QpInitAttributes.builder(QpType.RC).cq(p.cqB).build());
            p.connect(a, b, QpType.RC, 7);
            p.connect(b, a, QpType.RC, 7);
            try (WrSession s = a.startWr()) {
                s.wrFlags(SendFlags.SIGNALED);
                s.rdmaWrite(p.mrB.rkey(), p.mrB.address());
                s.setSge(p.mrA.lkey(), p.mrA.address(), 8);
                s.complete();
            }
            assertEquals(1, p.cqA.poll(wc));
            assertEquals(WcStatus.SUCCESS, wc.status(0));
            var busy = assertThrows(VerbsException.class, td::close);
            assertEquals(Errno.EBUSY, busy.errno());
            a.close();
            td.close();
            assertTrue(td.isClosed());
            assertFalse(p.pd.isClosed());
        }
    }
}
