package org.verbs4j.tck;

// Over 500 lines on purpose: the seeded walk is one state machine (its objects, their valid and stale keys and
// addresses, the canaries and the step table) whose steps share that state; splitting it would pass the state
// around.

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.CompletionQueue;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.Sge;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * A seeded random walk of create, post, close, arena close and poll calls over the public objects (issue 13):
 * regions (owned by their arena, in two PDs), windows, QPs and their WR sessions, CQs, SRQs and
 * address handles, with keys and addresses that are valid, stale (of closed regions and freed arenas), off by a
 * little, or random. Every buffer has canary bytes on both sides, outside its region.
 *
 * <p>The walk holds three guarantees: every call that fails throws an exception its Javadoc documents
 * ({@link VerbsException}, {@link IllegalArgumentException}, {@link IllegalStateException},
 * {@link IndexOutOfBoundsException}, or a {@link NullPointerException} whose message names the argument); no
 * canary byte ever changes; and the JVM lives ({@link MisuseRules} runs the walk in a child JVM).
 *
 * <p>Regions are registered with their arena, which may close at any time, with windows still bound to the
 * region or not; a plain registration of such memory is tried too, and must be refused (issue 26). The walk
 * keeps to what the API documents as the caller's part, since breaking that is not misuse the library can catch:
 * no window's rkey is used for access (rxe does not bounds-check windows, D-007 and D-010).
 */
final class MisuseWalk {
    private static final int CANARY = 64;
    private static final byte CANARY_BYTE = (byte) 0xA5;
    private static final int MAX_BUFFERS = 48;
    private static final int CANARY_CHECK_EVERY = 100;
    private static final WrOpcode[] OPS = {WrOpcode.SEND, WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ,
        WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.SEND_WITH_IMM};

    /** What a walk did: enough to see that it both posted work and was refused. */
    record Result(int steps, int refused, int posted, long completed, long errorCompletions) {
        @Override
        public String toString() {
            return steps + " steps, " + refused + " refused calls, " + posted + " WRs posted, " + completed
                    + " completions polled (" + errorCompletions + " with an error status)";
        }
    }

    /** A buffer with canaries on both sides; only the middle is ever registered. */
    private record Buffer(Arena arena, MemorySegment whole, MemorySegment payload, MemoryRegion mr, boolean tidy) {
        void checkCanaries(String when) {
            if (!whole.scope().isAlive()) {
                return;
            }
            for (long i = 0; i < CANARY; i++) {
                if (whole.get(ValueLayout.JAVA_BYTE, i) != CANARY_BYTE
                        || whole.get(ValueLayout.JAVA_BYTE, whole.byteSize() - 1 - i) != CANARY_BYTE) {
                    throw new AssertionError("a canary byte next to the region at 0x"
                            + Long.toHexString(payload.address()) + " changed " + when);
                }
            }
        }
    }

    /** The address and keys of a region that is closed, whose memory may be reused. */
    private record Stale(long address, long length, int lkey, int rkey) {}

    private final Testbed tb;
    private final SplittableRandom rnd;
    private final long seed;
    private final List<Buffer> buffers = new ArrayList<>();
    private final List<Stale> stale = new ArrayList<>();
    private final List<MemorySegment> freed = new ArrayList<>();
    private final List<MemoryWindow> windows = new ArrayList<>();
    private final Map<MemoryWindow, List<Buffer>> boundTo = new HashMap<>();
    private final WorkCompletionBatch batch = new WorkCompletionBatch(32);
    private final boolean atomics;
    private final Set<WrOpcode> sessionOps = EnumSet.noneOf(WrOpcode.class);
    private final ProtectionDomain pd2;
    private CompletionQueue cqA;
    private CompletionQueue cqB;
    private QueuePair[] qps;
    private int refused;
    private int posted;
    private long completed;
    private long errorCompletions;

    private MisuseWalk(Testbed tb, long seed) {
        this.tb = tb;
        this.seed = seed;
        this.rnd = new SplittableRandom(seed);
        this.atomics = tb.caps().atomics() != org.verbs4j.AtomicCapability.NONE
                && tb.caps().supports(QpType.RC, WrOpcode.ATOMIC_FETCH_AND_ADD);
        if (tb.caps().wrSession()) {
            for (WrOpcode op : OPS) {
                if (tb.caps().supports(QpType.RC, op) && (atomics || !isAtomic(op))) {
                    sessionOps.add(op);
                }
            }
        }
        this.pd2 = tb.context().allocPd();
        this.cqA = tb.cq(1024);
        this.cqB = tb.cq(1024);
        this.qps = connect();
    }

