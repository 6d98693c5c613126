package org.verbs4j.tools.perf;

/**
 * A latency row, as perftest's {@code ib_*_lat} print it. Ping-pong tests (write, send) report half the
 * round trip; read and atomic tests report the whole operation, as perftest does.
 *
 * @param bytes message size, bytes
 * @param iterations samples
 * @param tMinUs the fastest sample, microseconds
 * @param tMaxUs the slowest sample, microseconds
 * @param tTypicalUs the median, microseconds
 * @param tAvgUs the mean, microseconds
 * @param tStdevUs the standard deviation, microseconds
 * @param t99Us the 99th percentile, microseconds
 * @param t999Us the 99.9th percentile, microseconds
 */
public record LatencyRow(int bytes, long iterations, double tMinUs, double tMaxUs, double tTypicalUs, double tAvgUs,
                         double tStdevUs, double t99Us, double t999Us) implements PerfRow {

    /**
     * A row holds figures only: no NaN or infinity can reach the table (issue 31).
     *
     * @throws IllegalArgumentException when there are no iterations, or a figure is NaN, infinite or negative
     */
    public LatencyRow {
        if (iterations < 1) {
            throw new IllegalArgumentException("a latency row needs at least one sample, not " + iterations);
        }
        PerfRow.requireFigure("t_min", tMinUs);
        PerfRow.requireFigure("t_max", tMaxUs);
        PerfRow.requireFigure("t_typical", tTypicalUs);
        PerfRow.requireFigure("t_avg", tAvgUs);
        PerfRow.requireFigure("t_stdev", tStdevUs);
        PerfRow.requireFigure("99% percentile", t99Us);
        PerfRow.requireFigure("99.9% percentile", t999Us);
    }

    /** The row for these samples, nanoseconds each; {@code halve} for ping-pong tests. Sorts the array. */
    static LatencyRow of(int bytes, long[] samplesNs, int count, boolean halve) {
        if (count == 0) {
            throw new IllegalStateException("no latency samples were taken");
        }
        java.util.Arrays.sort(samplesNs, 0, count);
        double scale = (halve ? 2.0 : 1.0) * 1000.0;
        double sum = 0;
        for (int i = 0; i < count; i++) {
            sum += samplesNs[i];
        }
        double mean = sum / count;
        double var = 0;
        for (int i = 0; i < count; i++) {
            double d = samplesNs[i] - mean;
            var += d * d;
        }
        return new LatencyRow(bytes, count, samplesNs[0] / scale, samplesNs[count - 1] / scale,
                samplesNs[count / 2] / scale, mean / scale, Math.sqrt(var / count) / scale,
                percentile(samplesNs, count, 0.99) / scale, percentile(samplesNs, count, 0.999) / scale);
    }

    private static long percentile(long[] sorted, int count, double p) {
        int i = (int) Math.ceil(p * count) - 1;
        return sorted[Math.min(count - 1, Math.max(0, i))];
    }
}
