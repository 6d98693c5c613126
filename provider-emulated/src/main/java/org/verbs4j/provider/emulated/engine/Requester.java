package org.verbs4j.provider.emulated.engine;

import static org.verbs4j.provider.emulated.engine.SendWqe.OP_ATOMIC_WRITE;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_BIND_MW;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_CMP_SWP;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_FETCH_ADD;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_LOCAL_INV;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_RDMA_READ;

import org.verbs4j.AccessFlags;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.WcStatus;

/**
 * The requester of a QP (rxe's {@code rxe_req.c}): executes the WQEs of the send queue in order, on the
 * thread that holds the QP's lock. It does the local operations (LOCAL_INV, BIND_MW) itself, checks the
 * local SGEs and lengths, hands every other WQE to the {@link Transport} as a request, and gives the answer
 * to the {@link Completer}. A WQE that must wait (an RNR NAK) stays at the head of the queue with every WQE
 * behind it. In ERR the queue is flushed (a send error moves any QP type to ERR, never to SQE, as in rxe).
 *
 * <p>A transport that answers later ({@link Transport#IN_FLIGHT}) gets the WQEs behind the head too, back to
 * back, as rxe pipelines them: the WQEs between the head and {@code next} are in flight, and their answers come
 * in order, each for the head. A WQE joins them only under rxe's rules: not a local operation, not one with
 * {@code IBV_SEND_FENCE} (which waits until every WQE before it has completed), at most {@code max_rd_atomic}
 * RDMA READs and atomics at a time (at least one), and not one that fails its local checks (its error waits until
 * the WQEs before it have completed, so that completions stay in order). Nothing here allocates.
 */
public final class Requester {
    /** What executing a WQE did: finished it, or left it at the head of the queue to wait. */
    static final int DONE = 0;
    static final int BLOCKED = 1;
    /** What executing a WQE did: handed it to the transport, whose answer comes later. */
    static final int STARTED = 2;

    private static final int LOC_LEN_ERR = WcStatus.LOC_LEN_ERR.value();
    private static final int LOC_QP_OP_ERR = WcStatus.LOC_QP_OP_ERR.value();
    private static final int LOC_PROT_ERR = WcStatus.LOC_PROT_ERR.value();
    private static final int MW_BIND_ERR = WcStatus.MW_BIND_ERR.value();
    private static final int WR_FLUSH_ERR = WcStatus.WR_FLUSH_ERR.value();

    private final EngineQp qp;
    private final SendQueue sq;
    private final Transport transport;
    private final Completer completer;
    /** The send rate limit. */
    private final Pacer pacer;
    private final KeyTable keys;
    private final ProtectionDomain pd;
    private final QpType type;
    private final long maxMessageSize;
    private final long mtu;
    /**
     * The sequence number of the next WQE to execute: those from the send queue's head up to here were handed
     * to the transport and wait for {@link #answer} ({@link Transport#IN_FLIGHT}), oldest first.
     */
    private long next;
    /** How many of the WQEs in flight are RDMA READs or atomics (at most {@code max_rd_atomic}). */
    private int readsAtomicsInFlight;
    /** The head WQE got an RNR NAK through {@link #answer}: the transport sends it again from here. */
    private boolean rnrWaiting;

    /**
     * @param maxMessageSize the device's {@code max_msg_sz}, bytes
     * @param mtu            the largest UD message, bytes
     */
    public Requester(EngineQp qp, Transport transport, long maxMessageSize, int mtu) {
        this.qp = qp;
        this.sq = qp.sendQueue();
        this.transport = transport;
        this.completer = new Completer(qp, transport);
        this.pacer = new Pacer(qp);
        this.keys = qp.keys();
        this.pd = qp.pd();
        this.type = qp.type();
        this.maxMessageSize = maxMessageSize;
        this.mtu = mtu;
    }

    /**
     * Executes what can run. The caller holds the QP's lock. Never re-entered: a QP that moves to ERR while its
     * requester runs leaves the flush to this call ({@link EngineQp#finishError}), which sees ERR and flushes.
     */
    public void progress() {
        while (sq.head != sq.tail) {
            QpState s = qp.state();
            if (s == QpState.ERR) {
                flush();
                break;
            }
            if (s != QpState.RTS) {
                break;
            }
            if (rnrWaiting) {
                if (completer.rnrTimerRunning()) {
                    break;
                }
                rnrWaiting = false;
                // The head and the WQEs behind it are still the transport's: it sends them again, and they are
                // in flight once more (only a transport that answered IN_FLIGHT can have NAKed them here).
                transport.request(sq.slot(sq.head));
                continue;
            }
            if (next == sq.tail) {
                break;
            }
            SendWqe w = sq.slot(next);
            if (next != sq.head && !mayJoin(w)) {
                break;
            }
            int r = executeGuarded(w, next == sq.head);
            if (r == STARTED) {
                next++;
                if (isReadOrAtomic(w.opcode)) {
                    readsAtomicsInFlight++;
                }
            } else if (r == BLOCKED) {
                break;
            } else {
                sq.head++;
                next = sq.head;
            }
        }
    }

