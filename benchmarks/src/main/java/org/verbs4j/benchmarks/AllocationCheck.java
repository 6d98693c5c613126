package org.verbs4j.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.verbs4j.SendFlags;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrSession;

/**
 * Counts the bytes the posting and polling thread allocates per WR and per completion, with the JVM's per-thread
 * allocation counter, over the same {@link WriteStream} pattern as {@link PostBenchmark} and {@link PollBenchmark}.
 *
 * <p>JMH's {@code -prof gc} counts every thread of the forked JVM, JMH's own included, per iteration; where a
 * device completes few WRs per second (rxe under qemu/TCG) that fixed cost spread over few operations reads as
 * some bytes per WR although the path allocates nothing. This check counts only the benchmark thread, after a
 * warm-up of at least {@code WARMUP_MS} and {@value #WARMUP_WRS} WRs, so a non-zero result is an allocation on the
 * path itself (or, where even that warm-up was too short for C2, in the interpreter's or C1's code).
 *
 * <pre>java -cp benchmarks.jar org.verbs4j.benchmarks.AllocationCheck PROVIDER OUT.json [WARMUP_MS] [MEASURE_MS]</pre>
 */
public final class AllocationCheck {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** WRs (or completions) to run before measuring, at least; past HotSpot's C2 compile thresholds. */
    private static final long WARMUP_WRS = 30_000;

    private AllocationCheck() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: AllocationCheck PROVIDER OUT.json [WARMUP_MS] [MEASURE_MS]");
            System.exit(2);
        }
        String provider = args[0];
        long warmupNs = (args.length > 2 ? Long.parseLong(args[2]) : 3000) * 1_000_000L;
        long measureNs = (args.length > 3 ? Long.parseLong(args[3]) : 3000) * 1_000_000L;
        List<Map<String, Object>> results = new ArrayList<>();
        for (String api : List.of("wrSession", "postSend", "prepared", "preparedAddressed")) {
            for (int batch : new int[] {1, 8, 32}) {
                results.add(post(provider, api, batch, warmupNs, measureNs));
                System.out.println(results.getLast());
            }
        }
        results.add(poll(provider, warmupNs, measureNs));
        System.out.println(results.getLast());
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("provider", provider);
        doc.put("warmupMillis", warmupNs / 1_000_000);
        doc.put("measureMillis", measureNs / 1_000_000);
        doc.put("results", results);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(Path.of(args[1]).toFile(), doc);
    }

    private static Map<String, Object> post(String provider, String api, int batch, long warmupNs, long measureNs) {
        try (Loopback lb = new Loopback(provider, WriteStream.SLOTS * WriteStream.MESSAGE)) {
            WriteStream stream = new WriteStream(lb, batch);
            // Warm up by time and by count: where the device is slow (rxe under TCG) a short warm-up may end
            // before C2 has compiled the path, and the interpreter allocates what C2 would scalar-replace.
            long warmed = 0;
            while (warmed < WARMUP_WRS) {
                warmed += run(stream, api, batch, warmupNs);
            }
            long before = THREADS.getCurrentThreadAllocatedBytes();
            long wrs = run(stream, api, batch, measureNs);
            long bytes = THREADS.getCurrentThreadAllocatedBytes() - before;
            stream.drain();
            return result("PostBenchmark." + api, batch, wrs, bytes);
        }
    }

    private static long run(WriteStream stream, String api, int batch, long ns) {
        long end = System.nanoTime() + ns;
        long wrs = 0;
        do {
            for (int i = 0; i < PostBenchmark.WRS / batch; i++) {
                stream.batch(api);
            }
            wrs += PostBenchmark.WRS;
        } while (System.nanoTime() < end);
        return wrs;
    }

    /** Posts 32 signaled WRITEs, then counts only what polling their completions allocates. */
    private static Map<String, Object> poll(String provider, long warmupNs, long measureNs) {
        try (Loopback lb = new Loopback(provider, WriteStream.SLOTS * WriteStream.MESSAGE)) {
            WriteStream stream = new WriteStream(lb, 1);
            WorkCompletionBatch wc = new WorkCompletionBatch(PollBenchmark.N);
            long[] next = {0};
            long[] counted = new long[2];
            while (counted[0] < WARMUP_WRS) {
                pollRounds(lb, stream, wc, next, warmupNs, counted);
            }
            counted[0] = 0;
            counted[1] = 0;
            pollRounds(lb, stream, wc, next, measureNs, counted);
            return result("PollBenchmark.poll", 0, counted[0], counted[1]);
        }
    }

    private static void pollRounds(Loopback lb, WriteStream stream, WorkCompletionBatch wc, long[] next, long ns,
                                   long[] counted) {
        long end = System.nanoTime() + ns;
        do {
            WrSession s = stream.qp().startWr();
            for (int i = 0; i < PollBenchmark.N; i++) {
                long offset = (long) (i % WriteStream.SLOTS) * WriteStream.MESSAGE;
                s.wrId(next[0]++);
                s.wrFlags(SendFlags.SIGNALED);
                s.rdmaWrite(lb.dst.rkey(), lb.dst.address() + offset);
                s.setSge(lb.src.lkey(), lb.src.address() + offset, WriteStream.MESSAGE);
            }
            s.complete();
            long before = THREADS.getCurrentThreadAllocatedBytes();
            int got = 0;
            while (got < PollBenchmark.N) {
                int n = stream.cq().poll(wc);
                for (int i = 0; i < n; i++) {
                    if (wc.status(i) != WcStatus.SUCCESS) {
                        throw new IllegalStateException("WRITE " + wc.wrId(i) + " completed with " + wc.status(i));
                    }
                }
                got += n;
            }
            counted[1] += THREADS.getCurrentThreadAllocatedBytes() - before;
            counted[0] += got;
        } while (System.nanoTime() < end);
    }

    private static Map<String, Object> result(String benchmark, int batch, long ops, long bytes) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("benchmark", benchmark);
        if (batch > 0) {
            r.put("batch", batch);
        }
        r.put("operations", ops);
        r.put("bytes", bytes);
        r.put("bytesPerOperation", ops == 0 ? 0.0 : (double) bytes / ops);
        return r;
    }
}
