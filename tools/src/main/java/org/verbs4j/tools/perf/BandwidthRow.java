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
    /** Both directions of a bidirectional run ({@code -b}): the sums, as perftest prints them. */
    BandwidthRow plus(BandwidthRow other) {
        return new BandwidthRow(bytes, iterations + other.iterations, bwPeakMBps + other.bwPeakMBps,
                bwAverageMBps + other.bwAverageMBps, msgRateMpps + other.msgRateMpps);
    }
}
