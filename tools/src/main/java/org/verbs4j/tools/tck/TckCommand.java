package org.verbs4j.tools.tck;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.verbs4j.Verbs;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tck.DifferentialWorkload;
import org.verbs4j.tck.TckReport;
import org.verbs4j.tck.TckRunner;
import org.verbs4j.tools.cli.ExitCodes;
import org.verbs4j.tools.cli.Providers;
import org.verbs4j.tools.cli.UsageException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code verbs4j tck}: runs the TCK through {@link TckRunner} against one provider or all of them and prints an
 * area x provider matrix of passed/skipped/failed. Exits with {@link ExitCodes#FAILURE} if any test failed; an
 * unavailable provider is a skip with its cause, not a failure. With {@code --differential} it runs the seeded
 * differential workload instead (see {@link Differential}).
 */
@Command(name = "tck", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Run the verbs4j TCK and print an area x provider matrix (passed/skipped/failed).")
public final class TckCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--provider", paramLabel = "P[,P...]|all", description = "The providers to test, comma "
            + "separated, or all of them (default: the one verbs4j chooses).")
    String provider;

    @Option(names = "--area", paramLabel = "A", description = "Only this area (repeatable): ${COMPLETION-CANDIDATES}.",
            completionCandidates = Areas.class)
    List<String> areas = new ArrayList<>();

    @Option(names = "--reports", paramLabel = "DIR", description = "Write JUnit XML reports to DIR/<provider>.")
    Path reports;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "The device to test (default: the "
            + "provider's first).")
    String deviceName;

    @Option(names = "--peer-dev", paramLabel = "DEV", description = "Split every QP pair over two devices: its a QP "
            + "on the device under test, its b QP on DEV, another device of the same provider that it reaches (for "
            + "the emulated provider, roce1 beside roce0; see VERBS4J_EMULATED_ROCE). Rules about one device keep "
            + "one. Default: both QPs on the device under test.")
    String peerDeviceName;

    @Option(names = {"-x", "--gid-index"}, paramLabel = "INDEX", description = "The source GID index of every "
            + "connection, 0 to 255, as perftest's -x (on RoCE it picks v1 or v2 and IPv4 or IPv6; default: "
            + "-Dverbs4j.rdma.gidIndex, else, on RoCE, perftest's choice: the IPv4 RoCE v2 GID where there is one; "
            + "else the port's first non-zero GID). With --differential, on the -d device.")
    Integer gidIndex;

    @Option(names = {"-v", "--verbose"}, description = "List every skipped test with its reason.")
    boolean verbose;

    @Option(names = "--known-deviations", paramLabel = "FILE", description = "Failures of the rules listed in "
            + "FILE (one display-name prefix a line; repeatable) are reported as KNOWN and do not fail the run; any "
            + "other failure does. See softroce/known-deviations.md.")
    List<Path> knownDeviationsFiles = new ArrayList<>();

    @Option(names = "--differential", description = "Instead of the TCK rules, run the seeded differential "
            + "workload (mixed RC WRs) on every provider of --provider (default: all) and compare each one's "
            + "completions and memory with every other's.")
    boolean differential;

    @Option(names = "--seed", paramLabel = "N", converter = SeedConverter.class, description = "With "
            + "--differential: the workload's seed, decimal or 0x hex (repeatable; default: 0x5eed and 0xd1ff).")
    List<Long> seeds = new ArrayList<>();

    @Option(names = "--operations", paramLabel = "N", description = "With --differential: WRs a workload "
            + "(default: " + DifferentialWorkload.DEFAULT_OPERATIONS + ").")
    Integer operations;

    @Override
    public Integer call() {
        if (gidIndex != null && (gidIndex < 0 || gidIndex > 255)) {
            throw new UsageException("-x takes a GID index from 0 to 255, not " + gidIndex);
        }
        if (differential) {
            return differential();
        }
        if (!seeds.isEmpty() || operations != null) {
            throw new UsageException("--seed and --operations apply only with --differential");
        }
        Set<String> wanted = new LinkedHashSet<>();
        for (String a : areas) {
            wanted.add(TckRunner.AREAS.stream().filter(k -> k.equalsIgnoreCase(a.strip())).findFirst()
                    .orElseThrow(() -> new UsageException("no TCK area '" + a + "'; the areas are "
                            + String.join(", ", TckRunner.AREAS))));
        }
        List<String> entries = new ArrayList<>();
        knownDeviationsFiles.forEach(f -> entries.addAll(KnownDeviations.read(f).entries()));
        KnownDeviations known = new KnownDeviations(entries);
        List<VerbsProvider> targets = targets();
        if (peerDeviceName != null) {
            checkPeerDevice(targets);
        }
        PrintWriter out = spec.commandLine().getOut();
        Map<String, TckReport> reportsByProvider = new LinkedHashMap<>();
        for (VerbsProvider p : targets) {
            TckRunner.Options options = options(p.name(), wanted);
            out.printf("running the TCK against '%s'%s ...%n", p.name(),
                    peerDeviceName == null ? "" : ", each QP pair's b QP on " + peerDeviceName);
            out.flush();
            reportsByProvider.put(p.name(), TckRunner.run(p, options));
        }
        out.println();
        boolean unknownFailure = TckMatrix.print(out, reportsByProvider,
                wanted.isEmpty() ? TckRunner.AREAS : List.copyOf(wanted), verbose, known);
        out.flush();
        return unknownFailure ? ExitCodes.FAILURE : ExitCodes.OK;
    }

    /** The runner's options for one provider: the areas, its report directory, the device and the peer device. */
    TckRunner.Options options(String providerName, Set<String> wanted) {
        return TckRunner.Options.defaults().areas(wanted)
                .reportDir(reports == null ? null : reports.resolve(providerName)).deviceName(deviceName)
                .peerDeviceName(peerDeviceName).gidIndex(gidIndex == null ? -1 : gidIndex);
    }

    private int differential() {
        if (!areas.isEmpty() || !knownDeviationsFiles.isEmpty() || reports != null || peerDeviceName != null) {
            throw new UsageException("--differential runs no TCK rules, so --area, --known-deviations, --reports "
                    + "and --peer-dev do not apply to it");
        }
        int ops = operations == null ? DifferentialWorkload.DEFAULT_OPERATIONS : operations;
        if (ops < 1) {
            throw new UsageException("--operations must be at least 1, not " + ops);
        }
        List<VerbsProvider> providers = provider == null ? everyProvider() : targets();
        int code = Differential.run(spec.commandLine().getOut(), providers, deviceName,
                gidIndex == null ? -1 : gidIndex, seeds.isEmpty() ? Differential.DEFAULT_SEEDS : seeds, ops);
        spec.commandLine().getOut().flush();
        return code;
    }

    /**
     * Checks, before anything runs, that every available provider to test has the peer device, so that a misspelt
     * or unconfigured device is one line naming the devices there are, not a failure in every rule. An unavailable
     * provider is left to its skip.
     */
    private void checkPeerDevice(List<VerbsProvider> targets) {
        for (VerbsProvider p : targets) {
            if (!Providers.available(p)) {
                continue;
            }
            try {
                Providers.device(p, peerDeviceName);
            } catch (UsageException e) {
                // The one provider whose second device is a matter of configuration: say how.
                String hint = p.name().equals("emulated") ? "; the emulated provider's second wire device, roce1, "
                        + "needs two addresses in VERBS4J_EMULATED_ROCE (for example 127.0.83.1:0,127.0.83.2:0; "
                        + "the TCK then wants -x 1, their IPv4 GID)" : "";
                throw new UsageException("--peer-dev: " + e.getMessage() + hint, e);
            }
        }
    }

    /** The providers to run: every one found for {@code all}, else the named or chosen one. */
    private List<VerbsProvider> targets() {
        if (provider == null) {
            return List.of(Providers.resolve(null));
        }
        if (provider.equalsIgnoreCase("all")) {
            return everyProvider();
        }
        // A named provider that is unavailable still runs: the report shows the skip and its cause.
        List<VerbsProvider> named = new ArrayList<>();
        for (String name : provider.split(",")) {
            if (!name.isBlank()) {
                named.add(Providers.find(name.strip()));
            }
        }
        if (named.isEmpty()) {
            throw new UsageException("--provider names no provider");
        }
        return named;
    }

    private static List<VerbsProvider> everyProvider() {
        List<VerbsProvider> all = Verbs.providers();
        if (all.isEmpty()) {
            throw new UsageException("no verbs4j provider is on the path");
        }
        return all;
    }

    /** A seed in decimal, or in hex after {@code 0x} as the differential prints it (all 64 bits). */
    static final class SeedConverter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            String v = value.strip();
            return v.regionMatches(true, 0, "0x", 0, 2) ? Long.parseUnsignedLong(v.substring(2), 16)
                    : Long.parseLong(v);
        }
    }

    /** The area names, for help and completion. */
    static final class Areas implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return TckRunner.AREAS.iterator();
        }
    }
}
