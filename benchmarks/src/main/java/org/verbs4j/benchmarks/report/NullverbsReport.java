package org.verbs4j.benchmarks.report;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.ToDoubleFunction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The report section of {@code benchmarks/run --nullverbs}: the ffm and jnr providers against the C baseline on the
 * null libibverbs ({@code benchmarks/c/null_ibverbs.c}, device null0), and the emulator against
 * {@code MemorySegment.copy}, each measured in the same alternating rounds.
 *
 * <p>It reads the step's directory: {@code run.properties}, {@code rounds.tsv} (per round the start time,
 * {@code /proc/loadavg} before and after, {@code nproc}) and per round {@code round-N/c.json} (post_rate -p),
 * {@code jmh.json} (PostBenchmark and PollBenchmark, ffm and jnr), {@code emu.json} (MessageRateBenchmark and
 * BandwidthBenchmark at 1 MiB), {@code emu-2t.json} (BandwidthBenchmark at 1 MiB with 2 threads) and
 * {@code emu-cpu.json} (the same emulator rows by CPU time, {@code EmulatorCpuTime}).
 *
 * <p>Per configuration and round it takes C's ns per WR and each provider's (each the median of that round's
 * measured iterations, C's and JMH's alike, so that an iteration descheduled by other work counts less), then the
 * rate of C (C over Java: 1.0
 * is as fast as C) and the overhead (Java minus C, ns per WR); the section gives the median and the min to max of
 * each over the rounds, and holds the medians to the targets of issue 14. A round whose 1-minute load average,
 * before or after it, exceeded {@code nproc} is marked as loaded.
 */
final class NullverbsReport {
    private static final String[] PROVIDERS = {"ffm", "jnr"};
    private static final long MIB = 1 << 20;

    /** One measured configuration: its label, the C result's "api/batch" key, the JMH benchmark and batch. */
    private record Config(String label, String cKey, String benchmark, String batch, String cpuKey) {}

    private static final List<Config> CONFIGS = List.of(
            new Config("WR session, batch 1", "wrSession/1", "PostBenchmark.wrSession", "1", "wrSession/1"),
            new Config("WR session, batch 8", "wrSession/8", "PostBenchmark.wrSession", "8", "wrSession/8"),
            new Config("WR session, batch 32", "wrSession/32", "PostBenchmark.wrSession", "32", "wrSession/32"),
            new Config("postSend, batch 1", "postSend/1", "PostBenchmark.postSend", "1", "postSend/1"),
            new Config("postSend, batch 8", "postSend/8", "PostBenchmark.postSend", "8", "postSend/8"),
            new Config("postSend, batch 32", "postSend/32", "PostBenchmark.postSend", "32", "postSend/32"),
            new Config("poll, per completion (extended CQ)", "pollEx/32", "PollBenchmark.poll", null,
                    "postPollEx/32"),
            // A PreparedSends against C's postSend: C fills the same ibv_send_wr list and posts it.
            new Config("prepared sends, batch 1 (C: postSend)", "postSend/1", "PostBenchmark.prepared", "1",
                    "prepared/1"),
            new Config("prepared sends, batch 8 (C: postSend)", "postSend/8", "PostBenchmark.prepared", "8",
                    "prepared/8"),
            new Config("prepared sends, batch 32 (C: postSend)", "postSend/32", "PostBenchmark.prepared", "32",
                    "prepared/32"));

    private record Round(int n, String start, double[] loadBefore, double[] loadAfter, int nproc,
                         Map<String, Double> c, List<JmhResult> jmh, List<JmhResult> emu, List<JmhResult> emu2,
                         Map<String, Double> cCpu, Map<String, Map<String, Double>> javaCpu,
                         Map<String, Double> emuCpu) {
        boolean loaded() {
            return Math.max(loadBefore[0], loadAfter[0]) > nproc;
        }
    }

    private final Properties props;
    private final List<Round> rounds;
    private final List<String> problems;

    private NullverbsReport(Properties props, List<Round> rounds, List<String> problems) {
        this.props = props;
        this.rounds = rounds;
        this.problems = problems;
    }

