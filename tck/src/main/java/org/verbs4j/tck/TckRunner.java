package org.verbs4j.tck;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.reporting.legacy.xml.LegacyXmlReportGeneratingListener;
import org.verbs4j.Verbs;
import org.verbs4j.spi.VerbsProvider;

/**
 * Runs the TCK against a provider through the JUnit Platform Launcher, in this JVM, and returns the results
 * per area. This is what {@code verbs4j tck} calls.
 *
 * <pre>{@code
 * TckReport r = TckRunner.run("emulated", TckRunner.Options.defaults().areas(Set.of("WR session")));
 * }</pre>
 *
 * <p>Runs are serialised: the provider is handed to {@link SelectedProviderCompatibilityTest} for the length of
 * one run.
 */
public final class TckRunner {
    /** The system property that names the provider when the kit is run without this runner. */
    public static final String PROVIDER_PROPERTY = "verbs4j.tck.provider";

    /** The areas of the kit, by display name, in order. */
    public static final List<String> AREAS = List.of("Discovery", "PD, MR, MW", "PD, MR, MW: window bounds",
            "PD, MR, MW: zero-based regions", "CQ", "QP state machine", "QP attributes: mask", "WR session",
            "WR session: limits", "postSend", "postSend: inline regions", "Prepared sends", "Data in order",
            "Transport", "Transport: UD GRH", "Errors", "Errors: multi-packet messages", "Lifecycle and bad input",
            "Misuse", "Misuse: sessions and close", "Misuse: lifetimes", "Connection management", "Connection options",
            "Connection multicast", "Misuse: connection manager", "Multicast", "Device memory", "MR re-registration",
            "dma-buf regions", "XRC", "Packet pacing", "Thread domains");

    private static final Object RUN_LOCK = new Object();
    private static volatile VerbsProvider current;
    private static volatile String currentDevice;
    private static volatile String currentPeerDevice;
    private static volatile int currentGidIndex = -1;

    private TckRunner() {}

    /**
     * What to run and where to write.
     *
     * @param areas the areas to run, by display name (case-insensitive); empty for all of {@link #AREAS}
     * @param reportDir where to write JUnit XML reports, or null for none
     * @param deviceName the device to test, or null for the provider's first device (or {@code VERBS4J_RDMA_DEVICE})
     * @param peerDeviceName the device that holds the {@code b} QP of every pair, as
     *     {@link VerbsCompatibilityKit#peerDeviceName()} names it, or null for loopback pairs on one device
     * @param gidIndex the source GID index of every connection the kit makes, 0 to 255, or -1 for the kit's default
     *     ({@link VerbsCompatibilityKit#GID_INDEX_PROPERTY}, else the first non-zero entry of the port's table)
     */
    public record Options(Set<String> areas, Path reportDir, String deviceName, String peerDeviceName, int gidIndex) {
        /**
         * Checks the area names and the GID index.
         *
         * @throws IllegalArgumentException for an area that is not one of {@link #AREAS}, naming them, or a GID
         *     index outside -1 to 255
         */
        public Options {
            if (gidIndex < -1 || gidIndex > 255) {
                throw new IllegalArgumentException("a GID index is 0 to 255 (or -1 for the default), not " + gidIndex);
            }
            areas = Set.copyOf(areas);
            for (String a : areas) {
                if (AREAS.stream().noneMatch(k -> k.equalsIgnoreCase(a))) {
                    throw new IllegalArgumentException("no TCK area '" + a + "'; the areas are " + AREAS);
                }
            }
        }

        /**
         * Options with loopback pairs on one device.
         *
         * @param areas the areas to run, by display name (case-insensitive); empty for all of {@link #AREAS}
         * @param reportDir where to write JUnit XML reports, or null for none
         * @param deviceName the device to test, or null for the provider's first device
         * @throws IllegalArgumentException for an area that is not one of {@link #AREAS}, naming them
         */
        public Options(Set<String> areas, Path reportDir, String deviceName) {
            this(areas, reportDir, deviceName, null, -1);
        }

        /**
         * Options with the kit's default GID index.
         *
         * @param areas the areas to run, by display name (case-insensitive); empty for all of {@link #AREAS}
         * @param reportDir where to write JUnit XML reports, or null for none
         * @param deviceName the device to test, or null for the provider's first device
         * @param peerDeviceName the device of every pair's {@code b} QP, or null for loopback pairs on one device
         * @throws IllegalArgumentException for an area that is not one of {@link #AREAS}, naming them
         */
        public Options(Set<String> areas, Path reportDir, String deviceName, String peerDeviceName) {
            this(areas, reportDir, deviceName, peerDeviceName, -1);
        }

