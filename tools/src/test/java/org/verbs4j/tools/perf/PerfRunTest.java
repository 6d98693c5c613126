package org.verbs4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.verbs4j.tools.Main;
import org.verbs4j.tools.Run;

/** Tiny loopback runs on the emulated provider: the table has its rows. No timing is asserted. */
class PerfRunTest {
    private static final Pattern BW_ROW = Pattern.compile(
            "(?m)^ (\\d+)\\s+(\\d+)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d{6})$");
    private static final Pattern LAT_ROW = Pattern.compile(
            "(?m)^ (\\d+)\\s+(\\d+)(\\s+\\d+\\.\\d\\d){7}$");

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
        List<String> args = new java.util.ArrayList<>(List.of("perf", test, "--provider", "emulated", "-n", "40",
                "-s", "1024"));
        args.addAll(List.of(flags.split(" ")));
        if (test.startsWith("atomic")) {
            args.removeAll(List.of("-s", "1024"));
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
        Run r = Run.of("perf", "write_bw", "--provider", "emulated", "-a", "-n", "5", "--json", json.toString(),
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

    @Test
    void timedRun() {
        Run r = Run.of("perf", "send_lat", "--provider", "emulated", "-D", "1");
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        assertTrue(LAT_ROW.matcher(r.out()).find(), r.out());
    }
}