    /**
     * Runs the walk on a testbed and releases what it created but the testbed's context.
     *
     * @param tb an open testbed; the walk uses its context
     * @param seed the seed of every random choice
     * @param steps how many calls to draw
     * @return what the walk did
     * @throws AssertionError naming the seed and step if a call threw an undocumented exception or a canary
     *     changed
     */
    static Result run(Testbed tb, long seed, int steps) {
        MisuseWalk w = new MisuseWalk(tb, seed);
        try {
            for (int step = 0; step < steps; step++) {
                w.step(step);
            }
            w.checkCanaries("at the end of the walk");
        } finally {
            w.release();
        }
        return new Result(steps, w.refused, w.posted, w.completed, w.errorCompletions);
    }

    private static boolean isAtomic(WrOpcode op) {
        return op == WrOpcode.ATOMIC_FETCH_AND_ADD || op == WrOpcode.ATOMIC_CMP_AND_SWP;
    }

    private void step(int step) {
        int action = rnd.nextInt(100);
        String what = "?";
        try {
            if (action < 7) {
                what = "register a buffer";
                addBuffer();
            } else if (action < 9 && !buffers.isEmpty()) {
                what = "close a region";
                Buffer b = buffers.get(rnd.nextInt(buffers.size()));
                forget(b.mr());
                b.mr().close();
            } else if (action < 12 && !buffers.isEmpty()) {
                what = "close an arena";
                closeArena(buffers.get(rnd.nextInt(buffers.size())));
            } else if (action < 45) {
                what = "postSend";
                qps[rnd.nextInt(2)].postSend(randomWr());
                posted++;
            } else if (action < 52) {
                what = "a WR session";
                session(qps[rnd.nextInt(2)]);
            } else if (action < 62) {
                what = "postRecv";
                qps[rnd.nextInt(2)].postRecv(new RecvWr().wrId(step).sgList(randomSge()));
            } else if (action < 80) {
                what = "poll";
                poll(rnd.nextBoolean() ? cqA : cqB);
            } else if (action < 83 && !tb.caps().memoryWindowTypes().isEmpty()) {
                what = "allocate a window";
                List<MwType> types = List.copyOf(tb.caps().memoryWindowTypes());
                windows.add(tb.pd().allocMw(types.get(rnd.nextInt(types.size()))));
            } else if (action < 86 && !windows.isEmpty() && !buffers.isEmpty()) {
                what = "bind a window";
                bind(step);
            } else if (action < 88 && !windows.isEmpty()) {
                what = "close a window";
                MemoryWindow mw = windows.remove(rnd.nextInt(windows.size()));
                boundTo.remove(mw);
                mw.close();
            } else if (action < 90) {
                what = "Sge.of";
                Sge.of(buffers.isEmpty() || rnd.nextInt(8) == 0 ? null : buffers.get(rnd.nextInt(buffers.size())).mr(),
                        rnd.nextLong(-8, Long.MAX_VALUE), rnd.nextInt(-1, 9000));
            } else if (action < 92) {
                what = "an SRQ";
                srq();
            } else if (action < 94) {
                what = "CQs and address handles";
                shortLived();
            } else if (action < 96) {
                what = "close a CQ in use";
                (rnd.nextBoolean() ? cqA : cqB).close();
            } else if (action < 98) {
                what = "move a QP to ERR";
                qps[rnd.nextInt(2)].modify(QpAttributes.toState(QpState.ERR));
            } else {
                what = "close the QPs";
                reconnect();
            }
        } catch (VerbsException | IllegalArgumentException | IllegalStateException | IndexOutOfBoundsException e) {
            refused++;
        } catch (NullPointerException e) {
            if (String.valueOf(e.getMessage()).startsWith("Cannot ")) {
                throw new AssertionError(where(step, what) + ": a NullPointerException from inside", e);
            }
            refused++;
        } catch (RuntimeException | Error e) {
            throw new AssertionError(where(step, what) + ": an undocumented " + e, e);
        }
        keepGoing(step, what);
    }

    private String where(int step, String what) {
        return "misuse walk with seed " + seed + " (verbs4j.tck.misuseSeed), step " + step + " (" + what + ")";
    }