    /** Reads the directory {@code benchmarks/run --nullverbs} wrote. */
    static NullverbsReport read(Path dir) throws IOException {
        Properties props = new Properties();
        Path pf = dir.resolve("run.properties");
        if (Files.exists(pf)) {
            try (Reader r = Files.newBufferedReader(pf)) {
                props.load(r);
            }
        }
        List<String> problems = new ArrayList<>();
        List<Round> rounds = new ArrayList<>();
        Path tsv = dir.resolve("rounds.tsv");
        if (!Files.exists(tsv)) {
            throw new IOException("no " + tsv + ": not a directory written by benchmarks/run --nullverbs");
        }
        for (String line : Files.readAllLines(tsv)) {
            String[] f = line.split("\t");
            if (f.length < 5 || f[0].equals("round")) {
                continue;
            }
            int n = Integer.parseInt(f[0]);
            Path rd = dir.resolve("round-" + n);
            Map<String, Map<String, Double>> javaCpu = new LinkedHashMap<>();
            for (String p : PROVIDERS) {
                javaCpu.put(p, perWr(rd.resolve("cpu-" + p + ".json"), n, problems));
            }
            rounds.add(new Round(n, f[1], load(f[2]), load(f[3]), Integer.parseInt(f[4].trim()),
                    perWr(rd.resolve("c.json"), n, problems), jmh(rd.resolve("jmh.json"), n, problems),
                    jmh(rd.resolve("emu.json"), n, problems), jmh(rd.resolve("emu-2t.json"), n, problems),
                    perWr(rd.resolve("c-cpu.json"), n, problems), javaCpu,
                    perWr(rd.resolve("emu-cpu.json"), n, problems)));
        }
        return new NullverbsReport(props, rounds, problems);
    }

    /** A post_rate-shaped JSON file: "api/batch" to the median of its iterations' ns per WR. */
    private static Map<String, Double> perWr(Path file, int round, List<String> problems) throws IOException {
        Map<String, Double> out = new LinkedHashMap<>();
        if (!Files.exists(file) || Files.size(file) == 0) {
            problems.add("round " + round + ": no `" + file.getFileName() + "` (that measurement failed)");
            return out;
        }
        JsonNode json = new ObjectMapper().readTree(file.toFile());
        for (JsonNode r : json.path("results")) {
            List<Double> its = new ArrayList<>();
            r.path("iterations").forEach(x -> its.add(x.asDouble()));
            double v = its.isEmpty() ? r.path("ns_per_wr").asDouble()
                    : stats(its.stream().mapToDouble(Double::doubleValue).toArray())[1];
            out.put(r.path("api").asText() + "/" + r.path("batch").asInt(), v);
        }
        return out;
    }

