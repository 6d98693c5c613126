package org.verbs4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.verbs4j.tools.Main;
import org.verbs4j.tools.Run;

/**
 * {@code verbs4j perf -R}, perftest's rdma_cm mode, on the emulated provider's connection manager: in loopback
 * (both ends in this JVM) and as a server and a client that are threads of this JVM, whose control link and test
 * QPs are all connected through the connection manager. No timing is asserted.
 */
class PerfRdmaCmTest {
    private static final Pattern BW_ROW = Pattern.compile(
            "(?m)^ (\\d+)\\s+(\\d+)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d{6}) *$");
    private static final Pattern LAT_ROW = Pattern.compile(
            "(?m)^ (\\d+)\\s+(\\d+)( +\\d+\\.\\d\\d){7} *$");

    private static Run run(String test, String... flags) {
        List<String> args = new ArrayList<>(List.of("perf", test, "--provider", "emulated", "-R"));
        args.addAll(List.of(flags));
        return Run.of(args.toArray(String[]::new));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "write_bw, -n 40 -s 4096",
        "write_bw, -n 40 -q 3 --post-api post_send",
        "write_bw, -n 40 -b",
        "write_bw, -n 40 -T 104",
        "read_bw, -n 40 -s 4096",
        "send_bw, -n 40 -s 1024",
        "atomic_bw, -n 40",
        "write_lat, -n 30 -s 64",
        "read_lat, -n 30 -s 64",
        "send_lat, -n 30 -s 64",
        "atomic_lat, -n 30",
    })
    @DisplayName("loopback -R: every test runs on QPs the connection manager connected")
    void loopback(String test, String flags) {
        Run r = run(test, flags.split(" "));
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        assertTrue(r.out().contains("rdma_cm QPs     : ON"), r.out());
        Pattern row = test.endsWith("_bw") ? BW_ROW : LAT_ROW;
        assertTrue(row.matcher(r.out()).find(), r.out());
    }

    @Test
    @DisplayName("--json records -R: the report says the QPs were connected through rdma_cm")
    void jsonRecordsRdmaCm(@TempDir Path dir) throws IOException {
        Path json = dir.resolve("r.json");
        Run r = run("write_bw", "-n", "20", "--perform_warm_up=false", "--json", json.toString());
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        PerfOutputTest.assertSchema(root, "bandwidth");
        assertTrue(root.get("rdmaCm").asBoolean(), root::toString);
        assertEquals("loopback", root.get("mode").asText());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"UC", "UD"})
    @DisplayName("-R takes RC only: UC as perftest refuses it, UD because verbs4j's connection manager has no SIDR")
    void rcOnly(String type) {
        Run r = run("send_bw", "-c", type);
        assertEquals(Main.EXIT_USAGE, r.exitCode(), r::out);
        assertTrue(r.err().contains("-R connects RC QPs"), r::err);
    }

    /** A server and a client with -R on a random rdma_cm port; both "processes" are threads of this JVM. */
    private static Run[] twoProcess(String... args) throws Exception {
        System.setProperty(TwoProcess.SAME_JVM_PEER_PROPERTY, "true");
        try {
            String port = Integer.toString(20000 + ThreadLocalRandom.current().nextInt(20000));
            List<String> common = new ArrayList<>(List.of("perf"));
            common.addAll(List.of(args));
            common.addAll(List.of("--provider", "emulated", "-R", "-p", port));
            List<String> srv = new ArrayList<>(common);
            srv.add("--server");
            List<String> cli = new ArrayList<>(common);
            cli.add("127.0.0.1");
            CompletableFuture<Run> server = CompletableFuture.supplyAsync(() -> Run.of(srv.toArray(String[]::new)));
            Thread.sleep(300); // the listener first: a client's connect to no listener is rejected, as in rdma_cm
            Run client = Run.of(cli.toArray(String[]::new));
            return new Run[] {client, server.get(120, TimeUnit.SECONDS)};
        } finally {
            System.clearProperty(TwoProcess.SAME_JVM_PEER_PROPERTY);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"write_bw, 4096, -q 2", "read_bw, 4096, -t 32", "atomic_bw, 8, -t 32"})
    @DisplayName("two processes with -R, bandwidth: the client measures and its report reaches the server over the rdma_cm control link")
    void twoProcessBandwidth(String test, String size, String more) throws Exception {
        List<String> args = new ArrayList<>(List.of(test, "-n", "40", "-s", size));
        args.addAll(List.of(more.split(" ")));
        Run[] r = twoProcess(args.toArray(String[]::new));
        assertEquals(Main.EXIT_OK, r[0].exitCode(), r[0]::err);
        assertEquals(Main.EXIT_OK, r[1].exitCode(), r[1]::err);
        var c = BW_ROW.matcher(r[0].out());
        var s = BW_ROW.matcher(r[1].out());
        assertTrue(c.find(), r[0].out());
        assertTrue(s.find(), r[1].out());
        assertEquals(c.group(), s.group(), "the server prints the client's row");
        assertTrue(r[1].out().contains("* Waiting for client to connect... *"),
                "the server says when rdma_listen has returned: " + r[1].out());
        assertFalse(r[0].out().contains("Waiting for client"), r[0].out());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"send_bw, 1024", "write_lat, 64", "send_lat, 64"})
    @DisplayName("two processes with -R: in send_bw and the ping-pong latency tests each side reports its own end")
    void twoProcessEachSide(String test, String size) throws Exception {
        Run[] r = twoProcess(test, "-n", "40", "-s", size);
        Pattern row = test.endsWith("_bw") ? BW_ROW : LAT_ROW;
        for (Run side : r) {
            assertEquals(Main.EXIT_OK, side.exitCode(), side::err);
            var m = row.matcher(side.out());
            assertTrue(m.find(), side.out());
            assertEquals(size, m.group(1), side.out());
        }
    }

    @Test
    @DisplayName("two processes with -R, read_lat and atomic_lat: only the client posts and prints a row")
    void twoProcessClientOnlyLatency() throws Exception {
        for (String test : List.of("read_lat", "atomic_lat")) {
            Run[] r = twoProcess(test, "-n", "30");
            assertEquals(Main.EXIT_OK, r[0].exitCode(), r[0]::err);
            assertEquals(Main.EXIT_OK, r[1].exitCode(), r[1]::err);
            assertTrue(LAT_ROW.matcher(r[0].out()).find(), r[0].out());
            assertFalse(LAT_ROW.matcher(r[1].out()).find(), r[1].out());
        }
    }
}