    /** Replaces closed CQs and QPs in ERR, bounds the buffers kept, and checks the canaries now and then. */
    private void keepGoing(int step, String what) {
        try {
            if (cqA.isClosed() || cqB.isClosed()) {
                // A CQ closed under its QPs: the provider allowed it, so the QPs go too.
                closeQps();
                cqA = cqA.isClosed() ? tb.cq(1024) : cqA;
                cqB = cqB.isClosed() ? tb.cq(1024) : cqB;
                qps = connect();
            } else if (qps[0].isClosed() || qps[1].isClosed() || step % 8 == 0
                    && (qps[0].state() == QpState.ERR || qps[1].state() == QpState.ERR)) {
                reconnect();
            }
            while (buffers.size() > MAX_BUFFERS) {
                closeArena(buffers.get(0));
            }
        } catch (RuntimeException e) {
            throw new AssertionError(where(step, what) + ": restoring the QPs failed: " + e, e);
        }
        if (step % CANARY_CHECK_EVERY == 0) {
            checkCanaries("by step " + step + " (" + what + ")");
        }
    }

    private void checkCanaries(String when) {
        for (Buffer b : buffers) {
            b.checkCanaries(when);
        }
    }

    private QueuePair[] connect() {
        QueuePair a = tb.qp(QpType.RC, cqA, this::qpSizes);
        QueuePair b = tb.qp(QpType.RC, cqB, this::qpSizes);
        // RNR retry 0: a SEND without a receive fails the QP at once instead of retrying for ever.
        tb.bringUp(a, b.qpNum(), 0);
        tb.bringUp(b, a.qpNum(), 0);
        return new QueuePair[] {a, b};
    }

    private void qpSizes(org.verbs4j.QpInitAttributes.Builder b) {
        b.maxSendWr(64).maxRecvWr(64).maxSendSge(Math.min(2, tb.caps().maxSendSge()))
                .maxRecvSge(Math.min(2, tb.caps().maxRecvSge()))
                .maxInlineData(Math.min(64, tb.caps().maxInlineData())).sendOps(sessionOps);
    }

    private void reconnect() {
        closeQps();
        poll(cqA);
        poll(cqB);
        qps = connect();
    }

    /**
     * Closes both QPs, type 2 windows that either may have bound first: on rxe, destroying a QP that bound a
     * type 2 window still allocated takes about 50 s (the window holds the QP), which is teardown order, not
     * misuse the library can refuse.
     */
    private void closeQps() {
        for (MemoryWindow mw : List.copyOf(windows)) {
            if (mw.type() == MwType.TYPE_2 && boundTo.containsKey(mw)) {
                windows.remove(mw);
                boundTo.remove(mw);
                mw.close();
            }
        }
        for (QueuePair q : qps) {
            q.close();
        }
    }

    private void poll(CompletionQueue cq) {
        int n = cq.poll(batch);
        completed += n;
        for (int i = 0; i < n; i++) {
            if (batch.status(i) != WcStatus.SUCCESS) {
                errorCompletions++;
            }
        }
    }

