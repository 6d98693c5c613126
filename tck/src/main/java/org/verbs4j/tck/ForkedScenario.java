package org.verbs4j.tck;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;

/**
 * Runs a misuse scenario that would crash the JVM of a faulty provider in a child JVM, so that the crash fails
 * one rule instead of ending the whole run. The child builds the same kit (the vendor's subclass, by its no-arg
 * constructor), runs the scenario against a fresh testbed, and exits 0 when the scenario's rule held, 1 when it
 * did not; any other exit status, or an {@code hs_err} file left behind, is a crash.
 *
 * <p>One child per kit runs every scenario of {@link #SCENARIOS}, each on its own testbed, started by the first
 * rule that needs it, since a JVM start costs 30 to 50 s under emulation: the child marks where each scenario
 * begins and ends, so a crash is charged to the scenario it happened in, and the scenarios after it fail as not
 * run. The walk, the longest, runs last. A scenario whose rule the parent skips (a capability the device lacks)
 * still runs in the child; its outcome is never read.
 *
 * <p>The child is started with this JVM's class path and {@code --enable-native-access=ALL-UNNAMED}, with the
 * kit's device and GID index, and with {@link TckRunner#PROVIDER_PROPERTY} naming the provider under test for a
 * kit that is handed its provider ({@link SelectedProviderCompatibilityTest}).
 */
final class ForkedScenario {
    /** What the child did. */
    record Outcome(int exitStatus, String output, List<Path> crashLogs) {
        boolean crashed() {
            return exitStatus != 0 && exitStatus != 1 || !crashLogs.isEmpty();
        }
    }

    /** A scenario the child can run: it throws when its rule does not hold. */
    interface Scenario {
        void run(Testbed tb) throws Exception;
    }

    private ForkedScenario() {}

    /** The scenarios, by name; the parent and the child both look them up here. */
    static Scenario scenario(String name) {
        return switch (name) {
            case "inlineFromUnmappedAddress" -> MisuseRules::inlineFromUnmappedAddressScenario;
            case "misuseWalk" -> MisuseRules::misuseWalkScenario;
            case "closeFromOtherThreadWaitsForSession" -> SessionMisuseRules::closeFromOtherThreadWaitsForSessionScenario;
            case "postingWhileClosedFromOtherThread" -> SessionMisuseRules::postingWhileClosedFromOtherThreadScenario;
            case "postSendWhileClosedFromOtherThread" -> SessionMisuseRules::postSendWhileClosedFromOtherThreadScenario;
            case "udPostsWhileAhClosed" -> CloseRaceScenarios::udPostsWhileAhClosedScenario;
            case "creationsWhilePdClosed" -> CloseRaceScenarios::creationsWhilePdClosedScenario;
            case "callsWhileContextClosed" -> CloseRaceScenarios::callsWhileContextClosedScenario;
            case "copiesWhileDmClosed" -> CloseRaceScenarios::copiesWhileDmClosedScenario;
            case "xrcSendsWhileSrqClosed" -> CloseRaceScenarios::xrcSendsWhileSrqClosedScenario;
            case "preparedSendsWhileClosed" -> CloseRaceScenarios::preparedSendsWhileClosedScenario;
            case "udPostsRaceAhClose" -> PostHoldRaceScenarios::udPostsRaceAhCloseScenario;
            case "bindPostsRaceWindowClose" -> PostHoldRaceScenarios::bindPostsRaceWindowCloseScenario;
            case "inlinePostsRaceRegionClose" -> PostHoldRaceScenarios::inlinePostsRaceRegionCloseScenario;
            case "contextDroppedUnclosed" -> DroppedContextScenario::contextDroppedUnclosedScenario;
            case "contextDroppedWithMulticast" -> DroppedContextScenario::contextDroppedWithMulticastScenario;
            default -> throw new IllegalArgumentException("no scenario " + name);
        };
    }

    /** Every scenario, in the order the child runs them. */
    static final List<String> SCENARIOS = List.of("inlineFromUnmappedAddress", "closeFromOtherThreadWaitsForSession",
            "postingWhileClosedFromOtherThread", "postSendWhileClosedFromOtherThread", "udPostsWhileAhClosed",
            "creationsWhilePdClosed", "callsWhileContextClosed", "copiesWhileDmClosed", "xrcSendsWhileSrqClosed",
            "preparedSendsWhileClosed", "udPostsRaceAhClose", "bindPostsRaceWindowClose", "inlinePostsRaceRegionClose",
            "contextDroppedUnclosed", "contextDroppedWithMulticast", "misuseWalk");

    private static final String MARK = "@@verbs4j-scenario ";
    /** The outcomes of each kit's child, so that it runs once. */
    private static final Map<VerbsCompatibilityKit, Map<String, Outcome>> OUTCOMES = new WeakHashMap<>();

