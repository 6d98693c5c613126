package org.verbs4j.provider.emulated.engine;

import static org.verbs4j.provider.emulated.engine.SendWqe.OP_ATOMIC_WRITE;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_CMP_SWP;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_FETCH_ADD;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_FLUSH;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_RDMA_READ;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_RDMA_WRITE;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_RDMA_WRITE_WITH_IMM;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_SEND;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_SEND_WITH_IMM;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_SEND_WITH_INV;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.verbs4j.AccessFlags;
import org.verbs4j.AsyncEventType;
import org.verbs4j.Flush;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.WcFlags;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;

/**
 * The responder of a QP (rxe's {@code rxe_resp.c}): executes the requests that reach this QP and answers
 * them. It checks the QP's access flags, each rkey (its PD, access bits, a type 2 window's QP, and the
 * bounds) and the receive WRs, moves the data, consumes receives and writes the receive completions. An
 * error on RC moves this QP to ERR and is answered with a NAK; on UC the message is dropped.
 *
 * <p>It runs on the requester's thread, holding the requesting QP's lock (see {@link Transport}); receives
 * are taken under the receive queue's monitor. Nothing here allocates.
 */
public final class Responder {
    private static final int SUCCESS = WcStatus.SUCCESS.value();
    private static final int LOC_LEN_ERR = WcStatus.LOC_LEN_ERR.value();
    private static final int LOC_PROT_ERR = WcStatus.LOC_PROT_ERR.value();
    private static final int REM_INV_REQ_ERR = WcStatus.REM_INV_REQ_ERR.value();
    private static final int REM_ACCESS_ERR = WcStatus.REM_ACCESS_ERR.value();
    private static final int REM_OP_ERR = WcStatus.REM_OP_ERR.value();
    private static final int RETRY_EXC_ERR = WcStatus.RETRY_EXC_ERR.value();
    private static final int WC_RECV = WcOpcode.RECV.value();
    private static final int WC_RECV_RDMA_WITH_IMM = WcOpcode.RECV_RDMA_WITH_IMM.value();
    private static final int DROPPED = Transport.DROPPED;

    /** The GRH that starts every UD receive buffer, bytes. */
    public static final int GRH_BYTES = 40;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final EngineQp qp;
    private final KeyTable keys;
    private final ProtectionDomain pd;
    private final QpType type;
    private final int qpn;

    public Responder(EngineQp qp) {
        this.qp = qp;
        this.keys = qp.keys();
        this.pd = qp.pd();
        this.type = qp.type();
        this.qpn = qp.qpNum();
    }

    /** Whether a QP in state {@code s} accepts incoming messages. */
    public static boolean receives(QpState s) {
        return s == QpState.RTR || s == QpState.RTS || s == QpState.SQD;
    }

