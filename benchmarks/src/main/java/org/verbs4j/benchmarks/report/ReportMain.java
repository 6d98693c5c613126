package org.verbs4j.benchmarks.report;

// Over 500 lines on purpose: it writes the one report (latest.md) from the JSON of one run, one method per
// section; the null-libibverbs section is NullverbsReport.

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Writes the Markdown benchmark report from JMH's JSON results and the C baseline's JSON: one table of figures with
 * their baselines, ratios and the targets of the project, then every measured value and how the run was made.
 *
 * <pre>
 * java -cp benchmarks.jar org.verbs4j.benchmarks.report.ReportMain --out latest.md --host host.json
 *     [--rxe rxe-post.json]... [--c c-post-rate.json] [--guest-info guest-info.txt] [--guest-status TEXT]
 *     [--command TEXT] [--note TEXT]... [--nullverbs DIR] [--base-run TEXT]
 * </pre>
 * {@code --nullverbs} adds the section of {@link NullverbsReport}: the providers against C on the null libibverbs,
 * and the emulator against {@code MemorySegment.copy}, both in alternating rounds.
 * Missing inputs are not an error: the figures that needed them are reported as not measured, with the reason
 * given by {@code --guest-status}.
 */
public final class ReportMain {
    /** Bytes per WR (or completion) at or under which a path counts as allocation free: one 16-byte object per
     *  32-WR post or 32-completion poll would already read 0.5 B, while one-off allocations (class loading,
     *  deoptimization) and JMH's per-iteration garbage spread over many operations stay below this. */
    static final double ZERO_ALLOC_LIMIT = 0.25;
    static final long MIB = 1 << 20;
    /** How the soft-RoCE rows are labelled: every post there ends in rxe's kernel work under qemu/TCG. */
    static final String RXE = "rxe0 (rxe under qemu/TCG)";

    private final List<JmhResult> host = new ArrayList<>();
    private final List<JmhResult> rxe = new ArrayList<>();
    /** C's ns/WR per "api/batch": the mean over every --c file (runs before and after the Java benchmarks). */
    private final Map<String, Double> cNsPerWr = new LinkedHashMap<>();
    private final Map<String, Integer> cRuns = new LinkedHashMap<>();
    private final List<JsonNode> cJson = new ArrayList<>();
    private final List<String> cFiles = new ArrayList<>();
    /** AllocationCheck results by provider. */
    private final Map<String, JsonNode> allocChecks = new LinkedHashMap<>();
    private String guestInfo = "";
    private String guestStatus = "";
    private String command = "benchmarks/run";
    private final List<String> notes = new ArrayList<>();
    private final List<String> inputs = new ArrayList<>();
    private final List<String[]> rows = new ArrayList<>();
    private final List<String> missed = new ArrayList<>();
    /** The null-libibverbs step's rounds, when {@code --nullverbs DIR} was given. */
    private NullverbsReport nullverbs;
    /** Which run the host and rxe figures come from, when this page is written by another (--nullverbs) run. */
    private String baseRun;

    private ReportMain() {}

    public static void main(String[] args) throws IOException {
        ReportMain r = new ReportMain();
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + a + " needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "--out" -> out = Path.of(v);
                case "--host" -> r.host.addAll(r.readJmh(Path.of(v)));
                case "--rxe" -> r.rxe.addAll(r.readJmh(Path.of(v)));
                case "--c" -> r.readC(Path.of(v));
                case "--alloc" -> r.readAlloc(Path.of(v));
                case "--guest-info" -> r.guestInfo = Files.exists(Path.of(v)) ? Files.readString(Path.of(v)).strip() : "";
                case "--guest-status" -> r.guestStatus = v;
                case "--command" -> r.command = v;
                case "--note" -> r.notes.add(v);
                case "--base-run" -> r.baseRun = v;
                case "--nullverbs" -> r.nullverbs = NullverbsReport.read(Path.of(v));
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (out == null) {
            throw new IllegalArgumentException("--out FILE is required");
        }
        Files.writeString(out, r.render());
        System.out.println("wrote " + out);
    }

