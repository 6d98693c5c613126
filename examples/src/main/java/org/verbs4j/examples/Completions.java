package org.verbs4j.examples;

import java.util.concurrent.TimeUnit;
import org.verbs4j.CompletionQueue;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;

/** Busy-polls a CQ for the completions an example expects, with a deadline, and checks each one's status. */
final class Completions {
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private Completions() {}

    /**
     * Polls until {@code count} completions arrived. A completion with an error status, or a deadline without
     * them, is an {@link IllegalStateException} naming the WR.
     *
     * @return the batch holding the last poll's completions (the {@code count}-th is its last entry)
     */
    static WorkCompletionBatch await(CompletionQueue cq, WorkCompletionBatch batch, int count) {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        int seen = 0;
        while (seen < count) {
            int n = cq.poll(batch);
            for (int i = 0; i < n; i++) {
                if (batch.status(i) != WcStatus.SUCCESS) {
                    throw new IllegalStateException("WR " + batch.wrId(i) + " completed with " + batch.status(i));
                }
            }
            seen += n;
            if (n == 0 && System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(seen + " of " + count + " completions arrived within 10 s");
            }
        }
        return batch;
    }
}
