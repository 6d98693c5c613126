package org.verbs4j.tools.perf;

// Over 500 lines on purpose: it is perftest's option set as picocli fields (one per ib_*_bw/lat option, with its
// help text); the tests themselves are other files.

import java.io.PrintWriter;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.verbs4j.Capabilities;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.PortAttributes;
import org.verbs4j.QpType;
import org.verbs4j.WrOpcode;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tools.cli.ExitCodes;
import org.verbs4j.tools.cli.Messages;
import org.verbs4j.tools.cli.Providers;
import org.verbs4j.tools.cli.UsageException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code verbs4j perf <test>}: perftest's bandwidth and latency tests, with perftest's flags, on any provider.
 *
 * <p>Both ends run in this JVM by default (loopback). Without {@code -n}, each size runs perftest's default
 * iterations (5000 for bandwidth, 1000 for latency), capped so that one size moves at most 512 MiB and never
 * below 100 iterations, so a full sweep ({@code -a}) finishes in seconds on a software device.
 *
 * @see "perftest: ib_write_bw(1), ib_send_lat(1)"
 */
@Command(name = "perf", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run a perftest benchmark: write_bw, read_bw, send_bw, atomic_bw, write_lat, read_lat, "
                + "send_lat or atomic_lat.",
                "Both ends run in this JVM unless --server or a host is given."})
