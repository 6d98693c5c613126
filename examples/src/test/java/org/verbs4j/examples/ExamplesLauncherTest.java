package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code examples/run}, the command examples/README.md gives, works whatever the default {@code java} is (issue 31:
 * with java 17 first on PATH the documented {@code java} line failed with UnsupportedClassVersionError), and shows
 * no {@code sun.misc.Unsafe} warnings on JDK 24+. It runs from a scratch copy of the launcher and scripts/jdk.sh
 * beside this build's classes and a class path file, so that it never starts a build of its own.
 */
@DisplayName("examples/run picks a JDK 22+ itself and passes the launcher's JVM options")
class ExamplesLauncherTest {

    private static final Path ROOT = Path.of(System.getProperty("verbs4j.root", "..")).toAbsolutePath().normalize();

    @TempDir
    Path tmp;

    @Test
    @DisplayName("with a java that cannot run the examples first on PATH, ChooseProvider runs, quietly, on a JDK 22+")
    void runsWithAnOldDefaultJava() throws Exception {
        Path project = Files.createDirectories(tmp.resolve("proj"));
        Files.createDirectories(project.resolve("examples/target"));
        Files.createDirectories(project.resolve("scripts"));
        Files.copy(ROOT.resolve("examples/run"), project.resolve("examples/run"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.copy(ROOT.resolve("scripts/jdk.sh"), project.resolve("scripts/jdk.sh"));
        Files.createSymbolicLink(project.resolve("examples/target/classes"),
                ROOT.resolve("examples/target/classes"));
        Files.writeString(project.resolve("examples/target/classpath.txt"), System.getProperty("java.class.path"));

        // The "default java 17": a java first on PATH that says so and cannot run anything; it leaves a mark if run.
        Path oldBin = Files.createDirectories(tmp.resolve("old-java/bin"));
        Path mark = tmp.resolve("old-java-ran");
        writeExecutable(oldBin.resolve("java"), "#!/bin/sh\ntouch '" + mark + "'\n"
                + "echo 'Error: UnsupportedClassVersionError (class file version 66.0, this java knows 61.0)' >&2\n"
                + "exit 1\n");
        Path jdkBin = Path.of(System.getProperty("java.home"), "bin");

        ProcessBuilder pb = new ProcessBuilder(List.of("bash", project.resolve("examples/run").toString(),
                "-Dverbs4j.provider=emulated", "ChooseProvider")).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.remove("JAVA_HOME");
        // The test's JDK is reachable as the javac on PATH, the launcher's last resort where no install place has one.
        env.put("PATH", oldBin + ":" + jdkBin + ":/usr/bin:/bin");
        Process p = pb.start();
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "examples/run did not finish");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertEquals(0, p.exitValue(), out);
        assertFalse(Files.exists(mark), "the java on PATH was run: " + out);
        assertTrue(out.contains("verbs4j.provider / VERBS4J_PROVIDER: emulated"), "the -D option reached the JVM: " + out);
        assertTrue(out.contains("chosen: emulated"), out);
        assertFalse(out.contains("sun.misc.Unsafe"), "no Unsafe warnings: " + out);
    }

    @Test
    @DisplayName("without a class to run it says how to name one, with exit 2")
    void noClassIsAUsageError() throws Exception {
        Process p = new ProcessBuilder("bash", ROOT.resolve("examples/run").toString()).redirectErrorStream(true)
                .start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(2, p.exitValue(), out);
        assertTrue(out.contains("name an example, e.g. examples/run RcPingPong 5"), out);
    }

    @Test
    @DisplayName("every 'examples/run ... CLASS' in the READMEs names a class with a main")
    void documentedCommandsNameRealClasses() throws Exception {
        java.util.regex.Pattern command = java.util.regex.Pattern.compile("examples/run((?: -\\S+)*) ([A-Za-z][\\w.]*)");
        int found = 0;
        for (String file : List.of("README.md", "examples/README.md", "provider-emulated/README.md")) {
            java.util.regex.Matcher m = command.matcher(Files.readString(ROOT.resolve(file)));
            while (m.find()) {
                String name = m.group(2).contains(".") ? m.group(2) : "org.verbs4j.examples." + m.group(2);
                Class<?> type = Class.forName(name);
                type.getMethod("main", String[].class);
                found++;
            }
        }
        assertTrue(found >= 6, "the READMEs' examples/run lines: " + found);
    }

    private static void writeExecutable(Path file, String text) throws IOException {
        Files.writeString(file, text);
        assertTrue(file.toFile().setExecutable(true));
    }
}