    private static double[] load(String loadavg) {
        String[] f = loadavg.trim().split("\\s+");
        return new double[] {Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])};
    }

    private static List<JmhResult> jmh(Path file, int round, List<String> problems) throws IOException {
        if (!Files.exists(file) || Files.size(file) == 0) {
            problems.add("round " + round + ": no `" + file.getFileName() + "` (that JMH run failed)");
            return List.of();
        }
        return JmhResult.read(file);
    }

    // ------------------------------------------------------------------ figures

    private static double score(List<JmhResult> in, String benchmark, String provider, String batch) {
        for (JmhResult r : in) {
            if (r.benchmark().equals(benchmark) && (provider == null || r.param("provider").equals(provider))
                    && (batch == null || r.param("batch").equals(batch))) {
                // The median of the measured iterations: one iteration that lost its CPU to other work on a
                // shared machine moves it less than it moves JMH's mean.
                return r.iterations().length > 0 ? stats(r.iterations())[1] : r.score();
            }
        }
        return Double.NaN;
    }

    private static double java(Round r, Config c, String provider) {
        return score(r.jmh(), c.benchmark(), provider, c.batch());
    }

    private static double c(Round r, Config c) {
        return r.c().getOrDefault(c.cKey(), Double.NaN);
    }

    private static double cpuJava(Round r, Config c, String provider) {
        return r.javaCpu().getOrDefault(provider, Map.of()).getOrDefault(c.cpuKey(), Double.NaN);
    }

    /** C's CPU figure: the same pattern's, or, for a Java-only pattern (prepared sends), C's {@code cKey} one. */
    private static double cpuC(Round r, Config c) {
        return r.cCpu().getOrDefault(c.cpuKey(), r.cCpu().getOrDefault(c.cKey(), Double.NaN));
    }

    /** How one view of a round gives C's figure and a provider's. */
    private interface View {
        double c(Round r, Config c);

        double java(Round r, Config c, String provider);
    }

    private static final View WALL = new View() {
        @Override
        public double c(Round r, Config c) {
            return NullverbsReport.c(r, c);
        }

        @Override
        public double java(Round r, Config c, String provider) {
            return NullverbsReport.java(r, c, provider);
        }
    };

    private static final View CPU = new View() {
        @Override
        public double c(Round r, Config c) {
            return cpuC(r, c);
        }

        @Override
        public double java(Round r, Config c, String provider) {
            return cpuJava(r, c, provider);
        }
    };

    /** min, median, max of the values that are numbers; NaNs when there are none. */
    static double[] stats(double[] values) {
        double[] v = Arrays.stream(values).filter(x -> !Double.isNaN(x)).sorted().toArray();
        if (v.length == 0) {
            return new double[] {Double.NaN, Double.NaN, Double.NaN};
        }
        double median = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        return new double[] {v[0], median, v[v.length - 1]};
    }

    private double[] over(ToDoubleFunction<Round> f) {
        return stats(rounds.stream().mapToDouble(f).toArray());
    }

    private static String f(String fmt, Object... args) {
        return String.format(Locale.ROOT, fmt, args);
    }

    private static String num(double v, String fmt) {
        return Double.isNaN(v) ? "—" : f(fmt, v);
    }

    /** "median (min–max)" with the format of one value. */
    private static String mmm(double[] s, String fmt) {
        if (Double.isNaN(s[1])) {
            return "—";
        }
        return f(fmt, s[1]) + " (" + f(fmt, s[0]) + "–" + f(fmt, s[2]) + ")";
    }

    // ------------------------------------------------------------------ the section

    String render() {
        StringBuilder md = new StringBuilder();
        long loaded = rounds.stream().filter(Round::loaded).count();
        md.append("## The bindings against C on a null libibverbs (null0)\n\n");
        md.append(f("Made by `%s` from %s to %s: %d alternating rounds, each of the C baseline `post_rate -p`, then "
                        + "JMH's `PostBenchmark` and `PollBenchmark` for ffm and for jnr, then the same patterns by "
                        + "thread CPU time, all on null0 (the null "
                        + "libibverbs of `benchmarks/c/null_ibverbs.c`, through `LD_LIBRARY_PATH`), then the "
                        + "emulator's rows. null0's ops only record each WR in a ring and complete the signaled "
                        + "ones, so no kernel or device time hides the bindings' own cost: what Java spends "
                        + "beyond C is ours. %d of %d rounds ran with a 1-minute load above the core count "
                        + "(marked below); the machine is shared, so compare within a round first. A round's figure is the "
                        + "median of its measured iterations (C's and JMH's alike), which one descheduled "
                        + "iteration moves less than the mean.\n\n",
                props.getProperty("command", "benchmarks/run --nullverbs"), props.getProperty("start", "?"),
                props.getProperty("end", "?"), rounds.size(), loaded, rounds.size()));
        md.append(f("Iterations are short, to keep the step near 8 minutes on 2 cores: JMH `%s` per benchmark "
                        + "and round, C `%s` (ms per iteration after -t), CPU-time loops `%s` (warm-up ms, iterations, "
                        + "CPU ms each), emulator JMH `%s`. The C baseline posts "
                        + "and polls the same pattern as the JMH benchmarks (`WriteStream`: 64 B RDMA WRITE, "
                        + "every 32nd WR signaled, 256-deep send queue); its poll row reads every field a "
                        + "`WorkCompletion` holds from an extended CQ, as both providers do.\n\n",
                props.getProperty("jmh", "?"), props.getProperty("c", "?"), props.getProperty("cpu", "?"),
                props.getProperty("emulator_jmh", "?")));

        md.append("### ns per WR, median over rounds (min–max)\n\n");
        md.append("Rate of C is C's time over Java's in the same round (1.00: as fast as C); overhead is Java's "
                + "time minus C's, per WR (per completion for poll).\n\n");
        table(md, WALL, "poll, per completion (extended CQ)");
        double[] plainPoll = over(r -> r.c().getOrDefault("poll/32", Double.NaN));
        if (!Double.isNaN(plainPoll[1])) {
            md.append(f("\nC with a plain CQ (`ibv_poll_cq` into a 32-entry `ibv_wc` array): %s ns per completion; "
                    + "the extended CQ makes one indirect call per field read.\n", mmm(plainPoll, "%.1f")));
        }

        md.append("\n### Thread CPU time per WR, median over rounds (min–max)\n\n");
        md.append("The same patterns timed by the posting thread's CPU clock instead of the wall clock (C: `post_rate "
                + "-p -c`; Java: `NullverbsCpuTime`, a plain loop after a warm-up, not JMH): on a shared machine a "
                + "wall-clock figure also holds the time the thread waited for a CPU, this one does not. The CPU "
                + "clock costs a system call, so it is read every 64 operations of 32 WRs, and polling is measured "
                + "with its posts: 32 signaled WRITEs posted in a WR session, then their completions polled from "
                + "the extended CQ, per WR.\n\n");
        table(md, CPU, "post 32 signaled + poll them (extended CQ), per WR");

        md.append("\n### Targets of issue 14 (medians over rounds)\n\n");
        md.append("The targets hold the JMH (wall clock) medians; the CPU-time medians are given next to them, as "
                + "the figure that other work on the machine disturbs least.\n\n");
        md.append("| target | median, JMH (wall clock) | met? | median, thread CPU time | met? |\n"
                + "| --- | --- | --- | --- | --- |\n");
        target(md, "ffm postSend, batch 32: rate ≥ 0.80 of C, or within 3 ns per WR", CONFIGS.get(5), "ffm", 0.8, 3);
        target(md, "ffm WR session, batch 32: rate ≥ 0.50 of C", CONFIGS.get(2), "ffm", 0.5, Double.NaN);
        target(md, "ffm WR session, batch 1: rate ≥ 0.50 of C", CONFIGS.get(0), "ffm", 0.5, Double.NaN);
        target(md, "ffm postSend, batch 1: rate ≥ 0.50 of C", CONFIGS.get(3), "ffm", 0.5, Double.NaN);
        for (Config c : CONFIGS.subList(0, 6)) {
            target(md, "jnr " + c.label() + ": rate ≥ 0.40 of C", c, "jnr", 0.4, Double.NaN);
        }
        target(md, "ffm prepared sends, batch 32: rate ≥ 0.80 of C's postSend, or within 3 ns per WR",
                CONFIGS.get(9), "ffm", 0.8, 3);
        target(md, "jnr prepared sends, batch 32: rate ≥ 0.40 of C's postSend", CONFIGS.get(9), "jnr", 0.4,
                Double.NaN);
        emulatorTargets(md);

        md.append("\n### Rounds\n\n");
        md.append("| round | start (UTC) | load 1/5/15 min before → after | nproc | loaded? |\n");
        md.append("| --- | --- | --- | --- | --- |\n");
        for (Round r : rounds) {
            md.append(f("| %d | %s | %.2f %.2f %.2f → %.2f %.2f %.2f | %d | %s |\n", r.n(), r.start(),
                    r.loadBefore()[0], r.loadBefore()[1], r.loadBefore()[2], r.loadAfter()[0], r.loadAfter()[1],
                    r.loadAfter()[2], r.nproc(), r.loaded() ? "**yes** (1-min load > nproc)" : "no"));
        }
        md.append("\nEvery JMH and C figure (wall clock), per round (ns per WR; per completion for poll):\n\n");
        md.append("| configuration | ");
        for (Round r : rounds) {
            md.append("round ").append(r.n()).append(r.loaded() ? " (loaded)" : "").append(" | ");
        }
        md.append("\n| --- |").append(" --- |".repeat(rounds.size())).append('\n');
        for (Config c : CONFIGS) {
            md.append("| C, ").append(c.label());
            for (Round r : rounds) {
                md.append(" | ").append(num(c(r, c), "%.2f"));
            }
            md.append(" |\n");
            for (String p : PROVIDERS) {
                md.append("| ").append(p).append(", ").append(c.label());
                for (Round r : rounds) {
                    md.append(" | ").append(num(java(r, c, p), "%.2f"));
                }
                md.append(" |\n");
            }
        }
        emulatorRounds(md);
        if (!problems.isEmpty()) {
            md.append("\nMissing in this run:\n\n");
            for (String p : problems) {
                md.append("- ").append(p).append('\n');
            }
        }
        return md.toString();
    }

    private void table(StringBuilder md, View v, String pollLabel) {
        md.append("| configuration | C | ffm | ffm rate of C | ffm overhead | jnr | jnr rate of C | jnr overhead |\n");
        md.append("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Config c : CONFIGS) {
            md.append("| ").append(c.batch() == null ? pollLabel : c.label()).append(" | ")
                    .append(mmm(over(r -> v.c(r, c)), "%.1f"));
            for (String p : PROVIDERS) {
                md.append(" | ").append(mmm(over(r -> v.java(r, c, p)), "%.1f"))
                        .append(" | ").append(mmm(over(r -> v.c(r, c) / v.java(r, c, p)), "%.2f"))
                        .append(" | ").append(mmm(over(r -> v.java(r, c, p) - v.c(r, c)), "%+.1f"));
            }
            md.append(" |\n");
        }
    }

    private void target(StringBuilder md, String what, Config c, String provider, double rate, double withinNs) {
        md.append("| ").append(what);
        for (View v : new View[] {WALL, CPU}) {
            double[] ratio = over(r -> v.c(r, c) / v.java(r, c, provider));
            double[] overhead = over(r -> v.java(r, c, provider) - v.c(r, c));
            if (Double.isNaN(ratio[1])) {
                md.append(" | not measured | **no**");
                continue;
            }
            boolean met = ratio[1] >= rate || (!Double.isNaN(withinNs) && overhead[1] <= withinNs);
            md.append(f(" | %.2f of C (%+.1f ns per WR) | %s", ratio[1], overhead[1], met ? "yes" : "**no**"));
        }
        md.append(" |\n");
    }

    // ------------------------------------------------------------------ emulator

    private static double writeGbps(List<JmhResult> in) {
        return score(in, "BandwidthBenchmark.write", null, null) * MIB / 1e9;
    }

    private static double copyGbps(List<JmhResult> in) {
        return score(in, "BandwidthBenchmark.copy", null, null) * MIB / 1e9;
    }

    /** The emulator's 64 B WRITE rate by CPU time, M WR/s for {@code threads} threads with a core each. */
    private static double cpuRate(Round r, int threads) {
        return threads * 1e3 / r.emuCpu().getOrDefault("emuWrite64x" + threads + "/32", Double.NaN);
    }

    /** The emulator's 1 MiB WRITE over the copy, by CPU time (the copy's CPU per MiB over the WRITE's). */
    private static double cpuRatio(Round r, int threads) {
        return r.emuCpu().getOrDefault("emuCopy1MiBx" + threads + "/1", Double.NaN)
                / r.emuCpu().getOrDefault("emuWrite1MiBx" + threads + "/1", Double.NaN);
    }

    private static String met(double v, double target) {
        return Double.isNaN(v) ? "**no** (not measured)" : v >= target ? "yes" : "**no**";
    }

    private void emulatorTargets(StringBuilder md) {
        double[] one = over(r -> score(r.emu(), "MessageRateBenchmark.write64OneThread", null, null) / 1e6);
        double[] two = over(r -> score(r.emu(), "MessageRateBenchmark.write64TwoThreads", null, null) / 1e6);
        double[] ratio1 = over(r -> writeGbps(r.emu()) / copyGbps(r.emu()));
        double[] ratio2 = over(r -> writeGbps(r.emu2()) / copyGbps(r.emu2()));
        double[] cpuOne = over(r -> cpuRate(r, 1));
        double[] cpuTwo = over(r -> cpuRate(r, 2));
        double[] cpuRatio1 = over(r -> cpuRatio(r, 1));
        double[] cpuRatio2 = over(r -> cpuRatio(r, 2));
        md.append(f("| Emulator: 64 B RDMA WRITEs, 1 thread: ≥ 10 M WR/s | %s M WR/s | %s | %s M WR/s | %s |\n",
                num(one[1], "%.2f"), met(one[1], 10), num(cpuOne[1], "%.2f"), met(cpuOne[1], 10)));
        md.append(f("| Emulator: 64 B RDMA WRITEs, 2 threads on separate QPs (reported) | %s M WR/s | — "
                + "| %s M WR/s | — |\n", num(two[1], "%.2f"), num(cpuTwo[1], "%.2f")));
        md.append(f("| Emulator: 1 MiB RDMA WRITE, 1 thread: ≥ 0.80 of MemorySegment.copy | %s of copy | %s "
                + "| %s of copy | %s |\n", num(ratio1[1], "%.2f"), met(ratio1[1], 0.8), num(cpuRatio1[1], "%.2f"),
                met(cpuRatio1[1], 0.8)));
        md.append(f("| Emulator: 1 MiB RDMA WRITE, 2 threads (reported) | %s of copy | — | %s of copy | — |\n",
                num(ratio2[1], "%.2f"), num(cpuRatio2[1], "%.2f")));
    }

    private void emulatorRounds(StringBuilder md) {
        md.append("\nThe emulator, per round: 64 B WRITE rate (`MessageRateBenchmark`), and the 1 MiB RDMA WRITE "
                + "against `MemorySegment.copy` of the same buffers (`BandwidthBenchmark`, copy and write run back "
                + "to back in each round; with 2 threads each thread has its own context, QP pair and buffers).\n\n");
        md.append("| round | 1 thread, M WR/s | 2 threads, M WR/s | 1 MiB write, GB/s | copy, GB/s | write/copy "
                + "| 2 threads: write, GB/s | copy, GB/s | write/copy |\n");
        md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Round r : rounds) {
            double w1 = writeGbps(r.emu());
            double c1 = copyGbps(r.emu());
            double w2 = writeGbps(r.emu2());
            double c2 = copyGbps(r.emu2());
            md.append(f("| %d%s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.n(), r.loaded() ? " (loaded)" : "",
                    num(score(r.emu(), "MessageRateBenchmark.write64OneThread", null, null) / 1e6, "%.2f"),
                    num(score(r.emu(), "MessageRateBenchmark.write64TwoThreads", null, null) / 1e6, "%.2f"),
                    num(w1, "%.2f"), num(c1, "%.2f"), num(w1 / c1, "%.2f"), num(w2, "%.2f"), num(c2, "%.2f"),
                    num(w2 / c2, "%.2f")));
        }
        md.append("\nThe same, by CPU time (`EmulatorCpuTime`: plain loops after a warm-up, the CPU time of every "
                + "Java thread of the JVM over each iteration, that is the posting threads and any emulator thread; the "
                + "in-JVM emulator executes WRs on the posting thread). A rate is WRs per CPU-second times the "
                + "threads: what they would do with a core each. The 1 MiB WRITE and the copy alternate within "
                + "every iteration.\n\n");
        md.append("| round | 1 thread, M WR/s | 2 threads, M WR/s | 1 MiB write/copy, 1 thread | 2 threads |\n");
        md.append("| --- | --- | --- | --- | --- |\n");
        for (Round r : rounds) {
            md.append(f("| %d%s | %s | %s | %s | %s |\n", r.n(), r.loaded() ? " (loaded)" : "",
                    num(cpuRate(r, 1), "%.2f"), num(cpuRate(r, 2), "%.2f"), num(cpuRatio(r, 1), "%.2f"),
                    num(cpuRatio(r, 2), "%.2f")));
        }
    }
}
