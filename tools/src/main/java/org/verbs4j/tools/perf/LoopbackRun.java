package org.verbs4j.tools.perf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import org.verbs4j.Device;
import org.verbs4j.Mtu;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;

/**
 * One message size of a test with both ends in this JVM, driven by one thread as perftest drives each of its two
 * processes: a client endpoint that posts and a server endpoint that receives, echoes or is the passive target.
 */
final class LoopbackRun {
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    private static final double MB = 1024.0 * 1024.0;
    /** Peak bandwidth is the best over this many equal parts of the run. */
    private static final int PEAK_WINDOWS = 16;

    private final PerfSettings s;
    private final Device device;
    private final long stallNanos;

    LoopbackRun(PerfSettings settings, Device device, long stallNanos) {
        this.s = settings;
        this.device = device;
        this.stallNanos = stallNanos;
    }

    PerfRow run() {
        try (Arena arena = Arena.ofShared();
             Endpoint client = Endpoint.open(device, s, arena);
             Endpoint server = Endpoint.open(device, s, arena)) {
            Mtu mtu = client.mtu().bytes() <= server.mtu().bytes() ? client.mtu() : server.mtu();
            for (int q = 0; q < s.qps(); q++) {
                client.connect(q, server.info(q), mtu);
                server.connect(q, client.info(q), mtu);
            }
            return s.test().kind() == PerfTest.Kind.BANDWIDTH ? bandwidth(client, server) : latency(client, server);
        }
    }

    // ---- bandwidth ----

