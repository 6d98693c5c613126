package org.verbs4j.tools.perf;

/** One row of perftest's result table: one message size. */
public sealed interface PerfRow permits BandwidthRow, LatencyRow {
    /** The message size, bytes. */
    int bytes();

    /** The iterations measured. */
    long iterations();
}
