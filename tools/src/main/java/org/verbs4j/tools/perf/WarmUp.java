package org.verbs4j.tools.perf;

/**
 * When a bandwidth test's warm-up ({@code --perform_warm_up}) may stop: it runs chunks of WRs and stops once
 * the rate is steady, so the measured run does not time the JIT compiling the posting and polling loops.
 *
 * <p>Each chunk is timed by the caller and {@linkplain #record recorded}. A chunk shorter than
 * {@link #MIN_CHUNK_NANOS} is too short to judge (a pipeline fill and drain, a poll burst): the next chunk is
 * twice as large and the short one does not count. The rate is steady when the last {@link #WINDOW} chunks that
 * count are within {@link #TOLERANCE} of the fastest of them, and at least {@link #MIN_NANOS} have passed
 * (a few steady chunks while the JIT still interprets are not the end of the warm-up). The warm-up ends then,
 * or after {@link #MAX_NANOS} on a machine too noisy to settle. Only chunk counts and their durations are
 * looked at, so this class is tested with made-up durations.
 *
 * @see "perftest: --perform_warm_up (ib_write_bw(1))"
 */
final class WarmUp {
    /** The spread allowed between the steady chunks' rates: the slowest is at least 90% of the fastest. */
    static final double TOLERANCE = 0.10;
    /** How many consecutive chunks must agree. */
    static final int WINDOW = 3;
    /** A chunk shorter than this, nanoseconds, makes the next one twice as large and does not count. */
    static final long MIN_CHUNK_NANOS = 40_000_000L;
    /** The shortest warm-up, nanoseconds. */
    static final long MIN_NANOS = 200_000_000L;
    /** The longest warm-up, nanoseconds, on a machine whose rate never settles. */
    static final long MAX_NANOS = 1_500_000_000L;
    /** The first chunk, WRs per QP. */
    static final long FIRST_CHUNK = 256;
    /** The largest chunk, WRs per QP. */
    static final long MAX_CHUNK = 1L << 24;

    private final double[] rates = new double[WINDOW];
    private int counted;
    private long chunk = FIRST_CHUNK;
    private long elapsed;
    private long wrs;

    /** WRs per QP to run in the next chunk. */
    long chunk() {
        return chunk;
    }

    /**
     * Records a chunk and says whether the warm-up is over.
     *
     * @param chunkWrs WRs completed in the chunk, all QPs together, 1 or more
     * @param nanos how long the chunk took, nanoseconds, 1 or more
     * @return true when the rate is steady or the warm-up has run {@link #MAX_NANOS}
     * @throws IllegalArgumentException if {@code chunkWrs} or {@code nanos} is less than 1
     */
    boolean record(long chunkWrs, long nanos) {
        if (chunkWrs < 1 || nanos < 1) {
            throw new IllegalArgumentException("a warm-up chunk has 1 or more WRs and nanoseconds, not "
                    + chunkWrs + " WRs in " + nanos + " ns");
        }
        elapsed += nanos;
        wrs += chunkWrs;
        if (nanos < MIN_CHUNK_NANOS) {
            chunk = Math.min(MAX_CHUNK, chunk * 2);
        } else {
            rates[counted % WINDOW] = chunkWrs / (double) nanos;
            counted++;
        }
        return steady() || elapsed >= MAX_NANOS;
    }

    /** Whether the last {@link #WINDOW} counted chunks agree and {@link #MIN_NANOS} have passed. */
    boolean steady() {
        if (counted < WINDOW || elapsed < MIN_NANOS) {
            return false;
        }
        double min = Double.MAX_VALUE;
        double max = 0;
        for (double r : rates) {
            min = Math.min(min, r);
            max = Math.max(max, r);
        }
        return min >= (1 - TOLERANCE) * max;
    }

    /** Time spent warming up so far, nanoseconds. */
    long elapsedNanos() {
        return elapsed;
    }

    /** WRs run so far, all QPs together. */
    long wrs() {
        return wrs;
    }
}