    private PerfRow bandwidth(Endpoint client, Endpoint server) {
        int nq = s.qps();
        Stall stall = new Stall(stallNanos);
        SendTracker tx = new SendTracker(client, stall);
        Poster[] posters = new Poster[nq];
        long perQp = s.timed() ? Long.MAX_VALUE : s.iterations();
        for (int q = 0; q < nq; q++) {
            posters[q] = Poster.create(client, q, server.info(q), s.size());
            posters[q].lastSeq = perQp - 1;
        }
        Receiver receiver = s.test().usesReceives() ? new Receiver(server, stall) : null;
        long[] lastSignaled = new long[nq];
        LongList times = new LongList();
        LongList counts = new LongList();
        long t0 = System.nanoTime();
        times.add(t0);
        counts.add(0);
        long deadline = t0 + s.durationSeconds() * 1_000_000_000L;
        boolean stopped = false;
        while (true) {
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
                }
            }
            if (tx.poll() > 0) {
                times.add(System.nanoTime());
                counts.add(sum(tx.completed));
            } else {
                stall.check("send completions");
            }
            if (receiver != null) {
                receiver.service();
            }
            if (s.timed() && !stopped && System.nanoTime() >= deadline) {
                stopped = true;
            }
            if (done(tx, perQp, stopped, lastSignaled)) {
                break;
            }
        }
        long count = sum(tx.completed);
        double seconds = (times.last() - t0) / 1e9;
        double avg = count * (double) s.size() / seconds / MB;
        return new BandwidthRow(s.size(), count, Math.max(avg, peak(times, counts)), avg, count / seconds / 1e6);
    }

    private boolean done(SendTracker tx, long perQp, boolean stopped, long[] lastSignaled) {
        for (int q = 0; q < s.qps(); q++) {
            long target = s.timed() ? lastSignaled[q] : perQp;
            if ((s.timed() && !stopped) || tx.completed[q] < target) {
                return false;
            }
        }
        return true;
    }

    private double peak(LongList times, LongList counts) {
        int samples = times.size();
        int w = Math.max(1, (samples - 1) / PEAK_WINDOWS);
        double best = 0;
        for (int j = 0; j + w < samples; j++) {
            long dt = times.get(j + w) - times.get(j);
            if (dt > 0) {
                best = Math.max(best, (counts.get(j + w) - counts.get(j)) * (double) s.size() / (dt / 1e9) / MB);
            }
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

    /** The server side of a send test: keeps receives posted and tells the client how many are free. */
    private static final class Receiver {
        private final Endpoint server;
        private final Stall stall;
        private final WorkCompletionBatch batch = new WorkCompletionBatch(64);
        /** Per QP: receives posted and not yet matched by a send the client posted. */
        private final long[] credits;

        Receiver(Endpoint server, Stall stall) {
            this.server = server;
            this.stall = stall;
            this.credits = new long[server.qps.length];
            for (int q = 0; q < credits.length; q++) {
                for (int i = 0; i < server.settings.rxDepth(); i++) {
                    server.postRecv(q);
                }
                credits[q] = server.settings.rxDepth();
            }
        }

        /** Reserves receives for {@code n} sends on QP {@code q}, so no send meets an empty receive queue. */
        boolean take(int q, int n) {
            if (credits[q] < n) {
                service();
            }
            if (credits[q] < n) {
                return false;
            }
            credits[q] -= n;
            return true;
        }

        /** Polls the receive CQ once and reposts a receive for each completion. */
        int service() {
            int n = server.recvCq.poll(batch);
            for (int i = 0; i < n; i++) {
                if (batch.status(i) != WcStatus.SUCCESS) {
                    throw new PerfFailure("a receive on QP " + batch.qpNum(i) + " completed with " + batch.status(i));
                }
                int q = (int) batch.wrId(i);
                server.postRecv(q);
                credits[q]++;
            }
            if (n > 0) {
                stall.progress();
            }
            return n;
        }

        /** Polls until one receive completes on QP {@code q}, and reposts it. */
        void awaitOne(String what) {
            while (service() == 0) {
                stall.check(what);
            }
        }
    }

    // ---- latency ----

    private PerfRow latency(Endpoint client, Endpoint server) {
        Stall stall = new Stall(stallNanos);
        SendTracker clientTx = new SendTracker(client, stall);
        SendTracker serverTx = new SendTracker(server, stall);
        Poster ping = Poster.create(client, 0, server.info(0), s.size());
        Poster pong = Poster.create(server, 0, client.info(0), s.size());
        long n = s.timed() ? Long.MAX_VALUE : s.iterations();
        ping.lastSeq = n - 1;
        pong.lastSeq = n - 1;
        LongList samples = new LongList();
        long deadline = System.nanoTime() + s.durationSeconds() * 1_000_000_000L;
        WrOpcode op = s.test().opcode();
        Receiver clientRx = null;
        Receiver serverRx = null;
        if (op == WrOpcode.SEND) {
            clientRx = new Receiver(client, stall);
            serverRx = new Receiver(server, stall);
        }
        long tagAt = s.size() - 1;
        for (long i = 0; i < n; i++) {
            if (s.timed() && System.nanoTime() >= deadline) {
                break;
            }
            byte tag = (byte) (i % 254 + 1);
            clientTx.awaitRoom(0, 1);
            serverTx.awaitRoom(0, 1);
            long t0;
            switch (op) {
                case RDMA_WRITE -> {
                    // Ping-pong through memory, as ib_write_lat: each side waits for the last byte of the message.
                    BYTE.setVolatile(client.buffer, client.slotOffset(0) + tagAt, tag);
                    t0 = System.nanoTime();
                    ping.post(i, 1);
                    awaitByte(server, tagAt, tag, stall, clientTx);
                    BYTE.setVolatile(server.buffer, server.slotOffset(0) + tagAt, tag);
                    pong.post(i, 1);
                    awaitByte(client, tagAt, tag, stall, serverTx);
                }
                case SEND -> {
                    t0 = System.nanoTime();
                    ping.post(i, 1);
                    serverRx.awaitOne("the ping's receive");
                    pong.post(i, 1);
                    clientRx.awaitOne("the pong's receive");
                }
                default -> {
                    // READ and atomics: one operation, timed to its completion (every WR is signaled).
                    t0 = System.nanoTime();
                    ping.post(i, 1);
                    clientTx.awaitCompleted(0, i + 1);
                }
            }
            samples.add(System.nanoTime() - t0);
            clientTx.poll();
            serverTx.poll();
            stall.progress();
        }
        long[] all = samples.toArray();
        return LatencyRow.of(s.size(), all, all.length, op == WrOpcode.RDMA_WRITE || op == WrOpcode.SEND);
    }

    private static void awaitByte(Endpoint e, long tagAt, byte tag, Stall stall, SendTracker writerTx) {
        MemorySegment buf = e.buffer;
        long offset = e.slotOffset(0) + e.inOffset + tagAt;
        int spins = 0;
        while ((byte) BYTE.getVolatile(buf, offset) != tag) {
            // Retire the writer's completions meanwhile, for providers that make progress when polled.
            if ((++spins & 0x3f) == 0) {
                writerTx.poll();
            }
            stall.check("an RDMA WRITE to land in " + e.ctx.device().name() + "'s buffer");
        }
    }

    /** A growable list of longs, so timing samples are not boxed. */
    static final class LongList {
        private long[] a = new long[1024];
        private int n;

        void add(long v) {
            if (n == a.length) {
                a = Arrays.copyOf(a, n * 2);
            }
            a[n++] = v;
        }

        long get(int i) {
            return a[i];
        }

        long last() {
            return a[n - 1];
        }

        int size() {
            return n;
        }

        long[] toArray() {
            return Arrays.copyOf(a, n);
        }
    }
}
