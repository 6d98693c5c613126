package org.verbs4j.benchmarks;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;

import org.verbs4j.CompletionQueue;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrSession;

/**
 * The emulator's rows of {@code benchmarks/run --nullverbs} ({@link MessageRateBenchmark}'s 64 B WRITE rate and
 * {@link BandwidthBenchmark}'s 1 MiB WRITE against {@link MemorySegment#copy}, with 1 and 2 threads) in plain loops,
 * divided by CPU time instead of the wall clock, so that a shared, loaded machine still gives what the code costs
 * when it has a core. JMH's wall-clock scores stay the reference.
 *
 * <p><b>What is counted.</b> The CPU time of every Java thread of the JVM, summed, over each iteration
 * ({@code ThreadMXBean.getThreadCpuTime} of all live threads): the posting threads and any thread of the emulator
 * that works for them. The in-JVM emulator executes WRs on the posting thread, inside {@code complete()} and
 * {@code postSend}, so today that is the posting threads; its RNR timer thread is counted too, and so would be a
 * wire device's receive thread. The JVM's own threads (JIT compilers, GC) are not Java threads and are not counted.
 * Each entry also gives {@code worker_share}, the part of that CPU spent by the measuring threads themselves.
 *
 * <p><b>The figures.</b> Per configuration, after {@code WARMUP_MS} of wall time, {@code ITERS} iterations in which
 * each of the {@code threads} threads runs until its own CPU clock has advanced {@code ITER_MS}. Each thread has its
 * own RC QP pair and CQ on one shared device and protection domain (rate), or its own device context and buffers
 * (1 MiB), as in the JMH benchmarks. {@code ns_per_op} is the counted CPU time over the operations done (a WR, a
 * 1 MiB WRITE, a 1 MiB copy); a rate is {@code threads / ns_per_op}: what the threads would do with a core each. The
 * 1 MiB WRITE and the copy alternate within every iteration, so both meet the same load. The WRITE is posted in a WR
 * session, signaled, and its completion polled, as in {@link BandwidthBenchmark}.
 *
 * <pre>java -cp benchmarks.jar org.verbs4j.benchmarks.EmulatorCpuTime OUT.json [WARMUP_MS ITERS ITER_MS]</pre>
 *
 * The JSON's {@code results} carry {@code api}, {@code batch} and {@code ns_per_wr} as well (ns per operation), the
 * shape {@code benchmarks/compare-revs} reads.
 */
public final class EmulatorCpuTime {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int LARGE = 1 << 20;

