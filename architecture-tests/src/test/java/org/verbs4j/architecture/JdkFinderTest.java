package org.verbs4j.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/jdk.sh, which ./verbs4j and scripts/test (the README's test command) both source, picks a JDK 22+
 * whatever the default java is. Run against fake JDK homes: a {@code release} file and {@code bin/java},
 * {@code bin/javac} scripts that print what a real java prints for {@code -XshowSettings:properties}.
 */
@DisplayName("The launcher and the test command pick the same JDK 22+")
class JdkFinderTest {

    private static final Path ROOT = Path.of(System.getProperty("verbs4j.root", "..")).toAbsolutePath().normalize();

    @TempDir
    Path tmp;

    /** A fake JDK home of the given feature release; withRelease=false leaves out the release file. */
    private Path jdk(String name, String version, boolean withJavac, boolean withRelease) throws IOException {
        Path home = tmp.resolve("jvm").resolve(name);
        Path bin = Files.createDirectories(home.resolve("bin"));
        String java = "#!/bin/sh\necho '    java.specification.version = " + version + "' >&2\n";
        script(bin.resolve("java"), java);
        if (withJavac) {
            script(bin.resolve("javac"), "#!/bin/sh\nexit 0\n");
        }
        if (withRelease) {
            Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\"" + version + ".0.1\"\n");
        }
        return home;
    }

    private static void script(Path p, String text) throws IOException {
        Files.writeString(p, text);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private record Result(int exit, String out) {}

    /** Runs find_jdk from scripts/jdk.sh with the given candidates, JAVA_HOME (or none) and PATH. */
    private Result findJdk(String javaHome, String path, Path... candidates) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", "-c",
                "set -euo pipefail; source \"$1\"; shift; find_jdk \"$@\"", "find_jdk",
                ROOT.resolve("scripts/jdk.sh").toString()));
        for (Path c : candidates) {
            cmd.add(c.toString());
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.remove("JAVA_HOME");
        if (javaHome != null) {
            env.put("JAVA_HOME", javaHome);
        }
        env.put("PATH", path);
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "find_jdk did not finish");
        return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim());
    }

    /** A PATH whose javac is the fake JDK 17's, as on a machine whose default java is 17. */
    private String pathWith17() throws IOException {
        Path jdk17 = jdk("jdk-17", "17", true, true);
        return jdk17.resolve("bin") + ":/usr/bin:/bin";
    }

    @Test
    @DisplayName("with JAVA_HOME unset and java 17 on PATH, the newest JDK 22+ among the install places wins")
    void newestJdk22PlusWinsOverPath17() throws Exception {
        String path = pathWith17();
        Path jdk22 = jdk("jdk-22", "22", true, true);
        Path jdk25 = jdk("jdk-25", "25", true, true);
        Path jre26 = jdk("jre-26", "26", false, true);
        Result r = findJdk(null, path, tmp.resolve("jvm/jdk-17"), jdk22, jdk25, jre26);
        assertEquals(0, r.exit(), r.out());
        assertEquals(jdk25.toString(), r.out(), "a JRE (no javac) does not count, and 25 > 22 > 17");
    }

    @Test
    @DisplayName("JAVA_HOME is used when it is a JDK 22+, and skipped when it is older")
    void javaHomeFirstWhenUsable() throws Exception {
        String path = pathWith17();
        Path jdk17 = tmp.resolve("jvm/jdk-17");
        Path jdk23 = jdk("jdk-23", "23", true, true);
        Path jdk25 = jdk("jdk-25", "25", true, true);
        assertEquals(jdk23.toString(), findJdk(jdk23.toString(), path, jdk17, jdk25).out());
        assertEquals(jdk25.toString(), findJdk(jdk17.toString(), path, jdk17, jdk25).out());
    }

    @Test
    @DisplayName("a JDK without a release file is judged by running its java")
    void versionFromJavaWhenNoReleaseFile() throws Exception {
        Path old = jdk("old", "1.8", true, false);
        Path jdk24 = jdk("noRelease24", "24", true, false);
        Result r = findJdk(null, "/usr/bin:/bin", old, jdk24);
        assertEquals(0, r.exit(), r.out());
        assertEquals(jdk24.toString(), r.out());
    }

    @Test
    @DisplayName("the javac on PATH is the last resort, and only when it is 22+")
    void pathJavacLastResort() throws Exception {
        Path jdk22 = jdk("onPath22", "22", true, true);
        Result r = findJdk(null, jdk22.resolve("bin") + ":/usr/bin:/bin", tmp.resolve("none"));
        assertEquals(0, r.exit(), r.out());
        assertEquals(jdk22.toString(), r.out());
        Result none = findJdk(null, pathWith17(), tmp.resolve("jvm/jdk-17"));
        assertEquals(1, none.exit(), "only a JDK 17 exists, so find_jdk must fail: " + none.out());
        assertEquals("", none.out());
    }

    @Test
    @DisplayName("./verbs4j and scripts/test source scripts/jdk.sh instead of keeping their own copy")
    void oneCopyOfTheLogic() throws IOException {
        for (String f : List.of("verbs4j", "scripts/test")) {
            String text = Files.readString(ROOT.resolve(f));
            assertTrue(text.contains("source \"$ROOT/scripts/jdk.sh\""), f + " must source scripts/jdk.sh");
            assertFalse(text.contains("find_jdk()") || text.contains("home_release()"),
                    f + " must not define its own JDK-finding functions");
        }
        String readme = Files.readString(ROOT.resolve("README.md"));
        String block = readme.substring(readme.indexOf("<!-- ci:test-command -->"),
                readme.indexOf("<!-- /ci:test-command -->"));
        assertTrue(block.contains("scripts/test"), "the README's test command must be scripts/test: " + block);
    }
}
