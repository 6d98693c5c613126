package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import org.verbs4j.CompletionQueue;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WorkCompletionBatch;

/**
 * Waits for completions by polling, never by sleeping a fixed time: soft devices in emulated VMs are
 * slow, so the deadline is generous ({@value #DEFAULT_TIMEOUT_MS} ms, or the system property
 * {@code verbs4j.tck.timeoutMs}).
 */
public final class Completions {
    /** The default deadline for an expected completion, milliseconds. */
    public static final long DEFAULT_TIMEOUT_MS = 10_000;
    /** How long the TCK watches for something that must not happen, milliseconds. */
    public static final long QUIET_MS = Long.getLong("verbs4j.tck.quietMs", 300);

    private Completions() {}

    /** {@return the deadline for an expected event, milliseconds: {@code verbs4j.tck.timeoutMs}, else the default} */
    public static long timeoutMs() {
        return Long.getLong("verbs4j.tck.timeoutMs", DEFAULT_TIMEOUT_MS);
    }

    /**
     * Polls a CQ until {@code n} completions arrived within {@link #timeoutMs()}, or fails naming {@code what}
     * and those that came. More than {@code n} completions also fail.
     *
     * @param cq the CQ to poll
     * @param n how many completions are expected
     * @param what names the WRs in the failure message
     * @return the completions, in the order polled
     */
    public static List<WorkCompletion> await(CompletionQueue cq, int n, String what) {
        return await(cq, n, timeoutMs(), what);
    }

    /**
     * Polls {@code cq} until {@code n} completions arrived or {@code timeoutMs} milliseconds passed, then fails
     * naming {@code what} and those that came. More than {@code n} completions also fail.
     *
     * @param cq the CQ to poll
     * @param n how many completions are expected
     * @param timeoutMs the deadline, milliseconds
     * @param what names the WRs in the failure message
     * @return the completions, in the order polled
     * @see "ibv_poll_cq(3)"
     */
    public static List<WorkCompletion> await(CompletionQueue cq, int n, long timeoutMs, String what) {
        return await(cq, n, new WorkCompletionBatch(Math.max(1, Math.min(n, 64))), timeoutMs, what);
    }

    /**
     * As {@link #await(CompletionQueue, int, long, String)}, polling into {@code batch}, whose capacity is each
     * poll's {@code num_entries}.
     *
     * @param cq the CQ to poll
     * @param n how many completions are expected
     * @param batch the batch each poll fills
     * @param timeoutMs the deadline, milliseconds
     * @param what names the WRs in the failure message
     * @return the completions, in the order polled
     * @see "ibv_poll_cq(3)"
     */
    public static List<WorkCompletion> await(CompletionQueue cq, int n, WorkCompletionBatch batch, long timeoutMs,
                                             String what) {
        List<WorkCompletion> got = new ArrayList<>(n);
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        while (got.size() < n) {
            batch.clear();
            int k = cq.poll(batch);
            if (k > batch.capacity() || k != batch.size()) {
                fail("CompletionQueue.poll returned " + k + " but the batch holds " + batch.size()
                        + " of capacity " + batch.capacity() + " (ibv_poll_cq(3): at most num_entries)");
            }
            for (int i = 0; i < k; i++) {
                got.add(batch.get(i));
            }
            if (got.size() > n) {
                fail("expected " + n + " completion(s) for " + what + " but got more: " + got);
            }
            if (got.size() < n) {
                if (System.nanoTime() > deadline) {
                    fail("timed out after " + timeoutMs + " ms waiting for " + n + " completion(s) for " + what
                            + "; got " + got.size() + ": " + got
                            + ". Check that the WR was executed and a completion generated (signaled or sq_sig_all).");
                }
                Thread.onSpinWait();
                if (k == 0) {
                    Thread.yield();
                }
            }
        }
        return got;
    }

    /**
     * Exactly {@code n} completions, as {@link #await(CompletionQueue, int, String)}.
     *
     * @param cq the CQ to poll
     * @param n how many completions are expected
     * @return the completions, in the order polled
     */
    public static List<WorkCompletion> await(CompletionQueue cq, int n) {
        return await(cq, n, n + " WR(s)");
    }

    /**
     * Exactly one completion.
     *
     * @param cq the CQ to poll
     * @param what names the WR in the failure message
     * @return the completion
     */
    public static WorkCompletion awaitOne(CompletionQueue cq, String what) {
        return await(cq, 1, what).getFirst();
    }

    /**
     * Exactly one completion.
     *
     * @param cq the CQ to poll
     * @return the completion
     */
    public static WorkCompletion awaitOne(CompletionQueue cq) {
        return awaitOne(cq, "one WR");
    }

    /**
     * Everything a CQ yields within a time.
     *
     * @param cq the CQ to poll
     * @param millis how long to poll, milliseconds
     * @return the completions, in the order polled; empty if none came
     */
    public static List<WorkCompletion> collect(CompletionQueue cq, long millis) {
        List<WorkCompletion> got = new ArrayList<>();
        WorkCompletionBatch batch = new WorkCompletionBatch(64);
        long deadline = System.nanoTime() + millis * 1_000_000;
        do {
            batch.clear();
            int k = cq.poll(batch);
            for (int i = 0; i < k; i++) {
                got.add(batch.get(i));
            }
            if (k == 0) {
                Thread.yield();
            }
        } while (System.nanoTime() < deadline);
        return got;
    }

    /**
     * Fails if a CQ yields any completion within {@link #QUIET_MS}.
     *
     * @param cq the CQ to poll
     * @param why why nothing may complete, for the failure message
     */
    public static void assertNone(CompletionQueue cq, String why) {
        List<WorkCompletion> got = collect(cq, QUIET_MS);
        if (!got.isEmpty()) {
            fail("no completion was expected (" + why + ") but the CQ returned " + got);
        }
    }
}
