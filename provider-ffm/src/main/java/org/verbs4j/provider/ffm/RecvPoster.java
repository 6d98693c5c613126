package org.verbs4j.provider.ffm;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import org.verbs4j.Errno;
import org.verbs4j.PostRecvException;
import org.verbs4j.RecvWr;
import org.verbs4j.Sge;
import org.verbs4j.provider.ffm.internal.InlineOps;
import org.verbs4j.provider.ffm.internal.Structs.ibv_recv_wr;
import org.verbs4j.provider.ffm.internal.Structs.ibv_sge;
import org.verbs4j.provider.nativecommon.internal.QpStructs;
import org.verbs4j.spi.support.Arguments;

/**
 * Posts receive WRs ({@code ops.post_recv} or {@code ops.post_srq_recv}) from a reused native
 * {@code ibv_recv_wr} array and SGE array. Longer lists go in chunks; the bad WR index is computed from
 * the {@code bad_wr} pointer the provider returns. Allocates nothing unless a post fails.
 */
final class RecvPoster {
    private static final long WR_SIZE = ibv_recv_wr.LAYOUT.byteSize();
    private static final long SGE_SIZE = ibv_sge.LAYOUT.byteSize();

    private final String verb;
    private final int capacity;
    private final int maxSge;
    private final MemorySegment wrs;
    private final MemorySegment sges;
    private final MemorySegment badWr;

    RecvPoster(Scratch scratch, String verb, int capacity, int maxSge) {
        this.verb = verb;
        this.capacity = Math.max(1, Math.min(capacity, 256));
        this.maxSge = Math.max(1, maxSge);
        this.wrs = scratch.allocate(WR_SIZE * this.capacity);
        this.sges = scratch.allocate(SGE_SIZE * this.capacity * this.maxSge);
        this.badWr = scratch.allocate(8);
    }

    synchronized void post(MemorySegment fn, MemorySegment target, RecvWr wr) {
        Objects.requireNonNull(wr, "wr");
        if (wr.numSge() > maxSge) {
            throw new PostRecvException(verb, Errno.EINVAL, 0, wr.numSge() + " SGEs, the queue takes " + maxSge);
        }
        write(0, wr, false);
        call(fn, target, 0);
    }

    synchronized void post(MemorySegment fn, MemorySegment target, List<RecvWr> list) {
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
                wrs.set(JAVA_LONG, (limit - 1) * WR_SIZE + QpStructs.ibv_recv_wr.next$off, 0L);
                call(fn, target, base);
            }
            if (limit < n) {
                throw new PostRecvException(verb, Errno.EINVAL, base + limit,
                        list.get(base + limit).numSge() + " SGEs, the queue takes " + maxSge);
            }
        }
    }

    private void write(int i, RecvWr wr, boolean hasNext) {
        Arguments.sges(wr.sgList(), wr.numSge(), "sgList");
        long at = i * WR_SIZE;
        long sgeAt = (long) i * maxSge * SGE_SIZE;
        ibv_recv_wr.wr_id$vh.set(wrs, at, wr.wrId());
        wrs.set(JAVA_LONG, at + QpStructs.ibv_recv_wr.next$off, hasNext ? wrs.address() + at + WR_SIZE : 0L);
        wrs.set(JAVA_LONG, at + QpStructs.ibv_recv_wr.sg_list$off, sges.address() + sgeAt);
        int num = wr.numSge();
        ibv_recv_wr.num_sge$vh.set(wrs, at, num);
        Sge[] list = wr.sgList();
        for (int k = 0; k < num; k++) {
            Sge s = list[k];
            long o = sgeAt + k * SGE_SIZE;
            ibv_sge.addr$vh.set(sges, o, s.addr());
            ibv_sge.length$vh.set(sges, o, s.length());
            ibv_sge.lkey$vh.set(sges, o, s.lkey());
        }
    }

    private void call(MemorySegment fn, MemorySegment target, int base) {
        badWr.set(JAVA_LONG, 0, 0L);
        int rc = InlineOps.post_recv(fn, target, wrs, badWr);
        if (rc != 0) {
            long bad = badWr.get(JAVA_LONG, 0);
            int index = bad >= wrs.address() && bad < wrs.address() + wrs.byteSize()
                    ? (int) ((bad - wrs.address()) / WR_SIZE) : 0;
            throw new PostRecvException(verb, rc < 0 ? -rc : rc, base + index, null);
        }
    }
}
