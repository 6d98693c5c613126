package org.verbs4j.tools.perf;

import org.verbs4j.CompletionQueue;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;

/**
 * Counts an endpoint's send WRs per QP, posted and retired, from its send CQ. A signaled completion of WR
 * {@code seq} retires it and every unsignaled WR before it on that QP.
 */
final class SendTracker {
    private final CompletionQueue cq;
    private final WorkCompletionBatch batch = new WorkCompletionBatch(64);
    final long[] posted;
    final long[] completed;
    private final int txDepth;
    private final Stall stall;

    SendTracker(Endpoint e, Stall stall) {
        this.cq = e.sendCq;
        this.posted = new long[e.qps.length];
        this.completed = new long[e.qps.length];
        this.txDepth = e.settings.txDepth();
        this.stall = stall;
    }

    /** Whether QP {@code q} has room for {@code n} more WRs within the tx depth. */
    boolean hasRoom(int q, int n) {
        return posted[q] - completed[q] + n <= txDepth;
    }

    /** Polls once without waiting; returns the completions seen. */
    int poll() {
        int n = cq.poll(batch);
        for (int i = 0; i < n; i++) {
            WcStatus st = batch.status(i);
            long id = batch.wrId(i);
            if (st != WcStatus.SUCCESS) {
                throw new PerfFailure("send WR " + (id & Poster.SEQ_MASK) + " on QP " + batch.qpNum(i)
                        + " completed with " + st + " (vendor error " + batch.vendorErr(i) + ")");
            }
            int q = (int) (id >>> Poster.QP_SHIFT);
            completed[q] = Math.max(completed[q], (id & Poster.SEQ_MASK) + 1);
        }
        if (n > 0) {
            stall.progress();
        }
        return n;
    }

    /** Polls until QP {@code q} has room for {@code n} WRs. */
    void awaitRoom(int q, int n) {
        while (!hasRoom(q, n)) {
            if (poll() == 0) {
                stall.check("send completions on QP index " + q);
            }
        }
    }

    /** Polls until QP {@code q} has retired everything up to {@code seqExclusive}. */
    void awaitCompleted(int q, long seqExclusive) {
        while (completed[q] < seqExclusive) {
            if (poll() == 0) {
                stall.check("send completions on QP index " + q);
            }
        }
    }
}