    private List<JmhResult> readJmh(Path file) throws IOException {
        if (!Files.exists(file) || Files.size(file) == 0) {
            notes.add("No JMH results in `" + file.getFileName() + "` (missing or empty).");
            return List.of();
        }
        inputs.add(file.getFileName().toString());
        return JmhResult.read(file);
    }

    private void readC(Path file) throws IOException {
        if (!Files.exists(file) || Files.size(file) == 0) {
            notes.add("No C baseline results in `" + file.getFileName() + "` (missing or empty).");
            return;
        }
        inputs.add(file.getFileName().toString());
        JsonNode json = new ObjectMapper().readTree(file.toFile());
        cJson.add(json);
        cFiles.add(file.getFileName().toString());
        for (JsonNode n : json.path("results")) {
            String key = n.path("api").asText() + "/" + n.path("batch").asInt();
            int runs = cRuns.merge(key, 1, Integer::sum);
            double v = n.path("ns_per_wr").asDouble();
            cNsPerWr.merge(key, v, (old, x) -> old + (x - old) / runs);
        }
    }

    private void readAlloc(Path file) throws IOException {
        if (!Files.exists(file) || Files.size(file) == 0) {
            notes.add("No allocation check results in `" + file.getFileName() + "` (missing or empty).");
            return;
        }
        inputs.add(file.getFileName().toString());
        JsonNode json = new ObjectMapper().readTree(file.toFile());
        allocChecks.put(json.path("provider").asText(), json);
    }

    // ------------------------------------------------------------------ lookups

    private static JmhResult find(List<JmhResult> in, String benchmark, Predicate<JmhResult> p) {
        for (JmhResult r : in) {
            if (r.benchmark().equals(benchmark) && p.test(r)) {
                return r;
            }
        }
        return null;
    }

    private static Predicate<JmhResult> param(String name, String value) {
        return r -> r.param(name).equals(value);
    }

    // ------------------------------------------------------------------ formatting

    private static String f(String fmt, Object... args) {
        return String.format(Locale.ROOT, fmt, args);
    }

    private static String size(long bytes) {
        if (bytes >= MIB && bytes % MIB == 0) {
            return bytes / MIB + " MiB";
        }
        if (bytes >= 1024 && bytes % 1024 == 0) {
            return bytes / 1024 + " KiB";
        }
        return bytes + " B";
    }

    private static String ns(double v) {
        return f(v >= 100 ? "%.0f ns" : "%.1f ns", v);
    }

    private static String ratio(double v) {
        return Double.isNaN(v) ? "—" : f("%.2f", v);
    }

    private static String gbps(double bytesPerSecond) {
        return f("%.2f GB/s", bytesPerSecond / 1e9);
    }

    private static String bytes(double b) {
        return Double.isNaN(b) ? "not measured (no -prof gc)" : f("%.3f B", b);
    }

    private void row(String figure, String value, String baseline, String ratio, String target, Boolean met) {
        String m = met == null ? "—" : met ? "yes" : "**no**";
        rows.add(new String[] {figure, value, baseline, ratio, target, m});
        if (Boolean.FALSE.equals(met)) {
            missed.add(figure + ": " + value + " against the target " + target
                    + (ratio.equals("—") ? "" : " (ratio " + ratio + ")"));
        }
    }

    private void notMeasured(String figure, String target, String why) {
        rows.add(new String[] {figure, "not measured", "—", "—", target, "**no** (" + why + ")"});
        missed.add(figure + ": not measured (" + why + ")");
    }

    // ------------------------------------------------------------------ the figures

