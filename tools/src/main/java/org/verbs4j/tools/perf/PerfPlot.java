package org.verbs4j.tools.perf;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Dimension;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.Rectangle;
import java.awt.Shape;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.AttributedCharacterIterator;
import java.text.AttributedString;
import java.text.CharacterIterator;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.apache.batik.svggen.SVGGeneratorContext;
import org.apache.batik.svggen.SVGGraphics2D;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.AxisState;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.LogTick;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTick;
import org.jfree.chart.axis.Tick;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.text.TextUtils;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.w3c.dom.Document;

/**
 * Draws a {@link PerfReport} as a chart, as PNG or SVG.
 *
 * <p>Sizes go on a log2 axis, so a sweep from 2 bytes to 8 MiB spreads evenly as perftest's rows do. Bandwidth goes
 * on a log10 axis, so the small sizes, a thousand times below the large ones, do not sit flat at zero, and the
 * message rate (Mpps) goes on a second axis on the right, where the small sizes are the story. Latency goes on a
 * log axis when it spans more than a factor 50. SVG keeps every label as a {@code <text>} element (Batik).
 */
final class PerfPlot {
    static final int WIDTH = 960;
    static final int HEIGHT = 600;
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0x2ca02c), new Color(0xd62728)};
    private static final Color RATE_COLOR = new Color(0xff7f0e);
    private static final String SVG_NAMESPACE = "http://www.w3.org/2000/svg";

    private PerfPlot() {}

    /** Whether the file name ends in an extension this class can write. */
    static boolean supported(Path file) {
        String n = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return n.endsWith(".png") || n.endsWith(".svg");
    }

    static void write(PerfReport r, Path file) {
        // JFreeChart draws rotated text (the vertical axis titles) through a TextLayout by default, which an SVG
        // canvas can only record as glyph outlines; the plain drawString path keeps it as <text>.
        TextUtils.setUseDrawRotatedStringWorkaround(false);
        JFreeChart chart = chart(r);
        try {
            if (file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".svg")) {
                writeSvg(chart, file);
            } else {
                ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** Draws the chart on Batik's SVG canvas, with text as {@code <text>} (not glyph outlines) and CSS styles. */
    private static void writeSvg(JFreeChart chart, Path file) throws IOException {
        Document doc;
        try {
            doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().getDOMImplementation()
                    .createDocument(SVG_NAMESPACE, "svg", null);
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's XML parser is not configured: " + e.getMessage(), e);
        }
        SVGGraphics2D g = new SVGGraphics2D(SVGGeneratorContext.createDefault(doc), false);
        g.setSVGCanvasSize(new Dimension(WIDTH, HEIGHT));
        chart.draw(g, new Rectangle(0, 0, WIDTH, HEIGHT));
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            g.stream(out, true);
        }
    }

    /** The chart of a report: its axes and series, before it is drawn. */
    static JFreeChart chart(PerfReport r) {
        List<PerfRow> rows = r.results();
        LogAxis sizes = new TextLogAxis("message size (bytes)", 2, new SizeFormat());
        sizes.setLowerMargin(0.03);
        sizes.setUpperMargin(0.03);
        XYPlot plot = new XYPlot();
        plot.setDomainAxis(sizes);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);

        if (r.kind().equals("bandwidth")) {
            plot.setRangeAxis(0, logAxis("bandwidth (MB/s, MB = 2^20 bytes, log scale)"));
            plot.setDataset(0, collection(
                    series("BW average (MB/s)", rows, p -> ((BandwidthRow) p).bwAverageMBps(), true),
                    series("BW peak (MB/s)", rows, p -> ((BandwidthRow) p).bwPeakMBps(), true)));
            plot.setRenderer(0, renderer(COLORS[0], COLORS[1]));
            NumberAxis rate = new NumberAxis("message rate (Mpps)");
            rate.setAutoRangeIncludesZero(true);
            rate.setLabelPaint(RATE_COLOR);
            rate.setTickLabelPaint(RATE_COLOR);
            plot.setRangeAxis(1, rate);
            plot.setDataset(1, collection(
                    series("message rate (Mpps, right axis)", rows, p -> ((BandwidthRow) p).msgRateMpps(), false)));
            plot.mapDatasetToRangeAxis(1, 1);
            plot.setRenderer(1, renderer(RATE_COLOR));
        } else {
            double min = rows.stream().mapToDouble(p -> ((LatencyRow) p).tTypicalUs()).min().orElse(1);
            double max = rows.stream().mapToDouble(p -> ((LatencyRow) p).tTypicalUs()).max().orElse(1);
            // A sweep's latencies can span orders of magnitude; a log axis then keeps the small sizes readable.
            boolean log = min > 0 && max / min > 50;
            ValueAxis y = log ? logAxis("latency (usec, log scale)") : new NumberAxis("latency (usec)");
            plot.setRangeAxis(0, y);
            plot.setDataset(0, collection(
                    series("t_typical (median)", rows, p -> ((LatencyRow) p).tTypicalUs(), log),
                    series("t_avg", rows, p -> ((LatencyRow) p).tAvgUs(), log),
                    series("t_99%", rows, p -> ((LatencyRow) p).t99Us(), log)));
            plot.setRenderer(0, renderer(COLORS));
        }
        JFreeChart chart = new JFreeChart(null, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setTitle(new TextTitle("verbs4j perf " + r.test() + ": " + r.provider() + "/" + r.device() + ", "
                + r.qpType() + ", " + r.postApi() + ", " + r.mode(), new Font(Font.SANS_SERIF, Font.BOLD, 16)));
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    private static LogAxis logAxis(String label) {
        return new TextLogAxis(label, 10, new DecimalFormat("#,##0.###", DecimalFormatSymbols.getInstance(Locale.ROOT)));
    }

    /** One series over the sizes; a log axis cannot show zero, so such points are left out of it. */
    private static XYSeries series(String name, List<PerfRow> rows, ToDoubleFunction<PerfRow> y, boolean log) {
        XYSeries s = new XYSeries(name, true, false);
        for (PerfRow p : rows) {
            double v = y.applyAsDouble(p);
            if (!log || v > 0) {
                s.add(p.bytes(), v);
            }
        }
        return s;
    }

    private static XYSeriesCollection collection(XYSeries... series) {
        XYSeriesCollection c = new XYSeriesCollection();
        for (XYSeries s : series) {
            c.addSeries(s);
        }
        return c;
    }

    private static XYLineAndShapeRenderer renderer(Color... colors) {
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, true);
        Shape dot = new Ellipse2D.Double(-3, -3, 6, 6);
        for (int i = 0; i < colors.length; i++) {
            r.setSeriesPaint(i, colors[i]);
            r.setSeriesShape(i, dot);
            r.setSeriesStroke(i, new BasicStroke(2f));
        }
        return r;
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

    /**
     * A log axis with one tick per power of its base (or fewer, when they would crowd) whose tick labels are plain
     * strings. {@link LogAxis}' own labels are {@link AttributedString}s, which JFreeChart draws through a
     * {@code TextLayout}, so an SVG canvas would record their glyphs as outlines instead of {@code <text>}.
     */
    static final class TextLogAxis extends LogAxis {
        private static final long serialVersionUID = 1L;

        TextLogAxis(String label, double base, NumberFormat tickFormat) {
            super(label);
            setBase(base);
            setStandardTickUnits(NumberAxis.createIntegerTickUnits());
            setNumberFormatOverride(tickFormat);
        }

        @Override
        @SuppressWarnings("rawtypes")
        public List refreshTicks(Graphics2D g2, AxisState state, Rectangle2D dataArea, RectangleEdge edge) {
            List<Tick> plain = new ArrayList<>();
            for (Object o : super.refreshTicks(g2, state, dataArea, edge)) {
                LogTick t = (LogTick) o;
                AttributedString label = t.getAttributedLabel();
                plain.add(new NumberTick(t.getTickType(), t.getValue(), label == null ? null : text(label),
                        t.getTextAnchor(), t.getRotationAnchor(), t.getAngle()));
            }
            return plain;
        }

        private static String text(AttributedString label) {
            StringBuilder b = new StringBuilder();
            AttributedCharacterIterator it = label.getIterator();
            for (char c = it.first(); c != CharacterIterator.DONE; c = it.next()) {
                b.append(c);
            }
            return b.toString();
        }
    }

    /** The size axis' tick labels, through {@link #sizeLabel}; never parsed. */
    private static final class SizeFormat extends NumberFormat {
        private static final long serialVersionUID = 1L;

        @Override
        public StringBuffer format(double number, StringBuffer to, FieldPosition pos) {
            return to.append(sizeLabel(number));
        }

        @Override
        public StringBuffer format(long number, StringBuffer to, FieldPosition pos) {
            return to.append(sizeLabel(number));
        }

        @Override
        public Number parse(String source, ParsePosition pos) {
            throw new UnsupportedOperationException("size labels are only written");
        }
    }
}
