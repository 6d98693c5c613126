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
    // Over 600 lines: one report section, its rounds read, its medians taken and its tables written in one place.
    private static final String[] PROVIDERS = {"ffm", "jnr"};
    private static final long MIB = 1 << 20;

    /**
     * One measured configuration: its label, the C result's "api/batch" key (the C loop doing the same per-WR work,
     * in both clocks), the JMH benchmark and batch, the CPU-time result's key for Java (and C's, for poll) and the
     * C loop's description for the report (issue 30: every Java row names the C loop it is compared with).
     */
    private record Config(String label, String cKey, String benchmark, String batch, String cpuKey, String cLoop) {}

    private static final String C_SESSION = "`wrSession`: ibv_wr_start; per WR wr_id, wr_flags, ibv_wr_rdma_write, "
            + "ibv_wr_set_sge; ibv_wr_complete";
    private static final String C_POST_SEND = "`postSend`: per WR wr_id, send_flags, remote address and SGE address "
            + "rewritten in a reused ibv_send_wr list; ibv_post_send";
    private static final String C_PREPARED = "`prepared`: per WR wr_id and send_flags rewritten in a reused "
            + "ibv_send_wr list whose addresses stay; ibv_post_send";

    private static final List<Config> CONFIGS = List.of(
            new Config("WR session, batch 1", "wrSession/1", "PostBenchmark.wrSession", "1", "wrSession/1", C_SESSION),
            new Config("WR session, batch 8", "wrSession/8", "PostBenchmark.wrSession", "8", "wrSession/8", C_SESSION),
            new Config("WR session, batch 32", "wrSession/32", "PostBenchmark.wrSession", "32", "wrSession/32",
                    C_SESSION),
            new Config("postSend, batch 1", "postSend/1", "PostBenchmark.postSend", "1", "postSend/1", C_POST_SEND),
            new Config("postSend, batch 8", "postSend/8", "PostBenchmark.postSend", "8", "postSend/8", C_POST_SEND),
            new Config("postSend, batch 32", "postSend/32", "PostBenchmark.postSend", "32", "postSend/32",
                    C_POST_SEND),
            new Config("poll, per completion (extended CQ)", "pollEx/32", "PollBenchmark.poll", null,
                    "postPollEx/32", "`pollEx` (wall clock): ibv_start_poll/next_poll/end_poll, every field read; "
                    + "by CPU time `postPollEx`: 32 signaled WRITEs in a WR session, then polled"),
            // A PreparedSends rewriting wrId and flags against C's loop rewriting those two fields only.
            new Config("prepared sends (wrId, flags rewritten), batch 1", "prepared/1", "PostBenchmark.prepared", "1",
                    "prepared/1", C_PREPARED),
            new Config("prepared sends (wrId, flags rewritten), batch 8", "prepared/8", "PostBenchmark.prepared", "8",
                    "prepared/8", C_PREPARED),
            new Config("prepared sends (wrId, flags rewritten), batch 32", "prepared/32", "PostBenchmark.prepared",
                    "32", "prepared/32", C_PREPARED),
            // A PreparedSends rewriting wrId, flags and both addresses against C's postSend, which rewrites the same.
            new Config("prepared sends, addresses rewritten, batch 1", "postSend/1", "PostBenchmark.preparedAddressed",
                    "1", "preparedAddressed/1", C_POST_SEND),
            new Config("prepared sends, addresses rewritten, batch 8", "postSend/8", "PostBenchmark.preparedAddressed",
                    "8", "preparedAddressed/8", C_POST_SEND),
            new Config("prepared sends, addresses rewritten, batch 32", "postSend/32",
                    "PostBenchmark.preparedAddressed", "32", "preparedAddressed/32", C_POST_SEND),
            // The same on a QP created with a thread domain (confined to the posting thread: no lock, no atomic),
            // by CPU time only (NullverbsCpuTime's "...Td" rows); C's loops are the same (null0 takes no lock).
            td("WR session", "wrSession", "1", C_SESSION), td("WR session", "wrSession", "32", C_SESSION),
            td("postSend", "postSend", "1", C_POST_SEND), td("postSend", "postSend", "32", C_POST_SEND),
            td("prepared sends (wrId, flags rewritten)", "prepared", "1", C_PREPARED),
            td("prepared sends (wrId, flags rewritten)", "prepared", "32", C_PREPARED),
            td("prepared sends, addresses rewritten", "preparedAddressed", "1", C_POST_SEND),
            td("prepared sends, addresses rewritten", "preparedAddressed", "32", C_POST_SEND),
            // The floor of an FFM binding (ffm column only): the prepared rows' work, one bare critical downcall.
            new Config("raw FFM downcall of post_send, no checks (wrId, flags rewritten), batch 1", "prepared/1", null,
                    "1", "rawFfmPrepared/1", C_PREPARED),
            new Config("raw FFM downcall of post_send, no checks (wrId, flags rewritten), batch 32", "prepared/32",
                    null, "32", "rawFfmPrepared/32", C_PREPARED));

    /** A row of a QP created with a thread domain: {@code api} + "Td", against C's loop of the plain row. */
    private static Config td(String what, String api, String batch, String cLoop) {
        String cKey = (api.equals("preparedAddressed") ? "postSend" : api) + "/" + batch;
        return new Config(what + ", thread-domain QP, batch " + batch, cKey, null, batch, api + "Td/" + batch, cLoop);
    }

    private record Round(int n, String start, double[] loadBefore, double[] loadAfter, int nproc,
                         Map<String, Double> c, List<JmhResult> jmh, List<JmhResult> emu, List<JmhResult> emu2,
                         Map<String, Double> cCpu, Map<String, Map<String, Double>> javaCpu,
                         Map<String, Double> emuCpu, Map<String, Double> disniCpu) {
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
            // DiSNI's figures (DisniCpuTime) exist only when the run was given DiSNI's source (issue 30).
            Path disni = rd.resolve("cpu-disni.json");
            boolean disniRun = props.getProperty("disni", "").startsWith("built");
            rounds.add(new Round(n, f[1], load(f[2]), load(f[3]), Integer.parseInt(f[4].trim()),
                    perWr(rd.resolve("c.json"), n, problems), jmh(rd.resolve("jmh.json"), n, problems),
                    jmh(rd.resolve("emu.json"), n, problems), jmh(rd.resolve("emu-2t.json"), n, problems),
                    perWr(rd.resolve("c-cpu.json"), n, problems), javaCpu,
                    perWr(rd.resolve("emu-cpu.json"), n, problems),
                    disniRun || Files.exists(disni) ? perWr(disni, n, problems) : Map.of()));
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

    /** C's CPU figure: the loop of {@code cKey}, except for poll, measured with its posts by CPU time. */
    private static double cpuC(Round r, Config c) {
        return c.batch() == null ? r.cCpu().getOrDefault(c.cpuKey(), Double.NaN)
                : r.cCpu().getOrDefault(c.cKey(), Double.NaN);
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
        cLoops(md);
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

        disni(md);
        issue30(md);

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
        // Like for like (issue 30): wrId and flags rewritten against C's `prepared` loop, which rewrites those two;
        // addresses rewritten against C's `postSend`, which rewrites the same four fields.
        target(md, "ffm prepared sends (wrId, flags), batch 32: rate ≥ 0.80 of C's `prepared`, or within 3 ns per WR",
                CONFIGS.get(9), "ffm", 0.8, 3);
        target(md, "jnr prepared sends (wrId, flags), batch 32: rate ≥ 0.40 of C's `prepared`", CONFIGS.get(9), "jnr",
                0.4, Double.NaN);
        target(md, "ffm prepared sends, addresses rewritten, batch 32: rate ≥ 0.80 of C's `postSend`, or within 3 ns "
                + "per WR", CONFIGS.get(12), "ffm", 0.8, 3);
        target(md, "jnr prepared sends, addresses rewritten, batch 32: rate ≥ 0.40 of C's `postSend`",
                CONFIGS.get(12), "jnr", 0.4, Double.NaN);
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
            md.append("| C `").append(c.cKey().split("/")[0]).append("`, ").append(c.label());
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

    /** Which C loop each row is compared with, and what it does per WR (issue 30: like for like). */
    private static void cLoops(StringBuilder md) {
        md.append("\nEach row is compared with the C loop of `post_rate` named in it, which does the same work per WR:\n\n");
        for (String loop : List.of(C_SESSION, C_POST_SEND, C_PREPARED, CONFIGS.get(6).cLoop())) {
            md.append("- ").append(loop).append('\n');
        }
        md.append("\nThe Java rows: WR session: `WrSession` with wrId, flags, `rdmaWrite` and `setSge` per WR; postSend: "
                + "a reused `List<SendWr>` with wrId, flags, the remote address and the SGE address rewritten; prepared "
                + "sends: a `PreparedSends` with wrId and flags rewritten (its slots keep their addresses), or with "
                + "wrId, flags, `rdma` and `sge` rewritten (addresses rewritten).\n");
    }

    private void table(StringBuilder md, View v, String pollLabel) {
        md.append("| configuration | C | ffm | ffm rate of C | ffm overhead | jnr | jnr rate of C | jnr overhead |\n");
        md.append("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Config c : CONFIGS) {
            md.append("| ").append(c.batch() == null ? pollLabel : c.label()).append(" (C: `")
                    .append(c.batch() == null && v == CPU ? c.cpuKey().split("/")[0] : c.cKey().split("/")[0])
                    .append("`) | ").append(mmm(over(r -> v.c(r, c)), "%.1f"));
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

    // ------------------------------------------------------------------ DiSNI (issue 30)

    private static double disniCpu(Round r, String key) {
        return r.disniCpu().getOrDefault(key, Double.NaN);
    }

    private double[] overCpu(String who, String key) {
        return over(r -> who.equals("C") ? r.cCpu().getOrDefault(key, Double.NaN)
                : who.equals("disni") ? disniCpu(r, key)
                : r.javaCpu().getOrDefault(who, Map.of()).getOrDefault(key, Double.NaN));
    }

    private double cpuOf(Round r, String who, String key) {
        return who.equals("C") ? r.cCpu().getOrDefault(key, Double.NaN)
                : who.equals("disni") ? disniCpu(r, key)
                : r.javaCpu().getOrDefault(who, Map.of()).getOrDefault(key, Double.NaN);
    }

    /**
     * DiSNI beside C, ffm and jnr, by thread CPU time per WR, paired both ways as issue 30's table: DiSNI's
     * re-executed {@code SVCPostSend} against verbs4j's {@code postSend(List)}, and against a {@code PreparedSends}
     * with every field rewritten; both against C's {@code postSend} loop, which rewrites the same four fields.
     */
    private void disni(StringBuilder md) {
        md.append("\n### DiSNI beside C, ffm and jnr: thread CPU time per WR (issue 30)\n\n");
        String state = props.getProperty("disni", "");
        boolean any = rounds.stream().anyMatch(r -> !r.disniCpu().isEmpty());
        if (!any) {
            md.append(state.isEmpty() ? "DiSNI was not measured in this run.\n"
                    : "DiSNI was not measured in this run: " + state + ".\n");
            return;
        }
        md.append(f("DiSNI %s. Its Java side is `com.ibm.disni:disni:2.1` from Maven Central; its native library was "
                + "built by `benchmarks/c/build-disni` from that source against the null libibverbs and the null "
                + "librdmacm of `benchmarks/c` (an `rdma_cm_id` holds null0's context; `rdma_create_qp` makes a QP "
                + "in RTS). `DisniCpuTime` posts `WriteStream`'s stream (64 B RDMA WRITE, one SGE, wr_id and both "
                + "addresses changing per WR, every 32nd signaled, 256-deep send queue, the CQ polled with DiSNI's "
                + "`SVCPollCq` when it would overflow) with DiSNI's stateful `SVCPostSend`, made once and "
                + "re-executed, every WR's wr_id, send flags, remote address and SGE address rewritten through its "
                + "modifier objects: kept from the first `getWrMod`, or fetched again for every WR "
                + "(`getWrMod(i)`, `getRdmaMod()`, `getSgeMod(0)`). Same rounds, same CPU-time loop as the rows "
                + "above; the C loop of every row is `post_rate`'s `postSend` (per WR the same four fields "
                + "rewritten in a reused `ibv_send_wr` list, then `ibv_post_send`), except the WR session's "
                + "(`wrSession`).\n\n", state.isEmpty() ? "(commit not recorded)" : state));
        md.append("| | C | DiSNI, modifiers fetched | DiSNI, modifiers kept | verbs4j ffm | verbs4j jnr | ffm ahead "
                + "of DiSNI (kept) | jnr ahead of DiSNI (kept) |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (String batch : List.of("1", "8", "32")) {
            disniRow(md, f("list post, batch %s (DiSNI's `SVCPostSend` re-executed; verbs4j `postSend(List)`)", batch),
                    batch, "postSend/" + batch);
        }
        for (String batch : List.of("1", "8", "32")) {
            disniRow(md, f("reusable native WR array, every field rewritten, batch %s (verbs4j `PreparedSends`, "
                    + "addresses rewritten)", batch), batch, "preparedAddressed/" + batch);
        }
        for (String batch : List.of("1", "32")) {
            disniRow(md, f("list post, batch %s, thread-domain QP (verbs4j `postSend(List)`)", batch), batch,
                    "postSendTd/" + batch);
            disniRow(md, f("reusable native WR array, every field rewritten, batch %s, thread-domain QP (verbs4j "
                    + "`PreparedSends`, addresses rewritten)", batch), batch, "preparedAddressedTd/" + batch);
        }
        for (String batch : List.of("1", "8", "32")) {
            String key = "wrSession/" + batch;
            md.append(f("| WR session, batch %s (DiSNI has none; C: `wrSession`) | %s | none | none | %s | %s | — "
                    + "| — |\n", batch, mmm(overCpu("C", key), "%.1f"), mmm(overCpu("ffm", key), "%.1f"),
                    mmm(overCpu("jnr", key), "%.1f")));
        }
        md.append("\n\"Ahead\" is DiSNI's time over verbs4j's, minus 1, per round (median and min–max): +0.20 is "
                + "20% ahead; it is taken against DiSNI with its modifier objects kept, DiSNI's faster way. Issue 30's "
                + "target is ffm at least +0.20 and jnr at least 0.00 on every row.\n");

        md.append("\nPer round (ns per WR, thread CPU time; load is the 1-minute load average before → after the "
                + "round):\n\n| round | load | C postSend 1 / 32 | DiSNI fetched 1 / 32 | DiSNI kept 1 / 32 "
                + "| ffm postSend 1 / 32 | ffm prepared, addressed 1 / 32 | jnr postSend 1 / 32 "
                + "| jnr prepared, addressed 1 / 32 |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Round r : rounds) {
            md.append(f("| %d%s | %.2f → %.2f", r.n(), r.loaded() ? " (loaded)" : "", r.loadBefore()[0],
                    r.loadAfter()[0]));
            String[][] cols = {{"C", "postSend"}, {"disni", "disniFetched"}, {"disni", "disniKept"},
                {"ffm", "postSend"}, {"ffm", "preparedAddressed"}, {"jnr", "postSend"}, {"jnr", "preparedAddressed"}};
            for (String[] col : cols) {
                md.append(" | ").append(num(cpuOf(r, col[0], col[1] + "/1"), "%.1f")).append(" / ")
                        .append(num(cpuOf(r, col[0], col[1] + "/32"), "%.1f"));
            }
            md.append(" |\n");
        }
    }

    private void disniRow(StringBuilder md, String label, String batch, String javaKey) {
        String kept = "disniKept/" + batch;
        md.append(f("| %s | %s | %s | %s | %s | %s | %s | %s |\n", label, mmm(overCpu("C", "postSend/" + batch), "%.1f"),
                mmm(overCpu("disni", "disniFetched/" + batch), "%.1f"), mmm(overCpu("disni", kept), "%.1f"),
                mmm(overCpu("ffm", javaKey), "%.1f"), mmm(overCpu("jnr", javaKey), "%.1f"),
                mmm(over(r -> disniCpu(r, kept) / cpuOf(r, "ffm", javaKey) - 1), "%+.2f"),
                mmm(over(r -> disniCpu(r, kept) / cpuOf(r, "jnr", javaKey) - 1), "%+.2f")));
    }

    /**
     * Issue 30's fit of a fixed cost per post and a cost per WR, from batches 1 and 32, and its targets on the
     * null libibverbs, with and without a thread domain.
     */
    private void issue30(StringBuilder md) {
        md.append("\n### Fixed cost per post and cost per WR (issue 30)\n\n");
        md.append("A fit t(b) = F/b + W from batch 1 and batch 32 (medians over rounds, thread CPU time). A "
                + "thread-domain QP is confined to the posting thread, so its send queue takes no lock (no "
                + "compare-and-set); the C loop is the same for both (null0 takes no lock).\n\n"
                + "| | fixed F, ns per post | per WR W, ns |\n| --- | --- | --- |\n");
        fit(md, "C `postSend`", "C", "postSend");
        fit(md, "C `prepared`", "C", "prepared");
        fit(md, "C `wrSession`", "C", "wrSession");
        fit(md, "raw FFM critical downcall, no checks (`prepared`'s work: the floor of an FFM binding)", "ffm",
                "rawFfmPrepared");
        if (rounds.stream().anyMatch(r -> !r.disniCpu().isEmpty())) {
            fit(md, "DiSNI, modifiers fetched", "disni", "disniFetched");
            fit(md, "DiSNI, modifiers kept", "disni", "disniKept");
        }
        for (String p : PROVIDERS) {
            fit(md, p + " `PreparedSends`, wrId and flags rewritten", p, "prepared");
            fit(md, p + " `PreparedSends`, wrId and flags rewritten, thread-domain QP", p, "preparedTd");
            fit(md, p + " `postSend`", p, "postSend");
            fit(md, p + " `postSend`, thread-domain QP", p, "postSendTd");
            fit(md, p + " `PreparedSends`, addresses rewritten", p, "preparedAddressed");
            fit(md, p + " `PreparedSends`, addresses rewritten, thread-domain QP", p, "preparedAddressedTd");
            fit(md, p + " WR session", p, "wrSession");
            fit(md, p + " WR session, thread-domain QP", p, "wrSessionTd");
        }
        md.append("\n| issue 30 target (ffm, CPU time, medians) | plain QP | met? | thread-domain QP | met? |\n"
                + "| --- | --- | --- | --- | --- |\n");
        for (String api : List.of("postSend", "preparedAddressed")) {
            double plain = fixed("ffm", api);
            double td = fixed("ffm", api + "Td");
            md.append(f("| fixed cost of a post (`%s`) ≤ 8 ns | %s | %s | %s | %s |\n", api, num(plain, "%.1f"),
                    upTo(plain, 8), num(td, "%.1f"), upTo(td, 8)));
        }
        double cPerWr = overCpu("C", "postSend/1")[1] - fixed("C", "postSend");
        for (String api : List.of("preparedAddressed", "preparedAddressedTd")) {
            double w = overCpu("ffm", api + "/1")[1] - fixed("ffm", api);
            md.append(f("| per-WR cost of `%s` ≤ 1.5× C's `postSend` (%s ns) | %s | %s | | |\n", api,
                    num(cPerWr, "%.1f"), num(w / cPerWr, "%.2f×"), upTo(w / cPerWr, 1.5)));
        }
        for (String[] b : new String[][] {{"32", "2"}, {"1", "2.5"}}) {
            double c = overCpu("C", "wrSession/" + b[0])[1];
            double plain = overCpu("ffm", "wrSession/" + b[0])[1] / c;
            double td = overCpu("ffm", "wrSessionTd/" + b[0])[1] / c;
            md.append(f("| WR session, batch %s ≤ %s× C | %s | %s | %s | %s |\n", b[0], b[1], num(plain, "%.2f×"),
                    upTo(plain, Double.parseDouble(b[1])), num(td, "%.2f×"), upTo(td, Double.parseDouble(b[1]))));
        }
    }

    private static String upTo(double v, double limit) {
        return Double.isNaN(v) ? "—" : v <= limit ? "yes" : "**no**";
    }

    private double fixed(String who, String api) {
        return (overCpu(who, api + "/1")[1] - overCpu(who, api + "/32")[1]) * 32 / 31;
    }

    private void fit(StringBuilder md, String label, String who, String api) {
        double fixed = fixed(who, api);
        md.append(f("| %s | %s | %s |\n", label, num(fixed, "%.1f"), num(overCpu(who, api + "/1")[1] - fixed, "%.1f")));
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
        md.append("| round | load before → after | 1 thread, M WR/s | 2 threads, M WR/s | 1 MiB write, GB/s | copy, GB/s "
                + "| write/copy | 2 threads: write, GB/s | copy, GB/s | write/copy |\n");
        md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Round r : rounds) {
            double w1 = writeGbps(r.emu());
            double c1 = copyGbps(r.emu());
            double w2 = writeGbps(r.emu2());
            double c2 = copyGbps(r.emu2());
            md.append(f("| %d%s | %.2f → %.2f | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.n(),
                    r.loaded() ? " (loaded)" : "", r.loadBefore()[0], r.loadAfter()[0],
                    num(score(r.emu(), "MessageRateBenchmark.write64OneThread", null, null) / 1e6, "%.2f"),
                    num(score(r.emu(), "MessageRateBenchmark.write64TwoThreads", null, null) / 1e6, "%.2f"),
                    num(w1, "%.2f"), num(c1, "%.2f"), num(w1 / c1, "%.2f"), num(w2, "%.2f"), num(c2, "%.2f"),
                    num(w2 / c2, "%.2f")));
        }
        md.append("\nThe same, by CPU time (`EmulatorCpuTime`: plain loops after a warm-up, the CPU time of every "
                + "Java thread of the JVM over each iteration, that is the posting threads and any emulator thread; the "
                + "in-JVM emulator executes WRs on the posting thread). A rate is WRs per CPU-second times the "
                + "threads: what they would do with a core each. The 1 MiB WRITE and the copy alternate within "
                + "every iteration. The CPU-time rate is the one to compare across runs at different loads "
                + "(issue 30): a thread waiting for a CPU adds nothing to it, while the JMH rate above falls with the "
                + "load; the 1-minute load is given with each round, and the CPU time per WR is the rate's "
                + "inverse.\n\n");
        md.append("| round | load before → after | 1 thread, M WR/s | 1 thread, ns CPU per WR | 2 threads, M WR/s "
                + "| 1 MiB write/copy, 1 thread | 2 threads |\n");
        md.append("| --- | --- | --- | --- | --- | --- | --- |\n");
        for (Round r : rounds) {
            md.append(f("| %d%s | %.2f → %.2f | %s | %s | %s | %s | %s |\n", r.n(), r.loaded() ? " (loaded)" : "",
                    r.loadBefore()[0], r.loadAfter()[0], num(cpuRate(r, 1), "%.2f"),
                    num(r.emuCpu().getOrDefault("emuWrite64x1/32", Double.NaN), "%.1f"), num(cpuRate(r, 2), "%.2f"),
                    num(cpuRatio(r, 1), "%.2f"), num(cpuRatio(r, 2), "%.2f")));
        }
    }
}
