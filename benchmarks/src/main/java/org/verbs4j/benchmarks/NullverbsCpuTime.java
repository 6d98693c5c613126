package org.verbs4j.benchmarks;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.verbs4j.CompletionQueue;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrSession;

/**
 * {@link PostBenchmark}'s and {@link PollBenchmark}'s patterns in a plain loop, divided by the thread's CPU time
 * instead of the wall clock: the companion of {@code post_rate -c} for a machine shared with other work, where a
 * wall-clock figure also counts the time the thread waited for a CPU. JMH's wall-clock scores stay the reference.
 *
 * <p>Per configuration (a fresh {@link Loopback} and {@link WriteStream} each, as JMH's trials have), it runs the
 * operations for {@code WARMUP_MS} of wall time, then {@code ITERS} iterations of at least {@code ITER_MS} of
 * thread CPU time each, reading the CPU clock every {@value #OPS_PER_CHECK} operations of 32 WRs (the clock costs a
 * system call). "postPollEx" posts 32 signaled WRITEs in a {@link WrSession} and polls their completions, per WR,
 * as {@code post_rate -c} does (the providers' CQs are extended by default). The "...Td" rows post on a QP created
 * with a thread domain (confined to this thread, no lock); "rawFfmPrepared" (ffm only) is {@link RawFfmPost}, the
 * "prepared" rows' work through one bare critical downcall, the floor of an FFM binding. Writes JSON in
 * {@code post_rate}'s shape.
 *
 * <p>Each API's rows run in a JVM of their own ({@link ApiFork}): the JIT compiles the post path for that API
 * alone, as an application that posts one way has it. {@code APIS} (a comma-separated list of the names above)
 * runs just those APIs in this JVM instead.
 *
 * <pre>java -cp benchmarks.jar org.verbs4j.benchmarks.NullverbsCpuTime PROVIDER OUT.json [WARMUP_MS ITERS ITER_MS [APIS]]</pre>
 */
public final class NullverbsCpuTime {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final int OPS_PER_CHECK = 64;
    private static final int WRS = 32;
    private static final String RAW_FFM = "rawFfmPrepared";
    private static final String POST_POLL = "postPollEx";

