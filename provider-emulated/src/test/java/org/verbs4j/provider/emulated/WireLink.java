package org.verbs4j.provider.emulated;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.verbs4j.AccessFlags;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.MemoryRegion;
import org.verbs4j.Mtu;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.provider.emulated.verbs.EmulatedDevice;

/**
 * Two wire devices of this JVM ({@code roce0}, {@code roce1}, from the build's {@code wire} test run) with a
 * {@link FaultyWire} between them: a protection domain, a completion queue and one registered buffer on each
 * side, and RC QP pairs, or XRC connections, made with the retry attributes a test asks for (MTU 1024).
 */
final class WireLink implements AutoCloseable {
    static final int ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;
    static final int MTU = 1024;

    /** One completion: its WR id, status, byte count, and its immediate data or invalidated rkey and flags. */
    record Completion(long wrId, WcStatus status, int byteLen, int imm, int flags) {
        Completion(long wrId, WcStatus status, int byteLen) {
            this(wrId, status, byteLen, 0, 0);
        }

        /** Without the immediate data and flags, to compare with the short form. */
        Completion brief() {
            return new Completion(wrId, status, byteLen);
        }
    }

    final Arena arena = Arena.ofShared();
    final EmulatedDevice devA = (EmulatedDevice) new EmulatedProvider().device("roce0");
    final EmulatedDevice devB = (EmulatedDevice) new EmulatedProvider().device("roce1");
    final Context ctxA = devA.open();
    final Context ctxB = devB.open();
    final ProtectionDomain pdA = ctxA.allocPd();
    final ProtectionDomain pdB = ctxB.allocPd();
    final CompletionQueue cqA = ctxA.createCq(4096);
    final CompletionQueue cqB = ctxB.createCq(4096);
    final MemorySegment bufA;
    final MemorySegment bufB;
    final MemoryRegion mrA;
    final MemoryRegion mrB;
    FaultyWire wire = new FaultyWire(devA, devB);
    private final WorkCompletionBatch wc = new WorkCompletionBatch(64);

    WireLink(long bytes) {
        bufA = arena.allocate(bytes, 64);
        bufB = arena.allocate(bytes, 64);
        mrA = pdA.registerMemory(bufA, ACCESS, arena);
        mrB = pdB.registerMemory(bufB, ACCESS | AccessFlags.MW_BIND, arena);
    }

    /**
     * An RC pair, requester on roce0 and responder on roce1: ACK timeout code {@code timeout} (4.096 us x
     * 2^timeout), {@code retry} retries, {@code rdAtomic} READs and atomics in flight, a send queue of {@code depth}.
     */
    QueuePair[] rc(int timeout, int retry, int rdAtomic, int depth) {
        return rc(timeout, retry, rdAtomic, depth, cqA, cqB);
    }

    /** As {@link #rc(int, int, int, int)}, on the completion queues given. */
    QueuePair[] rc(int timeout, int retry, int rdAtomic, int depth, CompletionQueue onA, CompletionQueue onB) {
        QueuePair a = pdA.createQp(QpInitAttributes.builder(QpType.RC).cq(onA).maxSendWr(depth).maxRecvWr(depth)
                .maxSendSge(2).maxRecvSge(2).build());
        QueuePair b = pdB.createQp(QpInitAttributes.builder(QpType.RC).cq(onB).maxSendWr(depth).maxRecvWr(depth)
                .maxSendSge(2).maxRecvSge(2).build());
        connect(a, ctxB, b.qpNum(), timeout, retry, rdAtomic);
        connect(b, ctxA, a.qpNum(), timeout, retry, rdAtomic);
        return new QueuePair[] {a, b};
    }

    /**
     * An XRC connection: an XRC_SEND QP on roce0 (completing on {@link #cqA}) connected to an XRC_RECV QP of a new
     * XRC domain of roce1, with one XRC SRQ of {@code depth} receives in {@link #pdB} completing on {@link #cqB}.
     * Closing it closes all of them.
     */
    record Xrc(QueuePair send, QueuePair recv, org.verbs4j.SharedReceiveQueue srq, org.verbs4j.XrcDomain xrcd)
            implements AutoCloseable {
        @Override
        public void close() {
            send.close();
            recv.close();
            srq.close();
            xrcd.close();
        }
    }

    /** An {@link Xrc} connection with the attributes of {@link #rc(int, int, int, int)}. */
    Xrc xrc(int timeout, int retry, int rdAtomic, int depth) {
        org.verbs4j.XrcDomain xrcd = ctxB.openXrcd();
        org.verbs4j.SharedReceiveQueue srq = xrcd.createSrq(pdB, cqB, new org.verbs4j.SrqInitAttributes(depth, 2, 0));
        QueuePair recv = xrcd.createRecvQp();
        QueuePair send = pdA.createQp(QpInitAttributes.builder(QpType.XRC_SEND).cq(cqA).maxSendWr(depth)
                .maxSendSge(2).build());
        recv.modify(QpAttributes.toInit(1, 0, ACCESS & ~AccessFlags.LOCAL_WRITE));
        recv.modify(QpAttributes.toRtr(AhAttributes.roce(ctxA.queryGid(1, 1), 1, 1), Mtu.MTU_1024, send.qpNum(),
                100, rdAtomic, 1));
        send.modify(QpAttributes.toInit(1, 0, ACCESS & ~AccessFlags.LOCAL_WRITE));
        send.modify(QpAttributes.toRtrUc(AhAttributes.roce(ctxB.queryGid(1, 1), 1, 1), Mtu.MTU_1024, recv.qpNum(),
                100));
        send.modify(QpAttributes.toRts(100, timeout, retry, 7, rdAtomic));
        return new Xrc(send, recv, srq, xrcd);
    }

    private static void connect(QueuePair q, Context peer, int peerQpn, int timeout, int retry, int rdAtomic) {
        q.modify(QpAttributes.toInit(1, 0, ACCESS & ~AccessFlags.LOCAL_WRITE));
        q.modify(QpAttributes.toRtr(AhAttributes.roce(peer.queryGid(1, 1), 1, 1), Mtu.MTU_1024, peerQpn, 100,
                rdAtomic, 1));
        q.modify(QpAttributes.toRts(100, timeout, retry, 7, rdAtomic));
    }

    /** Polls {@code cq} until {@code n} completions arrived or {@code ms} passed; returns what arrived, in order. */
    List<Completion> await(CompletionQueue cq, int n, long ms) {
        List<Completion> got = new ArrayList<>();
        long deadline = System.nanoTime() + ms * 1_000_000L;
        while (got.size() < n && System.nanoTime() < deadline) {
            int k = cq.poll(wc);
            for (int i = 0; i < k; i++) {
                got.add(new Completion(wc.wrId(i), wc.status(i), wc.byteLen(i), wc.immData(i), wc.wcFlags(i)));
            }
            if (k == 0) {
                Thread.onSpinWait();
            }
        }
        return got;
    }

    /** A new harness in place of the old one: no rules, counters at 0. */
    FaultyWire newWire() {
        wire.close();
        wire = new FaultyWire(devA, devB);
        return wire;
    }

    /** 4.096 us x 2^code, in ms (at least 1). */
    static long timeoutMs(int code) {
        return Math.max(1, (4096L << code) / 1_000_000L);
    }

    @Override
    public void close() {
        wire.close();
        ctxA.close();
        ctxB.close();
        arena.close();
    }
}