    /** In ERR: completes every WQE, in flight or not, with WR_FLUSH_ERR, signaled or not. */
    private void flush() {
        while (sq.head != sq.tail) {
            completer.complete(sq.slot(sq.head), WR_FLUSH_ERR);
            sq.head++;
        }
        next = sq.head;
        readsAtomicsInFlight = 0;
        rnrWaiting = false;
    }

    /** Whether {@code w} may be sent while the WQEs before it are in flight (rxe's {@code req_next_wqe} rules). */
    private boolean mayJoin(SendWqe w) {
        int op = w.opcode;
        if (op == OP_LOCAL_INV || op == OP_BIND_MW || (w.flags & SendFlags.FENCE) != 0) {
            return false;
        }
        return !isReadOrAtomic(op) || readsAtomicsInFlight < Math.max(1, qp.maxRdAtomic());
    }

    private static boolean isReadOrAtomic(int op) {
        return op == OP_RDMA_READ || op == OP_CMP_SWP || op == OP_FETCH_ADD || op == OP_ATOMIC_WRITE;
    }

    /**
     * The answer to the head WQE, which a transport returned {@link Transport#IN_FLIGHT} for: a WC status,
     * {@link Transport#DROPPED} or {@link Transport#RNR_NAK}. The caller holds the QP's lock and leaves
     * through {@link EngineQp#release()}, which goes on with the WQEs behind it. Ignored if nothing waits
     * (the QP was flushed meanwhile). After an RNR NAK the head stays, and the next {@link #progress} hands it
     * to the transport again (which sends it and the WQEs in flight behind it once more).
     */
    public void answer(int r) {
        if (next == sq.head || rnrWaiting) {
            return;
        }
        // A QP that moves to ERR here leaves the flush to the caller's release (EngineQp.finishError), which flushes
        // the WQEs behind this one, not this one.
        finishHead(r);
    }

    /** Ends the head WQE, in flight, with the answer {@code r}; an RNR NAK leaves it waiting. */
    private void finishHead(int r) {
        SendWqe w = sq.slot(sq.head);
        if (completer.finish(w, r) == DONE) {
            sq.head++;
            if (isReadOrAtomic(w.opcode)) {
                readsAtomicsInFlight--;
            }
        } else {
            rnrWaiting = true;
        }
    }

    /** {@return the send rate limit, set under the QP's lock} */
    public Pacer pacer() {
        return pacer;
    }

    /** Whether WQEs wait for answers from the transport. */
    public boolean awaiting() {
        return next != sq.head && !rnrWaiting;
    }

    /** The QP moved to RESET or was destroyed (its send queue was cleared): nothing waits any more. */
    public void clear() {
        next = sq.head;
        readsAtomicsInFlight = 0;
        rnrWaiting = false;
    }

    /**
     * Executes a WQE; if a registered segment became unusable underneath it (its arena was closed while
     * registered), the WR completes with LOC_PROT_ERR instead of the exception escaping into a poster.
     */
    private int executeGuarded(SendWqe w, boolean alone) {
        try {
            return execute(w, alone);
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            return alone ? completer.fail(w, LOC_PROT_ERR) : BLOCKED;
        }
    }

    /**
     * Executes {@code w}; {@code alone} when no WQE before it is in flight. One that is not alone and fails a
     * local check is left to wait ({@link #BLOCKED}) until those before it have completed.
     */
    private int execute(SendWqe w, boolean alone) {
        int op = w.opcode;
        if (op == OP_LOCAL_INV) {
            return qp.invalidate(w.invalidateRkey) ? completer.done(w) : completer.fail(w, LOC_QP_OP_ERR);
        }
        if (op == OP_BIND_MW) {
            return qp.bindWindow(w) ? completer.done(w) : completer.fail(w, MW_BIND_ERR);
        }
        boolean localWrite = op == OP_RDMA_READ || op == OP_CMP_SWP || op == OP_FETCH_ADD;
        int local = 0;
        if (!w.isInline && !resolveLocal(w, localWrite)) {
            local = LOC_PROT_ERR;
        } else if (w.length > maxMessageSize || !atomicOperandFits(w) || type == QpType.UD && w.length > mtu) {
            local = LOC_LEN_ERR;
        }
        if (local != 0) {
            return alone ? completer.fail(w, local) : BLOCKED;
        }
        if (!pacer.admit(w.length)) {
            return BLOCKED;
        }
        int r = transport.request(w);
        if (r == Transport.IN_FLIGHT) {
            return STARTED;
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
