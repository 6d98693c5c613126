package org.verbs4j.provider.emulated.verbs;

import java.util.List;
import java.util.Objects;

import org.verbs4j.Errno;
import org.verbs4j.PostRecvException;
import org.verbs4j.QpState;
import org.verbs4j.RecvWr;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.provider.emulated.engine.RecvQueue;

/**
 * Posts a QP's receive WRs ({@code ibv_post_recv(3)}) into its {@link RecvQueue}: checks each WR against the
 * QP, copies it into a slot, flushes it at once if the QP is in ERR, and wakes a peer whose send waits for a
 * receive here (RNR). Allocates nothing unless a WR is invalid.
 */
public final class RecvPoster {
    private static final int WR_FLUSH_ERR = WcStatus.WR_FLUSH_ERR.value();
    private static final int WC_RECV = WcOpcode.RECV.value();

    private final EmulatedQueuePair qp;
    private final RecvQueue rq;

    RecvPoster(EmulatedQueuePair qp) {
        this.qp = qp;
        this.rq = qp.rq;
    }

    void post(RecvWr wr) {
        synchronized (rq) {
            addRecv(wr, 0);
        }
        afterRecvPosted();
    }

    void post(List<RecvWr> wrs) {
        try {
            synchronized (rq) {
                for (int i = 0, n = wrs.size(); i < n; i++) {
                    addRecv(Objects.requireNonNull(wrs.get(i), "wr"), i);
                }
            }
        } finally {
            afterRecvPosted();
        }
    }

    private void addRecv(RecvWr wr, int index) {
        QpState s = qp.state;
        if (s == QpState.RESET) {
            throw new PostRecvException("ibv_post_recv", Errno.EINVAL, index, "the QP is in RESET");
        }
        if (wr.numSge() > rq.maxSge()) {
            throw new PostRecvException("ibv_post_recv", Errno.EINVAL, index,
                    wr.numSge() + " SGEs exceed max_recv_sge " + rq.maxSge());
        }
        if (rq.size() == rq.capacity()) {
            throw new PostRecvException("ibv_post_recv", Errno.ENOMEM, index, "the receive queue is full");
        }
        rq.add(wr);
        if (s == QpState.ERR) {
            flushLocked();
        }
    }

    private void afterRecvPosted() {
        EmulatedQueuePair w = qp.rnrWaiter;
        if (w != null) {
            // A send that still finds no receive registers itself again.
            qp.rnrWaiter = null;
            w.kick();
        }
    }

    /** Completes every queued receive WR with WR_FLUSH_ERR. Holds the queue's monitor. */
    void flushLocked() {
        while (!rq.isEmpty()) {
            int slot = rq.headSlot();
            qp.recvCq.add(rq.wrId(slot), WR_FLUSH_ERR, WC_RECV, 0, 0, qp.qpn, 0, 0, false);
            rq.pop();
        }
    }
}
