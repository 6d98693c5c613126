package org.verbs4j.tools.perf;

/** One row of perftest's result table: one message size. */
public sealed interface PerfRow permits BandwidthRow, LatencyRow {
    /** The message size, bytes. */
    int bytes();

    /** The iterations measured. */
    long iterations();

    /**
     * Checks one figure of a row: a finite number, 0 or more.
     *
     * @param name the column, for the message
     * @param value the figure
     * @throws IllegalArgumentException when it is NaN, infinite or negative
     */
    static void requireFigure(String name, double value) {
        if (!Double.isFinite(value) || value < 0) {
            throw new IllegalArgumentException(name + " of " + value + " is no measurement (a zero-length interval "
                    + "or a broken clock)");
        }
    }
}
