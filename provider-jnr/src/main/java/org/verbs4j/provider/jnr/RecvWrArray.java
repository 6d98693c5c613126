package org.verbs4j.provider.jnr;

import java.util.List;
import java.util.Objects;
import org.verbs4j.RecvWr;
import org.verbs4j.Sge;
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_sge;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_recv_wr;
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
        this.wrs = new NativeSlots(resources, ibv_recv_wr.SIZEOF);
        this.sges = new NativeSlots(resources, ibv_sge.SIZEOF);
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
        return bad == 0 ? 0 : (int) ((bad - wrs.address()) / ibv_recv_wr.SIZEOF);
    }

    private void put(int i, RecvWr wr, int sgeAt, boolean last) {
        long w = wrs.address() + ibv_recv_wr.SIZEOF * i;
        long s = sges.address() + ibv_sge.SIZEOF * sgeAt;
        NativeMemory.putLong(w + ibv_recv_wr.wr_id$off, wr.wrId());
        NativeMemory.putAddress(w + ibv_recv_wr.next$off, last ? 0 : w + ibv_recv_wr.SIZEOF);
        NativeMemory.putAddress(w + ibv_recv_wr.sg_list$off, wr.numSge() == 0 ? 0 : s);
        NativeMemory.putInt(w + ibv_recv_wr.num_sge$off, wr.numSge());
        Sge[] list = wr.sgList();
        for (int k = 0; k < wr.numSge(); k++) {
            putSge(s + ibv_sge.SIZEOF * k, list[k]);
        }
    }

    static void putSge(long s, Sge sge) {
        NativeMemory.putLong(s + ibv_sge.addr$off, sge.addr());
        NativeMemory.putInt(s + ibv_sge.length$off, sge.length());
        NativeMemory.putInt(s + ibv_sge.lkey$off, sge.lkey());
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