    private void emulatorRows() {
        JmhResult one = find(host, "MessageRateBenchmark.write64OneThread", r -> true);
        JmhResult two = find(host, "MessageRateBenchmark.write64TwoThreads", r -> true);
        String rateTarget = "≥ 10 M WR/s";
        if (one == null) {
            notMeasured("Emulator: 64 B RDMA WRITE rate, 1 thread", rateTarget, "no MessageRateBenchmark result");
        } else {
            row("Emulator: 64 B RDMA WRITE rate, 1 thread", f("%.2f M WR/s", one.score() / 1e6), "—", "—", rateTarget,
                    one.score() >= 10e6);
        }
        if (two != null) {
            row("Emulator: 64 B RDMA WRITE rate, 2 threads on separate QPs", f("%.2f M WR/s", two.score() / 1e6),
                    one == null ? "—" : f("%.2f M WR/s (1 thread)", one.score() / 1e6),
                    one == null ? "—" : ratio(two.score() / one.score()), "—", null);
        }
        boolean sawMiB = false;
        for (JmhResult w : host) {
            if (!w.benchmark().equals("BandwidthBenchmark.write")) {
                continue;
            }
            long sz = Long.parseLong(w.param("size"));
            JmhResult c = find(host, "BandwidthBenchmark.copy", param("size", w.param("size")));
            double wb = w.score() * sz;
            double cb = c == null ? Double.NaN : c.score() * sz;
            boolean isMiB = sz == MIB;
            sawMiB |= isMiB;
            row("Emulator: RDMA WRITE bandwidth, " + size(sz), gbps(wb),
                    c == null ? "—" : gbps(cb) + " (MemorySegment.copy)", ratio(wb / cb),
                    isMiB ? "≥ 0.80 of copy" : "—", isMiB ? (Boolean) (wb / cb >= 0.8) : null);
        }
        if (!sawMiB) {
            notMeasured("Emulator: RDMA WRITE bandwidth, 1 MiB", "≥ 0.80 of copy", "no 1 MiB BandwidthBenchmark result");
        }
    }

    /** The label of a provider's rows: where it ran, for the rxe rows (rxe under qemu/TCG: kernel work, not ours). */
    private String who(String provider, List<JmhResult> in) {
        return in == rxe ? provider + " on " + RXE : provider;
    }

    private void postRows(String provider, List<JmhResult> in) {
        String who = who(provider, in);
        for (String api : List.of("wrSession", "postSend")) {
            for (String batch : List.of("1", "8", "32")) {
                JmhResult r = find(in, "PostBenchmark." + api, param("provider", provider).and(param("batch", batch)));
                if (r == null) {
                    continue;
                }
                Double c = in == rxe ? cNsPerWr.get(api + "/" + batch) : null;
                String target = "—";
                Boolean met = null;
                double rate = c == null ? Double.NaN : c / r.score();
                if (api.equals("wrSession") && batch.equals("32") && in == rxe) {
                    double t = provider.equals("ffm") ? 0.9 : provider.equals("jnr") ? 0.7 : Double.NaN;
                    if (!Double.isNaN(t)) {
                        target = f("rate ≥ %.1f of C", t);
                        met = c == null ? Boolean.FALSE : rate >= t;
                    }
                }
                row(f("%s: post 64 B WRITE, %s, batch %s (per WR)", who, api, batch), ns(r.score()),
                        c == null ? "—" : ns(c) + " (C, the same loop: " + api + ")", ratio(rate), target, met);
            }
        }
        JmhResult poll = find(in, "PollBenchmark.poll", param("provider", provider));
        if (poll != null) {
            row(f("%s: poll, per completion%s", who,
                    in == rxe ? f(" (%s µs settle)", poll.param("settleMicros")) : ""), ns(poll.score()), "—", "—",
                    "—", null);
        }
        allocRow(provider, who, "post", in.stream().filter(r -> r.benchmark().startsWith("PostBenchmark.")
                && r.param("provider").equals(provider)).toList());
        allocRow(provider, who, "poll", in.stream().filter(r -> r.benchmark().equals("PollBenchmark.poll")
                && r.param("provider").equals(provider)).toList());
    }

