package org.verbs4j.tools.perf;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.verbs4j.WrOpcode;

/** The measuring loops, shared by loopback and two-process runs. */
final class PerfLoops {
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    private static final double MB = 1024.0 * 1024.0;
    /** Peak bandwidth is the best over this many equal parts of the run. */
    private static final int PEAK_WINDOWS = 16;
    private PerfLoops() {}

    /**
     * Posts the client's WRs to the remote buffers, keeping up to the tx depth outstanding per QP, round robin
     * over the QPs, until the iterations are done or the duration is over.
     *
     * @param receiver the server's receives, in loopback send tests; null otherwise
     */
    static BandwidthRow bandwidth(Endpoint client, PeerInfo[] remotes, Receiver receiver, Stall stall) {
        PerfSettings s = client.settings;
        if (s.warmUp()) {
            warmUp(client, remotes, receiver, stall);
        }
        return bandwidth(client, remotes, receiver, stall, s.timed() ? Long.MAX_VALUE : s.iterations(), s.timed());
    }

    /** WRs posted between two polls of the send CQ while the queues have room (perftest polls after every post). */
    static final int POLL_EVERY = 16;

    /**
     * {@code --perform_warm_up}: untimed chunks on the same QPs until {@link WarmUp} finds the rate steady, so the
     * JIT, the caches and the device's first touches of the buffers are not measured as the size's bandwidth.
     */
    static void warmUp(Endpoint client, PeerInfo[] remotes, Receiver receiver, Stall stall) {
        WarmUp w = new WarmUp();
        boolean over;
        do {
            long t0 = System.nanoTime();
            BandwidthRow chunk = bandwidth(client, remotes, receiver, stall, w.chunk(), false);
            over = w.record(Math.max(1, chunk.iterations()), Math.max(1, System.nanoTime() - t0));
        } while (!over);
    }

    private static BandwidthRow bandwidth(Endpoint client, PeerInfo[] remotes, Receiver receiver, Stall stall,
                                          long perQp, boolean timed) {
        PerfSettings s = client.settings;
        int nq = s.qps();
        SendTracker tx = new SendTracker(client, stall);
        Poster[] posters = new Poster[nq];
        for (int q = 0; q < nq; q++) {
            posters[q] = Poster.create(client, q, remotes[q], s.size());
            posters[q].lastSeq = perQp - 1;
        }
        long[] lastSignaled = new long[nq];
        LongList times = new LongList();
        LongList counts = new LongList();
        long t0 = System.nanoTime();
        times.add(t0);
        counts.add(0);
        long deadline = t0 + s.durationSeconds() * 1_000_000_000L;
        boolean stopped = false;
        int sincePoll = 0;
        while (true) {
            boolean posted = false;
            if (!stopped) {
                for (int q = 0; q < nq; q++) {
                    long remaining = perQp - tx.posted[q];
                    if (remaining == 0) {
                        continue;
                    }
                    int n = (int) Math.min(s.postList(), remaining);
                    if (!tx.hasRoom(q, n) || (receiver != null && !receiver.take(q, n))) {
                        continue;
                    }
                    posters[q].post(tx.posted[q], n);
                    for (long seq = tx.posted[q]; seq < tx.posted[q] + n; seq++) {
                        if (posters[q].signaled(seq)) {
                            lastSignaled[q] = seq + 1;
                        }
                    }
                    tx.posted[q] += n;
                    sincePoll += n;
                    posted = true;
                }
            }
            // Poll once per POLL_EVERY WRs while the send queues have room, and whenever nothing could be posted:
            // an empty poll after every single WR cost a third of the rate at one WR per post (benchmarks/perf-vs-jmh).
            if (!posted || sincePoll >= POLL_EVERY) {
                sincePoll = 0;
                if (tx.poll() > 0) {
                    times.add(System.nanoTime());
                    counts.add(sum(tx.completed));
                } else if (!posted) {
                    stall.check("send completions");
                }
            }
            if (receiver != null) {
                receiver.service();
            }
            if (timed && !stopped && System.nanoTime() >= deadline) {
                // A timed run stops posting and waits for its last signaled WR; the unsignaled tail is not counted.
                stopped = true;
            }
            if (done(nq, timed, tx, perQp, stopped, lastSignaled)) {
                break;
            }
        }
        long count = sum(tx.completed);
        // At least a nanosecond: a zero-length interval would make the figures infinite or NaN.
        double seconds = Math.max(1, times.last() - t0) / 1e9;
        double avg = count * (double) s.size() / seconds / MB;
        return new BandwidthRow(s.size(), count, Math.max(avg, peak(s.size(), times, counts)), avg,
                count / seconds / 1e6);
    }

