package org.verbs4j.tools.perf;

/**
 * A bandwidth row, as perftest's {@code ib_*_bw} print it. MB is 2^20 bytes, as in perftest.
 *
 * @param bytes message size, bytes
 * @param iterations messages completed
 * @param bwPeakMBps the best bandwidth over any sixteenth of the run, MB/s
 * @param bwAverageMBps bytes over the whole run's time, MB/s
 * @param msgRateMpps messages per second over the whole run, millions
 */
public record BandwidthRow(int bytes, long iterations, double bwPeakMBps, double bwAverageMBps, double msgRateMpps)
        implements PerfRow {
    /**
     * A row holds figures only: perftest under a bad clock prints 0.00, inf or nan, and none of these may come out of
     * a measurement of ours or be passed on from a peer unnoticed (issue 31).
     *
     * @throws IllegalArgumentException when a figure is NaN, infinite or negative, or the counts are negative
     */
    public BandwidthRow {
        if (bytes < 0 || iterations < 0) {
            throw new IllegalArgumentException("a bandwidth row of " + iterations + " messages of " + bytes
                    + " bytes");
        }
        PerfRow.requireFigure("BW peak", bwPeakMBps);
        PerfRow.requireFigure("BW average", bwAverageMBps);
        PerfRow.requireFigure("MsgRate", msgRateMpps);
    }

    /** Both directions of a bidirectional run ({@code -b}): the sums, as perftest prints them. */
    BandwidthRow plus(BandwidthRow other) {
        return new BandwidthRow(bytes, iterations + other.iterations, bwPeakMBps + other.bwPeakMBps,
                bwAverageMBps + other.bwAverageMBps, msgRateMpps + other.msgRateMpps);
    }
}
