package org.verbs4j.provider.nativecommon.internal;

import java.lang.ref.Reference;
import org.verbs4j.Errno;
import org.verbs4j.PostSendException;
import org.verbs4j.QpType;
import org.verbs4j.SendWr;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_sge;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_send_wr;
import org.verbs4j.spi.support.AbstractPreparedSends;
import org.verbs4j.spi.support.SendQueueLock;
import org.verbs4j.spi.support.SlotMemory;
import org.verbs4j.spi.support.ThreadConfinement;

/**
 * A {@link org.verbs4j.PreparedSends} of either native provider: {@code capacity} linked
 * {@code struct ibv_send_wr}s, each with its own SGE array, in one segment of a shared arena. The setters store
 * into the slot at once (a {@code wr_id}, the SIGNALED/SOLICITED/FENCE flags, an SGE, the RDMA fields of an RDMA
 * WRITE or READ); a change of shape is left to the post, which writes and checks such a slot from its mirror with
 * {@link NativeSendPoster#write(long, long, SendWr)}, the rules of {@code postSend}, and posts with the same
 * {@code post_send} call.
 *
 * <p>Memory: the setters store through the {@link SlotMemory}, so a setter racing {@link #close()} from another
 * thread throws instead of writing freed memory; the post passes its address to the library under the QP's send
 * lock, which {@link #release()} takes before it frees the memory, and checks there that the array and the QP are
 * still open. An array dropped unclosed has its memory freed once it is collected, and so has one closed by a thread
 * other than the live owner of a QP created with a thread domain (whose send lock only the owner takes).
 */
final class NativePreparedSends extends AbstractPreparedSends {
    private static final long WR_SIZE = ibv_send_wr.SIZEOF;
    private static final long SGE_SIZE = ibv_sge.SIZEOF;

    private final NativeQueuePair qp;
    private final NativeSendPoster poster;
    private final SlotMemory slots;
    /** RC, UC or XRC_SEND: an RDMA WRITE's or READ's fields are in the {@code wr.rdma} union member. */
    private final boolean rdmaUnion;
    private final long sgeBase;
    private final long sgeStride;
    private final long address;

    NativePreparedSends(NativeQueuePair qp, NativeSendPoster poster, QpType type, int capacity, int maxSge) {
        super(type, capacity, maxSge);
        this.qp = qp;
        this.poster = poster;
        this.rdmaUnion = type == QpType.RC || type == QpType.UC || type == QpType.XRC_SEND;
        this.sgeStride = SGE_SIZE * maxSge();
        this.sgeBase = WR_SIZE * capacity;
        this.slots = new SlotMemory(this, sgeBase + sgeStride * capacity);
        this.address = slots.address();
        for (int i = 0; i < capacity; i++) {
            long w = i * WR_SIZE;
            slots.putLong(w + ibv_send_wr.next$off, i + 1 < capacity ? address + w + WR_SIZE : 0L);
            slots.putLong(w + ibv_send_wr.sg_list$off, address + sgeBase + i * sgeStride);
            slots.putInt(w + ibv_send_wr.opcode$off, WrOpcode.SEND.value());
        }
    }

    @Override
    protected void wrIdSet(int slot, long wrId) {
        slots.putLong(slot * WR_SIZE + ibv_send_wr.wr_id$off, wrId);
    }

    @Override
    protected void flagsSet(int slot, int flags) {
        slots.putInt(slot * WR_SIZE + ibv_send_wr.send_flags$off, flags);
    }

    @Override
    protected void sgeSet(int slot, int index, long addr, int length, int lkey) {
        long o = sgeBase + slot * sgeStride + index * SGE_SIZE;
        slots.putLong(o + ibv_sge.addr$off, addr);
        slots.putInt(o + ibv_sge.length$off, length);
        slots.putInt(o + ibv_sge.lkey$off, lkey);
    }

    @Override
    protected void remoteSet(int slot) {
        SendWr wr = slotWr(slot);
        WrOpcode op = wr.opcode();
        if (!rdmaUnion || op != WrOpcode.RDMA_WRITE && op != WrOpcode.RDMA_READ) {
            // Other opcodes keep other fields in the unions: the post writes them by opcode.
            markDirty(slot);
            return;
        }
        long w = slot * WR_SIZE;
        slots.putLong(w + ibv_send_wr.wr$rdma$remote_addr$off, wr.remoteAddr());
        slots.putInt(w + ibv_send_wr.wr$rdma$rkey$off, wr.rkey());
    }

    @Override
    protected void postSlots(int n) {
        qp.postPrepared(this, n);
    }

    /**
     * Posts slots 0 to {@code n - 1}, under the QP's send lock, the QP open: checks and writes each slot the
     * mirror says must be, stops at the first refused one, and posts the ones before it with one call.
     *
     * @param qpHandle the {@code struct ibv_qp *}
     * @param ready whether the QP's state takes sends
     * @param n the slots to post
     */
    void postLocked(long qpHandle, boolean ready, int n) {
        checkOpen();
        int limit = n;
        int err = ready ? 0 : Errno.EINVAL;
        try {
            if (!ready) {
                limit = 0;
            } else {
                for (int i = 0; i < n; i++) {
                    if (mustCheck(i)) {
                        err = poster.write(address + i * WR_SIZE, address + sgeBase + i * sgeStride, slotWr(i));
                        if (err != 0) {
                            limit = i;
                            break;
                        }
                        checked(i);
                    }
                }
            }
            if (limit > 0) {
                poster.call(address, capacity(), qpHandle, 0, limit);
            }
        } finally {
            // The AHs and inline regions the checked slots name were held until the library read them.
            poster.releaseHolds();
            // The library read the slots by address, which their arena does not see: the array, whose collection
            // frees them, stays reachable until it has.
            Reference.reachabilityFence(this);
        }
        if (err != 0) {
            throw new PostSendException(err, limit, poster.reason(qpHandle, ready, err, slotWr(limit)));
        }
    }

    @Override
    protected void release() {
        SendQueueLock lock = qp.sendLock();
        ThreadConfinement confined = lock.confinement();
        Thread before = null;
        if (confined != null) {
            try {
                before = confined.claimForClose();
            } catch (WrongThreadException e) {
                // A thread-domain QP's live owner may be posting this array: its memory is freed once the array
                // is collected (SlotMemory), never under the owner's post.
                return;
            }
        }
        lock.lock();
        try {
            slots.close();
        } finally {
            lock.unlock();
            if (confined != null) {
                confined.restore(before);
            }
        }
    }
}