    private void allocRow(String provider, String who, String path, List<JmhResult> rs) {
        String unit = path.equals("poll") ? "completion" : "WR";
        String figure = f("%s: bytes allocated per %s on the %s path, -prof gc (worst case)", who, unit, path);
        String target = "≈ 0 B (≤ " + ZERO_ALLOC_LIMIT + " B)";
        boolean gcMissed = false;
        String gcNote = "";
        if (rs.isEmpty()) {
            notMeasured(figure, target, "no " + path + " benchmark result for " + provider);
        } else {
            JmhResult worst = null;
            for (JmhResult r : rs) {
                if (worst == null || Double.isNaN(r.allocNorm()) || r.allocNorm() > worst.allocNorm()) {
                    worst = r;
                }
            }
            if (Double.isNaN(worst.allocNorm())) {
                notMeasured(figure, target, "run without -prof gc");
            } else {
                String where = worst.benchmark().substring(worst.benchmark().indexOf('.') + 1)
                        + (worst.param("batch").isEmpty() ? "" : " batch " + worst.param("batch"));
                // Operations per iteration: bytes allocated per iteration over bytes per operation. Unlike
                // iteration time over score, this also holds where per-invocation set-up takes wall time.
                double perIteration = worst.allocRate() * 1024 * 1024 * iterationNanos(worst) / 1e9
                        / worst.allocNorm();
                gcMissed = worst.allocNorm() > ZERO_ALLOC_LIMIT;
                row(figure, bytes(worst.allocNorm()) + f(" (%s; ~%.0f %ss per iteration)", where, perIteration, unit),
                        "—", "—", target, !gcMissed);
                if (gcMissed) {
                    gcNote = f("~%.0f %ss per iteration", perIteration, unit);
                }
            }
        }
        boolean counterClean = false;
        JsonNode check = allocChecks.get(provider);
        if (check != null) {
            String figure2 = f("%s: bytes allocated per %s on the %s path, thread counter (worst case)", who, unit,
                    path);
            target = "0 B (≤ " + ZERO_ALLOC_LIMIT + " B)";
            JsonNode worst = null;
            for (JsonNode n : check.path("results")) {
                boolean isPoll = n.path("benchmark").asText().startsWith("PollBenchmark");
                if (isPoll == path.equals("poll") && (worst == null
                        || n.path("bytesPerOperation").asDouble() > worst.path("bytesPerOperation").asDouble())) {
                    worst = n;
                }
            }
            if (worst != null) {
                double b = worst.path("bytesPerOperation").asDouble();
                counterClean = b <= ZERO_ALLOC_LIMIT;
                row(figure2, f("%.4f B (%d B over %d %ss; %s%s)", b, worst.path("bytes").asLong(),
                                worst.path("operations").asLong(), unit, worst.path("benchmark").asText(),
                                worst.has("batch") ? " batch " + worst.path("batch").asInt() : ""), "—", "—",
                        target, counterClean);
            }
        }
        if (gcMissed && counterClean) {
            notes.add(f("%s, %s path: `-prof gc` reads more than %.2f B per %s, but the posting thread's own "
                    + "allocation counter stays within it. `-prof gc` counts every thread of the JVM, JMH's included, "
                    + "and with only %s its fixed per-iteration cost shows up per operation.",
                    provider, path, ZERO_ALLOC_LIMIT, unit, gcNote));
        } else if (gcMissed) {
            notes.add(f("%s, %s path: `-prof gc` reads more than %.2f B per %s (%s) and no thread-counter check "
                    + "clears it: the path may allocate.", provider, path, ZERO_ALLOC_LIMIT, unit, gcNote));
        }
    }

