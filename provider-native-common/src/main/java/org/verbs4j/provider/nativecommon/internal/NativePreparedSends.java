package org.verbs4j.provider.nativecommon.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import org.verbs4j.Errno;
import org.verbs4j.PostSendException;
import org.verbs4j.QpType;
import org.verbs4j.SendWr;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_sge;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_send_wr;
import org.verbs4j.spi.support.AbstractPreparedSends;

/**
 * A {@link org.verbs4j.PreparedSends} of either native provider: {@code capacity} linked
 * {@code struct ibv_send_wr}s, each with its own SGE array, in one segment of a shared arena. The setters store
 * into the slot at once (a {@code wr_id}, the SIGNALED/SOLICITED/FENCE flags, an SGE, the RDMA fields of an RDMA
 * WRITE or READ); a change of shape is left to the post, which writes and checks such a slot from its mirror with
 * {@link NativeSendPoster#write(long, long, SendWr)}, the rules of {@code postSend}, and posts with the same
 * {@code post_send} call.
 *
 * <p>The setters' accesses use the unaligned layouts: every offset is 8-byte aligned by construction, and the
 * aligned layouts would add an alignment check to each store.
 *
 * <p>Memory: the segment is reached by the setters through the arena, so a setter racing {@link #close()} from
 * another thread throws instead of writing freed memory; the post passes its address to the library under the
 * QP's send lock, which {@link #release()} takes before it closes the arena, and checks there that the array and
 * the QP are still open. An array dropped unclosed has its arena closed by a {@link Cleaner}.
 */
final class NativePreparedSends extends AbstractPreparedSends {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final long WR_SIZE = ibv_send_wr.SIZEOF;
    private static final long SGE_SIZE = ibv_sge.SIZEOF;

    private final NativeQueuePair qp;
    private final NativeSendPoster poster;
    private final MemorySegment slots;
    private final Cleaner.Cleanable cleanable;
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
        Arena arena = Arena.ofShared();
        this.slots = arena.allocate(sgeBase + sgeStride * capacity, 8);
        this.cleanable = CLEANER.register(this, arena::close);
        this.address = slots.address();
        for (int i = 0; i < capacity; i++) {
            long w = i * WR_SIZE;
            slots.set(JAVA_LONG_UNALIGNED, w + ibv_send_wr.next$off, i + 1 < capacity ? address + w + WR_SIZE : 0L);
            slots.set(JAVA_LONG_UNALIGNED, w + ibv_send_wr.sg_list$off, address + sgeBase + i * sgeStride);
            slots.set(JAVA_INT_UNALIGNED, w + ibv_send_wr.opcode$off, WrOpcode.SEND.value());
        }
    }

    @Override
    protected void wrIdSet(int slot, long wrId) {
        slots.set(JAVA_LONG_UNALIGNED, slot * WR_SIZE + ibv_send_wr.wr_id$off, wrId);
    }

    @Override
    protected void flagsSet(int slot, int flags) {
        slots.set(JAVA_INT_UNALIGNED, slot * WR_SIZE + ibv_send_wr.send_flags$off, flags);
    }

    @Override
    protected void sgeSet(int slot, int index, long addr, int length, int lkey) {
        long o = sgeBase + slot * sgeStride + index * SGE_SIZE;
        slots.set(JAVA_LONG_UNALIGNED, o + ibv_sge.addr$off, addr);
        slots.set(JAVA_INT_UNALIGNED, o + ibv_sge.length$off, length);
        slots.set(JAVA_INT_UNALIGNED, o + ibv_sge.lkey$off, lkey);
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
        slots.set(JAVA_LONG_UNALIGNED, w + ibv_send_wr.wr$rdma$remote_addr$off, wr.remoteAddr());
        slots.set(JAVA_INT_UNALIGNED, w + ibv_send_wr.wr$rdma$rkey$off, wr.rkey());
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
        if (err != 0) {
            throw new PostSendException(err, limit, poster.reason(qpHandle, ready, err, slotWr(limit)));
        }
    }

    @Override
    protected void release() {
        synchronized (qp.sendLock()) {
            cleanable.clean();
        }
    }
}
