package org.verbs4j.tools.perf;

/**
 * Turns a run that stops making progress into a {@link PerfFailure} instead of a hang: a lost UD message, a
 * peer that went away, a device that stopped completing.
 */
final class Stall {
    static final long DEFAULT_LIMIT_NANOS = 10_000_000_000L;

    private final long limitNanos;
    private long last = System.nanoTime();
    private int spins;

    Stall(long limitNanos) {
        this.limitNanos = limitNanos;
    }

    void progress() {
        last = System.nanoTime();
        spins = 0;
    }

    /** Called while waiting; throws once nothing has happened for the limit. Reads the clock now and then. */
    void check(String waitingFor) {
        if ((++spins & 0x3ff) != 0) {
            Thread.onSpinWait();
            return;
        }
        if (System.nanoTime() - last > limitNanos) {
            throw new PerfFailure("no progress for " + limitNanos / 1_000_000_000L + " s while waiting for "
                    + waitingFor);
        }
    }
}
