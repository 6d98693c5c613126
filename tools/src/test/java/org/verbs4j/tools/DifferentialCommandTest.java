package org.verbs4j.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** verbs4j tck --differential runs the seeded workload on several providers and compares every pair. */
class DifferentialCommandTest {
    @Test
    void twoRunsOfTheEmulatorAreIdentical() {
        Run r = Run.of("tck", "--differential", "--provider", "emulated,emulated", "--seed", "0x5eed", "--seed", "7",
                "--operations", "40");
        assertEquals(Main.EXIT_OK, r.exitCode(), r.out() + r.err());
        assertTrue(r.out().contains("differential workload: 40 WRs a seed, seeds 0x5eed, 0x7"), r.out());
        assertTrue(r.out().contains("opcodes drawn (every device executes them): RDMA_WRITE, RDMA_WRITE_WITH_IMM, SEND, "
                + "SEND_WITH_IMM, RDMA_READ, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD\n"),
                r.out());
        assertTrue(Pattern.compile("(?m)^emulated: device \\S+ port 1 GID index \\d+$").matcher(r.out()).find(),
                r.out());
        assertTrue(Pattern.compile("(?m)^provider +\\| device +\\| requester WCs \\| responder WCs \\| WC errors \\| "
                + "memory SHA-256$").matcher(r.out()).find(), r.out());
        var row = Pattern.compile("(?m)^emulated(#2)? +\\| \\S+ +\\| 40 +\\| (\\d+) +\\| 0 +\\| ([0-9a-f]{16})$")
                .matcher(r.out());
        assertTrue(row.find(), r.out());
        String digest = row.group(3);
        assertTrue(row.find(), r.out());
        assertEquals(digest, row.group(3), "one seed, one memory: " + r.out());
        assertEquals(2, Pattern.compile("(?m)^emulated vs emulated#2: identical$").matcher(r.out()).results().count(),
                r.out());
        assertTrue(r.out().contains("differential: identical: 1 pair(s) over 2 seed(s)"), r.out());
    }

    @Test
    void anUnavailableProviderIsSkippedWithItsCauseAndNothingIsCompared() {
        Run r = Run.of("tck", "--differential", "--provider", "emulated,ffm", "--operations", "10");
        assertEquals(Main.EXIT_OK, r.exitCode(), r.out() + r.err());
        assertTrue(Pattern.compile("(?m)^ffm: skipped: not available: \\S.*$").matcher(r.out()).find(), r.out());
        assertTrue(r.out().contains("nothing compared: the differential needs two available providers, and only "
                + "emulated is"), r.out());
        assertTrue(!r.out().contains("identical"), r.out());
    }

    @Test
    void aDeviceNoProviderHasFallsBackToTheFirstDeviceAndSaysSo() {
        Run r = Run.of("tck", "--differential", "--provider", "emulated,emulated", "--seed", "1", "--operations", "5",
                "-d", "nosuchdev0");
        assertEquals(Main.EXIT_OK, r.exitCode(), r.out() + r.err());
        assertTrue(r.out().contains("(it has no device nosuchdev0)"), r.out());
    }

    @Test
    void zeroOperationsIsAUsageError() {
        Run r = Run.of("tck", "--differential", "--provider", "emulated,emulated", "--operations", "0");
        assertEquals(Main.EXIT_USAGE, r.exitCode(), r.out() + r.err());
        assertEquals("verbs4j: --operations must be at least 1, not 0", r.errLines().getFirst());
    }

    @Test
    void tckRuleOptionsAreRefusedWithDifferential() {
        Run r = Run.of("tck", "--differential", "--provider", "emulated,emulated", "--area", "Discovery");
        assertEquals(Main.EXIT_USAGE, r.exitCode(), r.out() + r.err());
        assertTrue(r.errLines().getFirst().contains("--area, --known-deviations, --reports and --peer-dev do not apply"),
                r.err());
        Run peer = Run.of("tck", "--differential", "--provider", "emulated,emulated", "--peer-dev", "emu0");
        assertEquals(Main.EXIT_USAGE, peer.exitCode(), peer.out() + peer.err());
        assertTrue(peer.err().contains("--peer-dev do not apply"), peer.err());
    }

    @Test
    void aSeedWithoutDifferentialIsAUsageError() {
        Run r = Run.of("tck", "--provider", "emulated", "--seed", "3");
        assertEquals(Main.EXIT_USAGE, r.exitCode(), r.out() + r.err());
        assertEquals("verbs4j: --seed and --operations apply only with --differential", r.errLines().getFirst());
    }
}