        /** {@return every area, no reports, the default device, loopback pairs} */
        public static Options defaults() {
            return new Options(Set.of(), null, null, null, -1);
        }

        /**
         * The same options with other areas.
         *
         * @param names the areas to run, by display name; empty for all
         * @return the new options
         */
        public Options areas(Set<String> names) {
            return new Options(names, reportDir, deviceName, peerDeviceName, gidIndex);
        }

        /**
         * The same options with another report directory.
         *
         * @param dir where to write JUnit XML reports, or null for none
         * @return the new options
         */
        public Options reportDir(Path dir) {
            return new Options(areas, dir, deviceName, peerDeviceName, gidIndex);
        }

        /**
         * The same options with another device.
         *
         * @param name the device to test, or null for the provider's first device
         * @return the new options
         */
        public Options deviceName(String name) {
            return new Options(areas, reportDir, name, peerDeviceName, gidIndex);
        }

        /**
         * The same options with the pairs split over the device under test and another device of the provider.
         *
         * @param name the device of every pair's {@code b} QP, or null for loopback pairs on one device
         * @return the new options
         */
        public Options peerDeviceName(String name) {
            return new Options(areas, reportDir, deviceName, name, gidIndex);
        }

        /**
         * The same options with another source GID index, as {@code -x} of perftest chooses it: on RoCE the index
         * picks the GID type (RoCE v1 or v2) and the address family of every connection.
         *
         * @param index the GID index, 0 to 255, or -1 for the kit's default
         * @return the new options
         * @throws IllegalArgumentException if the index is outside -1 to 255
         */
        public Options gidIndex(int index) {
            return new Options(areas, reportDir, deviceName, peerDeviceName, index);
        }
    }

    /**
     * Runs the TCK against the provider found by {@link java.util.ServiceLoader} under {@code providerName}.
     *
     * @param providerName the provider's name, case-insensitive
     * @param options what to run and where to write
     * @return the results, per area
     * @throws IllegalArgumentException if no provider of that name is on the path, naming those that are
     */
    public static TckReport run(String providerName, Options options) {
        Objects.requireNonNull(providerName, "providerName");
        List<VerbsProvider> all = Verbs.providers();
        for (VerbsProvider p : all) {
            if (p.name().equalsIgnoreCase(providerName.trim())) {
                return run(p, options);
            }
        }
        throw new IllegalArgumentException("no verbs4j provider named '" + providerName + "'; found "
                + all.stream().map(VerbsProvider::name).toList());
    }

    /**
     * Runs the TCK against a provider. An unavailable provider gives one skip with its cause.
     *
     * @param provider the provider under test
     * @param options what to run and where to write
     * @return the results, per area
     */
    public static TckReport run(VerbsProvider provider, Options options) {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(options, "options");
        synchronized (RUN_LOCK) {
            current = provider;
            currentDevice = options.deviceName();
            currentPeerDevice = options.peerDeviceName();
            currentGidIndex = options.gidIndex();
            try {
                return launch(provider.name(), options);
            } finally {
                current = null;
                currentDevice = null;
                currentPeerDevice = null;
                currentGidIndex = -1;
            }
        }
    }

    static VerbsProvider current() {
        return current;
    }

    static String currentDevice() {
        return currentDevice;
    }

    static String currentPeerDevice() {
        return currentPeerDevice;
    }

    static int currentGidIndex() {
        return currentGidIndex;
    }

    private static TckReport launch(String providerName, Options options) {
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(SelectedProviderCompatibilityTest.class));
        if (!options.areas().isEmpty()) {
            Set<String> wanted = options.areas().stream().map(a -> a.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
            request.filters((PostDiscoveryFilter) d -> {
                Optional<String> area = areaOf(d);
                return area.isEmpty() || wanted.contains(area.get().toLowerCase(Locale.ROOT))
                        ? FilterResult.included("selected area") : FilterResult.excluded("area not selected");
            });
        }
        LauncherDiscoveryRequest discovery = request.build();
        Collector collector = new Collector();
        Launcher launcher = LauncherFactory.create();
        List<TestExecutionListener> listeners = new ArrayList<>();
        listeners.add(collector);
        if (options.reportDir() != null) {
            listeners.add(new LegacyXmlReportGeneratingListener(options.reportDir(), new PrintWriter(new StringWriter())));
        }
        launcher.execute(discovery, listeners.toArray(TestExecutionListener[]::new));
        return collector.report(providerName);
    }

