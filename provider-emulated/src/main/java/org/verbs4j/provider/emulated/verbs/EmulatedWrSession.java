package org.verbs4j.provider.emulated.verbs;

import java.lang.foreign.MemorySegment;
import org.verbs4j.MwBindInfo;
import org.verbs4j.SendFlags;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.emulated.engine.SendWqe;
import org.verbs4j.spi.support.AbstractWrSession;
import org.verbs4j.spi.support.PendingWr;
import org.verbs4j.spi.support.SendQueueLock;

/**
 * A QP's WR session ({@code ibv_wr_start} ... {@code ibv_wr_complete}). The rules live in
 * {@link AbstractWrSession}; this class only binds them to the send ring: each emitted WR is written into the next
 * free slot past the ring's tail, {@code complete()} publishes the slots by moving the tail, and {@code abort()}
 * simply does not. Without a thread domain the QP's lock is held from start to end, so no {@code postSend} from
 * another thread claims the same slots.
 *
 * @see "ibv_wr_post(3)"
 */
public final class EmulatedWrSession extends AbstractWrSession {
    private final EmulatedQueuePair qp;
    private final boolean locking;
    private final boolean sigAll;
    /** WRs written past the tail in this batch. */
    private int written;

    EmulatedWrSession(EmulatedQueuePair qp) {
        super(qp, qp.type, qp.initAttributes().sendOps(), qp.maxInlineData, qp.maxSendSge, false,
                new SendQueueLock(qp.confinement), false);
        this.qp = qp;
        this.locking = qp.td == null;
        this.sigAll = qp.initAttributes().sqSigAll();
    }

    /** The session's QP side, for this provider's QueuePair. */
    Control qpSide() {
        return control();
    }

    @Override
    protected boolean sendQueueReady() {
        return EmulatedQueuePair.canPost(qp.state);
    }

    @Override
    protected int sendQueueRoom() {
        return qp.sq.room();
    }

    @Override
    protected void startBatch() {
        written = 0;
        if (locking) {
            qp.lock.lock();
        }
    }

    @Override
    protected void emit(PendingWr p) {
        SendWqe w = qp.sq.slot(qp.sq.tail + written);
        written++;
        WrOpcode op = p.opcode();
        int flags = p.wrFlags();
        w.reset(p.wrId(), op.value(), flags, sigAll || (flags & SendFlags.SIGNALED) != 0);
        // The fields of the common SENDs, WRITEs and READs are copied as they are; the rest take the slow path,
        // which keeps this method small enough to be inlined into the shared state machine.
        w.rkey = p.rkey();
        w.remoteAddr = p.remoteAddr();
        w.immData = p.immData();
        w.remoteSrqn = p.remoteSrqn();
        if (!COMMON[op.ordinal()] && rareOperands(p, w, op)) {
            return;
        }
        if (p.ah() != null) {
            w.ah = p.ah();
            w.remoteQpn = p.remoteQpn();
            w.remoteQkey = p.remoteQkey();
        }
        if (p.dataKind() == PendingWr.DATA_SGE) {
            w.numSge = 1;
            w.sgeLkey[0] = p.sgeLkey(0);
            w.sgeAddr[0] = p.sgeAddr(0);
            w.sgeLength[0] = p.sgeLength(0);
            w.length = Integer.toUnsignedLong(p.sgeLength(0));
        } else if (p.dataKind() != PendingWr.DATA_NONE) {
            data(p, w);
        }
    }

    /** Whether an opcode needs no operand beyond rkey, remote address and immediate data. */
    private static final boolean[] COMMON = new boolean[WrOpcode.values().length];
    static {
        for (WrOpcode op : new WrOpcode[] {WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE,
                WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ}) {
            COMMON[op.ordinal()] = true;
        }
    }

    /** Copies the operands of the other opcodes; true when the WR is complete (a flush carries no data). */
    private static boolean rareOperands(PendingWr p, SendWqe w, WrOpcode op) {
        switch (op) {
            case SEND_WITH_INV, LOCAL_INV -> w.invalidateRkey = p.invalidateRkey();
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD, ATOMIC_WRITE -> {
                w.compareAdd = p.compareAdd();
                w.swap = p.swap();
                if (op == WrOpcode.ATOMIC_WRITE) {
                    w.length = 8;
                }
            }
            case FLUSH -> {
                // A DATA setter on a flush is accepted and carries nothing (see AbstractWrSession).
                w.length = p.flushLength();
                w.flushType = p.flushType();
                w.flushLevel = p.flushLevel();
                return true;
            }
            case BIND_MW -> {
                MwBindInfo b = p.bindInfo();
                w.mw = p.mw();
                w.bindRkey = p.bindRkey();
                w.bindMr = b.mr();
                w.bindAddr = b.addr();
                w.bindLength = b.length();
                w.bindAccess = b.mwAccessFlags();
            }
            case TSO -> throw new AssertionError("TSO is never in this device's sendOps");
            default -> { }
        }
        return false;
    }

    /** Copies an SGE list or the inline bytes. */
    private static void data(PendingWr p, SendWqe w) {
        if (p.dataKind() == PendingWr.DATA_INLINE) {
            int n = p.inlineLength();
            MemorySegment.copy(p.inlineData(), 0, w.inline, 0, n);
            w.isInline = true;
            w.inlineLength = n;
            w.length = n;
            return;
        }
        int n = p.sgeCount();
        long total = 0;
        for (int i = 0; i < n; i++) {
            w.sgeLkey[i] = p.sgeLkey(i);
            w.sgeAddr[i] = p.sgeAddr(i);
            w.sgeLength[i] = p.sgeLength(i);
            total += Integer.toUnsignedLong(p.sgeLength(i));
        }
        w.numSge = n;
        w.length = total;
    }

    @Override
    protected int completeBatch() {
        if (!locking) {
            qp.lock.lock();
        }
        qp.sq.tail += written;
        written = 0;
        qp.release();
        return 0;
    }

    @Override
    protected void abortBatch() {
        written = 0;
        if (!locking) {
            qp.lock.lock();
        }
        qp.release();
    }
}
