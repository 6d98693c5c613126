package org.verbs4j.tools.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
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
        XYChart chart = new XYChartBuilder().width(960).height(600)
                .title("verbs4j perf " + r.test() + ": " + r.provider() + "/" + r.device() + ", " + r.qpType() + ", "
                        + r.postApi() + ", " + r.mode())
                .xAxisTitle("message size (bytes)")
                .yAxisTitle(bw ? "bandwidth (MB/s, MB = 2^20 bytes)" : "latency (µs)")
                .build();
        Styler st = chart.getStyler();
        st.setLegendPosition(Styler.LegendPosition.InsideNW);
        st.setChartTitleVisible(true);
        chart.getStyler().setXAxisLogarithmic(r.results().size() > 1);
        chart.getStyler().setXAxisLabelRotation(45);
        chart.getStyler().setxAxisTickLabelsFormattingFunction(PerfPlot::sizeLabel);
        chart.getStyler().setPlotGridLinesVisible(true);
        List<PerfRow> rows = r.results();
        double[] x = rows.stream().mapToDouble(PerfRow::bytes).toArray();
        if (bw) {
            series(chart, "BW average", x, rows.stream().mapToDouble(p -> ((BandwidthRow) p).bwAverageMBps()).toArray());
            series(chart, "BW peak", x, rows.stream().mapToDouble(p -> ((BandwidthRow) p).bwPeakMBps()).toArray());
        } else {
            series(chart, "t_typical (median)", x,
                    rows.stream().mapToDouble(p -> ((LatencyRow) p).tTypicalUs()).toArray());
            series(chart, "t_avg", x, rows.stream().mapToDouble(p -> ((LatencyRow) p).tAvgUs()).toArray());
            series(chart, "t_99%", x, rows.stream().mapToDouble(p -> ((LatencyRow) p).t99Us()).toArray());
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

    private static void series(XYChart chart, String name, double[] x, double[] y) {
        XYSeries s = chart.addSeries(name, x, y);
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