    private EmulatorCpuTime() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: EmulatorCpuTime OUT.json [WARMUP_MS ITERS ITER_MS]");
            System.exit(2);
        }
        long warmupMs = args.length > 1 ? Long.parseLong(args[1]) : 1000;
        int iters = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        long iterNs = (args.length > 3 ? Long.parseLong(args[3]) : 200) * 1_000_000L;
        List<String> results = new ArrayList<>();
        for (int threads : new int[] {1, 2}) {
            results.add(rate(threads, warmupMs, iters, iterNs));
        }
        for (int threads : new int[] {1, 2}) {
            results.addAll(writeAgainstCopy(threads, warmupMs, iters, iterNs));
        }
        String json = String.format(Locale.ROOT, "{\"tool\":\"EmulatorCpuTime\",\"provider\":\"emulated\",\"clock\":"
                + "\"cpu-of-every-java-thread\",\"warmup_ms\":%d,\"iteration_ms\":%d,\"results\":[%s]}%n", warmupMs,
                iterNs / 1_000_000, String.join(",", results));
        Files.writeString(Path.of(args[0]), json);
        System.out.print(json);
    }

    /** One call of one thread's work (a batch of WRs, a 1 MiB WRITE or a 1 MiB copy). */
    private interface Op {
        void run();
    }

    /** The summed CPU time of every live Java thread, ns. */
    private static long allThreadsCpu() {
        long[] ids = THREADS.getAllThreadIds();
        long sum = 0;
        for (long t : THREADS.getThreadCpuTime(ids)) {
            sum += Math.max(0, t);
        }
        return sum;
    }

    /**
     * Runs {@code ops[i]} on thread i, all threads together: a warm-up, then the iterations. Returns per iteration
     * {ns of counted CPU per unit, the workers' share of it}.
     */
    private static double[][] run(Op[] ops, int unitsPerCall, int callsPerCheck, long warmupMs, int iters,
                                  long iterNs) throws Exception {
        int n = ops.length;
        CyclicBarrier start = new CyclicBarrier(n + 1);
        CyclicBarrier end = new CyclicBarrier(n + 1);
        long[] units = new long[n];
        long[] workerCpu = new long[n];
        Throwable[] failure = new Throwable[1];
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < n; w++) {
            int me = w;
            Thread t = new Thread(() -> {
                try {
                    for (int it = -1; it < iters; it++) {
                        start.await();
                        long c0 = THREADS.getCurrentThreadCpuTime();
                        long wallEnd = System.nanoTime() + warmupMs * 1_000_000L;
                        long done = 0;
                        long c;
                        do {
                            for (int i = 0; i < callsPerCheck; i++) {
                                ops[me].run();
                            }
                            done += (long) unitsPerCall * callsPerCheck;
                            c = THREADS.getCurrentThreadCpuTime();
                        } while (it < 0 ? System.nanoTime() < wallEnd : c - c0 < iterNs);
                        units[me] = done;
                        workerCpu[me] = c - c0;
                        end.await();
                    }
                    // Stay alive until the last iteration's CPU time has been read: a dead thread has no CPU time.
                    start.await();
                } catch (Throwable e) {
                    // Printed here: the main thread then sees only the broken barrier.
                    e.printStackTrace();
                    failure[0] = e;
                    start.reset();
                    end.reset();
                }
            }, "emulator-cpu-" + w);
            t.start();
            workers.add(t);
        }
        double[][] v = new double[iters][];
        for (int it = -1; it < iters; it++) {
            long c0 = allThreadsCpu();
            start.await();
            end.await();
            long c1 = allThreadsCpu();
            if (it >= 0) {
                long u = 0;
                long own = 0;
                for (int w = 0; w < n; w++) {
                    u += units[w];
                    own += workerCpu[w];
                }
                v[it] = new double[] {(double) (c1 - c0) / u, Math.min(1.0, (double) own / (c1 - c0))};
                System.err.printf(Locale.ROOT, "%d thread(s), iteration %d: %d units, %.1f ms CPU counted, %.1f ms "
                        + "of it the measuring threads'%n", n, it, u, (c1 - c0) / 1e6, own / 1e6);
            }
        }
        start.await();
        for (Thread t : workers) {
            t.join();
        }
        if (failure[0] != null) {
            throw new IllegalStateException("a measuring thread failed", failure[0]);
        }
        return v;
    }

    private static String entry(String api, int threads, int batch, double[][] v, int col) {
        int iters = v.length;
        double[] ns = new double[iters];
        double share = 1;
        for (int i = 0; i < iters; i++) {
            ns[i] = v[i][col];
            share = Math.min(share, v[i][col + 1]);
        }
        double[] sorted = ns.clone();
        java.util.Arrays.sort(sorted);
        double median = sorted[iters / 2];
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "{\"api\":\"%s\",\"threads\":%d,\"batch\":%d,"
                + "\"ns_per_wr\":%.3f,\"worker_share_min\":%.4f,\"iterations\":[", api, threads, batch, median, share));
        for (int i = 0; i < iters; i++) {
            s.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.3f", ns[i]));
        }
        return s.append("]}").toString();
    }

    /** 64 B WRITEs in WR sessions of {@value MessageRateBenchmark#BATCH}, as {@link MessageRateBenchmark}. */
    private static String rate(int threads, long warmupMs, int iters, long iterNs) throws Exception {
        int batch = MessageRateBenchmark.BATCH;
        try (Loopback lb = new Loopback("emulated", WriteStream.SLOTS * WriteStream.MESSAGE)) {
            WriteStream[] streams = new WriteStream[threads];
            Op[] ops = new Op[threads];
            for (int t = 0; t < threads; t++) {
                WriteStream s = new WriteStream(lb, batch);
                streams[t] = s;
                ops[t] = () -> s.wrSessionBatch(batch);
            }
            double[][] v = run(ops, batch, 64, warmupMs, iters, iterNs);
            for (WriteStream s : streams) {
                s.drain();
            }
            return entry("emuWrite64x" + threads, threads, batch, v, 0);
        }
    }

    /** One thread's 1 MiB WRITE (posted, signaled, its completion polled) and copy between the same buffers. */
    private static final class Large {
        final Loopback lb = new Loopback("emulated", LARGE);
        final QueuePair qp;
        final CompletionQueue cq;
        final WorkCompletionBatch wc = new WorkCompletionBatch(4);
        final MemorySegment src = lb.src.segment();
        final MemorySegment dst = lb.dst.segment();
        long next;

        Large() {
            WriteStream stream = new WriteStream(lb, 1);
            qp = stream.qp();
            cq = stream.cq();
        }

        void write() {
            WrSession s = qp.startWr();
            s.wrId(next++);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(lb.dst.rkey(), lb.dst.address());
            s.setSge(lb.src.lkey(), lb.src.address(), LARGE);
            s.complete();
            while (true) {
                int n = cq.poll(wc);
                if (n > 0) {
                    if (wc.status(0) != WcStatus.SUCCESS) {
                        throw new IllegalStateException("1 MiB WRITE completed with " + wc.status(0));
                    }
                    return;
                }
            }
        }

        void copy() {
            MemorySegment.copy(src, 0, dst, 0, LARGE);
        }
    }

    /**
     * 1 MiB WRITEs and 1 MiB copies in alternation: each iteration measures the WRITE, then the copy, so that the
     * two meet the same load; returns the WRITE's entry and the copy's.
     */
    private static List<String> writeAgainstCopy(int threads, long warmupMs, int iters, long iterNs)
            throws Exception {
        Large[] large = new Large[threads];
        try {
            Op[] writes = new Op[threads];
            Op[] copies = new Op[threads];
            for (int t = 0; t < threads; t++) {
                Large l = new Large();
                large[t] = l;
                writes[t] = l::write;
                copies[t] = l::copy;
            }
            // Warm both up once, then alternate one-iteration runs.
            run(writes, 1, 4, warmupMs, 1, iterNs);
            run(copies, 1, 4, warmupMs, 1, iterNs);
            double[][] v = new double[iters][];
            for (int it = 0; it < iters; it++) {
                double[] w = run(writes, 1, 4, 0, 1, iterNs)[0];
                double[] c = run(copies, 1, 4, 0, 1, iterNs)[0];
                v[it] = new double[] {w[0], w[1], c[0], c[1]};
            }
            return List.of(entry("emuWrite1MiBx" + threads, threads, 1, v, 0),
                    entry("emuCopy1MiBx" + threads, threads, 1, v, 2));
        } finally {
            for (Large l : large) {
                if (l != null) {
                    l.lb.close();
                }
            }
        }
    }
}