    private NullverbsCpuTime() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length < 2) {
            System.err.println("usage: NullverbsCpuTime PROVIDER OUT.json [WARMUP_MS ITERS ITER_MS [APIS]]");
            System.exit(2);
        }
        String provider = args[0];
        long warmupMs = args.length > 2 ? Long.parseLong(args[2]) : 1000;
        int iters = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        long iterNs = (args.length > 4 ? Long.parseLong(args[4]) : 200) * 1_000_000L;
        List<String> apis = new ArrayList<>(List.of("wrSession", "postSend", "prepared", "preparedAddressed",
                "wrSessionTd", "postSendTd", "preparedTd", "preparedAddressedTd"));
        if (provider.equals("ffm")) {
            apis.add(RAW_FFM);
        }
        apis.add(POST_POLL);
        List<String> results = new ArrayList<>();
        if (args.length > 5) {
            for (String api : args[5].split(",")) {
                if (!apis.contains(api)) {
                    throw new IllegalArgumentException("no API " + api + " for " + provider + "; one of " + apis);
                }
                results.addAll(run(provider, api, warmupMs, iters, iterNs));
            }
        } else {
            for (String api : apis) {
                results.add(ApiFork.rows(NullverbsCpuTime.class,
                        out -> List.of(provider, out.toString(), Long.toString(warmupMs), Integer.toString(iters),
                                Long.toString(iterNs / 1_000_000), api)));
            }
        }
        String json = String.format(Locale.ROOT, "{\"tool\":\"NullverbsCpuTime\",\"provider\":\"%s\",\"clock\":"
                + "\"thread-cpu\",\"warmup_ms\":%d,\"iteration_ms\":%d,\"results\":[%s]}%n", provider, warmupMs,
                iterNs / 1_000_000, String.join(",", results));
        Files.writeString(Path.of(args[1]), json);
        System.out.print(json);
    }

    /** The rows of one API, batches 1, 8 and 32 (one row for {@value #POST_POLL}), in this JVM. */
    private static List<String> run(String provider, String api, long warmupMs, int iters, long iterNs) {
        List<String> rows = new ArrayList<>();
        if (api.equals(POST_POLL)) {
            rows.add(postPoll(provider, warmupMs, iters, iterNs));
            return rows;
        }
        for (int batch : new int[] {1, 8, 32}) {
            rows.add(api.equals(RAW_FFM) ? rawFfm(batch, warmupMs, iters, iterNs)
                    : post(provider, api, batch, warmupMs, iters, iterNs));
        }
        return rows;
    }

    private interface Op {
        void run();
    }

    /** Warm-up, then the iterations; returns the JSON entry. */
    private static String measure(String api, int batch, Op op, long warmupMs, int iters, long iterNs) {
        long until = System.nanoTime() + warmupMs * 1_000_000L;
        while (System.nanoTime() < until) {
            for (int i = 0; i < OPS_PER_CHECK; i++) {
                op.run();
            }
        }
        double[] v = new double[iters];
        double sum = 0;
        for (int it = 0; it < iters; it++) {
            long start = THREADS.getCurrentThreadCpuTime();
            long end;
            long wrs = 0;
            do {
                for (int i = 0; i < OPS_PER_CHECK; i++) {
                    op.run();
                }
                wrs += (long) WRS * OPS_PER_CHECK;
                end = THREADS.getCurrentThreadCpuTime();
            } while (end - start < iterNs);
            v[it] = (double) (end - start) / wrs;
            sum += v[it];
        }
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
                "{\"api\":\"%s\",\"batch\":%d,\"ns_per_wr\":%.3f,\"iterations\":[", api, batch, sum / iters));
        for (int i = 0; i < iters; i++) {
            s.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.3f", v[i]));
        }
        return s.append("]}").toString();
    }

    private static String post(String provider, String api, int batch, long warmupMs, int iters, long iterNs) {
        try (Loopback lb = new Loopback(provider, WriteStream.SLOTS * WriteStream.MESSAGE)) {
            // "...Td": the same on a QP created with a thread domain, confined to this thread.
            boolean td = api.endsWith("Td");
            WriteStream stream = new WriteStream(lb, batch, td);
            int posts = WRS / batch;
            Op op = switch (td ? api.substring(0, api.length() - 2) : api) {
                case "wrSession" -> () -> {
                    for (int i = 0; i < posts; i++) {
                        stream.wrSessionBatch(batch);
                    }
                };
                case "postSend" -> () -> {
                    for (int i = 0; i < posts; i++) {
                        stream.postSendBatch();
                    }
                };
                case "prepared" -> () -> {
                    for (int i = 0; i < posts; i++) {
                        stream.preparedBatch();
                    }
                };
                default -> () -> {
                    for (int i = 0; i < posts; i++) {
                        stream.preparedAddressedBatch();
                    }
                };
            };
            String r = measure(api, batch, op, warmupMs, iters, iterNs);
            stream.drain();
            return r;
        }
    }

    /** "rawFfmPrepared": {@link RawFfmPost}, the floor of an FFM binding for the "prepared" rows' work. */
    private static String rawFfm(int batch, long warmupMs, int iters, long iterNs) {
        try (Loopback lb = new Loopback("ffm", WriteStream.SLOTS * WriteStream.MESSAGE);
             Arena arena = Arena.ofConfined()) {
            RawFfmPost raw = new RawFfmPost(new WriteStream(lb, batch), lb, batch, arena);
            int posts = WRS / batch;
            String r = measure(RAW_FFM, batch, () -> {
                for (int i = 0; i < posts; i++) {
                    raw.batch();
                }
            }, warmupMs, iters, iterNs);
            raw.drain();
            return r;
        }
    }

    private static String postPoll(String provider, long warmupMs, int iters, long iterNs) {
        try (Loopback lb = new Loopback(provider, WriteStream.SLOTS * WriteStream.MESSAGE)) {
            WriteStream stream = new WriteStream(lb, 1);
            QueuePair qp = stream.qp();
            CompletionQueue cq = stream.cq();
            WorkCompletionBatch wc = new WorkCompletionBatch(WRS);
            int lkey = lb.src.lkey();
            int rkey = lb.dst.rkey();
            long[] next = {0};
            long[] sink = {0};
            Op op = () -> {
                WrSession s = qp.startWr();
                for (int i = 0; i < WRS; i++) {
                    long offset = (long) (i % WriteStream.SLOTS) * WriteStream.MESSAGE;
                    s.wrId(next[0]++);
                    s.wrFlags(SendFlags.SIGNALED);
                    s.rdmaWrite(rkey, lb.dst.address() + offset);
                    s.setSge(lkey, lb.src.address() + offset, WriteStream.MESSAGE);
                }
                s.complete();
                int got = 0;
                while (got < WRS) {
                    int n = cq.poll(wc);
                    for (int i = 0; i < n; i++) {
                        if (wc.status(i) != WcStatus.SUCCESS) {
                            throw new IllegalStateException("WRITE " + wc.wrId(i) + " completed with " + wc.status(i));
                        }
                        sink[0] += wc.wrId(i);
                    }
                    got += n;
                }
            };
            String r = measure(POST_POLL, WRS, op, warmupMs, iters, iterNs);
            if (sink[0] == 42) {
                System.err.println("(sink)");
            }
            return r;
        }
    }
}
