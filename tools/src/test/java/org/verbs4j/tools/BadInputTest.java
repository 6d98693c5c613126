package org.verbs4j.tools;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad input gets one line on stderr, exit code 2, and never a stack trace. */
class BadInputTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "--no-such-flag",
        "frobnicate",
        "perf",
        "perf no_such_test",
        "perf write_bw --bogus",
        "perf write_bw -s 0",
        "perf write_bw -s -4",
        "perf write_bw -s 99999999999",
        "perf write_bw -s 2147483647",
        "perf write_bw -s abc",
        "perf write_bw -n 0",
        "perf write_bw -n 10 -D 2",
        "perf write_bw -D 0",
        "perf write_bw -t 0",
        "perf write_bw -q 0",
        "perf write_bw -l 0",
        "perf write_bw --cq-mod 0",
        "perf write_bw -I -1",
        "perf write_bw -i 0",
        "perf write_bw -x 300",
        "perf write_bw -c XRC",
        "perf write_bw -s 64 -a",
        "perf write_lat -q 2",
        "perf read_bw -c UC",
        "perf atomic_lat -c UC",
        "perf write_bw -c UD",
        "perf atomic_bw -s 16",
        "perf write_bw --post-api verbs",
        "perf write_bw --plot chart.gif",
        "perf write_bw --plot /no/such/dir/chart.png",
        "perf write_bw --json /no/such/dir/r.json",
        "perf write_bw --server localhost",
        "perf write_bw --provider no_such_provider",
        "perf write_bw --provider emulated --server",
        "perf write_bw --provider emulated 127.0.0.1",
        "perf write_bw --provider emulated -d no_such_device",
        "perf write_bw --provider emulated -i 9",
        "perf write_bw --provider emulated -t 100000000",
        "perf write_bw --provider emulated -l 200 -t 100",
        "perf send_bw --provider emulated -c UD -s 1000000",
        "perf write_bw --provider emulated -I 100000000",
        "devinfo --provider no_such_provider",
        "devinfo --provider emulated -d no_such_device",
        "devinfo --bogus",
        "tck --bogus",
        "tck --area no_such_area",
        "tck --provider no_such_provider",
    })
    void exitsWithTwoAndOneLine(String args) {
        Run r = Run.of(args.split(" "));
        assertAll(args,
                () -> assertEquals(Main.EXIT_USAGE, r.exitCode(), () -> "exit code; stderr: " + r.err()),
                () -> assertEquals(1, r.errLines().size(), () -> "one line of stderr: " + r.err()),
                () -> assertTrue(r.err().startsWith("verbs4j: "), r::err),
                () -> assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), r::err));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ffm", "jnr"})
    void anUnavailableProviderIsBadInputWithItsCause(String provider) {
        Run r = Run.of("perf", "write_bw", "--provider", provider, "-n", "1");
        assertEquals(Main.EXIT_USAGE, r.exitCode(), r::err);
        assertEquals(1, r.errLines().size(), r::err);
        assertTrue(r.err().contains("provider '" + provider + "' is unavailable: "), r::err);
    }
}
