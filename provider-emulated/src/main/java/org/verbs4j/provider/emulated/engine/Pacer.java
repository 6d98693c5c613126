package org.verbs4j.provider.emulated.engine;

/**
 * A QP's send rate limit ({@code ibv_modify_qp_rate_limit(3)}): a token bucket of {@code max_burst_sz} bytes that
 * refills at {@code rate_limit} kilobits per second. A message goes when the bucket is not in debt and takes its
 * length from it (a message longer than the burst goes whole, as a NIC sends a message's packets back to back
 * within its burst and then waits); one that finds the bucket in debt waits, with every WQE behind it, until a timer
 * resumes the requester when the debt is paid. Every method runs under the QP's lock. Nothing here allocates.
 */
public final class Pacer {
    private final EngineQp qp;
    private final Runnable wake = this::onTimer;
    /** Bytes per nanosecond; 0 without a limit. */
    private double rate;
    private long burst;
    /** The bucket, bytes; negative is a debt. */
    private double tokens;
    private long refilledAt;
    private boolean timerArmed;

    Pacer(EngineQp qp) {
        this.qp = qp;
    }

    /**
     * Sets the limit; a full bucket to start with.
     *
     * @param kbps the rate, kilobits per second; 0 removes the limit
     * @param burstBytes the bucket's size, bytes
     */
    public void set(long kbps, long burstBytes) {
        rate = kbps * 125 / 1e9;
        burst = Math.max(1, burstBytes);
        tokens = burst;
        refilledAt = System.nanoTime();
    }

    /** Whether a message of {@code length} bytes may be sent now; if not, the requester is resumed when it may. */
    boolean admit(long length) {
        if (rate == 0) {
            return true;
        }
        if (timerArmed) {
            return false;
        }
        long now = System.nanoTime();
        tokens = Math.min(burst, tokens + (now - refilledAt) * rate);
        refilledAt = now;
        if (tokens >= 0) {
            tokens -= length;
            return true;
        }
        timerArmed = true;
        EngineTimer.schedule(wake, Math.max(1, (long) Math.ceil(-tokens / rate / 1000)));
        return false;
    }

    /** Whether a message waits for the bucket. */
    boolean waiting() {
        return timerArmed;
    }

    private void onTimer() {
        qp.lock().lock();
        timerArmed = false;
        qp.release();
    }
}
