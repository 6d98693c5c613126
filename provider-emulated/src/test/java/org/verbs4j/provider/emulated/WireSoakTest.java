package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.verbs4j.CompletionQueue;
import org.verbs4j.QpState;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.emulated.verbs.EmulatedQueuePair;
import org.verbs4j.provider.emulated.wire.WireTransport;

/**
 * A seeded random soak over the {@link FaultyWire} harness (issue 27): several RC QPs between roce0 and roce1
 * run a mixed stream of WRITEs, READs, fetch-adds and compare-and-swaps of 1 B to 1 MiB through random loss,
 * duplication, reordering and jitter. Every WR that completes SUCCESS has its bytes and atomic results; a QP that
 * fails does so with RETRY_EXC_ERR (then flushes) inside its retry budget; no QP goes longer than that budget
 * without a completion (the progress watchdog). It runs {@value #SHORT_MS} ms per loss rate in the build;
 * {@code -Dverbs4j.test.soak.ms=N} runs it N ms, and {@code -Dverbs4j.test.soak.seed=S} replays seed S (printed).
 * The seed fixes the workload and the harness's fault stream; the threads' interleaving is the machine's.
 *
 * <p>The cost of loss is bounded on a fixed workload: {@value #BOUND_WRS} WRs a QP of the same mix, run clean and
 * then at 1% loss, send at most twice the clean run's packets.
 */
@Tag("wire")
class WireSoakTest {
    static final long SHORT_MS = 1500;
    static final int TIMEOUT = 15;
    static final int RETRY = 7;
    static final int QPS = 3;
    static final int DEPTH = 4;
    static final long SLOT = 1 << 20;
    static final long ATOMIC_AT = QPS * DEPTH * SLOT;
    /** WRs a QP posts in the loss-cost bound's workload. */
    static final int BOUND_WRS = 100;
    /** WRs in flight a QP (and its {@code max_rd_atomic}) in the loss-cost bound's workload. */
    static final int BOUND_DEPTH = 16;

    @Test
    void onePercentLossCostsAtMostTwiceTheCleanPackets() {
        long seed = Long.getLong("verbs4j.test.soak.seed", 27L);
        long[] clean = workload(seed, 0);
        long[] lossy = workload(seed, 0.01);
        double ratio = (double) lossy[0] / clean[0];
        System.out.printf("wire loss cost: seed %d, %d WRs: %d packets clean, %d at 1%% loss (%d lost): %.2f x%n",
                seed, QPS * BOUND_WRS, clean[0], lossy[0], lossy[2], ratio);
        assertEquals(QPS * BOUND_WRS, clean[1], "clean: every WR completes SUCCESS with its bytes");
        assertEquals(QPS * BOUND_WRS, lossy[1], "at 1% loss: every WR completes SUCCESS with its bytes");
        assertTrue(lossy[0] <= 2 * clean[0], "at 1% loss, " + lossy[0] + " packets for " + clean[0] + " clean ("
                + String.format("%.2f", ratio) + " x), more than twice");
    }

    /** {@link #BOUND_WRS} WRs a QP of the seeded mix at {@code loss}: {packets sent, WRs SUCCESS, packets lost}. */
    private static long[] workload(long seed, double loss) {
        try (WireLink link = new WireLink((SLOT + 8) * QPS * BOUND_DEPTH + 64)) {
            Random r = new Random(seed);
            link.wire.random(r.nextLong(), loss, 0, 0, 0);
            Flow[] flows = new Flow[QPS];
            for (int i = 0; i < QPS; i++) {
                CompletionQueue cq = link.ctxA.createCq(64);
                flows[i] = new Flow(link, i, BOUND_DEPTH, cq, link.rc(TIMEOUT, RETRY, BOUND_DEPTH, BOUND_DEPTH, cq,
                        link.ctxB.createCq(64)), new Random(r.nextLong()));
                flows[i].limit = BOUND_WRS;
            }
            long budgetMs = WireLink.timeoutMs(TIMEOUT) * (RETRY + 1) + 2_000;
            boolean busy = true;
            while (busy) {
                busy = false;
                for (Flow f : flows) {
                    busy |= f.step(true, budgetMs) || !f.failed && f.next < f.limit;
                }
            }
            long ok = 0;
            for (Flow f : flows) {
                ok += f.succeeded;
            }
            return new long[] {link.wire.sentTotal(), ok, link.wire.faultedTotal()};
        }
    }