    /** The measurement time of one iteration, from JMH's "1 s" style setting; 1 s if it cannot be read. */
    private static double iterationNanos(JmhResult r) {
        String t = r.vm().getOrDefault("measurementTime", "1 s").trim();
        try {
            String[] p = t.split("\\s+");
            double v = Double.parseDouble(p[0]);
            return switch (p.length > 1 ? p[1] : "s") {
                case "ms" -> v * 1e6;
                case "us" -> v * 1e3;
                case "ns" -> v;
                case "min" -> v * 60e9;
                default -> v * 1e9;
            };
        } catch (RuntimeException e) {
            return 1e9;
        }
    }

    private void rxeRows(String provider) {
        boolean any = rxe.stream().anyMatch(r -> r.param("provider").equals(provider));
        String figure = provider + " on " + RXE + ": post 64 B WRITE, wrSession, batch 32 (per WR)";
        String target = f("rate ≥ %.1f of C", provider.equals("ffm") ? 0.9 : 0.7);
        if (!any) {
            notMeasured(figure, target, guestStatus.isBlank() ? "no rxe results" : guestStatus);
            notMeasured(provider + " on " + RXE + ": bytes allocated per WR on the post path, -prof gc (worst case)",
                    "≈ 0 B (≤ " + ZERO_ALLOC_LIMIT + " B)", guestStatus.isBlank() ? "no rxe results" : guestStatus);
            return;
        }
        postRows(provider, rxe);
        if (find(rxe, "PostBenchmark.wrSession", param("provider", provider).and(param("batch", "32"))) == null) {
            notMeasured(figure, target, "the benchmark did not produce a result; see the guest log");
        }
    }

    /**
     * How far the rxe figures behind the ratio targets move within this run: C's own iterations (before and after
     * the Java runs) and JMH's error for the Java side. A ratio can only be judged against its target where this
     * spread is well below the target's margin.
     */
    private void spreadNote() {
        double min = Double.MAX_VALUE;
        double max = 0;
        for (JsonNode c : cJson) {
            for (JsonNode n : c.path("results")) {
                if (n.path("api").asText().equals("wrSession") && n.path("batch").asInt() == 32) {
                    for (JsonNode v : n.path("iterations")) {
                        min = Math.min(min, v.asDouble());
                        max = Math.max(max, v.asDouble());
                    }
                }
            }
        }
        if (max == 0) {
            return;
        }
        StringBuilder sb = new StringBuilder(f("Spread on rxe in this run, for the targets' configuration (WR session, "
                + "batch 32): C's own iterations ranged from %s to %s per WR (max/min %.2f)", ns(min), ns(max),
                max / min));
        for (String p : List.of("ffm", "jnr")) {
            JmhResult r = find(rxe, "PostBenchmark.wrSession", param("provider", p).and(param("batch", "32")));
            if (r != null && !Double.isNaN(r.error())) {
                sb.append(f("; %s's JMH score was %s ± %s (99.9%%)", p, ns(r.score()), ns(r.error())));
            }
        }
        sb.append(". On rxe every post ends in a doorbell system call in which the kernel does rxe's own work for "
                + "the WRs (tens of microseconds per WR under TCG, paid alike by C and Java), so these ratios mostly "
                + "compare samples of that work and its noise; where the spread is larger than a target's margin, a "
                + "miss or a pass says little about the binding's own cost.");
        notes.add(sb.toString());
    }

    // ------------------------------------------------------------------ the document

