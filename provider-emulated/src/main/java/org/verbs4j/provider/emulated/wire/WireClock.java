package org.verbs4j.provider.emulated.wire;

import org.verbs4j.provider.emulated.engine.EngineTimer;

/**
 * What a wire QP's ACK timer reads and waits on: the JVM's monotonic clock and the engine's timer thread
 * ({@link #SYSTEM}), or a clock that a test moves by hand ({@link WireTransport#useClock}), so that the timer's rules
 * (when a retry comes, what pushes it back, that one task runs per QP) can be asserted to the microsecond whatever
 * the machine's load.
 */
public interface WireClock {
    /** {@return now, in nanoseconds on a monotonic scale with an arbitrary origin, as {@link System#nanoTime()}} */
    long nanoTime();

    /** Runs {@code task} once, {@code micros} microseconds (1 or more) from now, on a thread of the clock's. */
    void schedule(Runnable task, long micros);

    /** {@link System#nanoTime()} and {@link EngineTimer}: the clock of every QP not given another. */
    WireClock SYSTEM = new WireClock() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void schedule(Runnable task, long micros) {
            EngineTimer.schedule(task, micros);
        }
    };
}
