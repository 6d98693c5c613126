package org.verbs4j.provider.emulated.internal;

import static org.verbs4j.provider.emulated.internal.SendWqe.OP_ATOMIC_WRITE;
import static org.verbs4j.provider.emulated.internal.SendWqe.OP_BIND_MW;
import static org.verbs4j.provider.emulated.internal.SendWqe.OP_CMP_SWP;
import static org.verbs4j.provider.emulated.internal.SendWqe.OP_FETCH_ADD;
import static org.verbs4j.provider.emulated.internal.SendWqe.OP_LOCAL_INV;
import static org.verbs4j.provider.emulated.internal.SendWqe.OP_RDMA_READ;

import org.verbs4j.AccessFlags;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.WcStatus;

/**
 * The requester of a QP (rxe's {@code rxe_req.c}): executes the WQEs of the send queue in order, on the
 * thread that holds the QP's lock. It does the local operations (LOCAL_INV, BIND_MW) itself, checks the
 * local SGEs and lengths, hands every other WQE to the {@link Transport} as a request, and gives the answer
 * to the {@link Completer}. A WQE that must wait (an RNR NAK) stays at the head of the queue with every WQE
 * behind it. In ERR the queue is flushed (a send error moves any QP type to ERR, never to SQE, as in rxe).
 * Nothing here allocates.
 */
public final class Requester {
    /** What executing a WQE did: finished it, or left it at the head of the queue to wait. */
    static final int DONE = 0;
    static final int BLOCKED = 1;

    private static final int LOC_LEN_ERR = WcStatus.LOC_LEN_ERR.value();
    private static final int LOC_QP_OP_ERR = WcStatus.LOC_QP_OP_ERR.value();
    private static final int LOC_PROT_ERR = WcStatus.LOC_PROT_ERR.value();
    private static final int MW_BIND_ERR = WcStatus.MW_BIND_ERR.value();
    private static final int WR_FLUSH_ERR = WcStatus.WR_FLUSH_ERR.value();

    private final EngineQp qp;
    private final SendQueue sq;
    private final Transport transport;
    private final Completer completer;
    private final KeyTable keys;
    private final ProtectionDomain pd;
    private final QpType type;
    private final long maxMessageSize;
    private final long mtu;
    private boolean progressing;
    /** The head WQE was sent and waits for {@link #answer} ({@link Transport#IN_FLIGHT}). */
    private boolean awaiting;

    /**
     * @param maxMessageSize the device's {@code max_msg_sz}, bytes
     * @param mtu            the largest UD message, bytes
     */
    public Requester(EngineQp qp, Transport transport, long maxMessageSize, int mtu) {
        this.qp = qp;
        this.sq = qp.sendQueue();
        this.transport = transport;
        this.completer = new Completer(qp, transport);
        this.keys = qp.keys();
        this.pd = qp.pd();
        this.type = qp.type();
        this.maxMessageSize = maxMessageSize;
        this.mtu = mtu;
    }

    /**
     * Executes what can run. The caller holds the QP's lock. A call made while another runs further up the
     * same stack (a QP that moves to ERR while it executes) returns at once; the outer call goes on.
     */
    public void progress() {
        if (progressing) {
            return;
        }
        progressing = true;
        try {
            while (sq.head != sq.tail) {
                SendWqe w = sq.slot(sq.head);
                QpState s = qp.state();
                if (s == QpState.ERR) {
                    awaiting = false;
                    completer.complete(w, WR_FLUSH_ERR);
                } else if (awaiting || s != QpState.RTS) {
                    break;
                } else if (executeGuarded(w) == BLOCKED) {
                    break;
                }
                sq.head++;
            }
        } finally {
            progressing = false;
        }
    }

    /**
     * The answer to the head WQE, which a transport returned {@link Transport#IN_FLIGHT} for: a WC status,
     * {@link Transport#DROPPED} or {@link Transport#RNR_NAK}. The caller holds the QP's lock and leaves
     * through {@link EngineQp#release()}, which goes on with the WQEs behind it. Ignored if nothing waits
     * (the QP was flushed meanwhile).
     */
    public void answer(int r) {
        if (!awaiting || sq.head == sq.tail) {
            return;
        }
        awaiting = false;
        // As inside progress(): a QP that moves to ERR here flushes the WQEs behind this one, not this one.
        progressing = true;
        try {
            if (completer.finish(sq.slot(sq.head), r) == DONE) {
                sq.head++;
            }
        } finally {
            progressing = false;
        }
    }

    /** Whether the head WQE waits for an answer from the transport. */
    public boolean awaiting() {
        return awaiting;
    }

    /** The QP moved to RESET: nothing waits any more. */
    public void clear() {
        awaiting = false;
    }

    /**
     * Executes a WQE; if a registered segment became unusable underneath it (its arena was closed while
     * registered), the WR completes with LOC_PROT_ERR instead of the exception escaping into a poster.
     */
    private int executeGuarded(SendWqe w) {
        try {
            return execute(w);
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            return completer.fail(w, LOC_PROT_ERR);
        }
    }

    private int execute(SendWqe w) {
        int op = w.opcode;
        if (op == OP_LOCAL_INV) {
            return qp.invalidate(w.invalidateRkey) ? completer.done(w) : completer.fail(w, LOC_QP_OP_ERR);
        }
        if (op == OP_BIND_MW) {
            return qp.bindWindow(w) ? completer.done(w) : completer.fail(w, MW_BIND_ERR);
        }
        boolean localWrite = op == OP_RDMA_READ || op == OP_CMP_SWP || op == OP_FETCH_ADD;
        if (!w.isInline && !resolveLocal(w, localWrite)) {
            return completer.fail(w, LOC_PROT_ERR);
        }
        if (w.length > maxMessageSize || !atomicOperandFits(w)) {
            return completer.fail(w, LOC_LEN_ERR);
        }
        if (type == QpType.UD && w.length > mtu) {
            return completer.fail(w, LOC_LEN_ERR);
        }
        int r = transport.request(w);
        if (r == Transport.IN_FLIGHT) {
            awaiting = true;
            return BLOCKED;
        }
        return completer.finish(w, r);
    }

    /** Checks every local SGE (lkey, PD, bounds, and LOCAL_WRITE when written) and records its segment. */
    private boolean resolveLocal(SendWqe w, boolean write) {
        for (int i = 0, n = w.numSge; i < n; i++) {
            MemoryKey k = keys.lookup(w.sgeLkey[i]);
            if (k == null || k.kind != MemoryKey.KIND_MR || k.pd != pd
                    || write && (k.access & AccessFlags.LOCAL_WRITE) == 0) {
                return false;
            }
            long off = k.offsetOf(w.sgeAddr[i], Integer.toUnsignedLong(w.sgeLength[i]));
            if (off < 0) {
                return false;
            }
            w.sgeSegment[i] = k.segment;
            w.sgeOffset[i] = off;
        }
        return true;
    }

    /** Whether an atomic's local buffer holds its 8-byte operand. */
    private static boolean atomicOperandFits(SendWqe w) {
        int op = w.opcode;
        if (op == OP_CMP_SWP || op == OP_FETCH_ADD) {
            return w.numSge >= 1 && Integer.toUnsignedLong(w.sgeLength[0]) >= 8;
        }
        if (op == OP_ATOMIC_WRITE) {
            // Never inline (IBV_SEND_INLINE is for SEND and RDMA WRITE only); a session's carries its value, no SGE.
            return w.numSge == 0 || Integer.toUnsignedLong(w.sgeLength[0]) >= 8;
        }
        return true;
    }
}