    @ParameterizedTest(name = "loss {0}, duplication {1}, reordering {2}, jitter {3} ms")
    @CsvSource({"0.01, 0.01, 0.02, 2", "0.10, 0.02, 0.05, 2", "0.30, 0.02, 0.05, 2"})
    void mixedTrafficCompletesOrFailsWithinItsBudget(double loss, double dup, double reorder, long jitter) {
        long ms = Long.getLong("verbs4j.test.soak.ms", SHORT_MS);
        long seed = Long.getLong("verbs4j.test.soak.seed", 27L) + (long) (loss * 1000);
        System.out.printf("wire soak: loss %.2f, seed %d (replay: -Dverbs4j.test.soak.seed=%d), %d ms%n", loss, seed,
                seed - (long) (loss * 1000), ms);
        try (WireLink link = new WireLink(ATOMIC_AT + QPS * DEPTH * 8 + 64)) {
            Random r = new Random(seed);
            link.wire.random(r.nextLong(), loss, dup, reorder, jitter);
            Flow[] flows = new Flow[QPS];
            for (int i = 0; i < QPS; i++) {
                CompletionQueue cq = link.ctxA.createCq(64);
                flows[i] = new Flow(link, i, DEPTH, cq, link.rc(TIMEOUT, RETRY, DEPTH, DEPTH, cq,
                        link.ctxB.createCq(64)), new Random(r.nextLong()));
            }
            long budgetMs = WireLink.timeoutMs(TIMEOUT) * (RETRY + 1) + 2_000;
            long end = System.nanoTime() + ms * 1_000_000L;
            boolean posting = true;
            while (true) {
                posting &= System.nanoTime() < end;
                boolean busy = false;
                for (Flow f : flows) {
                    busy |= f.step(posting, budgetMs);
                }
                if (!posting && !busy) {
                    break;
                }
            }
            long ok = 0;
            long failed = 0;
            long clean = 0;
            for (Flow f : flows) {
                ok += f.succeeded;
                clean += f.cleanPackets;
                failed += f.failed ? 1 : 0;
            }
            System.out.printf("wire soak: loss %.2f: %d WRs SUCCESS, %d of %d QPs failed with RETRY_EXC_ERR; %d packets"
                    + " sent for %d clean (%.2f x), %d faulted%n", loss, ok, failed, QPS, link.wire.sentTotal(), clean,
                    (double) link.wire.sentTotal() / Math.max(1, clean), link.wire.faultedTotal());
            if (loss <= 0.01) {
                assertEquals(0, failed, "at 1% loss every QP completes");
            }
            assertTrue(ok > 0 || loss > 0.1, "some WRs completed");
        }
    }

    /** One QP's stream: its WRs in flight (oldest first) and their checks. */
    private static final class Flow {
        final WireLink link;
        final int index;
        final int depth;
        /** Where the atomics' 8-byte slots start: after every QP's data slots. */
        final long atomicBase;
        final CompletionQueue cq;
        final QueuePair qp;
        final Random r;
        final ArrayDeque<long[]> inFlight = new ArrayDeque<>();
        final List<Integer> freeSlots = new ArrayList<>();
        long next;
        /** The most WRs this stream posts. */
        long limit = Long.MAX_VALUE;
        long succeeded;
        long cleanPackets;
        boolean failed;
        boolean flushing;
        long lastCompletion = System.nanoTime();
        long lastProgress;
        final org.verbs4j.WorkCompletionBatch wc = new org.verbs4j.WorkCompletionBatch(16);

        Flow(WireLink link, int index, int depth, CompletionQueue cq, QueuePair[] pair, Random r) {
            this.link = link;
            this.index = index;
            this.depth = depth;
            this.atomicBase = QPS * depth * SLOT;
            this.cq = cq;
            this.qp = pair[0];
            this.r = r;
            for (int s = 0; s < depth; s++) {
                freeSlots.add(s);
            }
        }