    private void addBuffer() {
        Arena arena = rnd.nextBoolean() ? Arena.ofShared() : Arena.ofConfined();
        long size = 8L << rnd.nextInt(10);
        MemorySegment whole = arena.allocate(size + 2 * CANARY, 8);
        whole.fill(CANARY_BYTE);
        MemorySegment payload = whole.asSlice(CANARY, size);
        payload.fill((byte) 0);
        int access = rnd.nextInt(4) == 0 ? AccessFlags.LOCAL_WRITE : Testbed.ALL_ACCESS | AccessFlags.MW_BIND;
        ProtectionDomain pd = rnd.nextInt(6) == 0 ? pd2 : tb.pd();
        MemoryRegion mr;
        try {
            if (rnd.nextBoolean()) {
                // A careless plain registration: refused, since this arena may free the memory under the region.
                try {
                    pd.registerMemory(payload, access).close();
                    throw new AssertionError("a plain registration of memory from a closeable arena was accepted");
                } catch (IllegalArgumentException expected) {
                    refused++;
                }
            }
            mr = pd.registerMemory(payload, access, arena);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
        buffers.add(new Buffer(arena, whole, payload, mr, rnd.nextBoolean()));
    }

    /** Keeps a closing region's address and keys, to be used again as stale ones. */
    private void forget(MemoryRegion mr) {
        if (!mr.isClosed()) {
            stale.add(new Stale(mr.address(), mr.length(), mr.lkey(), mr.rkey()));
            if (stale.size() > 64) {
                stale.remove(0);
            }
        }
    }

    /**
     * Frees a buffer's memory: every region is registered with its arena, which may close at any time. For half
     * the buffers ({@code tidy}) the walk first closes the windows bound to it and the region; for the others
     * the arena's close deallocates those windows and deregisters the region itself.
     */
    private void closeArena(Buffer b) {
        b.checkCanaries("before its arena closed");
        List<MemoryWindow> bound = new ArrayList<>();
        for (MemoryWindow mw : List.copyOf(windows)) {
            if (boundTo.getOrDefault(mw, List.of()).contains(b)) {
                bound.add(mw);
                if (b.tidy()) {
                    mw.close();
                }
            }
        }
        forget(b.mr());
        if (b.tidy()) {
            b.mr().close();
        }
        buffers.remove(b);
        b.arena().close();
        if (!b.mr().isClosed()) {
            throw new AssertionError("a region outlived its arena");
        }
        for (MemoryWindow mw : bound) {
            if (mw.isClosed()) {  // tidy, or deallocated by the arena's close since it was still bound to the region
                windows.remove(mw);
                boundTo.remove(mw);
            }
        }
        freed.add(b.payload());
        if (freed.size() > 16) {
            freed.remove(0);
        }
    }

    private void bind(int step) {
        MemoryWindow mw = windows.get(rnd.nextInt(windows.size()));
        Buffer b = buffers.get(rnd.nextInt(buffers.size()));
        MemoryRegion mr = b.mr();
        long address = mr.address() + rnd.nextLong(-64, 4200);
        MwBindInfo info = new MwBindInfo(mr, address, rnd.nextLong(0, 4200),
                AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
        // Counted as bound before the call, and to every region it was ever bound to: a refused or failed rebind
        // may leave it on the old one, and closing a window early costs nothing.
        boundTo.computeIfAbsent(mw, k -> new ArrayList<>()).add(b);
        if (mw.type() == MwType.TYPE_1) {
            qps[0].bindMw(mw, step, SendFlags.SIGNALED, info);
        } else {
            int rkey = MemoryWindow.incRkey(mw.rkey());
            qps[0].postSend(new SendWr().wrId(step).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                    .bindMw(mw, rkey, info));
        }
    }

    private void srq() {
        if (!tb.caps().srq()) {
            return;
        }
        SharedReceiveQueue srq = tb.pd().createSrq(new SrqInitAttributes(16, 2, 0));
        try {
            for (int i = rnd.nextInt(4); i >= 0; i--) {
                srq.postRecv(new RecvWr().wrId(i).sgList(randomSge()));
            }
        } finally {
            srq.close();
        }
    }

    /** Objects created and closed at once, and used after close. */
    private void shortLived() {
        CompletionQueue cq = tb.cq(1 + rnd.nextInt(64));
        AddressHandle ah = tb.ah();
        ah.close();
        cq.close();
        if (rnd.nextBoolean()) {
            cq.poll(batch);
        } else {
            ah.pd();
        }
    }

    /** An address near a buffer's payload (inside, on a canary, past the end), of a stale region, or anywhere. */
    private long randomAddress() {
        int pick = rnd.nextInt(8);
        if (pick == 0 || buffers.isEmpty() && stale.isEmpty()) {
            return rnd.nextBoolean() ? 0L : rnd.nextLong();
        }
        if (pick == 1 && !stale.isEmpty()) {
            Stale s = stale.get(rnd.nextInt(stale.size()));
            return s.address() + rnd.nextLong(0, s.length());
        }
        if (buffers.isEmpty()) {
            return rnd.nextLong();
        }
        Buffer b = buffers.get(rnd.nextInt(buffers.size()));
        return b.payload().address() + rnd.nextLong(-CANARY, b.payload().byteSize() + CANARY);
    }

    private int randomKey(boolean remote) {
        int pick = rnd.nextInt(8);
        if (pick == 0 || buffers.isEmpty() && stale.isEmpty()) {
            return rnd.nextInt();
        }
        if (pick == 1 && !stale.isEmpty()) {
            Stale s = stale.get(rnd.nextInt(stale.size()));
            return remote ? s.rkey() : s.lkey();
        }
        if (buffers.isEmpty()) {
            return rnd.nextInt();
        }
        MemoryRegion mr = buffers.get(rnd.nextInt(buffers.size())).mr();
        return remote ? mr.rkey() : mr.lkey();
    }

    private Sge randomSge() {
        if (!buffers.isEmpty() && rnd.nextInt(4) != 0) {
            // Mostly valid, so that work executes and the QPs stay up between the bad WRs.
            Buffer b = buffers.get(rnd.nextInt(buffers.size()));
            int len = (int) Math.min(b.payload().byteSize(), rnd.nextInt(1, 64));
            return Sge.of(b.mr(), rnd.nextLong(0, b.payload().byteSize() - len + 1), len);
        }
        return new Sge(randomAddress(), rnd.nextInt(0, 80), randomKey(false));
    }

    /**
     * Inline data for a session: a slice of a live payload, a heap array, or a payload whose arena is closed (the
     * setter must refuse it). Never a segment made up from an address: one the caller vouched for with
     * {@code reinterpret} is the caller's to keep valid.
     */
    private MemorySegment inlineSource() {
        int pick = rnd.nextInt(4);
        if (pick == 0 && !freed.isEmpty()) {
            return freed.get(rnd.nextInt(freed.size()));
        }
        if (pick == 1 || buffers.isEmpty()) {
            return MemorySegment.ofArray(new byte[rnd.nextInt(0, 80)]);
        }
        MemorySegment p = buffers.get(rnd.nextInt(buffers.size())).payload();
        long len = rnd.nextLong(0, Math.min(80, p.byteSize()) + 1);
        return p.asSlice(rnd.nextLong(0, p.byteSize() - len + 1), len);
    }

    private Sge[] randomSges() {
        return rnd.nextInt(4) == 0 ? new Sge[] {randomSge(), randomSge()} : new Sge[] {randomSge()};
    }

    /** A remote address and rkey: mostly inside a live region, otherwise near one, stale or random. */
    private long[] randomTarget() {
        if (!buffers.isEmpty() && rnd.nextInt(4) != 0) {
            MemoryRegion mr = buffers.get(rnd.nextInt(buffers.size())).mr();
            return new long[] {mr.address() + rnd.nextLong(0, Math.max(1, mr.length() - 80)), mr.rkey()};
        }
        return new long[] {randomAddress(), randomKey(true)};
    }

    private SendWr randomWr() {
        WrOpcode op = OPS[rnd.nextInt(OPS.length)];
        int flags = SendFlags.SIGNALED | (rnd.nextInt(3) == 0 ? SendFlags.INLINE : 0);
        SendWr wr = new SendWr().wrId(rnd.nextLong()).opcode(op).sendFlags(flags).immData(7).sgList(randomSges());
        long[] target = randomTarget();
        if (isAtomic(op)) {
            wr.atomic(target[0] & ~7L, 1, 2, (int) target[1]);
        } else {
            wr.rdma(target[0], (int) target[1]);
        }
        return wr;
    }

    /** One WR session: a few random WRs, then complete, abort, or a close of the QP with the session open. */
    private void session(QueuePair qp) {
        if (sessionOps.isEmpty()) {
            return;
        }
        List<WrOpcode> ops = List.copyOf(sessionOps);
        WrSession s = qp.startWr();
        try {
            for (int i = rnd.nextInt(1, 4); i > 0; i--) {
                s.wrId(rnd.nextLong());
                s.wrFlags(rnd.nextInt(16) == 0 ? rnd.nextInt() : SendFlags.SIGNALED);
                long[] t = randomTarget();
                int rkey = (int) t[1];
                WrOpcode op = ops.get(rnd.nextInt(ops.size()));
                switch (op) {
                    case RDMA_WRITE -> s.rdmaWrite(rkey, t[0]);
                    case RDMA_READ -> s.rdmaRead(rkey, t[0]);
                    case ATOMIC_FETCH_AND_ADD -> s.atomicFetchAdd(rkey, t[0] & ~7L, 1);
                    case ATOMIC_CMP_AND_SWP -> s.atomicCmpSwp(rkey, t[0] & ~7L, 0, 1);
                    case SEND_WITH_IMM -> s.sendImm(7);
                    default -> s.send();
                }
                if (rnd.nextInt(4) == 0 && (op == WrOpcode.SEND || op == WrOpcode.RDMA_WRITE)) {
                    s.setInlineData(inlineSource());
                } else {
                    Sge[] sges = randomSges();
                    s.setSgeList(sges, sges.length);
                }
            }
            int end = rnd.nextInt(8);
            if (end == 0) {
                s.abort();
            } else if (end == 1) {
                closeQps();
            } else {
                s.complete();
                posted++;
            }
        } finally {
            if (s.isActive() && !qp.isClosed()) {
                s.abort();
            }
        }
    }

    /** Closes what the walk created outside the testbed's own objects, then frees every arena it made. */
    private void release() {
        try {
            for (MemoryWindow mw : windows) {
                mw.close();
            }
            for (QueuePair q : qps) {
                q.close();
            }
            for (Buffer b : buffers) {
                b.mr().close();
            }
            pd2.close();
        } finally {
            for (Buffer b : buffers) {
                if (b.whole().scope().isAlive()) {
                    b.arena().close();
                }
            }
        }
    }
}
