package org.verbs4j.tools.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.style.CategoryStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Draws a {@link PerfReport} as a chart: bandwidth or latency against message size, as PNG or SVG. */
final class PerfPlot {
    private PerfPlot() {}

    /** Whether the file name ends in an extension this class can write. */
    static boolean supported(Path file) {
        String n = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return n.endsWith(".png") || n.endsWith(".svg");
    }

    static void write(PerfReport r, Path file) {
        boolean bw = r.kind().equals("bandwidth");
        // Sizes grow in powers of two, so each gets an evenly spaced category labelled as perftest users read it.
        CategoryChart chart = new CategoryChartBuilder().width(960).height(600)
                .title("verbs4j perf " + r.test() + ": " + r.provider() + "/" + r.device() + ", " + r.qpType() + ", "
                        + r.postApi() + ", " + r.mode())
                .xAxisTitle("message size (bytes)")
                .yAxisTitle(bw ? "bandwidth (MB/s, MB = 2^20 bytes)" : "latency (usec)")
                .build();
        CategoryStyler st = chart.getStyler();
        st.setDefaultSeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
        st.setLegendPosition(Styler.LegendPosition.InsideNW);
        st.setPlotGridLinesVisible(true);
        st.setOverlapped(true);
        st.setXAxisLabelRotation(45);
        List<PerfRow> rows = r.results();
        List<String> x = rows.stream().map(p -> sizeLabel(p.bytes())).toList();
        if (bw) {
            series(chart, "BW average", x, rows.stream().map(p -> ((BandwidthRow) p).bwAverageMBps()).toList());
            series(chart, "BW peak", x, rows.stream().map(p -> ((BandwidthRow) p).bwPeakMBps()).toList());
        } else {
            List<Double> typical = rows.stream().map(p -> ((LatencyRow) p).tTypicalUs()).toList();
            series(chart, "t_typical (median)", x, typical);
            series(chart, "t_avg", x, rows.stream().map(p -> ((LatencyRow) p).tAvgUs()).toList());
            series(chart, "t_99%", x, rows.stream().map(p -> ((LatencyRow) p).t99Us()).toList());
            // A sweep's latencies span orders of magnitude; a log axis keeps the small sizes readable.
            double min = typical.stream().mapToDouble(Double::doubleValue).min().orElse(1);
            double max = typical.stream().mapToDouble(Double::doubleValue).max().orElse(1);
            st.setYAxisLogarithmic(min > 0 && max / min > 50);
        }
        String name = file.toString();
        try {
            if (name.toLowerCase(Locale.ROOT).endsWith(".svg")) {
                VectorGraphicsEncoder.saveVectorGraphic(chart, name, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
            } else {
                BitmapEncoder.saveBitmap(chart, name, BitmapEncoder.BitmapFormat.PNG);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static void series(CategoryChart chart, String name, List<String> x, List<Double> y) {
        CategorySeries s = chart.addSeries(name, x, y);
        s.setMarker(SeriesMarkers.CIRCLE);
    }

    /** A size as perftest's users read it: 2, 64, 4K, 1M. */
    static String sizeLabel(double bytes) {
        long b = Math.round(bytes);
        if (b >= 1 << 20 && b % (1 << 20) == 0) {
            return (b >> 20) + "M";
        }
        if (b >= 1 << 10 && b % (1 << 10) == 0) {
            return (b >> 10) + "K";
        }
        return Long.toString(b);
    }
}
