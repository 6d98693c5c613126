package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's walk-through ("Using it", between the {@code readme:walkthrough} markers) is cut out of README.md,
 * compiled with the JDK's compiler against the test class path ({@code -Xlint:all -Werror}) and run on the
 * emulated provider; the RDMA WRITE it makes must land. An API change that breaks the README fails the build.
 */
@DisplayName("The README's connect-and-write walk-through compiles and runs")
class ReadmeWalkthroughTest {
    private static final String START = "<!-- readme:walkthrough -->";
    private static final String END = "<!-- /readme:walkthrough -->";

    /** The Java source between the markers, without its code fence. */
    static String walkthrough(String readme) {
        int start = readme.indexOf(START);
        int end = readme.indexOf(END);
        assertTrue(start >= 0 && end > start, "README.md has no " + START + " ... " + END + " block");
        String block = readme.substring(start + START.length(), end).strip();
        assertTrue(block.startsWith("```java\n") && block.endsWith("```"),
                "the walk-through is one ```java block directly between the markers");
        return block.substring("```java\n".length(), block.length() - 3);
    }

    @Test
    @DisplayName("the block between the markers compiles without warnings, runs, and its RDMA WRITE arrives")
    void compilesAndRuns(@TempDir Path dir) throws Exception {
        Path root = Path.of(System.getProperty("verbs4j.root", "..")).toAbsolutePath().normalize();
        String source = walkthrough(Files.readString(root.resolve("README.md")));
        Path file = dir.resolve("src/ConnectAndWrite.java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, source);
        Path classes = Files.createDirectories(dir.resolve("classes"));

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "the tests run on a JRE without javac");
        StringWriter diagnostics = new StringWriter();
        try (StandardJavaFileManager files = javac.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
            Iterable<? extends JavaFileObject> units = files.getJavaFileObjects(file);
            List<String> options = List.of("-classpath", System.getProperty("java.class.path"), "-d",
                    classes.toString(), "-proc:none", "-Xlint:all", "-Werror");
            boolean ok = javac.getTask(diagnostics, files, null, options, null, units).call();
            assertTrue(ok, "README.md's walk-through does not compile:\n" + diagnostics);
        }

        String printed = runMain(classes);
        List<String> lines = printed.lines().toList();
        assertEquals(2, lines.size(), printed);
        assertTrue(lines.get(0).matches("emu0 port 1: ACTIVE, ETHERNET, active MTU \\d+, GID .+"), lines.get(0));
        assertEquals("WR 1 SUCCESS (RDMA_WRITE); remote buffer: hello, remote", lines.get(1));
    }

    private static String runMain(Path classes) throws Exception {
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                ReadmeWalkthroughTest.class.getClassLoader())) {
            Method main = loader.loadClass("ConnectAndWrite").getMethod("main", String[].class);
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[0]);
        } catch (IOException e) {
            throw new AssertionError(e);
        } finally {
            System.setOut(saved);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
