package org.verbs4j.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * softroce/run refuses, before it prepares or boots anything, a class path the guest cannot see: the guest
 * mounts a tmpfs over /tmp and /run, so a Maven repository there made every Java step die with
 * NoClassDefFoundError. Runs {@code softroce/run --check} from a scratch project (a copy of the script beside
 * a {@code tools/target/classpath.txt} written by the test), so no VM is involved.
 */
@DisplayName("softroce/run fails before booting when the guest could not see the class path")
class SoftroceRunCheckTest {

    private static final Path ROOT = Path.of(System.getProperty("verbs4j.root", "..")).toAbsolutePath().normalize();

    @TempDir
    Path tmp;

    private Path project;
    private Path step;

    @BeforeEach
    void scratchProject() throws IOException {
        project = Files.createDirectories(tmp.resolve("proj"));
        Files.createDirectories(project.resolve("softroce"));
        Files.copy(ROOT.resolve("softroce/run"), project.resolve("softroce/run"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.createDirectories(project.resolve("scripts"));
        Files.copy(ROOT.resolve("scripts/jdk.sh"), project.resolve("scripts/jdk.sh"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.createDirectories(project.resolve("tools/target"));
        step = Files.writeString(project.resolve("step.sh"), "#!/bin/bash\n./verbs4j devinfo\n");
    }

    private void classPath(String... entries) throws IOException {
        Files.writeString(project.resolve("tools/target/classpath.txt"), String.join(":", entries));
    }

    private record Result(int exit, String out) {}

    private Result check(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", project.resolve("softroce/run").toString(), "--check",
                "--out", tmp.resolve("out").toString(), "--cache", tmp.resolve("cache").toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "softroce/run --check did not finish");
        return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    @DisplayName("a class path in the project and the host's own directories passes")
    void visibleClassPathPasses() throws Exception {
        classPath(project.resolve("tools/target/classes").toString(), "/root/.m2/repository/info/picocli/p.jar",
                "/usr/share/java/x.jar");
        Result r = check("--guest-script", step.toString());
        assertEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("check passed; steps: step"), r.out());
        assertTrue(Files.notExists(tmp.resolve("cache")), "--check must not prepare the cache");
    }

    @Test
    @DisplayName("a Maven repository under /tmp fails with exit 2, naming the entry and the --rw to pass")
    void classPathUnderTmpFails() throws Exception {
        Path repo = tmp.resolve("m2/repository");
        classPath(project.resolve("tools/target/classes").toString(),
                repo.resolve("info/picocli/picocli/4.7.7/picocli-4.7.7.jar").toString(),
                repo.resolve("com/github/jnr/jnr-ffi/2.2.17/jnr-ffi-2.2.17.jar").toString());
        Result r = check("--step", "devinfo", "--guest-script", step.toString());
        assertEquals(2, r.exit(), r.out());
        assertTrue(r.out().contains("2 class-path entries in tools/target/classpath.txt are under /tmp or /run"),
                r.out());
        assertTrue(r.out().contains("first: " + repo.resolve("info/picocli/picocli/4.7.7/picocli-4.7.7.jar")), r.out());
        assertTrue(r.out().contains("NoClassDefFoundError"), r.out());
        assertTrue(r.out().contains("--rw " + repo), "the fix names the repository to export: " + r.out());
        assertTrue(Files.notExists(tmp.resolve("cache")), "the check runs before any preparation");

        Files.createDirectories(repo);
        Result exported = check("--rw", repo.toString(), "--guest-script", step.toString());
        assertEquals(0, exported.exit(), "exported with --rw, the guest sees it: " + exported.out());
    }

    @Test
    @DisplayName("steps that run no Java (devinfo, C programs) are not held up by the class path")
    void noJavaStepNoCheck() throws Exception {
        classPath(tmp.resolve("m2/x.jar").toString());
        Result r = check("--step", "devinfo");
        assertEquals(0, r.exit(), r.out());
    }

    /** A fake JDK home: a release file that says which Java it is, and a bin/java that only answers. */
    private Path fakeJdk(Path where, String version) throws IOException {
        Path home = Files.createDirectories(where);
        Files.writeString(home.resolve("release"), "JAVA_VERSION=\"" + version + "\"\n");
        Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\nexit 0\n");
        assertTrue(java.toFile().setExecutable(true));
        return home;
    }

    @Test
    @DisplayName("an empty --java-home (an unset $JDK) fails at once with exit 2, before anything is prepared")
    void emptyJavaHomeFails() throws Exception {
        classPath(project.resolve("tools/target/classes").toString());
        Result r = check("--java-home", "", "--guest-script", step.toString());
        assertEquals(2, r.exit(), r.out());
        assertTrue(r.out().contains("--java-home is empty (an unset variable?)"), r.out());
        assertTrue(r.out().contains("scripts/test --print-jdk"), "the message says how to get one: " + r.out());
        // Refused even when no step runs Java: the value is wrong whatever the steps.
        Result builtin = check("--java-home", "", "--step", "devinfo");
        assertEquals(2, builtin.exit(), builtin.out());
        assertTrue(Files.notExists(tmp.resolve("cache")), "nothing is prepared");
    }

    @Test
    @DisplayName("a --java-home older than 22 or without bin/java fails at once; 22 exactly passes")
    void preJdk22JavaHomeFails() throws Exception {
        classPath(project.resolve("tools/target/classes").toString());
        Path jdk17 = fakeJdk(project.resolve("jdks/17"), "17.0.12");
        Result r = check("--java-home", jdk17.toString(), "--guest-script", step.toString());
        assertEquals(2, r.exit(), r.out());
        assertTrue(r.out().contains("--java-home " + jdk17 + " is Java 17; the guest steps need 22 or newer"), r.out());

        Path jdk21 = fakeJdk(project.resolve("jdks/21"), "21.0.5");
        assertEquals(2, check("--java-home", jdk21.toString(), "--guest-script", step.toString()).exit());
        Path jdk22 = fakeJdk(project.resolve("jdks/22"), "22");
        Result ok = check("--java-home", jdk22.toString(), "--guest-script", step.toString());
        assertEquals(0, ok.exit(), "22, the first release with FFM final, passes: " + ok.out());

        Path noJava = Files.createDirectories(project.resolve("jdks/empty"));
        Result none = check("--java-home", noJava.toString(), "--guest-script", step.toString());
        assertEquals(2, none.exit(), none.out());
        assertTrue(none.out().contains("has no bin/java"), none.out());
    }

    @Test
    @DisplayName("a step script's '# softroce-limit: SECS' line is its limit; without it, --step-timeout")
    void stepLimitFromScript() throws Exception {
        classPath(project.resolve("tools/target/classes").toString());
        Path limited = Files.writeString(project.resolve("limited.sh"),
                "#!/bin/bash\n# what it does\n# softroce-limit: 1234\necho hi\n");
        Result r = check("--step-timeout", "77", "--guest-script", limited.toString(), "--guest-script", step.toString());
        assertEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("limited (limit 1234 s)"), r.out());
        assertTrue(r.out().contains("step (limit 77 s)"), r.out());
        Result bad = check("--hang-timeout", "ten", "--guest-script", step.toString());
        assertEquals(2, bad.exit(), bad.out());
        assertTrue(bad.out().contains("--hang-timeout wants a whole number, got 'ten'"), bad.out());
    }

    @Test
    @DisplayName("a guest JAVA_HOME under /tmp fails before booting")
    void javaHomeUnderTmpFails() throws Exception {
        classPath(project.resolve("tools/target/classes").toString());
        fakeJdk(tmp.resolve("jdk"), "25");
        Result r = check("--java-home", tmp.resolve("jdk").toString(), "--guest-script", step.toString());
        assertEquals(2, r.exit(), r.out());
        assertTrue(r.out().contains("--java-home " + tmp.resolve("jdk") + " is under /tmp or /run"), r.out());
    }
}
