package org.verbs4j.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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

    @Test
    void aMissingPeerDeviceIsOneLineNamingTheDevicesThereAre() {
        Run r = Run.of("tck", "--provider", "emulated", "--area", "CQ", "--peer-dev", "roce9");
        assertEquals(Main.EXIT_USAGE, r.exitCode(), r.out() + r.err());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("--peer-dev: provider 'emulated' has no device 'roce9'; it has [emu0"), r.err());
        assertTrue(r.err().contains("VERBS4J_EMULATED_ROCE"), "how to get a second wire device: " + r.err());
        assertFalse(r.out().contains("running the TCK"), "nothing ran: " + r.out());
    }

    @Test
    void aPeerDeviceTakesEveryPairsBQp() {
        // emu0 again: each pair's b QP on a second context of the device, the split's paths without a second device.
        Run r = Run.of("tck", "--provider", "emulated", "--area", "CQ", "--peer-dev", "emu0");
        assertEquals(Main.EXIT_OK, r.exitCode(), r.out() + r.err());
        assertTrue(r.out().contains("running the TCK against 'emulated', each QP pair's b QP on emu0 ..."), r.out());
        var row = Pattern.compile("(?m)^CQ\\s+\\| (\\d+)/(\\d+)/(\\d+)\\s*$").matcher(r.out());
        assertTrue(row.find(), r.out());
        assertTrue(Integer.parseInt(row.group(1)) > 0, "some CQ rules passed");
        assertEquals("0", row.group(3), r.out());
    }

    @Test
    void theGidIndexReachesEveryConnectionOfTheKit() {
        // emu0's GID table is far shorter than 200 entries: a kit that took -x opens no testbed, one that ignored it
        // would pass every CQ rule.
        Run r = Run.of("tck", "--provider", "emulated", "--area", "CQ", "-x", "200");
        assertEquals(Main.EXIT_FAILURE, r.exitCode(), r.out() + r.err());
        var row = Pattern.compile("(?m)^CQ\\s+\\| (\\d+)/(\\d+)/(\\d+)\\s*$").matcher(r.out());
        assertTrue(row.find(), r.out());
        assertTrue(Integer.parseInt(row.group(3)) > 0, "rules that connect failed on GID index 200: " + r.out());
        Run zero = Run.of("tck", "--provider", "emulated", "--area", "CQ", "-x", "0");
        assertEquals(Main.EXIT_OK, zero.exitCode(), zero.out() + zero.err());
    }

    @Test
    void aGidIndexOutsideTheByteIsOneLine() {
        Run r = Run.of("tck", "--provider", "emulated", "--area", "CQ", "-x", "256");
        assertEquals(Main.EXIT_USAGE, r.exitCode(), r.out() + r.err());
        assertEquals(List.of("verbs4j: -x takes a GID index from 0 to 255, not 256"), r.errLines());
    }
}
