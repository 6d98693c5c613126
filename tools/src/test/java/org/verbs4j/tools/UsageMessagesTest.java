package org.verbs4j.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What a perftest user types and reads (issue 31): the messages say what is wrong, and the help says what is true. */
class UsageMessagesTest {

    @Test
    void anUnknownCommandIsCalledSo() {
        Run r = Run.of("frobnicate", "-v");
        assertEquals(Main.EXIT_USAGE, r.exitCode(), r::err);
        assertEquals("verbs4j: unknown command 'frobnicate'; the commands are devinfo, perf, tck, help "
                + "(see verbs4j --help)", r.err().strip());
    }

    @Test
    void anUnknownOptionKeepsItsOwnMessage() {
        Run top = Run.of("--no-such-flag");
        assertTrue(top.err().contains("Unknown option: '--no-such-flag'"), top::err);
        Run perf = Run.of("perf", "write_bw", "-s", "64", "extra", "words");
        assertEquals(Main.EXIT_USAGE, perf.exitCode(), perf::err);
        assertFalse(perf.err().contains("unknown command"), "only the first word is a command: " + perf.err());
    }

    @ParameterizedTest(name = "-s {0}")
    @ValueSource(strings = {"0", "-4", "1073741825", "2147483647", "2147483648", "99999999999",
        "99999999999999999999999", "abc", "4k"})
    void everySizeErrorGivesTheRange(String size) {
        Run r = Run.of("perf", "write_bw", "-s", size);
        assertEquals(Main.EXIT_USAGE, r.exitCode(), r::err);
        assertEquals(1, r.errLines().size(), r::err);
        assertTrue(r.err().contains("-s takes 1 to 1073741824 bytes"), r::err);
    }

    @Test
    void theLargestSizeIsAccepted() {
        // Past parsing and the range check: only the device's own limit can refuse it.
        Run r = Run.of("perf", "write_bw", "-s", "1073741824", "--provider", "no_such_provider");
        assertEquals(Main.EXIT_USAGE, r.exitCode(), r::err);
        assertFalse(r.err().contains("-s takes"), r::err);
        assertTrue(r.err().contains("no_such_provider"), r::err);
    }

    @Test
    void capitalQIsPerftestsShortCqMod() {
        Run bad = Run.of("perf", "write_bw", "-Q", "0");
        assertEquals(Main.EXIT_USAGE, bad.exitCode(), bad::err);
        assertTrue(bad.err().contains("--cq-mod takes 1 or more, not 0"), bad::err);
        Run ok = Run.of("perf", "write_bw", "--provider", "emulated", "-s", "64", "-n", "40", "-t", "8", "-Q", "4",
                "--perform_warm_up=false");
        assertEquals(Main.EXIT_OK, ok.exitCode(), ok::err);
        assertTrue(ok.out().contains("CQ Moderation   : 4"), ok::out);
    }

    @Test
    void theGidIndexDefaultIsStatedAsTheCodeChoosesIt() {
        Run help = Run.of("perf", "--help");
        String text = help.out().replaceAll("\\s+", " ");
        assertTrue(text.contains("on RoCE, as perftest, the port's best GID: IPv4-mapped first, then not link-local, "
                + "then RoCE v2 over v1 (the IPv4 RoCE v2 GID where there is one), else the first non-zero GID; on "
                + "InfiniBand no GRH, the LID"),
                help::out);
        assertFalse(text.contains("GID 0 on RoCE"), help::out);
    }

    @Test
    void thePlotsPathIsPrinted(@TempDir Path dir) {
        Path png = dir.resolve("write_bw.png");
        Run r = Run.of("perf", "write_bw", "--provider", "emulated", "-s", "64", "-n", "20",
                "--perform_warm_up=false", "--plot", png.toString());
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        assertTrue(Files.isRegularFile(png));
        assertTrue(r.out().lines().anyMatch(l -> l.equals("plot: " + png.toAbsolutePath().normalize())), r::out);
    }
}
