package org.verbs4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.verbs4j.QpType;
import org.verbs4j.tools.Main;
import picocli.CommandLine;

/** perftest's flags parse into the perf command's settings. */
class PerfArgumentsTest {
    private static PerfCommand parse(String... args) {
        CommandLine cl = Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        CommandLine.ParseResult pr = cl.parseArgs(args);
        return (PerfCommand) pr.subcommand().commandSpec().userObject();
    }

    @Test
    void everyPerftestFlag() {
        PerfCommand c = parse("perf", "send_bw", "-s", "4096", "-n", "10", "-t", "64", "-c", "UD", "-q", "2", "-I",
                "64", "-l", "4", "--cq-mod", "8", "-d", "emu0", "-i", "1", "-x", "3", "--post-api", "post_send",
                "--provider", "emulated", "--json", "r.json", "--plot", "r.svg");
        assertEquals("send_bw", c.testName);
        assertEquals(4096, c.size);
        assertEquals(10L, c.iterations);
        assertEquals(64, c.txDepth);
        assertEquals("UD", c.connection);
        assertEquals(2, c.qps);
        assertEquals(64, c.inlineSize);
        assertEquals(4, c.postList);
        assertEquals(8, c.cqMod);
        assertEquals("emu0", c.deviceName);
        assertEquals(1, c.port);
        assertEquals(3, c.gidIndex);
        assertEquals("post_send", c.postApi);
        assertEquals("emulated", c.provider);
        assertEquals(Path.of("r.json"), c.json);
        assertEquals(Path.of("r.svg"), c.plot);
        assertFalse(c.all);
        assertFalse(c.server);
        assertNull(c.host);
    }

    @Test
    void longFormsAndDefaults() {
        PerfCommand c = parse("perf", "write_lat", "--size", "8", "--duration", "3", "--tx-depth", "2",
                "--inline_size", "32", "--post_list", "1", "--ib-dev", "x", "--ib-port", "2", "--gid-index", "1");
        assertEquals(8, c.size);
        assertEquals(3, c.duration);
        assertEquals(2, c.txDepth);
        assertEquals(32, c.inlineSize);
        assertEquals("x", c.deviceName);
        assertEquals(2, c.port);
        assertEquals(1, c.gidIndex);

        PerfCommand d = parse("perf", "write_bw");
        assertEquals("RC", d.connection);
        assertEquals(1, d.qps);
        assertEquals(100, d.cqMod);
        assertEquals(1, d.postList);
        assertEquals(1, d.port);
        assertEquals(18515, d.tcpPort);
        assertNull(d.size);
        assertNull(d.iterations);
    }

    @Test
    void twoProcessForms() {
        PerfCommand server = parse("perf", "write_bw", "--server", "-p", "20000");
        assertTrue(server.server);
        assertEquals(20000, server.tcpPort);
        PerfCommand client = parse("perf", "write_bw", "127.0.0.1");
        assertEquals("127.0.0.1", client.host);
    }

    @Test
    void sweepIsPowersOfTwoFromTwoBytesToEightMebibytes() {
        PerfCommand c = parse("perf", "write_bw", "-a");
        List<Integer> sizes = c.sizes(PerfTest.WRITE_BW, QpType.RC, 4096);
        assertEquals(23, sizes.size());
        assertEquals(2, sizes.getFirst());
        assertEquals(8 << 20, sizes.getLast());
        for (int i = 1; i < sizes.size(); i++) {
            assertEquals(sizes.get(i - 1) * 2, sizes.get(i));
        }
    }

    @Test
    void udSweepStopsAtTheMtuAndAtomicsAreEightBytes() {
        PerfCommand c = parse("perf", "send_bw", "-a", "-c", "UD");
        assertEquals(1024, c.sizes(PerfTest.SEND_BW, QpType.UD, 1024).getLast());
        assertEquals(List.of(8), parse("perf", "atomic_bw", "-a").sizes(PerfTest.ATOMIC_BW, QpType.RC, 4096));
        assertEquals(List.of(65536), parse("perf", "write_bw").sizes(PerfTest.WRITE_BW, QpType.RC, 4096));
        assertEquals(List.of(2), parse("perf", "send_lat").sizes(PerfTest.SEND_LAT, QpType.RC, 4096));
    }

    @Test
    void defaultIterationsFollowPerftestCappedForLargeSizes() {
        PerfCommand c = parse("perf", "write_bw", "-a");
        assertEquals(5000, c.iterationsFor(PerfTest.WRITE_BW, 2));
        assertEquals(1000, c.iterationsFor(PerfTest.WRITE_LAT, 2));
        assertEquals(512, c.iterationsFor(PerfTest.WRITE_BW, 1 << 20));
        assertEquals(100, c.iterationsFor(PerfTest.WRITE_BW, 8 << 20));
        assertEquals(7, parse("perf", "write_bw", "-n", "7").iterationsFor(PerfTest.WRITE_BW, 8 << 20));
        assertEquals(0, parse("perf", "write_bw", "-D", "2").iterationsFor(PerfTest.WRITE_BW, 2));
    }

    @Test
    void everyTestHasItsCliName() {
        for (String name : List.of("write_bw", "read_bw", "send_bw", "atomic_bw", "write_lat", "read_lat", "send_lat",
                "atomic_lat")) {
            assertEquals(name, PerfTest.ofCliName(name).cliName());
        }
    }

    @Test
    void perftestJsonFlags() {
        assertEquals(Path.of(PerfCommand.DEFAULT_OUT_JSON), parse("perf", "write_bw", "--out_json").jsonFile(),
                "perftest's --out_json alone writes perftest_out.json");
        assertEquals(Path.of("x.json"), parse("perf", "write_bw", "--out_json", "--out_json_file", "x.json").jsonFile());
        assertEquals(Path.of("y.json"), parse("perf", "write_bw", "--json", "y.json").jsonFile());
        assertNull(parse("perf", "write_bw").jsonFile());
        PerfCommand c = parse("perf", "write_bw", "--report_gbits", "-N", "-F");
        assertTrue(c.reportGbits && c.noPeak && c.cpuFreqQuiet);
        PerfCommand longNames = parse("perf", "write_bw", "--noPeak", "--CPU-freq");
        assertTrue(longNames.noPeak && longNames.cpuFreqQuiet);
    }
}
