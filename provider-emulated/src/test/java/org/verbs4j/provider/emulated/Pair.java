package org.verbs4j.provider.emulated;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.verbs4j.AccessFlags;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.MemoryRegion;
import org.verbs4j.Mtu;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;

/** Two connected QPs on one emulated device, each with its own CQ and a registered 4 KiB buffer. */
final class Pair implements AutoCloseable {
    static final int ALL_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC | AccessFlags.MW_BIND;

    final Arena arena = Arena.ofShared();
    final Context ctx;
    final ProtectionDomain pd;
    final CompletionQueue cqA;
    final CompletionQueue cqB;
    final MemorySegment bufA = arena.allocate(4096, 64);
    final MemorySegment bufB = arena.allocate(4096, 64);
    final MemoryRegion mrA;
    final MemoryRegion mrB;
    final QueuePair a;
    final QueuePair b;
    final WorkCompletionBatch wc = new WorkCompletionBatch(64);

    Pair(QpType type) {
        this(type, 7, QpInitAttributes.builder(type).maxSendSge(4).maxRecvSge(4).maxInlineData(64)
                .sendOps(type == QpType.RC ? new WrOpcode[] {WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ, WrOpcode.SEND,
                    WrOpcode.SEND_WITH_IMM, WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.ATOMIC_CMP_AND_SWP,
                    WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.BIND_MW, WrOpcode.LOCAL_INV, WrOpcode.SEND_WITH_INV,
                    WrOpcode.ATOMIC_WRITE, WrOpcode.FLUSH}
                    : type == QpType.UC ? new WrOpcode[] {WrOpcode.RDMA_WRITE, WrOpcode.SEND}
                    : new WrOpcode[] {WrOpcode.SEND}));
    }

    Pair(QpType type, int rnrRetry, QpInitAttributes.Builder builder) {
        ctx = new EmulatedProvider().devices().get(0).open();
        pd = ctx.allocPd();
        cqA = ctx.createCq(256);
        cqB = ctx.createCq(256);
        mrA = pd.registerMemory(bufA, ALL_ACCESS, arena);
        mrB = pd.registerMemory(bufB, ALL_ACCESS, arena);
        a = pd.createQp(builder.sendCq(cqA).recvCq(cqA).build());
        b = pd.createQp(builder.sendCq(cqB).recvCq(cqB).build());
        if (type == QpType.UD) {
            for (QueuePair q : new QueuePair[] {a, b}) {
                q.modify(QpAttributes.toInitUd(1, 0, 0x1111));
                q.modify(QpAttributes.toState(QpState.RTR));
                q.modify(QpAttributes.toRtsUnreliable(0));
            }
        } else {
            connect(a, b, type, rnrRetry);
            connect(b, a, type, rnrRetry);
        }
    }

    void connect(QueuePair q, QueuePair peer, QpType type, int rnrRetry) {
        int access = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
        q.modify(QpAttributes.toInit(1, 0, access));
        AhAttributes av = AhAttributes.roce(ctx.queryGid(1, 1), 1, 1);
        if (type == QpType.RC) {
            q.modify(QpAttributes.toRtr(av, Mtu.MTU_1024, peer.qpNum(), 0, 1, 1));
            q.modify(QpAttributes.toRts(0, 14, 7, rnrRetry, 1));
        } else {
            q.modify(QpAttributes.toRtrUc(av, Mtu.MTU_1024, peer.qpNum(), 0));
            q.modify(QpAttributes.toRtsUnreliable(0));
        }
    }

    /** Polls {@code cq} until {@code n} completions arrived or 2 s passed; returns how many arrived. */
    int await(CompletionQueue cq, WorkCompletionBatch into, int n) {
        long deadline = System.nanoTime() + 2_000_000_000L;
        int got = 0;
        WorkCompletionBatch tmp = new WorkCompletionBatch(64);
        into.clear();
        while (got < n && System.nanoTime() < deadline) {
            int k = cq.poll(tmp);
            for (int i = 0; i < k; i++) {
                into.add(tmp.wrId(i), tmp.status(i).value(), tmp.opcode(i).value(), tmp.vendorErr(i), tmp.byteLen(i),
                        tmp.immData(i), tmp.qpNum(i), tmp.srcQp(i), tmp.wcFlags(i), 0, 0, 0, 0);
            }
            got += k;
            if (k == 0) {
                Thread.onSpinWait();
            }
        }
        return got;
    }

    @Override
    public void close() {
        ctx.close();
        arena.close();
    }
}
