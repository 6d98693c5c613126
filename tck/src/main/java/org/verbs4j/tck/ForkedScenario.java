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

    /** A scenario the child can run: it throws AssertionError when its rule does not hold. */
    interface Scenario {
        void run(Testbed tb);
    }

    private ForkedScenario() {}

    /** The scenarios, by name; the parent and the child both look them up here. */
    static Scenario scenario(String name) {
        return switch (name) {
            case "inlineFromUnmappedAddress" -> MisuseRules::inlineFromUnmappedAddressScenario;
            case "misuseWalk" -> MisuseRules::misuseWalkScenario;
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
        }
        System.exit(0);
    }
}
