package org.verbs4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.verbs4j.tools.Main;
import org.verbs4j.tools.Run;

/** Tiny loopback runs on the emulated provider: the table has its rows. No timing is asserted. */
class PerfRunTest {
    private static final Pattern BW_ROW = Pattern.compile(
            "(?m)^ (\\d+)\\s+(\\d+)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d{6}) *$");
    private static final Pattern LAT_ROW = Pattern.compile(
            "(?m)^ (\\d+)\\s+(\\d+)( +\\d+\\.\\d\\d){7} *$");

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "write_bw, -c RC --post-api wr",
        "write_bw, -c RC --post-api post_send -l 4 --cq-mod 4",
        "write_bw, -c UC -q 2",
        "write_bw, -c RC -I 64 -s 32",
        "read_bw, -c RC",
        "send_bw, -c RC --post-api post_send",
        "send_bw, -c UC",
        "send_bw, -c UD -s 256",
        "atomic_bw, -c RC",
    })
    void bandwidthRow(String test, String flags) {
        // The warm-up is tested below; here it would only add its fifth of a second (or more) to each case.
        List<String> args = new java.util.ArrayList<>(List.of("perf", test, "--provider", "emulated", "-n", "40",
                "--perform_warm_up=false"));
        args.addAll(List.of(flags.split(" ")));
        if (!test.startsWith("atomic") && !args.contains("-s")) {
            args.addAll(List.of("-s", "1024"));
        }
        Run r = Run.of(args.toArray(String[]::new));
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        var m = BW_ROW.matcher(r.out());
        assertTrue(m.find(), r.out());
        assertTrue(Long.parseLong(m.group(2)) >= 40, r.out());
        assertTrue(r.out().contains("#bytes     #iterations    BW peak[MB/sec]"), r.out());
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "write_bw, -c RC",
        "read_bw, -c RC",
        "send_bw, -c RC --post-api post_send",
        "send_bw, -c UD -s 256 -q 2",
    })
    @DisplayName("bandwidth tests warm up by default, and the run after the warm-up has its own iterations")
    void warmUpByDefault(String test, String flags) {
        List<String> args = new java.util.ArrayList<>(List.of("perf", test, "--provider", "emulated", "-n", "40"));
        args.addAll(List.of(flags.split(" ")));
        Run r = Run.of(args.toArray(String[]::new));
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        assertTrue(r.out().contains(" Warm up         : until the rate is steady (--perform_warm_up)"), r.out());
        var m = BW_ROW.matcher(r.out());
        assertTrue(m.find(), r.out());
        long perQp = Long.parseLong(m.group(2));
        assertTrue(perQp >= 40 && perQp < 40L * 2 * WarmUp.FIRST_CHUNK, "the warm-up's WRs are not counted: " + r.out());
    }

    @Test
    @DisplayName("--perform_warm_up takes no value or true|false, as perftest's flag")
    void warmUpFlag() {
        Run off = Run.of("perf", "write_bw", "--provider", "emulated", "-n", "20", "--perform_warm_up=false");
        assertEquals(Main.EXIT_OK, off.exitCode(), off::err);
        assertTrue(off.out().contains(" Warm up         : off"), off.out());
        Run bare = Run.of("perf", "write_bw", "--provider", "emulated", "-n", "20", "--perform_warm_up");
        assertEquals(Main.EXIT_OK, bare.exitCode(), bare::err);
        assertTrue(bare.out().contains("until the rate is steady"), bare.out());
        Run bad = Run.of("perf", "write_bw", "--provider", "emulated", "--perform_warm_up=maybe");
        assertEquals(Main.EXIT_USAGE, bad.exitCode(), bad::out);
        assertTrue(bad.err().contains("--perform_warm_up"), bad::err);
        Run lat = Run.of("perf", "write_lat", "--provider", "emulated", "-n", "20");
        assertFalse(lat.out().contains("Warm up"), "latency tests have no warm-up: " + lat.out());
    }

    @Test
    @DisplayName("--out_json and --out_json_file write the same report as --json")
    void outJsonWritesTheReport() throws IOException {
        Path json = dir.resolve("perf.json");
        Run r = Run.of("perf", "write_bw", "--provider", "emulated", "-n", "20", "--perform_warm_up=false",
                "--out_json", "--out_json_file", json.toString());
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        PerfOutputTest.assertSchema(root, "bandwidth");
        assertEquals(20, root.at("/results/0/iterations").asLong());
        assertFalse(root.get("rdmaCm").asBoolean(), "without -R the report says the QPs were not connected by rdma_cm");
        Run both = Run.of("perf", "write_bw", "--provider", "emulated", "--json", dir.resolve("a.json").toString(),
                "--out_json");
        assertEquals(Main.EXIT_USAGE, both.exitCode(), both::out);
        assertTrue(both.err().contains("name two files"), both::err);
        Run fileOnly = Run.of("perf", "write_bw", "--provider", "emulated", "--out_json_file", json.toString());
        assertEquals(Main.EXIT_USAGE, fileOnly.exitCode(), fileOnly::out);
        assertTrue(fileOnly.err().contains("add --out_json"), fileOnly::err);
    }

    @Test
    @DisplayName("--report_gbits prints Gb/s, -N prints a peak of 0, -F is accepted")
    void reportFlags() {
        Run r = Run.of("perf", "write_bw", "--provider", "emulated", "-n", "20", "--perform_warm_up=false",
                "--report_gbits", "-N", "-F");
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        assertTrue(r.out().contains("BW peak[Gb/sec]    BW average[Gb/sec]"), r.out());
        var m = BW_ROW.matcher(r.out());
        assertTrue(m.find(), r.out());
        assertEquals("0.00", m.group(3), "-N: no peak: " + r.out());
    }

    @Test
    @DisplayName("-m sets the path MTU (shown in the banner, bounding UD messages) and -u the ACK timeout")
    void mtuAndTimeout() {
        Run r = Run.of("perf", "send_bw", "--provider", "emulated", "-c", "UD", "-m", "1024", "-u", "20", "-n", "20",
                "--perform_warm_up=false");
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        assertTrue(r.out().contains(" Mtu             : 1024[B]"), r.out());
        var m = BW_ROW.matcher(r.out());
        assertTrue(m.find(), r.out());
        assertEquals("1024", m.group(1), "the UD default size is capped at the -m MTU: " + r.out());
        Run rc = Run.of("perf", "write_bw", "--provider", "emulated", "-m", "256", "-u", "0", "-n", "20", "-s", "4096",
                "--perform_warm_up=false");
        assertEquals(Main.EXIT_OK, rc.exitCode(), rc::err);
        assertTrue(rc.out().contains(" Mtu             : 256[B]"), rc.out());
        Run big = Run.of("perf", "send_bw", "--provider", "emulated", "-c", "UD", "-m", "512", "-s", "1024");
        assertEquals(Main.EXIT_USAGE, big.exitCode(), big::out);
        assertTrue(big.err().contains("at most one MTU: -s 1024 is more than 512"), big::err);
        Run badMtu = Run.of("perf", "write_bw", "--provider", "emulated", "-m", "1000");
        assertEquals(Main.EXIT_USAGE, badMtu.exitCode(), badMtu::out);
        assertTrue(badMtu.err().contains("-m takes an MTU of 256, 512, 1024, 2048 or 4096"), badMtu::err);
        Run badTimeout = Run.of("perf", "write_bw", "--provider", "emulated", "-u", "32");
        assertEquals(Main.EXIT_USAGE, badTimeout.exitCode(), badTimeout::out);
        assertTrue(badTimeout.err().contains("-u takes an ACK timeout code from 0 to 31"), badTimeout::err);
    }

    @Test
    @DisplayName("--report_gbits converts MB/s (2^20 B/s) to Gb/s (10^9 bit/s)")
    void gbitsConversion() {
        PerfSettings s = new PerfSettings(PerfTest.ofCliName("write_bw"), 64, 100, 0, 128, 0, org.verbs4j.QpType.RC,
                1, 0, 1, 100, 1, -1, PostApi.WR, 0, 14, true, 0, 0, false, false);
        java.io.StringWriter mb = new java.io.StringWriter();
        java.io.StringWriter gb = new java.io.StringWriter();
        BandwidthRow row = new BandwidthRow(65536, 100, 1000.0, 500.0, 0.008);
        new ResultTable(new java.io.PrintWriter(mb), s, false).row(row);
        new ResultTable(new java.io.PrintWriter(gb), s, true).row(row);
        assertTrue(mb.toString().contains("1000.00") && mb.toString().contains("500.00"), mb.toString());
        // 1000 MB/s = 1000 * 2^20 * 8 bits/s = 8.39 Gb/s; 500 MB/s = 4.19 Gb/s.
        assertTrue(gb.toString().contains("8.39") && gb.toString().contains("4.19"), gb.toString());
        assertTrue(gb.toString().contains("0.008000"), "the message rate is unchanged: " + gb);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "write_lat, -c RC",
        "write_lat, -c UC --post-api post_send",
        "read_lat, -c RC",
        "send_lat, -c RC",
        "send_lat, -c UD",
        "atomic_lat, -c RC",
    })
    void latencyRow(String test, String flags) {
        List<String> args = new java.util.ArrayList<>(List.of("perf", test, "--provider", "emulated", "-n", "30"));
        args.addAll(List.of(flags.split(" ")));
        Run r = Run.of(args.toArray(String[]::new));
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        var m = LAT_ROW.matcher(r.out());
        assertTrue(m.find(), r.out());
        assertEquals("30", m.group(2), r.out());
        assertTrue(r.out().contains("t_typical[usec]"), r.out());
    }

    @Test
    void sweepWritesJsonAndPlot() throws IOException {
        Path json = dir.resolve("w.json");
        Path png = dir.resolve("w.png");
        Run r = Run.of("perf", "write_bw", "--provider", "emulated", "-a", "-n", "5", "--perform_warm_up=false",
                "--json", json.toString(),
                "--plot", png.toString());
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        assertEquals(23, BW_ROW.matcher(r.out()).results().count(), r.out());
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        PerfOutputTest.assertSchema(root, "bandwidth");
        assertEquals(23, root.get("results").size());
        assertEquals("emulated", root.get("provider").asText());
        assertEquals(8 << 20, root.at("/results/22/bytes").asInt());
        assertTrue(png.toFile().length() > 10_000);
        assertTrue(r.err().isEmpty(), "no progress bar outside a terminal: " + r.err());
    }

    /** Runs a server and a client of this test over loopback TCP; both "processes" are threads of this JVM. */
    private static Run[] twoProcess(String... args) throws Exception {
        // The only way the emulated device can be reached from both ends.
        System.setProperty(TwoProcess.SAME_JVM_PEER_PROPERTY, "true");
        try {
            int port;
            try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
                port = probe.getLocalPort();
            }
            String p = Integer.toString(port);
            List<String> common = new java.util.ArrayList<>(List.of("perf"));
            common.addAll(List.of(args));
            common.addAll(List.of("--provider", "emulated", "-p", p));
            List<String> srvArgs = new java.util.ArrayList<>(common);
            srvArgs.add("--server");
            List<String> cliArgs = new java.util.ArrayList<>(common);
            cliArgs.add("127.0.0.1");
            var server = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> Run.of(srvArgs.toArray(String[]::new)));
            Run client = Run.of(cliArgs.toArray(String[]::new));
            Run srv = server.get(120, java.util.concurrent.TimeUnit.SECONDS);
            return new Run[] {client, srv};
        } finally {
            System.clearProperty(TwoProcess.SAME_JVM_PEER_PROPERTY);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"write_bw, 4096", "read_bw, 4096", "atomic_bw, 8"})
    @DisplayName("perftest's handshake, bandwidth: the client measures and its report travels to the server")
    void twoProcessBandwidthServerPrintsTheClientsReport(String test, String size) throws Exception {
        Run[] r = twoProcess(test, "-n", "50", "-s", size);
        Run client = r[0];
        Run srv = r[1];
        assertEquals(Main.EXIT_OK, client.exitCode(), client::err);
        assertEquals(Main.EXIT_OK, srv.exitCode(), srv::err);
        var c = BW_ROW.matcher(client.out());
        var s = BW_ROW.matcher(srv.out());
        assertTrue(c.find(), client.out());
        assertTrue(s.find(), srv.out());
        assertEquals(c.group(), s.group(), "the server prints the client's row");
        assertTrue(client.out().contains("client") && srv.out().contains("server"), client.out());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"send_bw, 4096", "write_lat, 64", "send_lat, 64"})
    @DisplayName("perftest's handshake: in send_bw and the ping-pong latency tests each side reports its own end")
    void twoProcessEachSideMeasures(String test, String size) throws Exception {
        Run[] r = twoProcess(test, "-n", "50", "-s", size);
        assertEquals(Main.EXIT_OK, r[0].exitCode(), r[0]::err);
        assertEquals(Main.EXIT_OK, r[1].exitCode(), r[1]::err);
        Pattern row = test.endsWith("_bw") ? BW_ROW : LAT_ROW;
        for (Run side : r) {
            var m = row.matcher(side.out());
            assertTrue(m.find(), side.out());
            assertEquals(size, m.group(1), side.out());
            // send_bw: the 50 messages sent or received; latency: the samples (the side that waits first has 49).
            assertTrue(Long.parseLong(m.group(2)) >= 49, side.out());
        }
    }

    @Test
    @DisplayName("perftest's handshake, read_lat: only the client posts and prints a row")
    void twoProcessReadLatency() throws Exception {
        Run[] r = twoProcess("read_lat", "-n", "50", "-s", "64");
        assertEquals(Main.EXIT_OK, r[0].exitCode(), r[0]::err);
        assertEquals(Main.EXIT_OK, r[1].exitCode(), r[1]::err);
        assertTrue(LAT_ROW.matcher(r[0].out()).find(), r[0].out());
        assertFalse(LAT_ROW.matcher(r[1].out()).find(), r[1].out());
    }

    @Test
    @DisplayName("perftest's handshake, -a: every size on the same QPs; the server prints the client's last report")
    void twoProcessSweep() throws Exception {
        Run[] r = twoProcess("write_bw", "-a", "-n", "5", "--perform_warm_up=false");
        assertEquals(Main.EXIT_OK, r[0].exitCode(), r[0]::err);
        assertEquals(Main.EXIT_OK, r[1].exitCode(), r[1]::err);
        assertEquals(23, BW_ROW.matcher(r[0].out()).results().count(), r[0].out());
        var s = BW_ROW.matcher(r[1].out());
        assertTrue(s.find(), r[1].out());
        assertEquals(Integer.toString(8 << 20), s.group(1));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"send_lat, 2", "write_lat, 2"})
    @DisplayName("perftest's handshake, -a on a ping-pong test: every size, each side its own rows")
    void twoProcessLatencySweep(String test, String ignored) throws Exception {
        Run[] r = twoProcess(test, "-a", "-n", "3");
        for (Run side : r) {
            assertEquals(Main.EXIT_OK, side.exitCode(), side::err);
            assertEquals(23, LAT_ROW.matcher(side.out()).results().count(), side.out());
        }
    }

    @Test
    @DisplayName("-b in two processes: both sides post and print the sum of both directions")
    void twoProcessBidirectional() throws Exception {
        Run[] r = twoProcess("write_bw", "-b", "-n", "50", "-s", "1024", "--report-both");
        for (Run side : r) {
            assertEquals(Main.EXIT_OK, side.exitCode(), side::err);
            List<java.util.regex.MatchResult> rows = BW_ROW.matcher(side.out()).results().toList();
            assertEquals(3, rows.size(), side.out());
            assertEquals(100, Long.parseLong(rows.get(0).group(2)), "the sum of both directions' 50");
            double sum = Double.parseDouble(rows.get(0).group(4));
            double parts = Double.parseDouble(rows.get(1).group(4)) + Double.parseDouble(rows.get(2).group(4));
            assertEquals(sum, parts, 0.02, side.out());
            assertTrue(side.out().contains("Local results") && side.out().contains("Remote results"), side.out());
        }
    }

    @Test
    void twoProcessPeersMustRunTheSameTest() throws Exception {
        System.setProperty(TwoProcess.SAME_JVM_PEER_PROPERTY, "true");
        try {
            int port;
            try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
                port = probe.getLocalPort();
            }
            String p = Integer.toString(port);
            var server = java.util.concurrent.CompletableFuture.supplyAsync(() -> Run.of("perf", "write_bw",
                    "--provider", "emulated", "--server", "-p", p, "-n", "50"));
            Run client = Run.of("perf", "write_bw", "--provider", "emulated", "localhost", "-p", p, "-n", "60");
            Run srv = server.get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(Main.EXIT_USAGE, client.exitCode(), client::err);
            assertEquals(Main.EXIT_USAGE, srv.exitCode(), srv::err);
            assertTrue(client.err().contains("give both sides the same test and flags"), client::err);
        } finally {
            System.clearProperty(TwoProcess.SAME_JVM_PEER_PROPERTY);
        }
    }

    @Test
    void timedRun() {
        Run r = Run.of("perf", "send_lat", "--provider", "emulated", "-D", "1");
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        assertTrue(LAT_ROW.matcher(r.out()).find(), r.out());
    }
}