    private String render() throws IOException {
        emulatorRows();
        postRows("emulated", host);
        if (!cNsPerWr.isEmpty()) {
            for (Map.Entry<String, Double> e : cNsPerWr.entrySet()) {
                String[] k = e.getKey().split("/");
                row(f("C on %s: post 64 B WRITE, %s, batch %s (per WR)", RXE, k[0].equals("wrSession")
                        ? "ibv_wr_*" : "ibv_post_send", k[1]), ns(e.getValue())
                        + (cRuns.get(e.getKey()) > 1 ? f(" (mean of %d runs)", cRuns.get(e.getKey())) : ""),
                        "—", "—", "—", null);
            }
        }
        rxeRows("ffm");
        rxeRows("jnr");
        spreadNote();

        StringBuilder md = new StringBuilder();
        String date = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
        // Machine-readable for benchmarks/run --nullverbs, which keeps the host and rxe figures of this run.
        md.append("<!-- base-run: ").append(baseRun != null ? baseRun : command + " on " + date).append(" -->\n");
        md.append("# verbs4j benchmark report\n\n");
        if (nullverbs == null) {
            md.append("Produced by `").append(command).append("` on ").append(date).append(". Every figure below comes "
                    + "from this one run; a ratio compares two figures taken in it. JMH's JSON is in this directory.\n\n");
        } else {
            md.append("Written on ").append(date).append(". The host and soft-RoCE figures come from one run of `")
                    .append(command).append("`").append(baseRun != null ? " (" + baseRun + ")" : "")
                    .append(", the null-libibverbs section from its own run (it says when); a ratio "
                    + "compares two figures taken in the same run. The JSON of both is in this directory.\n\n");
        }
        md.append("## Figures against targets\n\n");
        md.append("Posting figures are nanoseconds per WR (lower is better); a ratio against C is C's time over "
                + "Java's, that is Java's posting rate as a fraction of C's. Bandwidth ratios are the emulator's "
                + "RDMA WRITE over `MemorySegment.copy` of the same size.\n\n");
        md.append("| figure | value | baseline | ratio | target | met? |\n");
        md.append("| --- | --- | --- | --- | --- | --- |\n");
        for (String[] r : rows) {
            md.append("| ").append(String.join(" | ", r)).append(" |\n");
        }
        md.append("\n## Findings\n\n");
        if (missed.isEmpty()) {
            md.append("Every target was met in this run.\n");
        } else {
            md.append("Targets missed in this run (findings, not hidden):\n\n");
            for (String m : missed) {
                md.append("- ").append(m).append('\n');
            }
        }
        for (String n : notes) {
            md.append("\n").append(n).append('\n');
        }
        if (nullverbs != null) {
            md.append('\n').append(nullverbs.render());
        }
        md.append("\n## How it was produced\n\n");
        md.append(machine());
        md.append("\n### Every JMH result\n\n");
        appendAll(md, "host", host);
        appendAll(md, "soft-RoCE guest (rxe0)", rxe);
        for (int i = 0; i < cJson.size(); i++) {
            JsonNode c = cJson.get(i);
            md.append("\n### C baseline `").append(cFiles.get(i)).append("` (`benchmarks/c/post_rate.c`, gcc -O2, on "
                    + "rxe0 in the same guest run)\n\n");
            md.append(f("Device %s, GID index %d, %d B RDMA WRITE, send queue %d, every %dth WR signaled, "
                            + "%d warm-up and %d measured iterations of %d ms.\n\n",
                    c.path("device").asText(), c.path("gid_index").asInt(), c.path("message_bytes").asInt(),
                    c.path("sq_depth").asInt(), c.path("signal_every").asInt(),
                    c.path("warmup_iterations").asInt(), c.path("results").path(0).path("iterations").size(),
                    c.path("iteration_ms").asInt()));
            md.append("| calls | batch | ns/WR | iterations (ns/WR) |\n| --- | --- | --- | --- |\n");
            for (JsonNode n : c.path("results")) {
                md.append(f("| %s | %d | %.1f | %s |\n", n.path("api").asText(), n.path("batch").asInt(),
                        n.path("ns_per_wr").asDouble(), n.path("iterations").toString()));
            }
        }
        md.append("\nInputs: ").append(inputs.isEmpty() ? "none" : "`" + String.join("`, `", inputs) + "`")
                .append(".\n");
        return md.toString();
    }

