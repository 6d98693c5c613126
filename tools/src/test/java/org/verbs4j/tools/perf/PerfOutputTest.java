package org.verbs4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JSON schema and the charts, from reports built here. */
class PerfOutputTest {
    @TempDir
    Path dir;

    static PerfReport report(String kind, List<PerfRow> rows) {
        return new PerfReport("verbs4j perf", "development", kind.equals("bandwidth") ? "write_bw" : "send_lat", kind,
                "RDMA_WRITE", "emulated", "emu0", 1, -1, "loopback", "RC", "wr", 1, 128, 100, 1, 0, 4096, 0, rows);
    }

    /** Checks the schema of a perf JSON report: every field, with its type. */
    static void assertSchema(JsonNode root, String kind) {
        for (String f : List.of("tool", "version", "test", "kind", "opcode", "provider", "device", "mode", "qpType",
                "postApi")) {
            assertTrue(root.path(f).isTextual(), () -> f + " is text in " + root);
        }
        for (String f : List.of("port", "gidIndex", "qps", "txDepth", "cqMod", "postList", "inlineSize", "mtuBytes",
                "durationSeconds")) {
            assertTrue(root.path(f).isInt(), () -> f + " is an integer in " + root);
        }
        assertEquals("verbs4j perf", root.get("tool").asText());
        assertEquals(kind, root.get("kind").asText());
        JsonNode results = root.path("results");
        assertTrue(results.isArray() && !results.isEmpty(), () -> "results in " + root);
        List<String> numbers = kind.equals("bandwidth")
                ? List.of("bwPeakMBps", "bwAverageMBps", "msgRateMpps")
                : List.of("tMinUs", "tMaxUs", "tTypicalUs", "tAvgUs", "tStdevUs", "t99Us", "t999Us");
        for (JsonNode row : results) {
            assertTrue(row.path("bytes").isInt(), () -> "bytes in " + row);
            assertTrue(row.path("iterations").isIntegralNumber(), () -> "iterations in " + row);
            for (String f : numbers) {
                assertTrue(row.path(f).isNumber() && row.get(f).asDouble() >= 0, () -> f + " in " + row);
            }
            assertEquals(numbers.size() + 2, row.size(), () -> "exactly the row fields in " + row);
        }
    }

    @Test
    void bandwidthJsonParsesBackWithItsSchema() throws IOException {
        Path f = dir.resolve("bw.json");
        PerfJson.write(report("bandwidth", List.of(new BandwidthRow(2, 5000, 9.5, 8.25, 4.3),
                new BandwidthRow(4, 5000, 19.0, 16.5, 4.3))), f);
        JsonNode root = new ObjectMapper().readTree(f.toFile());
        assertSchema(root, "bandwidth");
        assertEquals(8.25, root.at("/results/0/bwAverageMBps").asDouble());
        assertEquals(4, root.at("/results/1/bytes").asInt());
    }

    @Test
    void latencyJsonParsesBackWithItsSchema() throws IOException {
        Path f = dir.resolve("lat.json");
        PerfJson.write(report("latency", List.of(new LatencyRow(2, 1000, 1, 9, 2, 2.5, 0.5, 4, 8))), f);
        JsonNode root = new ObjectMapper().readTree(f.toFile());
        assertSchema(root, "latency");
        assertEquals(2.0, root.at("/results/0/tTypicalUs").asDouble());
    }

    @Test
    void pngAndSvgCharts() throws IOException {
        List<PerfRow> rows = List.of(new BandwidthRow(2, 10, 1, 1, 1), new BandwidthRow(1024, 10, 900, 800, 0.8),
                new BandwidthRow(1 << 20, 10, 5000, 4800, 0.005));
        Path png = dir.resolve("bw.png");
        PerfPlot.write(report("bandwidth", rows), png);
        byte[] head = Arrays.copyOf(Files.readAllBytes(png), 8);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head);
        assertTrue(Files.size(png) > 10_000, "a real chart, not an empty image");

        Path svg = dir.resolve("lat.svg");
        PerfPlot.write(report("latency", List.of(new LatencyRow(2, 10, 1, 3, 2, 2, 0.1, 3, 3),
                new LatencyRow(4, 10, 1, 3, 2.2, 2, 0.1, 3, 3))), svg);
        String text = Files.readString(svg);
        assertTrue(text.contains("<svg"), text.substring(0, Math.min(200, text.length())));
        // VectorGraphics2D draws text as outlines, so a chart is many paths rather than text.
        assertTrue(text.split("<path").length > 10 && text.contains("<line") && text.length() > 10_000,
                "axes, labels and series are drawn");
        assertEquals(List.of(Path.of("bw.png"), Path.of("lat.svg")),
                Files.list(dir).map(Path::getFileName).sorted().toList(), "no extra extension appended");
    }
}
