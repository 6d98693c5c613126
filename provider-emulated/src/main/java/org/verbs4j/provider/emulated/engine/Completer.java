package org.verbs4j.provider.emulated.engine;

import org.verbs4j.QpState;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WrOpcode;

/**
 * The completer of a QP (rxe's {@code rxe_comp.c}): acts on the responder's answer to a request. An ACK
 * completes the WQE; a NAK completes it with an error and moves the QP to ERR, which flushes every WQE
 * behind it; an RNR NAK keeps the WQE at the head of the send queue until a receive is posted at the
 * responder or the RNR timer fires, or fails it once {@code rnr_retry} is used up.
 *
 * <p>Every method is called holding the QP's lock.
 */
public final class Completer {
    /** The IBV_WC_* opcode of each IBV_WR_* opcode's send completion. */
    private static final int[] WC_OPCODE = new int[16];
    static {
        for (WrOpcode op : WrOpcode.values()) {
            WC_OPCODE[op.value()] = WcOpcode.forSend(op).value();
        }
    }

    private static final int SUCCESS = WcStatus.SUCCESS.value();
    private static final int RNR_RETRY_EXC_ERR = WcStatus.RNR_RETRY_EXC_ERR.value();

    private final EngineQp qp;
    private final Transport transport;
    private final int qpn;
    /** The RNR timer's task, made once so that arming the timer allocates nothing of its own. */
    private final Runnable rnrTimer = this::onRnrTimer;
    private boolean rnrTimerArmed;

    Completer(EngineQp qp, Transport transport) {
        this.qp = qp;
        this.transport = transport;
        this.qpn = qp.qpNum();
    }

    /** Writes the WQE's completion if it failed or is signaled; a CQ overflow moves the QP to ERR. */
    void complete(SendWqe w, int status) {
        if (status != SUCCESS || w.signaled) {
            int len = (int) Math.min(w.length, Integer.MAX_VALUE);
            if (!qp.sendCq().add(w.wrId, status, WC_OPCODE[w.opcode], len, 0, qpn, 0, 0, false)) {
                qp.markError();
            }
        }
    }

    /**
     * Completes the WQE with an error, and moves the QP to ERR: every outstanding WR is flushed. The state changes
     * before the completion is written, so that a poller who sees the error sees the QP in ERR (another thread polls
     * while a wire device's receive thread fails the WQE); the flush comes after it, so the error comes first.
     */
    int fail(SendWqe w, int status) {
        QpState was = qp.beginError();
        complete(w, status);
        qp.finishError(was, null);
        return Requester.DONE;
    }

    /** Completes the WQE successfully. */
    int done(SendWqe w) {
        complete(w, SUCCESS);
        return Requester.DONE;
    }

    /**
     * Ends an operation whose request got the answer {@code r} from the transport: a WC status,
     * {@link Transport#DROPPED} or {@link Transport#RNR_NAK}. A UC request is only ever answered SUCCESS or
     * DROPPED (UC has no acknowledgements), so an error status here is an RC NAK.
     */
    int finish(SendWqe w, int r) {
        if (r == Transport.RNR_NAK) {
            return rnr(w);
        }
        if (r == SUCCESS || r == Transport.DROPPED) {
            return done(w);
        }
        return fail(w, r);
    }

    /** The RC peer has no receive posted: wait, or give up after rnr_retry retries (7 is forever). */
    private int rnr(SendWqe w) {
        int retries = qp.rnrRetry();
        if (retries != 7) {
            if (w.rnrCount >= retries) {
                return fail(w, RNR_RETRY_EXC_ERR);
            }
            w.rnrCount++;
        }
        int timer = transport.awaitReceive();
        if (!rnrTimerArmed) {
            rnrTimerArmed = true;
            EngineTimer.schedule(rnrTimer, EngineTimer.rnrDelayMicros(timer));
        }
        return Requester.BLOCKED;
    }

    /** Whether an RNR NAK's timer runs: the WQE it stopped waits until it fires. */
    boolean rnrTimerRunning() {
        return rnrTimerArmed;
    }

    private void onRnrTimer() {
        qp.lock().lock();
        rnrTimerArmed = false;
        qp.release();
    }
}
