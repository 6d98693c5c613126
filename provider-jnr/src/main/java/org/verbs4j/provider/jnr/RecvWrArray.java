package org.verbs4j.provider.jnr;

import java.util.List;
import java.util.Objects;
import org.verbs4j.RecvWr;
import org.verbs4j.Sge;
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.provider.jnr.internal.IbvRecvWr;
import org.verbs4j.provider.jnr.internal.IbvSge;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.spi.support.Arguments;

/**
 * A reused native {@code ibv_recv_wr} array and its SGE pool: the list a post hands to libibverbs. It
 * grows to the largest post seen and is then reused, so steady-state posts allocate nothing. Not
 * thread-safe: its owner posts under a lock.
 */
final class RecvWrArray {
    private final ContextResources resources;
    private final NativeSlots wrs;
    private final NativeSlots sges;
    /** {@code struct ibv_recv_wr *bad_wr}. */
    final long badWr;

    RecvWrArray(ContextResources resources) {
        this.resources = resources;
        this.badWr = resources.allocate(8);
        this.wrs = new NativeSlots(resources, IbvRecvWr.SIZEOF);
        this.sges = new NativeSlots(resources, IbvSge.SIZEOF);
    }

    /** Writes one WR; returns the list's address. */
    long write(RecvWr wr) {
        Objects.requireNonNull(wr, "wr");
        Arguments.sges(wr.sgList(), wr.numSge(), "sgList");
        ensure(1, wr.numSge());
        put(0, wr, 0, true);
        return wrs.address();
    }

    /** Writes {@code list} as a linked list; returns its address. */
    long write(List<RecvWr> list) {
        int n = list.size();
        int totalSge = 0;
        for (int i = 0; i < n; i++) {
            RecvWr wr = Objects.requireNonNull(list.get(i), "wrs element");
            Arguments.sges(wr.sgList(), wr.numSge(), "sgList");
            totalSge += wr.numSge();
        }
        ensure(n, totalSge);
        int sgeAt = 0;
        for (int i = 0; i < n; i++) {
            RecvWr wr = list.get(i);
            put(i, wr, sgeAt, i == n - 1);
            sgeAt += wr.numSge();
        }
        return wrs.address();
    }

    /** The index of the WR {@code bad_wr} points to. */
    int badIndex() {
        long bad = NativeMemory.getAddress(badWr);
        return bad == 0 ? 0 : (int) ((bad - wrs.address()) / IbvRecvWr.SIZEOF);
    }

    private void put(int i, RecvWr wr, int sgeAt, boolean last) {
        long w = wrs.address() + IbvRecvWr.SIZEOF * i;
        long s = sges.address() + IbvSge.SIZEOF * sgeAt;
        NativeMemory.putLong(w + IbvRecvWr.wr_id$OFFSET, wr.wrId());
        NativeMemory.putAddress(w + IbvRecvWr.next$OFFSET, last ? 0 : w + IbvRecvWr.SIZEOF);
        NativeMemory.putAddress(w + IbvRecvWr.sg_list$OFFSET, wr.numSge() == 0 ? 0 : s);
        NativeMemory.putInt(w + IbvRecvWr.num_sge$OFFSET, wr.numSge());
        Sge[] list = wr.sgList();
        for (int k = 0; k < wr.numSge(); k++) {
            putSge(s + IbvSge.SIZEOF * k, list[k]);
        }
    }

    static void putSge(long s, Sge sge) {
        NativeMemory.putLong(s + IbvSge.addr$OFFSET, sge.addr());
        NativeMemory.putInt(s + IbvSge.length$OFFSET, sge.length());
        NativeMemory.putInt(s + IbvSge.lkey$OFFSET, sge.lkey());
    }

    private void ensure(int n, int totalSge) {
        wrs.ensure(n);
        sges.ensure(totalSge);
    }

    void free() {
        wrs.free();
        sges.free();
        resources.free(badWr);
    }
}
