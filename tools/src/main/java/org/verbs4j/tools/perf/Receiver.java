package org.verbs4j.tools.perf;

import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;

/** The server side of a send test: keeps receives posted and tells the client how many are free. */
final class Receiver {
    private final Endpoint server;
    private final Stall stall;
    private final WorkCompletionBatch batch = new WorkCompletionBatch(64);
    /** Per QP: receives posted and not yet matched by a send the client posted. */
    private final long[] credits;

    Receiver(Endpoint server, Stall stall) {
        this.server = server;
        this.stall = stall;
        this.credits = new long[server.qps.length];
        // Receives left posted by an earlier size of a sweep on the same QPs count; only the rest are posted.
        for (int q = 0; q < credits.length; q++) {
            while (server.recvPosted[q] < server.settings.rxDepth()) {
                server.postRecv(q);
            }
            credits[q] = server.settings.rxDepth();
        }
    }

    /** Reserves receives for {@code n} sends on QP {@code q}, so no send meets an empty receive queue. */
    boolean take(int q, int n) {
        if (credits[q] < n) {
            service();
        }
        if (credits[q] < n) {
            return false;
        }
        credits[q] -= n;
        return true;
    }

    /** Polls the receive CQ once and reposts a receive for each completion. */
    int service() {
        int n = server.recvCq.poll(batch);
        for (int i = 0; i < n; i++) {
            if (batch.status(i) != WcStatus.SUCCESS) {
                throw new PerfFailure("a receive on QP " + batch.qpNum(i) + " completed with " + batch.status(i));
            }
            int q = (int) batch.wrId(i);
            server.recvPosted[q]--;
            server.postRecv(q);
            credits[q]++;
        }
        if (n > 0) {
            stall.progress();
        }
        return n;
    }

    /** Polls until a receive completes, and reposts it. */
    void awaitOne(String what) {
        while (service() == 0) {
            stall.check(what);
        }
    }
}
