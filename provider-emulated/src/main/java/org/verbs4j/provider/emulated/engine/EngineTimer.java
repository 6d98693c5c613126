package org.verbs4j.provider.emulated.engine;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The emulated device's timers (RNR retries): one daemon thread for the JVM, started on first use.
 */
public final class EngineTimer {
    private EngineTimer() {}

    private static final class Holder {
        static final ScheduledThreadPoolExecutor EXECUTOR = create();

        private static ScheduledThreadPoolExecutor create() {
            ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "verbs4j-emulated-timer");
                t.setDaemon(true);
                return t;
            });
            e.setRemoveOnCancelPolicy(true);
            return e;
        }
    }

    /** Runs {@code task} once after {@code micros} microseconds. */
    public static void schedule(Runnable task, long micros) {
        Holder.EXECUTOR.schedule(task, micros, TimeUnit.MICROSECONDS);
    }

    /**
     * The emulated RNR NAK delay for a {@code min_rnr_timer} code, microseconds: the IBA table 45 value,
     * scaled down 10 times (so code 0, 655.36 ms, waits 65.5 ms) and at least 20 microseconds, so that tests
     * stay fast and a long timer still gives a receive time to be posted.
     */
    public static long rnrDelayMicros(int code) {
        // One hundredth of a millisecond is 10 microseconds; a tenth of it is one microsecond per unit.
        long micros = RNR_HUNDREDTHS_MS[code & 31];
        return Math.max(20, micros);
    }

    /** IBA table 45, in hundredths of a millisecond (code 0 is 655.36 ms). */
    private static final long[] RNR_HUNDREDTHS_MS = {
        65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
        256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152
    };
}
