package org.verbs4j.provider.nativecommon.internal;

import java.util.List;
import java.util.Objects;
import org.verbs4j.Errno;
import org.verbs4j.PostRecvException;
import org.verbs4j.RecvWr;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_sge;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_recv_wr;

/**
 * Posts receive WRs for a QP ({@code ops.post_recv}) or an SRQ ({@code ops.post_srq_recv}) from a native
 * {@code ibv_recv_wr} array and SGE array allocated once at creation: the list a post hands the provider
 * library, so a post allocates nothing unless it fails.
 *
 * <p>The rules of {@code ibv_post_recv(3)} and {@code ibv_post_srq_recv(3)}: the call stops at the first WR
 * that fails, reports it as {@code bad_wr}, and the WRs before it stay posted. A WR with more SGEs than the
 * queue was granted ({@code max_recv_sge}, {@code max_sge}) is refused here with {@code EINVAL}, because not
 * every provider library checks it before it copies the list. A list longer than the array goes in chunks
 * of the array's size; a chunk that fails ends the post, and what earlier chunks posted stays posted, so the
 * exception's index counts from the list's start. Not thread-safe: the owner posts under its receive lock.
 */
final class NativeRecvPoster {
    private static final long WR_SIZE = ibv_recv_wr.SIZEOF;
    private static final long SGE_SIZE = ibv_sge.SIZEOF;

    private final IbverbsBinding binding;
    private final String verb;
    private final long fn;
    /** Whether {@code fn} is called as a critical downcall ({@link CriticalDataPath}). */
    private final boolean critical;
    private final int capacity;
    private final int maxSge;
    private final long wrs;
    private final long sges;
    private final long badWr;

    /**
     * Allocates the arrays.
     *
     * @param binding the binding
     * @param scratch the owner's scratch memory
     * @param verb {@code ibv_post_recv} or {@code ibv_post_srq_recv}, for exceptions
     * @param fn the op, {@code ops.post_recv} or {@code ops.post_srq_recv}
     * @param capacity the queue's granted depth; the array holds up to 256 WRs of it
     * @param maxSge the queue's granted SGEs per WR
     * @param critical whether the op is called as a critical downcall: the owner's context allows it
     *     ({@link NativeContextSupport#criticalDataPath()})
     */
    NativeRecvPoster(IbverbsBinding binding, NativeScratch scratch, String verb, long fn, int capacity, int maxSge,
                     boolean critical) {
        this.binding = binding;
        this.verb = verb;
        this.fn = fn;
        this.critical = critical;
        this.capacity = Math.max(1, Math.min(capacity, 256));
        this.maxSge = Math.max(1, maxSge);
        this.wrs = scratch.allocate(WR_SIZE * this.capacity);
        this.sges = scratch.allocate(SGE_SIZE * this.capacity * this.maxSge);
        this.badWr = scratch.allocate(8);
        // Each slot's SGE array is fixed; its list link is written per post.
        for (int i = 0; i < this.capacity; i++) {
            binding.putLong(wrs + i * WR_SIZE + ibv_recv_wr.sg_list$off, sges + (long) i * this.maxSge * SGE_SIZE);
        }
    }

    /**
     * Posts one WR.
     *
     * @param queue the {@code struct ibv_qp *} or {@code struct ibv_srq *}, live
     * @param wr the WR
     */
    void post(long queue, RecvWr wr) {
        Objects.requireNonNull(wr, "wr");
        if (wr.numSge() > maxSge) {
            throw tooManySges(0, wr);
        }
        write(0, wr, false);
        call(queue, 0);
    }

    /**
     * Posts a list, in order.
     *
     * @param queue the {@code struct ibv_qp *} or {@code struct ibv_srq *}, live
     * @param list the WRs
     */
    void post(long queue, List<RecvWr> list) {
        Objects.requireNonNull(list, "wrs");
        int size = list.size();
        for (int i = 0; i < size; i++) {
            Objects.requireNonNull(list.get(i), "wrs element");
        }
        for (int base = 0; base < size; base += capacity) {
            int n = Math.min(capacity, size - base);
            int limit = n;
            for (int i = 0; i < n; i++) {
                RecvWr wr = list.get(base + i);
                if (wr.numSge() > maxSge) {
                    limit = i;
                    break;
                }
                write(i, wr, i < n - 1);
            }
            if (limit > 0) {
                binding.putLong(wrs + (limit - 1) * WR_SIZE + ibv_recv_wr.next$off, 0L);
                call(queue, base);
            }
            if (limit < n) {
                throw tooManySges(base + limit, list.get(base + limit));
            }
        }
    }

    private PostRecvException tooManySges(int index, RecvWr wr) {
        return new PostRecvException(verb, Errno.EINVAL, index, wr.numSge() + " SGEs, the queue takes " + maxSge);
    }

    private void write(int i, RecvWr wr, boolean hasNext) {
        IbverbsBinding b = binding;
        long w = wrs + i * WR_SIZE;
        int num = wr.numSge();
        NativeSendPoster.writeSges(b, sges + (long) i * maxSge * SGE_SIZE, wr.sgList(), num);
        b.putLong(w + ibv_recv_wr.wr_id$off, wr.wrId());
        b.putLong(w + ibv_recv_wr.next$off, hasNext ? w + WR_SIZE : 0L);
        b.putInt(w + ibv_recv_wr.num_sge$off, num);
    }

    private void call(long queue, int base) {
        binding.putLong(badWr, 0L);
        int rc = critical ? binding.postRecvCritical(fn, queue, wrs, badWr) : binding.postRecv(fn, queue, wrs, badWr);
        if (rc != 0) {
            long bad = binding.getLong(badWr);
            int index = bad >= wrs && bad < wrs + capacity * WR_SIZE ? (int) ((bad - wrs) / WR_SIZE) : 0;
            throw new PostRecvException(verb, -NativeErrors.ofOp(rc), base + index, null);
        }
    }
}
