package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * README.md's BOM section (between the {@code readme:bom-pom} markers) is a whole project: its pom, with the
 * walk-through as {@code src/main/java/ConnectAndWrite.java}, is built by Maven offline and run, as a user would
 * after pasting both into an empty directory (issue 31). The verbs4j artifacts come from a private local
 * repository under {@code target/}, filled from this reactor's poms and built jars (what {@code mvn install} would
 * put into {@code ~/.m2}, which is left alone); everything else (Maven's plugins) from the user's repository,
 * read-only, as Maven 3.9's {@code maven.repo.local.tail}.
 */
@DisplayName("The README's BOM section builds and runs a new project")
class BomReadmeTest {

    private static final Path ROOT = DocBlocks.ROOT;
    private static final String VERSION = "0.1.0-SNAPSHOT";

    @Test
    @DisplayName("the pom resolves verbs4j-spi and a provider through the BOM, and the walk-through runs on it")
    void pomFromTheReadmeBuildsAndRuns() throws Exception {
        String pom = DocBlocks.extract("README.md", "readme:bom-pom", "xml");
        assertTrue(pom.contains("<dependencyManagement>") && pom.contains("<artifactId>verbs4j-spi</artifactId>"),
                "the section names the API artifact inside a whole pom: " + pom);
        assertTrue(pom.contains("<version>" + VERSION + "</version>"), "the BOM's version is this build's");
        String java = DocBlocks.extract("README.md", "readme:walkthrough");

        Path work = ROOT.resolve("examples/target/bom-readme");
        deleteTree(work);
        Path project = Files.createDirectories(work.resolve("hello-verbs"));
        Files.writeString(project.resolve("pom.xml"), pom);
        Path source = project.resolve("src/main/java/ConnectAndWrite.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, java);
        Path repo = work.resolve("repository");
        install(repo, "verbs4j-parent", ROOT.resolve("pom.xml"), null);
        install(repo, "verbs4j-bom", ROOT.resolve("bom/pom.xml"), null);
        install(repo, "verbs4j-spi", ROOT.resolve("verbs-spi/pom.xml"), builtJar("verbs-spi", "verbs4j-spi"));
        install(repo, "verbs4j-provider-emulated", ROOT.resolve("provider-emulated/pom.xml"),
                builtJar("provider-emulated", "verbs4j-provider-emulated"));

        Path classPathFile = work.resolve("classpath.txt");
        String home = System.getProperty("java.home");
        List<String> mvn = new ArrayList<>(List.of(ROOT.resolve("mvnw").toString(), "-B", "-o", "-q",
                "-f", project.resolve("pom.xml").toString(), "-Dmaven.repo.local=" + repo,
                "-Dmaven.repo.local.tail=" + userRepository(), "package",
                // Offline, a plugin prefix cannot be looked up; the version this build uses is in the user's repository.
                "org.apache.maven.plugins:maven-dependency-plugin:" + dependencyPluginVersion() + ":build-classpath",
                "-Dmdep.outputFile=" + classPathFile));
        String build = run(mvn, project, home, 600);
        assertTrue(Files.isRegularFile(project.resolve("target/classes/ConnectAndWrite.class")), build);
        String classPath = Files.readString(classPathFile).strip();
        assertTrue(classPath.contains("verbs4j-spi-" + VERSION + ".jar")
                && classPath.contains("verbs4j-provider-emulated-" + VERSION + ".jar"), classPath);

        String out = run(List.of(Path.of(home, "bin", "java").toString(), "--enable-native-access=ALL-UNNAMED",
                "-cp", project.resolve("target/classes") + ":" + classPath, "ConnectAndWrite"), project, home, 120);
        List<String> lines = out.lines().filter(l -> !l.isBlank()).toList();
        assertEquals("WR 1 SUCCESS (RDMA_WRITE); remote buffer: hello, remote", lines.getLast(), out);
    }

    /** The jar this reactor built for a module: the build runs the examples' tests after packaging what they need. */
    private static Path builtJar(String module, String artifactId) {
        Path jar = ROOT.resolve(module).resolve("target").resolve(artifactId + "-" + VERSION + ".jar");
        assertTrue(Files.isRegularFile(jar), jar + " is missing: build it first (./mvnw -B -pl examples -am verify)");
        return jar;
    }

    /** Lays out what {@code mvn install} would, for one artifact, in the private repository. */
    private static void install(Path repo, String artifactId, Path pom, Path jar) throws IOException {
        Path dir = Files.createDirectories(repo.resolve("org/verbs4j").resolve(artifactId).resolve(VERSION));
        Files.copy(pom, dir.resolve(artifactId + "-" + VERSION + ".pom"), StandardCopyOption.REPLACE_EXISTING);
        if (jar != null) {
            Files.copy(jar, dir.resolve(artifactId + "-" + VERSION + ".jar"), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** The maven-dependency-plugin version the root pom pins, which this build has resolved already. */
    private static String dependencyPluginVersion() throws IOException {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "<artifactId>maven-dependency-plugin</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(Files.readString(ROOT.resolve("pom.xml")));
        assertTrue(m.find(), "the root pom pins no maven-dependency-plugin version");
        return m.group(1);
    }

    /** The user's own local repository, where this build found Maven's plugins. */
    private static Path userRepository() {
        String configured = System.getProperty("maven.repo.local");
        return configured != null ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".m2", "repository");
    }

    private static String run(List<String> command, Path dir, String javaHome, int seconds) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", javaHome);
        // Maven's Guice and sun.misc.Unsafe on JDK 24+, as in ./verbs4j (scripts/jdk.sh's maven_opts).
        if (Runtime.version().feature() >= 24) {
            pb.environment().put("MAVEN_OPTS", "--sun-misc-unsafe-memory-access=allow");
        }
        Process p = pb.start();
        String[] out = new String[1];
        Thread reader = Thread.ofVirtual().start(() -> {
            try {
                out[0] = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                out[0] = e.toString();
            }
        });
        boolean finished = p.waitFor(seconds, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly();
        }
        reader.join(10_000);
        assertTrue(finished, String.join(" ", command) + " did not finish in " + seconds + " s: " + out[0]);
        assertEquals(0, p.exitValue(), String.join(" ", command) + ":\n" + out[0]);
        return out[0];
    }

    private static void deleteTree(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