public final class PerfCommand implements Callable<Integer> {
    // Over 600 lines: one picocli command, perftest's flags and their checks.
    /** The smallest size of a sweep, bytes. */
    static final int SWEEP_MIN = 2;
    /** The largest size of a sweep, bytes (8 MiB, as perftest's -a). */
    static final int SWEEP_MAX = 8 << 20;
    /** The largest message this command sends, bytes. */
    static final int SIZE_MAX = 1 << 30;
    private static final long BYTES_PER_SIZE = 512L << 20;
    private static final int MIN_DEFAULT_ITERATIONS = 100;
    /** perftest's default --out_json_file. */
    static final String DEFAULT_OUT_JSON = "perftest_out.json";
    /** perftest's default -D with --run_infinitely, seconds. */
    static final int DEFAULT_INFINITE_PERIOD = 5;
    /**
     * The system property that ends {@code --run_infinitely} after this many rows, so that tests can run it; the
     * command itself runs until interrupted.
     */
    static final String INFINITE_ROWS_PROPERTY = "verbs4j.perf.infiniteRows";

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "TEST",
            description = "write_bw, read_bw, send_bw, atomic_bw, write_lat, read_lat, send_lat or atomic_lat.")
    String testName;

    @Parameters(index = "1", arity = "0..1", paramLabel = "HOST",
            description = "Connect to a server at this host (two-process mode).")
    String host;

    @Option(names = {"-s", "--size"}, paramLabel = "BYTES", converter = SizeConverter.class,
            description = "Message size, 1 to " + SIZE_MAX + " bytes (default 65536; 2 for latency tests; 8 for "
                    + "atomics).")
    Integer size;

    @Option(names = {"-a", "--all"}, description = "Run every size from 2 B to 8 MiB, in powers of two.")
    boolean all;

    @Option(names = {"-n", "--iters"}, paramLabel = "N", description = "Iterations per size.")
    Long iterations;

    @Option(names = {"-D", "--duration"}, paramLabel = "SECONDS", description = "Run each size for this long "
            + "instead of a number of iterations.")
    Integer duration;

    @Option(names = {"-t", "--tx-depth"}, paramLabel = "N", description = "Outstanding send WRs per QP (default "
            + "128 for bandwidth, 1 for latency).")
    Integer txDepth;

    @Option(names = {"-c", "--connection"}, paramLabel = "RC|UC|UD", description = "QP type (default RC).")
    String connection = "RC";

    @Option(names = {"-q", "--qp"}, paramLabel = "N", description = "QP pairs (default 1; bandwidth tests only).")
    int qps = 1;

    @Option(names = {"-I", "--inline_size"}, paramLabel = "BYTES", description = "Send messages up to this size "
            + "inline (default 0).")
    int inlineSize;

    @Option(names = {"-l", "--post_list"}, paramLabel = "N", description = "WRs per post call (default 1).")
    int postList = 1;

    @Option(names = {"-Q", "--cq-mod", "--cq_mod"}, paramLabel = "N", description = "Signal one WR in N (default 100; "
            + "at most the tx depth).")
    int cqMod = 100;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "Device (default: the provider's first).")
    String deviceName;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", description = "Port, 1-based (default 1).")
    int port = 1;

    @Option(names = {"-x", "--gid-index"}, paramLabel = "INDEX", description = "GID index (default: "
            + Endpoint.GID_DEFAULT + ").")
    Integer gidIndex;

    @Option(names = {"-m", "--mtu"}, paramLabel = "BYTES", description = "Path MTU: 256, 512, 1024, 2048 or 4096, "
            + "at most the port's active MTU (default: the active MTU).")
    Integer mtu;

    @Option(names = {"-u", "--qp-timeout"}, paramLabel = "CODE", description = "RC ACK timeout code, 0..31: 4.096 us "
            + "times 2 to its power (default 14, about 67 ms).")
    int qpTimeout = 14;

    @Option(names = "--post-api", paramLabel = "wr|post_send", description = "Post through the ibv_wr_* session "
            + "or an ibv_post_send list (default wr when the device has it).")
    String postApi;

    @Option(names = "--perform_warm_up", arity = "0..1", paramLabel = "true|false", fallbackValue = "true",
            description = "Bandwidth tests: warm up until the message rate is steady (the JIT has compiled the "
                    + "loops) before measuring; on by default, --perform_warm_up=false turns it off.")
    boolean warmUp = true;

    @Option(names = {"-b", "--bidirectional"}, description = "Both sides post, and the row is the sum of the two "
            + "directions (write_bw, read_bw, atomic_bw).")
    boolean bidirectional;

    @Option(names = {"-S", "--sl"}, paramLabel = "SL", description = "Service level of the QPs' address vectors, "
            + "0..15 (default 0).")
    int sl;

    @Option(names = "--tclass", paramLabel = "TCLASS", description = "Traffic class of the global route (GRH), "
            + "0..255 (default 0); a GRH is used on RoCE, or with -x.")
    int trafficClass;

    @Option(names = {"-T", "--tos"}, paramLabel = "TOS", description = "Type of service of the rdma_cm "
            + "QPs (-R only): rdma_set_option TOS on each connecting id, the traffic class of its route, 0..255; "
            + "--tclass sets the GRH's without -R.")
    Integer tos;

    @Option(names = {"-R", "--rdma_cm"}, description = "Connect the QPs through the connection manager (rdma_cm) "
            + "instead of moving them to RTS from exchanged QPNs and PSNs; in two-process mode the control link is "
            + "an rdma_cm connection on -p's port too, with no TCP. RC only.")
    boolean rdmaCm;

    @Option(names = {"-w", "--limit_bw"}, paramLabel = "BW", description = "Fail (exit 1) unless some row's average "
            + "bandwidth reaches BW, in the table's unit (MB/s, or Gb/s with --report_gbits).")
    Double limitBw;

    @Option(names = {"-y", "--limit_msgrate"}, paramLabel = "MPPS", description = "Fail (exit 1) unless some row's "
            + "message rate reaches MPPS (millions of messages per second).")
    Double limitMsgRate;

    @Option(names = {"-O", "--dualport"}, description = "Bandwidth tests: twice the QPs, the first half on -i's port "
            + "and the second half on the next port.")
    boolean dualPort;

    @Option(names = "--run_infinitely", description = "Bandwidth tests in loopback: run until interrupted, a row "
            + "every -D seconds (default " + DEFAULT_INFINITE_PERIOD + ").")
    boolean runInfinitely;

    @Option(names = "--report-both", description = "With -b: after each row, each direction's own row.")
    boolean reportBoth;

    @Option(names = "--cpu_util", description = "With -D or --run_infinitely: add the machine's CPU utilization "
            + "over each row's run (from /proc/stat).")
    boolean cpuUtil;

    @Option(names = "--provider", paramLabel = "P", description = "Provider (default: the one verbs4j chooses).")
    String provider;

    @Option(names = "--server", description = "Wait for a client (two-process mode).")
    boolean server;

    @Option(names = {"-p", "--port"}, paramLabel = "TCP_PORT", description = "TCP port of the two-process "
            + "exchange, or with -R the rdma_cm port (default 18515).")
    int tcpPort = 18515;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON.")
    Path json;

    @Option(names = "--out_json", description = "Also write the results as JSON, to --out_json_file or "
            + DEFAULT_OUT_JSON + " (perftest's flag; the same report as --json).")
    boolean outJson;

    @Option(names = "--out_json_file", paramLabel = "FILE", description = "Where --out_json writes (default "
            + DEFAULT_OUT_JSON + ").")
    Path outJsonFile;

    @Option(names = "--report_gbits", description = "Print bandwidth in Gb/s (10^9 bits per second) instead of "
            + "MB/s (2^20 bytes per second). The JSON report keeps MB/s.")
    boolean reportGbits;

    @Option(names = {"-N", "--noPeak"}, description = "Do not compute the peak bandwidth; it is printed and "
            + "reported as 0, as perftest does.")
    boolean noPeak;

    @Option(names = {"-F", "--CPU-freq"}, description = "Accepted as perftest's: it silences perftest's "
            + "cpufreq_ondemand warning, which verbs4j never prints.")
    boolean cpuFreqQuiet;

    @Option(names = "--plot", paramLabel = "FILE", description = "Also draw the results: FILE.png or FILE.svg.")
    Path plot;

    /** How long a run may make no progress before it fails, nanoseconds. */
    private final long stallNanos = Stall.DEFAULT_LIMIT_NANOS;

    @Override
    public Integer call() {
        PerfTest test = parseTest();
        QpType qpType = parseQpType();
        checkArguments(test, qpType);
        VerbsProvider p = Providers.resolve(provider);
        boolean twoProcess = server || host != null;
        Device device = Providers.device(p, deviceName);
        if (twoProcess && deviceName == null) {
            device = TwoProcess.defaultDevice(p, device);
        }
        if (twoProcess && TwoProcess.unsupportedReason(p, device) != null) {
            throw new UsageException(TwoProcess.unsupportedReason(p, device));
        }

        Capabilities caps;
        DeviceAttributes da;
        PortAttributes pa;
        try (Context ctx = device.open()) {
            caps = ctx.capabilities();
            da = ctx.queryDevice();
            if (port > da.physPortCnt()) {
                throw new UsageException("device '" + device.name() + "' has " + da.physPortCnt()
                        + " port(s); there is no port " + port);
            }
            pa = ctx.queryPort(port);
        }
        PostApi api = choosePostApi(caps);
        checkDevice(test, qpType, caps, da, pa, device);
        int mtuBytes = mtu != null ? mtu : pa.activeMtu().bytes();
        List<Integer> sizes = sizes(test, qpType, mtuBytes);
        PerfSettings base = settings(test, qpType, api, da, sizes.getFirst(), twoProcess);

        if (twoProcess && TwoProcess.unsupportedReason(base) != null) {
            throw new UsageException(TwoProcess.unsupportedReason(base));
        }
        String mode = server ? "server" : host != null ? "client" : "loopback";
        PrintWriter out = spec.commandLine().getOut();
        ResultTable table = new ResultTable(out, base, reportGbits).reportBoth(reportBoth).cpuUtil(cpuUtil)
                .rdmaCm(rdmaCm);
        table.header(p.name(), device.name(), mode, mtuBytes);
        List<PerfSettings> runs = sizes.stream().map(sz -> base.with(sz, iterationsFor(test, sz))).toList();
        List<PerfRow> rows = new ArrayList<>();
        boolean showProgress = Progress.wanted() && (sizes.size() > 1 || base.timed());
        long steps = base.timed() ? (long) sizes.size() * base.durationSeconds() : sizes.size();
        try (Progress progress = Progress.of(showProgress && !runInfinitely, test.cliName(), steps,
                base.timed() ? "s" : "sizes")) {
            long[] done = {0};
            CpuUtil.Ticks[] mark = {cpuUtil ? CpuUtil.read() : null};
            java.util.function.Consumer<PerfRow> onRow = row -> {
                if ((noPeak || runInfinitely) && row instanceof BandwidthRow b) {
                    row = new BandwidthRow(b.bytes(), b.iterations(), 0, b.bwAverageMBps(), b.msgRateMpps());
                }
                double util = Double.NaN;
                if (cpuUtil) {
                    CpuUtil.Ticks now = CpuUtil.read();
                    util = CpuUtil.percent(mark[0], now);
                    mark[0] = now;
                }
                if (!runInfinitely) {
                    rows.add(row);
                }
                done[0] += base.timed() ? base.durationSeconds() : 1;
                progress.clearLine();
                table.row(row, util);
                progress.stepTo(done[0]);
            };
            if (twoProcess) {
                TwoProcess.run(runs, device, server ? null : host, tcpPort, stallNanos, table, onRow,
                        rdmaCm ? p : null, tos == null ? -1 : tos);
            } else {
                long rowsLeft = runInfinitely ? Long.getLong(INFINITE_ROWS_PROPERTY, Long.MAX_VALUE) : runs.size();
                for (long n = 0; n < rowsLeft; n++) {
                    // --run_infinitely repeats its one size; only its first row warms up.
                    PerfSettings s = runInfinitely && n > 0 ? runs.getFirst().withoutWarmUp() : runs.get((int) n);
                    LoopbackRun run = new LoopbackRun(s, device, stallNanos, rdmaCm ? p : null, tos == null ? -1 : tos);
                    onRow.accept(run.run());
                    if (run.parts() != null) {
                        table.bothParts(run.parts()[0], run.parts()[1]);
                    }
                }
            }
        }
        table.footer();
        PerfReport report = new PerfReport("verbs4j perf", Messages.version(), test.cliName(),
                test.kind().name().toLowerCase(Locale.ROOT), test.opcode().name(), p.name(), device.name(), port,
                base.gidIndex(), mode, rdmaCm, qpType.name(), api.cliName(), base.qps(), base.txDepth(), base.cqMod(),
                base.postList(), base.inlineSize(), mtuBytes, base.timed() ? base.durationSeconds() : 0,
                rows);
        Path jsonFile = jsonFile();
        if (jsonFile != null) {
            PerfJson.write(report, jsonFile);
        }
        if (plot != null) {
            PerfPlot.write(report, plot);
            out.println("plot: " + plot.toAbsolutePath().normalize());
        }
        verifyLimits(rows, table);
        return ExitCodes.OK;
    }

    /**
     * {@code -w} and {@code -y}, perftest's verifiers: the run fails unless some row reaches the limit (perftest
     * keeps a pass once any report passed).
     */
    private void verifyLimits(List<PerfRow> rows, ResultTable table) {
        List<BandwidthRow> bw = rows.stream().filter(BandwidthRow.class::isInstance).map(BandwidthRow.class::cast)
                .toList();
        if (limitBw != null && bw.stream().noneMatch(r -> table.bw(r.bwAverageMBps()) >= limitBw)) {
            throw new PerfFailure("BW result is below bw limit: no row reached -w " + limitBw
                    + (reportGbits ? " Gb/s" : " MB/s"));
        }
        if (limitMsgRate != null && bw.stream().noneMatch(r -> r.msgRateMpps() >= limitMsgRate)) {
            throw new PerfFailure("Msg rate is below msg_rate limit: no row reached -y " + limitMsgRate + " Mpps");
        }
    }

    private PerfTest parseTest() {
        try {
            return PerfTest.ofCliName(testName.toLowerCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    private QpType parseQpType() {
        return switch (connection.toUpperCase(Locale.ROOT)) {
            case "RC" -> QpType.RC;
            case "UC" -> QpType.UC;
            case "UD" -> QpType.UD;
            default -> throw new UsageException("-c takes RC, UC or UD, not '" + connection + "'");
        };
    }

    /**
     * {@code -s}: a whole number of bytes from 1 to {@link #SIZE_MAX}. Every wrong value, also one too large for an
     * {@code int} or no number at all, gets the range in its message, as the checks after parsing give it.
     */
    static final class SizeConverter implements CommandLine.ITypeConverter<Integer> {
        static String impossible(String value) {
            return "impossible message size " + value + ": -s takes 1 to " + SIZE_MAX + " bytes";
        }

        @Override
        public Integer convert(String value) {
            BigInteger n;
            try {
                n = new BigInteger(value.strip());
            } catch (NumberFormatException e) {
                throw new CommandLine.TypeConversionException(impossible("'" + value + "'"));
            }
            if (n.signum() < 1 || n.compareTo(BigInteger.valueOf(SIZE_MAX)) > 0) {
                throw new CommandLine.TypeConversionException(impossible(n.toString()));
            }
            return n.intValueExact();
        }
    }

    /** Checks what can be checked without a device. */
    private void checkArguments(PerfTest test, QpType qpType) {
        if (!test.runsOn(qpType)) {
            throw new UsageException(test.cliName() + " posts " + test.opcode() + ", which " + qpType
                    + " QPs do not have (ibv_post_send(3)); use -c RC");
        }
        if (size != null && all) {
            throw new UsageException("-s and -a exclude each other: -a runs every size from 2 B to 8 MiB");
        }
        if (size != null && (size < 1 || size > SIZE_MAX)) {
            throw new UsageException(SizeConverter.impossible(Integer.toString(size)));
        }
        if (size != null && test.isAtomic() && size != PerfTest.ATOMIC_SIZE) {
            throw new UsageException(test.cliName() + " uses 8-byte atomics; -s " + size + " is not possible");
        }
        if (iterations != null && duration != null) {
            throw new UsageException("-n and -D exclude each other");
        }
        if (iterations != null && iterations < 1) {
            throw new UsageException("-n takes 1 or more iterations, not " + iterations);
        }
        if (duration != null && (duration < 1 || duration > 86_400)) {
            throw new UsageException("-D takes 1 to 86400 seconds, not " + duration);
        }
        if (txDepth != null && txDepth < 1) {
            throw new UsageException("-t takes 1 or more WRs, not " + txDepth);
        }
        if (qps < 1 || qps > 1024) {
            throw new UsageException("-q takes 1 to 1024 QPs, not " + qps);
        }
        if (qps > 1 && test.kind() == PerfTest.Kind.LATENCY) {
            throw new UsageException("latency tests use one QP; -q " + qps + " is for bandwidth tests");
        }
        if (inlineSize < 0) {
            throw new UsageException("-I takes 0 or more bytes, not " + inlineSize);
        }
        if (postList < 1) {
            throw new UsageException("-l takes 1 or more WRs, not " + postList);
        }
        if (cqMod < 1) {
            throw new UsageException("--cq-mod takes 1 or more, not " + cqMod);
        }
        if (port < 1 || port > 255) {
            throw new UsageException("-i takes a port from 1 to 255, not " + port);
        }
        if (gidIndex != null && (gidIndex < 0 || gidIndex > 255)) {
            throw new UsageException("-x takes a GID index from 0 to 255, not " + gidIndex);
        }
        if (mtu != null && mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096) {
            throw new UsageException("-m takes an MTU of 256, 512, 1024, 2048 or 4096 bytes, not " + mtu);
        }
        if (qpTimeout < 0 || qpTimeout > 31) {
            throw new UsageException("-u takes an ACK timeout code from 0 to 31, not " + qpTimeout);
        }
        if (tcpPort < 1 || tcpPort > 65535) {
            throw new UsageException("-p takes a TCP port from 1 to 65535, not " + tcpPort);
        }
        checkPerftestFlags(test, qpType);
        if (server && host != null) {
            throw new UsageException("--server and a host exclude each other: the server waits, the client connects");
        }
        if (plot != null && !PerfPlot.supported(plot)) {
            throw new UsageException("--plot writes PNG or SVG; name the file *.png or *.svg, not " + plot);
        }
        if (outJsonFile != null && !outJson) {
            throw new UsageException("--out_json_file names the file --out_json writes; add --out_json");
        }
        Path outJsonPath = outJsonFile != null ? outJsonFile : Path.of(DEFAULT_OUT_JSON);
        if (json != null && outJson && !json.equals(outJsonPath)) {
            throw new UsageException("--json " + json + " and --out_json (" + outJsonPath + ") name two files for "
                    + "the same report; give one");
        }
        checkWritable(json != null ? "--json" : "--out_json", jsonFile());
        checkWritable("--plot", plot);
        if (postApi != null && !postApi.equals("wr") && !postApi.equals("post_send")) {
            throw new UsageException("--post-api takes wr or post_send, not '" + postApi + "'");
        }
    }

    /** The flags of perftest's that only some tests or modes take. */
    private void checkPerftestFlags(PerfTest test, QpType qpType) {
        boolean latency = test.kind() == PerfTest.Kind.LATENCY;
        if (tos != null && !rdmaCm) {
            throw new UsageException("-T sets the ToS of rdma_cm QPs (rdma_set_option): add -R, or set the traffic "
                    + "class of the GRH with --tclass");
        }
        if (tos != null && (tos < 0 || tos > 255)) {
            throw new UsageException("-T takes a type of service from 0 to 255, not " + tos);
        }
        if (rdmaCm && qpType != QpType.RC) {
            throw new UsageException("-R connects RC QPs: perftest's -R refuses UC (librdmacm has no UC), and UD "
                    + "over rdma_cm needs SIDR, which verbs4j's connection manager does not support");
        }
        if (rdmaCm && dualPort) {
            throw new UsageException("-R and -O exclude each other, as in perftest (no dual port with rdma_cm)");
        }
        if (sl < 0 || sl > 15) {
            throw new UsageException("-S takes a service level from 0 to 15, not " + sl);
        }
        if (trafficClass < 0 || trafficClass > 255) {
            throw new UsageException("--tclass takes a traffic class from 0 to 255, not " + trafficClass);
        }
        if (bidirectional && latency) {
            throw new UsageException("-b measures bandwidth both ways; " + test.cliName() + " is a latency test");
        }
        if (bidirectional && test.usesReceives()) {
            throw new UsageException("-b is not implemented for send_bw yet (write_bw, read_bw and atomic_bw have it)");
        }
        if (reportBoth && !bidirectional) {
            throw new UsageException("--report-both prints the two directions of a -b run; add -b");
        }
        if ((limitBw != null || limitMsgRate != null) && latency) {
            throw new UsageException("-w and -y verify a bandwidth test's results; " + test.cliName()
                    + " is a latency test");
        }
        if ((limitBw != null && limitBw < 0) || (limitMsgRate != null && limitMsgRate < 0)) {
            throw new UsageException("-w and -y take a limit of 0 or more");
        }
        if (dualPort && latency) {
            throw new UsageException("-O (dual port) runs bandwidth tests only, as perftest's");
        }
        if (runInfinitely) {
            if (latency) {
                throw new UsageException("--run_infinitely runs bandwidth tests only, as perftest's");
            }
            if (iterations != null || all) {
                throw new UsageException("--run_infinitely runs one size for ever, a row every -D seconds; drop "
                        + (all ? "-a" : "-n"));
            }
            if (server || host != null) {
                throw new UsageException("--run_infinitely runs in loopback only; verbs4j perf does not have "
                        + "perftest's endless two-process exchange yet");
            }
        }
        if (cpuUtil) {
            if (duration == null && !runInfinitely) {
                throw new UsageException("--cpu_util measures timed runs, as perftest's: add -D SECONDS");
            }
            String why = CpuUtil.unavailableReason();
            if (why != null) {
                throw new UsageException(why);
            }
        }
    }

    /** The JSON report's file: --json, or --out_json's (--out_json_file, else perftest's default); or null. */
    Path jsonFile() {
        if (json != null) {
            return json;
        }
        if (outJson) {
            return outJsonFile != null ? outJsonFile : Path.of(DEFAULT_OUT_JSON);
        }
        return null;
    }

    /** An output file must be writable before a long run starts, not found wanting after it. */
    private static void checkWritable(String option, Path file) {
        if (file == null) {
            return;
        }
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null || !java.nio.file.Files.isDirectory(dir) || !java.nio.file.Files.isWritable(dir)) {
            throw new UsageException(option + " " + file + ": the directory " + dir + " does not exist or is not "
                    + "writable");
        }
        if (java.nio.file.Files.isDirectory(file)) {
            throw new UsageException(option + " " + file + " is a directory, not a file");
        }
    }

    private PostApi choosePostApi(Capabilities caps) {
        if (postApi == null) {
            return caps.wrSession() ? PostApi.WR : PostApi.POST_SEND;
        }
        if (postApi.equals("wr")) {
            if (!caps.wrSession()) {
                throw new UsageException("--post-api wr needs the ibv_wr_* session, which this device lacks; "
                        + "use --post-api post_send");
            }
            return PostApi.WR;
        }
        return PostApi.POST_SEND;
    }

    /** Checks the request against what the device reports. */
    private void checkDevice(PerfTest test, QpType qpType, Capabilities caps, DeviceAttributes da, PortAttributes pa,
                             Device device) {
        if (!caps.supports(qpType)) {
            throw new UsageException("device '" + device.name() + "' cannot create " + qpType + " QPs; it has "
                    + caps.qpTypes());
        }
        if (!caps.supports(qpType, test.opcode())) {
            throw new UsageException("device '" + device.name() + "' cannot post " + test.opcode() + " on " + qpType
                    + " QPs");
        }
        if (inlineSize > caps.maxInlineData()) {
            throw new UsageException("-I " + inlineSize + " is more than the device's " + caps.maxInlineData()
                    + " bytes of inline data");
        }
        int depth = txDepth();
        if (depth > da.maxQpWr()) {
            throw new UsageException("-t " + depth + " is more than the device's max_qp_wr " + da.maxQpWr());
        }
        if (postList > depth) {
            throw new UsageException("-l " + postList + " is more than the tx depth " + depth);
        }
        if (gidIndex != null && gidIndex >= pa.gidTblLen()) {
            throw new UsageException("-x " + gidIndex + " is outside the " + pa.gidTblLen() + "-entry GID table of port "
                    + port);
        }
        if (dualPort && port + 1 > da.physPortCnt()) {
            throw new UsageException("-O runs half the QPs on port " + (port + 1) + ", and device '" + device.name()
                    + "' has " + da.physPortCnt() + " port(s)");
        }
        if (mtu != null && mtu > pa.activeMtu().bytes()) {
            throw new UsageException("-m " + mtu + " is more than port " + port + "'s active MTU of "
                    + pa.activeMtu().bytes() + " bytes");
        }
        int mtuBytes = mtu != null ? mtu : pa.activeMtu().bytes();
        if (qpType == QpType.UD && size != null && size > mtuBytes) {
            throw new UsageException("a UD message is at most one MTU: -s " + size + " is more than "
                    + mtuBytes + " bytes");
        }
        if (size != null && Integer.toUnsignedLong(size) > pa.maxMsgSz() && pa.maxMsgSz() > 0) {
            throw new UsageException("-s " + size + " is more than the port's max_msg_sz " + pa.maxMsgSz());
        }
    }

    private int txDepth() {
        if (txDepth != null) {
            return txDepth;
        }
        return parseTestQuietly().kind() == PerfTest.Kind.BANDWIDTH ? 128 : 1;
    }

    private PerfTest parseTestQuietly() {
        return PerfTest.ofCliName(testName.toLowerCase(Locale.ROOT));
    }

    /** The sizes to run: one, or the sweep, which stops at the MTU on UD. */
    List<Integer> sizes(PerfTest test, QpType qpType, int mtuBytes) {
        if (test.isAtomic()) {
            return List.of(PerfTest.ATOMIC_SIZE);
        }
        if (!all) {
            int def = size != null ? size : test.kind() == PerfTest.Kind.BANDWIDTH ? 65536 : 2;
            if (qpType == QpType.UD) {
                def = Math.min(def, mtuBytes);
            }
            return List.of(def);
        }
        List<Integer> sizes = new ArrayList<>();
        int max = qpType == QpType.UD ? Math.min(SWEEP_MAX, mtuBytes) : SWEEP_MAX;
        for (int s = SWEEP_MIN; s <= max; s <<= 1) {
            sizes.add(s);
        }
        return sizes;
    }

    /** {@code -D}, perftest's default period with {@code --run_infinitely}, or null for a counted run. */
    private Integer durationSeconds() {
        return duration != null ? Integer.valueOf(duration) : runInfinitely ? DEFAULT_INFINITE_PERIOD : null;
    }

    /** {@code -n}, or perftest's default capped to {@value #BYTES_PER_SIZE} bytes per size; 0 for a timed run. */
    long iterationsFor(PerfTest test, int bytes) {
        if (durationSeconds() != null) {
            return 0;
        }
        if (iterations != null) {
            return iterations;
        }
        long def = test.kind() == PerfTest.Kind.BANDWIDTH ? 5000 : 1000;
        return Math.max(MIN_DEFAULT_ITERATIONS, Math.min(def, BYTES_PER_SIZE / bytes));
    }

    private PerfSettings settings(PerfTest test, QpType qpType, PostApi api, DeviceAttributes da, int firstSize,
                                  boolean twoProcess) {
        int depth = txDepth();
        boolean oneByOne = test.kind() == PerfTest.Kind.LATENCY
                && (test.opcode() == WrOpcode.RDMA_READ || test.isAtomic());
        // A signaled WR must fit in the tx depth, or the send queue fills with WRs nothing retires.
        int mod = oneByOne ? 1 : Math.min(cqMod, depth);
        int rx = 0;
        if (test.usesReceives()) {
            rx = test.kind() == PerfTest.Kind.BANDWIDTH ? Math.min(Math.max(512, depth), da.maxQpWr()) : 16;
        }
        // perftest's ib_send_bw has no warm-up: its server counts every message it receives.
        boolean warm = warmUp && !(twoProcess && test.usesReceives());
        Integer seconds = durationSeconds();
        return new PerfSettings(test, firstSize, iterationsFor(test, firstSize), seconds == null ? 0 : seconds,
                depth, rx, qpType, dualPort ? 2 * qps : qps, inlineSize, postList, mod, port,
                gidIndex == null ? -1 : gidIndex, api, mtu == null ? 0 : mtu, qpTimeout, warm, sl, trafficClass,
                dualPort, bidirectional);
    }
}