    /** The area of a discovered descriptor: the display name of its ancestor that is a nested area class. */
    private static Optional<String> areaOf(org.junit.platform.engine.TestDescriptor d) {
        for (Optional<org.junit.platform.engine.TestDescriptor> x = Optional.of(d); x.isPresent(); x = x.get().getParent()) {
            String name = x.get().getDisplayName();
            if (AREAS.contains(name) && x.get().getUniqueId().getLastSegment().getType().equals("nested-class")) {
                return Optional.of(name);
            }
        }
        return Optional.empty();
    }

    /** Collects results per area. */
    private static final class Collector implements TestExecutionListener {
        private final Map<String, long[]> counts = new LinkedHashMap<>();
        private final Map<String, List<String>> failures = new LinkedHashMap<>();
        private final Map<String, List<String>> skips = new LinkedHashMap<>();
        private TestPlan plan;

        @Override
        public void testPlanExecutionStarted(TestPlan testPlan) {
            this.plan = testPlan;
        }

        private String area(TestIdentifier id) {
            for (Optional<TestIdentifier> x = Optional.of(id); x.isPresent(); x = plan.getParent(x.get())) {
                TestIdentifier t = x.get();
                if (AREAS.contains(t.getDisplayName()) && t.getUniqueIdObject().getLastSegment().getType().equals("nested-class")) {
                    return t.getDisplayName();
                }
            }
            return TckReport.PROVIDER_AREA;
        }

        private String label(TestIdentifier id) {
            Optional<TestIdentifier> parent = plan.getParent(id);
            if (parent.isPresent() && parent.get().isContainer() && parent.get().getUniqueIdObject().getLastSegment()
                    .getType().contains("template")) {
                return parent.get().getDisplayName() + " " + id.getDisplayName();
            }
            return id.getDisplayName();
        }

        private long[] slot(String area) {
            return counts.computeIfAbsent(area, a -> new long[3]);
        }

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            if (!id.isTest()) {
                // An area container is skipped only when the provider is unavailable; the kit's availability rule
                // already carries that skip and its cause.
                return;
            }
            String area = area(id);
            slot(area)[2]++;
            skips.computeIfAbsent(area, a -> new ArrayList<>()).add(label(id) + ": " + reason);
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            boolean kitContainer = id.isContainer() && area(id).equals(TckReport.PROVIDER_AREA);
            if (!id.isTest() && !(kitContainer && result.getStatus() != TestExecutionResult.Status.SUCCESSFUL)) {
                if (id.isContainer() && result.getStatus() == TestExecutionResult.Status.FAILED) {
                    String area = area(id);
                    slot(area)[1]++;
                    failures.computeIfAbsent(area, a -> new ArrayList<>()).add(label(id) + ": "
                            + result.getThrowable().map(Throwable::toString).orElse("failed"));
                }
                return;
            }
            String area = area(id);
            String why = result.getThrowable().map(t -> String.valueOf(t.getMessage())).orElse("");
            switch (result.getStatus()) {
                case SUCCESSFUL -> slot(area)[0]++;
                case ABORTED -> {
                    slot(area)[2]++;
                    skips.computeIfAbsent(area, a -> new ArrayList<>()).add(label(id) + ": " + why);
                }
                case FAILED -> {
                    slot(area)[1]++;
                    failures.computeIfAbsent(area, a -> new ArrayList<>()).add(label(id) + ": " + why);
                }
            }
        }

        TckReport report(String provider) {
            List<TckReport.AreaResult> areas = new ArrayList<>();
            List<String> order = new ArrayList<>();
            order.add(TckReport.PROVIDER_AREA);
            order.addAll(AREAS);
            for (String a : order) {
                long[] c = counts.get(a);
                if (c != null) {
                    areas.add(new TckReport.AreaResult(a, c[0], c[1], c[2], failures.getOrDefault(a, List.of()),
                            skips.getOrDefault(a, List.of())));
                }
            }
            return new TckReport(provider, areas);
        }
    }
}
