package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
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

    @Test
    @DisplayName("the block between the markers compiles without warnings, runs, and its RDMA WRITE arrives")
    void compilesAndRuns(@TempDir Path dir) throws Exception {
        String source = DocBlocks.extract("README.md", "readme:walkthrough");
        Path classes = DocBlocks.compile("README.md's walk-through", "ConnectAndWrite", source, dir);

        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                ReadmeWalkthroughTest.class.getClassLoader())) {
            Method main = loader.loadClass("ConnectAndWrite").getMethod("main", String[].class);
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(saved);
        }
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(lines.get(0).matches("emu0 port 1: ACTIVE, ETHERNET, active MTU \\d+, GID .+"), lines.get(0));
        assertEquals("WR 1 SUCCESS (RDMA_WRITE); remote buffer: hello, remote", lines.get(1));
    }
}