    private void appendAll(StringBuilder md, String where, List<JmhResult> rs) {
        if (rs.isEmpty()) {
            md.append("No results from the ").append(where).append(".\n\n");
            return;
        }
        md.append("On the ").append(where).append(":\n\n");
        md.append("| benchmark | params | threads | score | ± (99.9%) | unit | alloc B/op |\n");
        md.append("| --- | --- | --- | --- | --- | --- | --- |\n");
        for (JmhResult r : rs) {
            md.append(f("| %s | %s | %d | %.3f | %s | %s | %s |\n", r.benchmark(), r.params().isEmpty() ? "—"
                            : r.params().toString().replaceAll("[{}]", ""), r.threads(), r.score(),
                    Double.isNaN(r.error()) ? "—" : f("%.3f", r.error()), r.unit(),
                    Double.isNaN(r.allocNorm()) ? "—" : f("%.4f", r.allocNorm())));
        }
        md.append('\n');
    }

    private String machine() throws IOException {
        StringBuilder s = new StringBuilder();
        s.append("- Command: `").append(command).append("` (see `benchmarks/README.md`).\n");
        s.append("- Host: ").append(Runtime.getRuntime().availableProcessors()).append(" CPUs (nproc), ")
                .append(memTotal()).append(" memory, CPU ").append(cpuModel()).append(", ")
                .append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version"))
                .append(", load average ").append(loadAverage()).append(" when the report was written (other "
                        + "work may share the CPUs; absolute figures are then noisy).\n");
        List<JmhResult> any = !host.isEmpty() ? host : rxe;
        if (!any.isEmpty()) {
            Map<String, String> vm = any.getFirst().vm();
            s.append(f("- JDK %s (%s %s), JMH %s; %s fork(s), %s warm-up iteration(s) of %s, %s measured iteration(s) "
                            + "of %s per benchmark.\n", vm.get("jdkVersion"), vm.get("vmName"), vm.get("vmVersion"),
                    vm.get("jmhVersion"), vm.get("forks"), vm.get("warmupIterations"), vm.get("warmupTime"),
                    vm.get("measurementIterations"), vm.get("measurementTime")));
        }
        if (!rxe.isEmpty()) {
            Map<String, String> vm = rxe.getFirst().vm();
            s.append(f("- Guest JMH: %s fork(s) (0: each provider's benchmarks in one JVM), %s warm-up iteration(s) of %s, %s measured iteration(s) of %s.\n",
                    vm.get("forks"), vm.get("warmupIterations"), vm.get("warmupTime"),
                    vm.get("measurementIterations"), vm.get("measurementTime")));
        }
        s.append("- Soft-RoCE guest: ").append(guestStatus.isBlank() ? "not run" : guestStatus).append(". ");
        if (!guestInfo.isBlank()) {
            s.append("It reported: ").append(guestInfo.replace('\n', ';').replaceAll("\\s+", " ")).append(". ");
        }
        s.append("The guest is qemu/TCG (no KVM), some 15 times slower than the host, running the host's JDK and "
                + "rdma-core; its absolute figures mean little, the Java/C ratios taken in it are the point.\n");
        return s.toString();
    }

    private static String loadAverage() throws IOException {
        Path p = Path.of("/proc/loadavg");
        if (Files.isReadable(p)) {
            String[] f = Files.readString(p).strip().split("\\s+");
            if (f.length >= 3) {
                return f[0] + " / " + f[1] + " / " + f[2] + " (1/5/15 min)";
            }
        }
        return "unknown";
    }

    private static String memTotal() throws IOException {
        Path p = Path.of("/proc/meminfo");
        if (Files.isReadable(p)) {
            for (String line : Files.readAllLines(p)) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("\\D", ""));
                    return f("%.1f GiB", kb / 1024.0 / 1024.0);
                }
            }
        }
        return "unknown";
    }

    private static String cpuModel() throws IOException {
        Path p = Path.of("/proc/cpuinfo");
        if (Files.isReadable(p)) {
            for (String line : Files.readAllLines(p)) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).strip();
                }
            }
        }
        return System.getProperty("os.arch");
    }
}