    /**
     * Runs {@code scenarios} for {@code kit} in one child JVM, each on a fresh testbed; waits at most
     * {@code timeoutSeconds} in all.
     *
     * @return each scenario's outcome, by name
     */
    static Map<String, Outcome> run(VerbsCompatibilityKit kit, List<String> scenarios, long timeoutSeconds,
                                    Map<String, String> properties) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("verbs4j-tck-fork");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-XX:ErrorFile=" + dir.resolve("hs_err_pid%p.log"));
        // The parent's verbs4j.* settings (the TCK's timeouts, a provider's switches such as a plain CQ), so that the
        // child tests the provider as the parent does; the ones below are added after them, and the last -D wins.
        for (String p : new TreeSet<>(System.getProperties().stringPropertyNames())) {
            if (p.startsWith("verbs4j.")) {
                cmd.add("-D" + p + "=" + System.getProperty(p));
            }
        }
        // The GID index the kit uses, whether from the property, the runner or an override of gidIndex().
        if (kit.gidIndex() >= 0) {
            cmd.add("-D" + VerbsCompatibilityKit.GID_INDEX_PROPERTY + "=" + kit.gidIndex());
        }
        // The device and provider the parent tests, which a kit may have been handed rather than found.
        if (kit.deviceName() != null) {
            cmd.add("-D" + VerbsCompatibilityKit.DEVICE_PROPERTY + "=" + kit.deviceName());
        }
        cmd.add("-D" + TckRunner.PROVIDER_PROPERTY + "=" + kit.providerUnderTest().name());
        properties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ForkedScenario.class.getName());
        cmd.add(kit.getClass().getName());
        cmd.addAll(scenarios);
        Path log = dir.resolve("output.txt");
        Process child = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        boolean finished = child.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        if (!finished) {
            child.destroyForcibly().waitFor();
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        List<Path> logs;
        try (Stream<Path> files = Files.list(dir)) {
            logs = files.filter(f -> f.getFileName().toString().startsWith("hs_err")).toList();
        }
        if (logs.isEmpty()) {
            // Keep the directory only when it holds a crash log to read.
            Files.delete(log);
            Files.delete(dir);
        }
        String ending = finished ? "the child JVM exited with status " + child.exitValue()
                : "the child did not finish in " + timeoutSeconds + " s";
        return outcomes(scenarios, out, finished ? child.exitValue() : -1, ending, logs);
    }

    /** Splits the child's output at its marks into one outcome per scenario. */
    private static Map<String, Outcome> outcomes(List<String> scenarios, String out, int exitStatus, String ending,
                                                 List<Path> logs) {
        Map<String, Outcome> result = new LinkedHashMap<>();
        String running = null;
        StringBuilder text = new StringBuilder();
        for (String line : out.split("\n", -1)) {
            if (line.startsWith(MARK + "begin ")) {
                running = line.substring((MARK + "begin ").length()).strip();
                text.setLength(0);
            } else if (line.startsWith(MARK + "end ") && running != null) {
                int status = line.strip().endsWith(" 0") ? 0 : 1;
                result.put(running, new Outcome(status, text.toString(), List.of()));
                running = null;
            } else {
                text.append(line).append('\n');
            }
        }
        String diedIn = running;
        if (diedIn != null) {
            // A JVM that ended inside a scenario: that scenario crashed (or hung) the child.
            result.put(diedIn, new Outcome(exitStatus == 0 || exitStatus == 1 ? -1 : exitStatus,
                    text + ending, logs));
        }
        for (String name : scenarios) {
            result.computeIfAbsent(name, n -> new Outcome(-1, diedIn != null
                    ? "not run: the child JVM ended in scenario " + diedIn + " (" + ending + ")"
                    : "not run: " + ending + "\n" + text, logs));
        }
        return result;
    }

    /**
     * Judges {@code scenario} by the kit's child JVM, which runs every scenario and is started by the first rule
     * that asks. It waits 600 s plus 10 ms a walk step, and hands the child the walk's length and seed.
     *
     * @param what the rule's subject, for the failure message
     */
    static void assertHolds(VerbsCompatibilityKit kit, String scenario, String what)
            throws IOException, InterruptedException {
        Map<String, Outcome> outcomes;
        synchronized (OUTCOMES) {
            outcomes = OUTCOMES.get(kit);
            if (outcomes == null) {
                int steps = kit.misuseWalkSteps();
                outcomes = run(kit, SCENARIOS, 600 + steps / 100, Map.of(
                        VerbsCompatibilityKit.MISUSE_WALK_STEPS_PROPERTY, Integer.toString(steps),
                        MisuseRules.MISUSE_SEED_PROPERTY, Long.toString(MisuseRules.misuseSeed())));
                OUTCOMES.put(kit, outcomes);
            }
        }
        assertHolds(outcomes.get(scenario), what);
    }

    private static void assertHolds(Outcome o, String what) {
        if (!o.output().isBlank()) {
            System.out.println(o.output().strip());
        }
        if (o.crashed()) {
            Assertions.fail(what + " crashed or hung the child JVM (exit status " + o.exitStatus() + ", crash logs "
                    + o.crashLogs() + "):\n" + o.output());
        }
        if (o.exitStatus() != 0) {
            Assertions.fail(what + ", in a child JVM:\n" + o.output());
        }
    }

    /** The child: {@code ForkedScenario <kit class> <scenario>...}; exits 0 once every scenario has run. */
    public static void main(String[] args) throws ReflectiveOperationException {
        Constructor<?> c = Class.forName(args[0]).getDeclaredConstructor();
        c.setAccessible(true);
        VerbsCompatibilityKit kit = (VerbsCompatibilityKit) c.newInstance();
        kit.findProvider();
        if (kit.unavailableReason() != null) {
            System.out.println(kit.unavailableReason());
            System.exit(1);
        }
        for (int i = 1; i < args.length; i++) {
            System.out.println(MARK + "begin " + args[i]);
            int status = 0;
            try (Testbed tb = kit.openTestbed()) {
                scenario(args[i]).run(tb);
            } catch (AssertionError e) {
                System.out.println(e.getMessage());
                status = 1;
            } catch (Exception e) {
                e.printStackTrace(System.out);
                status = 1;
            }
            System.out.println(MARK + "end " + args[i] + " " + status);
        }
        System.exit(0);
    }
}