        /** Polls, checks, and posts; returns whether WRs are still outstanding. */
        boolean step(boolean posting, long budgetMs) {
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                long[] w = inFlight.poll();
                if (w == null) {
                    fail("QP " + index + ": a completion for no outstanding WR (" + wc.wrId(i) + ")");
                }
                assertEquals(w[0], wc.wrId(i), "QP " + index + ": completions in order");
                WcStatus st = wc.status(i);
                if (failed) {
                    assertEquals(WcStatus.WR_FLUSH_ERR, st, "QP " + index + ": after the failure");
                } else if (st == WcStatus.SUCCESS) {
                    check(w);
                    succeeded++;
                } else {
                    assertEquals(WcStatus.RETRY_EXC_ERR, st, "QP " + index + ": the only error a lossy wire may cause");
                    failed = true;
                }
                freeSlots.add((int) w[1]);
                lastCompletion = System.nanoTime();
            }
            if (failed) {
                assertEquals(QpState.ERR, qp.state());
            }
            long progress = ((WireTransport) ((EmulatedQueuePair) qp).transport()).retransmissions()[2];
            if (progress != lastProgress) {
                lastProgress = progress;
                lastCompletion = System.nanoTime();
            }
            if (!inFlight.isEmpty() && (System.nanoTime() - lastCompletion) / 1_000_000 > budgetMs) {
                fail("watchdog: QP " + index + " in " + qp.state() + " with " + inFlight.size()
                        + " WRs outstanding and no completion or acknowledgement for " + budgetMs + " ms");
            }
            while (posting && !failed && !freeSlots.isEmpty() && next < limit) {
                post(freeSlots.remove(freeSlots.size() - 1));
            }
            if (inFlight.isEmpty()) {
                lastCompletion = System.nanoTime();
            }
            return !inFlight.isEmpty();
        }

        private void post(int slot) {
            long id = next++;
            int kind = r.nextInt(4);
            // 1 B to 1 MiB, log-uniform.
            int len = (int) Math.min(SLOT, Math.max(1, Math.round(Math.pow(2, r.nextDouble() * 20))));
            long at = ((long) index * depth + slot) * SLOT;
            long atomicAt = atomicBase + 8L * (index * depth + slot);
            long seed = r.nextLong();
            SendWr w = new SendWr().wrId(id).sendFlags(SendFlags.SIGNALED);
            int packets = (len + WireLink.MTU - 1) / WireLink.MTU;
            switch (kind) {
                case 0 -> {
                    fill(link.bufA, at, len, seed);
                    w.opcode(WrOpcode.RDMA_WRITE).rdma(link.mrB.address() + at, link.mrB.rkey())
                            .sgList(Sge.of(link.mrA, at, len));
                    cleanPackets += 2L * packets;
                }
                case 1 -> {
                    fill(link.bufB, at, len, seed);
                    w.opcode(WrOpcode.RDMA_READ).rdma(link.mrB.address() + at, link.mrB.rkey())
                            .sgList(Sge.of(link.mrA, at, len));
                    cleanPackets += 1L + packets;
                }
                case 2 -> {
                    link.bufB.set(ValueLayout.JAVA_LONG, atomicAt, seed);
                    w.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).atomic(link.mrB.address() + atomicAt, 5, 0, link.mrB.rkey())
                            .sgList(Sge.of(link.mrA, at, 8));
                    len = 8;
                    cleanPackets += 2;
                }
                default -> {
                    link.bufB.set(ValueLayout.JAVA_LONG, atomicAt, seed);
                    w.opcode(WrOpcode.ATOMIC_CMP_AND_SWP).atomic(link.mrB.address() + atomicAt, seed, ~seed,
                            link.mrB.rkey()).sgList(Sge.of(link.mrA, at, 8));
                    len = 8;
                    cleanPackets += 2;
                }
            }
            qp.postSend(w);
            inFlight.add(new long[] {id, slot, kind, len, at, atomicAt, seed});
        }

        private void check(long[] w) {
            int kind = (int) w[2];
            int len = (int) w[3];
            long at = w[4];
            long atomicAt = w[5];
            long seed = w[6];
            String what = "QP " + index + " WR " + w[0] + " kind " + kind + " len " + len;
            switch (kind) {
                case 0, 1 -> assertEquals(-1, link.bufA.asSlice(at, len).mismatch(link.bufB.asSlice(at, len)), what);
                case 2 -> {
                    assertEquals(seed, link.bufA.get(ValueLayout.JAVA_LONG, at), what + ": fetched");
                    assertEquals(seed + 5, link.bufB.get(ValueLayout.JAVA_LONG, atomicAt), what + ": added once");
                }
                default -> {
                    assertEquals(seed, link.bufA.get(ValueLayout.JAVA_LONG, at), what + ": compared");
                    assertEquals(~seed, link.bufB.get(ValueLayout.JAVA_LONG, atomicAt), what + ": swapped");
                }
            }
        }

        private static void fill(MemorySegment s, long at, int len, long seed) {
            Random f = new Random(seed);
            byte[] b = new byte[len];
            f.nextBytes(b);
            MemorySegment.copy(MemorySegment.ofArray(b), 0, s, at, len);
        }
    }
}
