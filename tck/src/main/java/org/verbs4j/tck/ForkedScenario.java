package org.verbs4j.tck;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;

/**
 * Runs a misuse scenario that would crash the JVM of a faulty provider in a child JVM, so that the crash fails
 * one rule instead of ending the whole run. The child builds the same kit (the vendor's subclass, by its no-arg
 * constructor), runs the scenario against a fresh testbed, and exits 0 when the scenario's rule held, 1 when it
 * did not; any other exit status, or an {@code hs_err} file left behind, is a crash.
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
            default -> throw new IllegalArgumentException("no scenario " + name);
        };
    }

    /** Runs {@code scenario} for {@code kit} in a child JVM; waits at most {@code timeoutSeconds}. */
    static Outcome run(VerbsCompatibilityKit kit, String scenario, long timeoutSeconds)
            throws IOException, InterruptedException {
        return run(kit, scenario, timeoutSeconds, Map.of());
    }

    /**
     * Runs {@code scenario} for {@code kit} in a child JVM with extra system properties; waits at most
     * {@code timeoutSeconds}.
     */
    static Outcome run(VerbsCompatibilityKit kit, String scenario, long timeoutSeconds, Map<String, String> properties)
            throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("verbs4j-tck-fork");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-XX:ErrorFile=" + dir.resolve("hs_err_pid%p.log"));
        for (String p : List.of(VerbsCompatibilityKit.GID_INDEX_PROPERTY, "verbs4j.tck.timeoutMs", "verbs4j.tck.quietMs")) {
            if (System.getProperty(p) != null) {
                cmd.add("-D" + p + "=" + System.getProperty(p));
            }
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
        cmd.add(scenario);
        Path log = dir.resolve("output.txt");
        Process child = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!child.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            child.destroyForcibly().waitFor();
            return new Outcome(-1, "the child did not finish in " + timeoutSeconds + " s:\n"
                    + Files.readString(log, StandardCharsets.UTF_8), List.of());
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        List<Path> logs;
        try (Stream<Path> s = Files.list(dir)) {
            logs = s.filter(f -> f.getFileName().toString().startsWith("hs_err")).toList();
        }
        if (logs.isEmpty()) {
            // Keep the directory only when it holds a crash log to read.
            Files.delete(log);
            Files.delete(dir);
        }
        return new Outcome(child.exitValue(), out, logs);
    }

    /**
     * Runs {@code scenario} in a child JVM, prints what it printed, and fails the calling rule if the child
     * crashed, hung or found its rule broken.
     *
     * @param what the rule's subject, for the failure message
     */
    static void assertHolds(VerbsCompatibilityKit kit, String scenario, String what, long timeoutSeconds,
                            Map<String, String> properties) throws IOException, InterruptedException {
        Outcome o = run(kit, scenario, timeoutSeconds, properties);
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

    /** The child: {@code ForkedScenario <kit class> <scenario>}. */
    public static void main(String[] args) throws ReflectiveOperationException {
        Constructor<?> c = Class.forName(args[0]).getDeclaredConstructor();
        c.setAccessible(true);
        VerbsCompatibilityKit kit = (VerbsCompatibilityKit) c.newInstance();
        kit.findProvider();
        if (kit.unavailableReason() != null) {
            System.out.println(kit.unavailableReason());
            System.exit(1);
        }
        try (Testbed tb = kit.openTestbed()) {
            scenario(args[1]).run(tb);
        } catch (AssertionError e) {
            System.out.println(e.getMessage());
            System.exit(1);
        } catch (Exception e) {
            e.printStackTrace(System.out);
            System.exit(1);
        }
        System.exit(0);
    }
}