    /**
     * Executes an RC or UC request from the connected QP {@code srcQpn}, and answers: a WC status
     * ({@code SUCCESS} is an ACK), {@link Transport#DROPPED} or {@link Transport#RNR_NAK}.
     */
    public int receive(SendWqe w, int srcQpn) {
        int op = w.opcode;
        if (qp.maxDestRdAtomic() == 0
                && (op == OP_RDMA_READ || op == OP_CMP_SWP || op == OP_FETCH_ADD || op == OP_ATOMIC_WRITE)) {
            // A responder with no RDMA READ/atomic resources refuses them (max_dest_rd_atomic 0).
            return error(REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
        }
        try {
            return switch (op) {
                case OP_RDMA_WRITE -> write(w);
                case OP_RDMA_WRITE_WITH_IMM, OP_SEND, OP_SEND_WITH_IMM, OP_SEND_WITH_INV -> deliver(w, srcQpn);
                case OP_RDMA_READ -> read(w);
                case OP_CMP_SWP, OP_FETCH_ADD -> atomic(w);
                case OP_ATOMIC_WRITE -> atomicWrite(w);
                case OP_FLUSH -> flush(w);
                default -> REM_OP_ERR;
            };
        } catch (IllegalStateException e) {
            // The target's arena closed between the rkey check and the copy (Arena.close() marks the scope closed
            // before its cleanups deregister the region): the access fails as after deregistration. A closed
            // local segment is the requester's error, and stays its exception.
            if (op != OP_RDMA_WRITE_WITH_IMM && op != OP_SEND && op != OP_SEND_WITH_IMM && op != OP_SEND_WITH_INV
                    && localSegmentsAlive(w)) {
                return error(REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR);
            }
            throw e;
        }
    }

    private static boolean localSegmentsAlive(SendWqe w) {
        for (int i = 0; i < w.numSge; i++) {
            if (w.sgeSegment[i] != null && !w.sgeSegment[i].scope().isAlive()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Takes a UD datagram from QP {@code srcQpn} sent with {@code qkey}: if this UD QP receives, the Q_Key
     * matches and the head receive WR holds {@code grh} (a {@link #GRH_BYTES}-byte GRH) and the payload, the
     * WR completes with them. Answers {@code SUCCESS} if it was delivered, else {@link Transport#DROPPED}.
     */
    public int receiveDatagram(SendWqe w, int srcQpn, int qkey, MemorySegment grh) {
        if (type != QpType.UD || !receives(qp.state()) || qp.qkey() != qkey) {
            return DROPPED;
        }
        RecvQueue q = qp.recvQueue();
        synchronized (q) {
            if (qp.state() == QpState.ERR || q.isEmpty()) {
                return DROPPED;
            }
            int slot = q.headSlot();
            if (GRH_BYTES + w.length > q.totalLength(slot) || !Transfer.resolveScatter(keys, pd, q, slot)) {
                return DROPPED;
            }
            long at = Transfer.scatterChunk(q, slot, 0, grh, 0, GRH_BYTES);
            Transfer.scatter(w, q, slot, at);
            boolean imm = w.opcode == OP_SEND_WITH_IMM;
            return popRecv(q, q.wrId(slot), srcQpn, SUCCESS, WC_RECV, (int) w.length + GRH_BYTES,
                    imm ? w.immData : 0, WcFlags.GRH | (imm ? WcFlags.WITH_IMM : 0),
                    (w.flags & SendFlags.SOLICITED) != 0) ? SUCCESS : DROPPED;
        }
    }

    /**
     * Checks an rkey: the key, its PD, its access bits, a type 2 window's QP, and the bounds. On success
     * leaves the segment and offset in the WQE's {@code remoteSegment} and {@code remoteOffset}.
     */
    private boolean remoteKey(SendWqe w, int rkey, long addr, long len, int access) {
        MemoryKey k = keys.lookup(rkey);
        if (k == null || k.pd != pd || (k.access & access) != access
                || k.kind == MemoryKey.KIND_MW2 && k.boundQpn != qpn) {
            return false;
        }
        long off = k.offsetOf(addr, len);
        // A region whose arena was closed under it grants nothing: REM_ACCESS_ERR, as after deregistration.
        if (off < 0 || k.segment == null || !k.segment.scope().isAlive()) {
            return false;
        }
        w.remoteSegment = k.segment;
        w.remoteOffset = off;
        return true;
    }

    /**
     * XRC_RECV: a message that names no SRQ of the receiving QP's XRC domain. The QP moves to ERR and the request is
     * NAKed as invalid (IBA 9.9.3, XRC SRQ checks).
     *
     * @return REM_INV_REQ_ERR
     */
    public int invalidXrcSrq() {
        return error(REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
    }

    /** An error detected here: an RC responder moves to ERR and reports {@code event}; UC drops the message. */
    private int error(int status, AsyncEventType event) {
        if (type == QpType.UC) {
            return DROPPED;
        }
        qp.enterError(event);
        return status;
    }

    private int write(SendWqe w) {
        int r = checkWrite(w);
        if (r == SUCCESS && w.length != 0) {
            Transfer.gather(w, w.remoteSegment, w.remoteOffset);
        }
        return r;
    }

    /**
     * The checks of an RDMA WRITE of {@code w.length} bytes at {@code w.remoteAddr} under {@code w.rkey}, without
     * the write: the QP's REMOTE_WRITE, the key, its access and the whole range. The wire responder calls it at a
     * WRITE's first packet with the length its RETH names (rxe checks the rkey there), so that a message that
     * cannot land is refused before it takes a PSN. On success leaves the resolved segment in the WQE.
     *
     * @return SUCCESS, or REM_INV_REQ_ERR or REM_ACCESS_ERR with the QP moved to ERR (UC: DROPPED)
     */
    public int checkWrite(SendWqe w) {
        if ((qp.accessFlags() & AccessFlags.REMOTE_WRITE) == 0) {
            return error(REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
        }
        if (w.length == 0) {
            return SUCCESS;
        }
        if (!remoteKey(w, w.rkey, w.remoteAddr, w.length, AccessFlags.REMOTE_WRITE)) {
            return error(REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR);
        }
        return SUCCESS;
    }

    /** SEND, SEND_WITH_IMM, SEND_WITH_INV and RDMA_WRITE_WITH_IMM: consumes a receive. */
    private int deliver(SendWqe w, int srcQpn) {
        int op = w.opcode;
        boolean isWrite = op == OP_RDMA_WRITE_WITH_IMM;
        if (isWrite && (qp.accessFlags() & AccessFlags.REMOTE_WRITE) == 0) {
            return error(REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
        }
        // RC and XRC_RECV acknowledge; UC does not.
        boolean rc = type != QpType.UC;
        RecvQueue q = qp.recvQueue();
        synchronized (q) {
            if (qp.state() == QpState.ERR) {
                return rc ? RETRY_EXC_ERR : DROPPED;
            }
            if (q.isEmpty()) {
                return rc ? Transport.RNR_NAK : DROPPED;
            }
            int slot = q.headSlot();
            long wrId = q.wrId(slot);
            int wcFlags = 0;
            int imm = 0;
            if (isWrite) {
                if (w.length > 0 && !remoteKey(w, w.rkey, w.remoteAddr, w.length, AccessFlags.REMOTE_WRITE)) {
                    return error(REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR);
                }
                if (w.length > 0) {
                    Transfer.gather(w, w.remoteSegment, w.remoteOffset);
                }
                wcFlags = WcFlags.WITH_IMM;
                imm = w.immData;
            } else {
                if (w.length > q.totalLength(slot)) {
                    if (!rc) {
                        return DROPPED;
                    }
                    failRecv(q, wrId, srcQpn, LOC_LEN_ERR, AsyncEventType.QP_REQ_ERR);
                    return REM_INV_REQ_ERR;
                }
                if (!Transfer.resolveScatter(keys, pd, q, slot)) {
                    failRecv(q, wrId, srcQpn, LOC_PROT_ERR, AsyncEventType.QP_ACCESS_ERR);
                    return rc ? REM_OP_ERR : DROPPED;
                }
                Transfer.scatter(w, q, slot, 0);
                if (op == OP_SEND_WITH_IMM) {
                    wcFlags = WcFlags.WITH_IMM;
                    imm = w.immData;
                } else if (op == OP_SEND_WITH_INV) {
                    if (!qp.invalidate(w.invalidateRkey)) {
                        failRecv(q, wrId, srcQpn, REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
                        return rc ? REM_INV_REQ_ERR : DROPPED;
                    }
                    wcFlags = WcFlags.WITH_INV;
                    imm = w.invalidateRkey;
                }
            }
            int len = (int) Math.min(w.length, Integer.MAX_VALUE);
            boolean solicited = (w.flags & SendFlags.SOLICITED) != 0;
            return popRecv(q, wrId, srcQpn, SUCCESS, isWrite ? WC_RECV_RDMA_WITH_IMM : WC_RECV, len, imm, wcFlags,
                    solicited) ? SUCCESS : DROPPED;
        }
    }

    /**
     * Takes the head receive WR of {@code q}, completes it with an error, and moves the QP to ERR, reporting
     * {@code event}: the state changes before the completion is written, the flush after it (as in
     * {@link Completer}).
     */
    private void failRecv(RecvQueue q, long wrId, int srcQpn, int status, AsyncEventType event) {
        QpState was = qp.beginError();
        popRecv(q, wrId, srcQpn, status, 0, 0, 0, 0, false);
        qp.finishError(was, event);
    }

    /** Takes the head receive WR of {@code q} and completes it on the receive CQ; false if the CQ overflowed. */
    private boolean popRecv(RecvQueue q, long wrId, int srcQpn, int status, int opcode, int len, int imm,
                            int wcFlags, boolean solicited) {
        q.pop();
        qp.recvConsumed();
        boolean ok = qp.recvCq().add(wrId, status, status == SUCCESS ? opcode : WC_RECV, len, imm, qpn,
                srcQpn, wcFlags, solicited);
        if (!ok) {
            qp.markError();
        }
        return ok;
    }

    private int read(SendWqe w) {
        if ((qp.accessFlags() & AccessFlags.REMOTE_READ) == 0) {
            return error(REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
        }
        if (w.length == 0) {
            return SUCCESS;
        }
        if (!remoteKey(w, w.rkey, w.remoteAddr, w.length, AccessFlags.REMOTE_READ)) {
            return error(REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR);
        }
        // The READ response lands in the requester's resolved gather list.
        MemorySegment src = w.remoteSegment;
        long at = w.remoteOffset;
        for (int i = 0, n = w.numSge; i < n; i++) {
            long len = Integer.toUnsignedLong(w.sgeLength[i]);
            OrderedCopy.copy(src, at, w.sgeSegment[i], w.sgeOffset[i], len);
            at += len;
        }
        return SUCCESS;
    }

    private int atomic(SendWqe w) {
        if ((qp.accessFlags() & AccessFlags.REMOTE_ATOMIC) == 0) {
            return error(REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
        }
        if (!remoteKey(w, w.rkey, w.remoteAddr, 8, AccessFlags.REMOTE_ATOMIC)) {
            return error(REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR);
        }
        MemorySegment seg = w.remoteSegment;
        long off = w.remoteOffset;
        if (((seg.address() + off) & 7) != 0) {
            return error(REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
        }
        long original;
        if (w.opcode == OP_CMP_SWP) {
            original = (long) LONG.compareAndExchange(seg, off, w.compareAdd, w.swap);
        } else {
            original = (long) LONG.getAndAdd(seg, off, w.compareAdd);
        }
        // The atomic response: the original value, into the requester's first SGE.
        w.sgeSegment[0].set(ValueLayout.JAVA_LONG_UNALIGNED, w.sgeOffset[0], original);
        w.length = 8;
        return SUCCESS;
    }

    private int atomicWrite(SendWqe w) {
        // The value: from the SGE of a posted ATOMIC_WRITE, or the session's operand. It is never inline data
        // (IBV_SEND_INLINE applies to SEND and RDMA WRITE only).
        long value;
        if (w.numSge > 0) {
            value = w.sgeSegment[0].get(ValueLayout.JAVA_LONG_UNALIGNED, w.sgeOffset[0]);
        } else {
            value = w.swap;
        }
        if ((qp.accessFlags() & AccessFlags.REMOTE_WRITE) == 0) {
            return error(REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
        }
        if (!remoteKey(w, w.rkey, w.remoteAddr, 8, AccessFlags.REMOTE_WRITE)) {
            return error(REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR);
        }
        MemorySegment seg = w.remoteSegment;
        long off = w.remoteOffset;
        if (((seg.address() + off) & 7) != 0) {
            return error(REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
        }
        LONG.setRelease(seg, off, value);
        w.length = 8;
        return SUCCESS;
    }

    private int flush(SendWqe w) {
        int access = ((w.flushType & Flush.TYPE_GLOBAL) != 0 ? AccessFlags.FLUSH_GLOBAL : 0)
                | ((w.flushType & Flush.TYPE_PERSISTENT) != 0 ? AccessFlags.FLUSH_PERSISTENT : 0);
        MemoryKey k = keys.lookup(w.rkey);
        boolean ok;
        if (w.flushLevel == Flush.LEVEL_MR) {
            ok = k != null && k.pd == pd && (k.access & access) == access;
        } else {
            ok = remoteKey(w, w.rkey, w.remoteAddr, w.length, access);
        }
        if (!ok) {
            return error(REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR);
        }
        // Every prior write was made by a store that a full fence orders before anything later.
        VarHandle.fullFence();
        w.length = 0;
        return SUCCESS;
    }
}
