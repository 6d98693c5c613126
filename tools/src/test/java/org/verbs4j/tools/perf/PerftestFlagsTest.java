package org.verbs4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.verbs4j.tools.Main;
import org.verbs4j.tools.Run;

/** perftest's -b, -S, --tclass, -T, -w, -y, -O, --run_infinitely, --report-both and --cpu_util, on the emulator. */
class PerftestFlagsTest {
    private static final Pattern BW_ROW = Pattern.compile(
            "(?m)^ (\\d+)\\s+(\\d+)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d{6})(\\s+\\S+)? *$");

    private static Run perf(String... args) {
        List<String> all = new java.util.ArrayList<>(List.of("perf"));
        all.addAll(List.of(args));
        all.addAll(List.of("--provider", "emulated"));
        return Run.of(all.toArray(String[]::new));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "write_bw -T 32                       | -T sets the ToS of rdma_cm QPs",
        "write_bw -R -T 256                   | -T takes a type of service from 0 to 255",
        "write_bw -S 16                       | -S takes a service level from 0 to 15",
        "write_bw --tclass 256                | --tclass takes a traffic class from 0 to 255",
        "write_lat -b                         | -b measures bandwidth both ways",
        "send_bw -b                           | -b is not implemented for send_bw yet",
        "write_bw --report-both               | add -b",
        "send_lat -w 10                       | -w and -y verify a bandwidth test's results",
        "write_bw --limit_msgrate=-1          | -w and -y take a limit of 0 or more",
        "read_lat -O                          | -O (dual port) runs bandwidth tests only",
        "write_bw -O                          | -O runs half the QPs on port 2, and device",
        "write_lat --run_infinitely           | --run_infinitely runs bandwidth tests only",
        "write_bw --run_infinitely -n 5       | drop -n",
        "write_bw --run_infinitely --server   | --run_infinitely runs in loopback only",
        "write_bw --cpu_util                  | --cpu_util measures timed runs",
    })
    @DisplayName("a perftest flag this run cannot honour is refused in one line, exit 2")
    void refused(String args, String message) {
        Run r = perf(args.trim().split(" +"));
        assertEquals(Main.EXIT_USAGE, r.exitCode(), r::out);
        assertEquals(1, r.errLines().size(), r::err);
        assertTrue(r.err().contains(message.trim()), r::err);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"write_bw", "read_bw", "atomic_bw"})
    @DisplayName("-b in loopback: both endpoints post at once; the row sums both directions, --report-both shows each")
    void bidirectionalLoopback(String test) {
        Run r = perf(test, "-b", "-n", "40", "--perform_warm_up=false", "--report-both");
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        List<java.util.regex.MatchResult> rows = BW_ROW.matcher(r.out()).results().toList();
        assertEquals(3, rows.size(), r.out());
        assertEquals(80, Long.parseLong(rows.get(0).group(2)), r.out());
        assertEquals(40, Long.parseLong(rows.get(1).group(2)), r.out());
        assertEquals(40, Long.parseLong(rows.get(2).group(2)), r.out());
        double sum = Double.parseDouble(rows.get(0).group(4));
        double parts = Double.parseDouble(rows.get(1).group(4)) + Double.parseDouble(rows.get(2).group(4));
        assertEquals(sum, parts, 0.02, r.out());
        assertTrue(r.out().contains("Bidirectional   : ON"), r.out());
    }

    @Test
    @DisplayName("-S and --tclass go into the address vectors and the banner")
    void serviceLevelAndTrafficClass() {
        Run r = perf("write_bw", "-S", "3", "--tclass", "96", "-n", "40", "--perform_warm_up=false");
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        assertTrue(r.out().contains(" SL              : 3              Traffic class  : 96"), r.out());
        assertTrue(BW_ROW.matcher(r.out()).find(), r.out());
    }

    @Test
    @DisplayName("-w and -y: the run fails (exit 1) when no row reaches the limit, and passes when one does")
    void verifiers() {
        Run high = perf("write_bw", "-n", "40", "--perform_warm_up=false", "-w", "1e12");
        assertEquals(Main.EXIT_FAILURE, high.exitCode(), high::out);
        assertTrue(high.err().contains("BW result is below bw limit"), high::err);
        assertTrue(BW_ROW.matcher(high.out()).find(), "the table is printed before the verdict: " + high.out());
        Run rate = perf("write_bw", "-n", "40", "--perform_warm_up=false", "-y", "1e9");
        assertEquals(Main.EXIT_FAILURE, rate.exitCode(), rate::out);
        assertTrue(rate.err().contains("Msg rate is below msg_rate limit"), rate::err);
        Run low = perf("write_bw", "-n", "40", "--perform_warm_up=false", "-w", "0.001", "-y", "0.000001");
        assertEquals(Main.EXIT_OK, low.exitCode(), low::err);
    }

    @Test
    @DisplayName("--run_infinitely prints a row every -D seconds until stopped (here after 2 rows), peak 0")
    void runInfinitely() {
        System.setProperty(PerfCommand.INFINITE_ROWS_PROPERTY, "2");
        try {
            Run r = perf("write_bw", "--run_infinitely", "-D", "1", "-s", "1024", "--perform_warm_up=false");
            assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
            List<java.util.regex.MatchResult> rows = BW_ROW.matcher(r.out()).results().toList();
            assertEquals(2, rows.size(), r.out());
            for (var row : rows) {
                assertEquals("0.00", row.group(3), "perftest's --run_infinitely turns the peak off: " + r.out());
            }
        } finally {
            System.clearProperty(PerfCommand.INFINITE_ROWS_PROPERTY);
        }
    }

    @Test
    @DisplayName("--cpu_util with -D adds perftest's CPU_Util[%] column")
    void cpuUtil() {
        Run r = perf("write_bw", "-D", "1", "-s", "1024", "--perform_warm_up=false", "--cpu_util");
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        assertTrue(r.out().contains("MsgRate[Mpps]    CPU_Util[%]"), r.out());
        var m = BW_ROW.matcher(r.out());
        assertTrue(m.find(), r.out());
        double util = Double.parseDouble(m.group(6).trim());
        assertTrue(util > 0 && util <= 100, "a polling run keeps a CPU busy: " + util);
    }

    @Test
    @DisplayName("/proc/stat's cpu line: idle and iowait are idle, every other field of the first eight is busy")
    void cpuTicks() {
        CpuUtil.Ticks a = CpuUtil.parse("cpu  100 5 50 1000 20 1 2 3 7 0");
        assertEquals(new CpuUtil.Ticks(100 + 5 + 50 + 1 + 2 + 3, 1000 + 20), a);
        CpuUtil.Ticks b = CpuUtil.parse("cpu  160 5 70 1100 20 1 2 3 7 0");
        assertEquals(100.0 * 80 / 180, CpuUtil.percent(a, b), 1e-9);
        assertEquals(0, CpuUtil.percent(a, a));
        assertThrows(IllegalStateException.class, () -> CpuUtil.parse("intr 1 2 3"));
    }
}
