package org.verbs4j.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** verbs4j tck runs the kit through its runner and prints the area x provider matrix. */
class TckCommandTest {
    @TempDir
    Path dir;

    @Test
    void oneAreaOnTheEmulatorWithReports() throws Exception {
        Run r = Run.of("tck", "--provider", "emulated", "--area", "discovery", "--reports", dir.toString());
        assertEquals(Main.EXIT_OK, r.exitCode(), r.out() + r.err());
        assertTrue(Pattern.compile("(?m)^area\\s+\\| emulated\\s*$").matcher(r.out()).find(), r.out());
        var row = Pattern.compile("(?m)^Discovery\\s+\\| (\\d+)/(\\d+)/(\\d+)\\s*$").matcher(r.out());
        assertTrue(row.find(), r.out());
        assertTrue(Integer.parseInt(row.group(1)) > 0, "some Discovery rules passed");
        assertEquals("0", row.group(3), r.out());
        assertTrue(!r.out().contains("Transport "), "only the area asked for: " + r.out());
        try (var files = Files.list(dir.resolve("emulated"))) {
            assertTrue(files.anyMatch(f -> f.getFileName().toString().endsWith(".xml")), "JUnit XML reports");
        }
    }

    @Test
    void anUnavailableProviderIsASkipWithItsCauseNotAFailure() {
        Run r = Run.of("tck", "--provider", "ffm", "--area", "Discovery");
        assertEquals(Main.EXIT_OK, r.exitCode(), r.out() + r.err());
        assertTrue(Pattern.compile("(?m)^ffm: not run: .*not available.*$").matcher(r.out()).find(), r.out());
    }
}
