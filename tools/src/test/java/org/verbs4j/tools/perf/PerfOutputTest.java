package org.verbs4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.XYPlot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JSON schema and the charts, from reports built here. */
class PerfOutputTest {
    @TempDir
    Path dir;

    static PerfReport report(String kind, List<PerfRow> rows) {
        return new PerfReport("verbs4j perf", "development", kind.equals("bandwidth") ? "write_bw" : "send_lat", kind,
                "RDMA_WRITE", "emulated", "emu0", 1, -1, "loopback", false, "RC", "wr", 1, 128, 100, 1, 0, 4096, 0, rows);
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
        assertTrue(root.path("rdmaCm").isBoolean(), () -> "rdmaCm is a boolean in " + root);
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

    /** A write_bw sweep from 2 B to 1 MiB: bandwidth grows with the size, the message rate falls. */
    private static List<PerfRow> sweep() {
        List<PerfRow> rows = new ArrayList<>();
        for (int b = 2; b <= 1 << 20; b *= 2) {
            double mpps = 8.0 / (1 + b / 4096.0);
            rows.add(new BandwidthRow(b, 1000, mpps * b * 1.1 / (1 << 20) * 1e6, mpps * b / (1 << 20) * 1e6, mpps));
        }
        return rows;
    }

    /** The text of every {@code <text>} element, in document order. */
    private static List<String> texts(String svg) {
        return Pattern.compile("<text[^>]*>([^<]*)</text\\s*>").matcher(svg).results().map(m -> m.group(1)).toList();
    }

    @Test
    void bandwidthChartHasLogSizeAndBandwidthAxesAndTheMessageRateOnTheRight() {
        XYPlot plot = PerfPlot.chart(report("bandwidth", sweep())).getXYPlot();
        LogAxis sizes = assertInstanceOf(LogAxis.class, plot.getDomainAxis());
        assertEquals(2, sizes.getBase());
        LogAxis bw = assertInstanceOf(LogAxis.class, plot.getRangeAxis(0));
        assertEquals(10, bw.getBase());
        assertTrue(plot.getRangeAxis(1).getLabel().startsWith("message rate (Mpps)"), plot.getRangeAxis(1).getLabel());
        assertEquals(1, plot.getRangeAxisIndex(plot.getRangeAxisForDataset(1)), "the rate series uses the right axis");
        assertEquals(20, plot.getDataset(1).getItemCount(0), "one message-rate point per size");
    }

    @Test
    void svgKeepsTextAsTextWithLogAxisTicks() throws IOException {
        Path svg = dir.resolve("bw.svg");
        PerfPlot.write(report("bandwidth", sweep()), svg);
        String text = Files.readString(svg);
        assertTrue(text.startsWith("<svg") || text.contains("<svg "), text.substring(0, Math.min(200, text.length())));
        List<String> labels = texts(text);
        assertTrue(labels.size() >= 20, "titles, legend and tick labels are <text>: " + labels);
        assertTrue(labels.contains("message size (bytes)") && labels.contains("message rate (Mpps)")
                && labels.stream().anyMatch(l -> l.startsWith("bandwidth (MB/s")), labels.toString());
        // A log2 size axis puts its ticks at powers of two (one per 4x here); a linear one would tick at 200K, 400K...
        assertTrue(Collections.indexOfSubList(labels, List.of("4", "16", "64", "256", "1K", "4K", "16K", "64K", "256K",
                "1M")) >= 0, "size ticks at powers of 4: " + labels);
        // A log10 bandwidth axis ticks at powers of ten.
        assertTrue(Collections.indexOfSubList(labels, List.of("100", "1,000", "10,000")) >= 0,
                "bandwidth ticks at powers of ten: " + labels);
        // Glyphs drawn as outlines make paths of thousands of characters each (the old 754 KB SVG).
        int longestPath = Pattern.compile("<path d=[\"']([^\"']*)[\"']").matcher(text).results()
                .mapToInt(m -> m.group(1).length()).max().orElse(0);
        assertTrue(longestPath < 1500, "a path of " + longestPath + " characters: is text drawn as outlines again?");
        assertTrue(Files.size(svg) < 300_000, Files.size(svg) + " bytes");
    }

    @Test
    void pngAndLatencySvgCharts() throws IOException {
        Path png = dir.resolve("bw.png");
        PerfPlot.write(report("bandwidth", sweep()), png);
        byte[] head = Arrays.copyOf(Files.readAllBytes(png), 8);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head);
        assertTrue(Files.size(png) > 10_000, "a real chart, not an empty image");

        Path svg = dir.resolve("lat.svg");
        List<PerfRow> lat = List.of(new LatencyRow(2, 10, 1, 3, 2, 2, 0.1, 3, 3),
                new LatencyRow(4, 10, 1, 3, 2.2, 2, 0.1, 3, 3));
        PerfPlot.write(report("latency", lat), svg);
        List<String> labels = texts(Files.readString(svg));
        assertTrue(labels.contains("latency (usec)") && labels.contains("t_typical (median)"), labels.toString());
        assertInstanceOf(LogAxis.class, PerfPlot.chart(report("latency", lat)).getXYPlot().getDomainAxis());
        assertEquals(List.of(Path.of("bw.png"), Path.of("lat.svg")),
                Files.list(dir).map(Path::getFileName).sorted().toList(), "no extra extension appended");
    }
}
