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

    @Test
    @DisplayName("a guest JAVA_HOME under /tmp fails before booting")
    void javaHomeUnderTmpFails() throws Exception {
        classPath(project.resolve("tools/target/classes").toString());
        Result r = check("--java-home", tmp.resolve("jdk").toString(), "--guest-script", step.toString());
        assertEquals(2, r.exit(), r.out());
        assertTrue(r.out().contains("--java-home " + tmp.resolve("jdk") + " is under /tmp or /run"), r.out());
    }
}