    private static boolean done(int nq, boolean timed, SendTracker tx, long perQp, boolean stopped,
                                long[] lastSignaled) {
        for (int q = 0; q < nq; q++) {
            long target = timed ? lastSignaled[q] : perQp;
            if ((timed && !stopped) || tx.completed[q] < target) {
                return false;
            }
        }
        return true;
    }

    /**
     * The best bandwidth over any stretch of at least a sixteenth of the run's time, MB/s. Completions are polled
     * in bursts, so a window of a few samples would report the burst, not the device.
     */
    private static double peak(int size, LongList times, LongList counts) {
        int samples = times.size();
        long minSpan = Math.max(1, (times.last() - times.get(0)) / PEAK_WINDOWS);
        double best = 0;
        int k = 0;
        for (int j = 0; j < samples; j++) {
            k = Math.max(k, j + 1);
            while (k < samples && times.get(k) - times.get(j) < minSpan) {
                k++;
            }
            if (k == samples) {
                break;
            }
            long dt = times.get(k) - times.get(j);
            best = Math.max(best, (counts.get(k) - counts.get(j)) * (double) size / (dt / 1e9) / MB);
        }
        return best;
    }

    private static long sum(long[] a) {
        long t = 0;
        for (long v : a) {
            t += v;
        }
        return t;
    }

    /**
     * The tag of iteration {@code i}, as perftest's {@code run_iter_lat_write} writes it: the iteration counted
     * from 1, in a byte. It is never the previous iteration's, and the first is not 0 (a fresh buffer).
     */
    static byte tag(long i) {
        return (byte) (i + 1);
    }

    /** Puts the tag in the last byte of the outgoing message and writes the message to the peer. */
    static void writePing(Endpoint e, Poster poster, long seq, byte tag) {
        BYTE.setVolatile(e.buffer, e.slotOffset(0) + e.settings.size() - 1, tag);
        poster.post(seq, 1);
    }

    /** Spins until the peer's RDMA WRITE has put the tag in the last byte of the incoming message. */
    static void awaitTag(Endpoint e, byte tag, Stall stall, SendTracker writerTx) {
        long offset = e.slotOffset(0) + e.inOffset + e.settings.size() - 1;
        int spins = 0;
        while ((byte) BYTE.getVolatile(e.buffer, offset) != tag) {
            // Retire completions meanwhile, for providers that make progress when polled.
            if ((++spins & 0x3f) == 0 && writerTx != null) {
                writerTx.poll();
            }
            stall.check("an RDMA WRITE to land in " + e.ctx.device().name() + "'s buffer");
        }
    }

    /** READ and atomics: one operation, timed to its completion (every WR of these tests is signaled). */
    static void oneOperation(Poster poster, SendTracker tx, long seq) {
        poster.post(seq, 1);
        tx.awaitCompleted(0, seq + 1);
    }

    static LatencyRow latencyRow(PerfSettings s, LongList samples) {
        long[] all = samples.toArray();
        WrOpcode op = s.test().opcode();
        return LatencyRow.of(s.size(), all, all.length, op == WrOpcode.RDMA_WRITE || op == WrOpcode.SEND);
    }
}
