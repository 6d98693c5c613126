package org.verbs4j.provider.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.RecvWr;
import org.verbs4j.Sge;
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_sge;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_recv_wr;

/** The native {@code ibv_recv_wr} list a post hands to libibverbs, built without a device. */
class RecvWrArrayTest {
    @Test
    @DisplayName("a list of receive WRs becomes a linked ibv_recv_wr list with its SGEs, and bad_wr maps back to an index")
    void writesLinkedList() {
        ContextResources resources = new ContextResources(null, 0);
        RecvWrArray array = new RecvWrArray(resources);
        try {
            RecvWr first = new RecvWr(7, new Sge(0x1000, 64, 0x11));
            RecvWr second = new RecvWr().wrId(8).sgList(new Sge(0x2000, 32, 0x22), new Sge(0x3000, 16, 0x33));
            long list = array.write(List.of(first, second));
            assertEquals(7, NativeMemory.getLong(list + ibv_recv_wr.wr_id$off));
            long next = NativeMemory.getAddress(list + ibv_recv_wr.next$off);
            assertEquals(list + ibv_recv_wr.SIZEOF, next);
            assertEquals(8, NativeMemory.getLong(next + ibv_recv_wr.wr_id$off));
            assertEquals(0, NativeMemory.getAddress(next + ibv_recv_wr.next$off));
            assertEquals(2, NativeMemory.getInt(next + ibv_recv_wr.num_sge$off));
            long sges = NativeMemory.getAddress(next + ibv_recv_wr.sg_list$off);
            assertEquals(0x3000, NativeMemory.getLong(sges + ibv_sge.SIZEOF + ibv_sge.addr$off));
            assertEquals(16, NativeMemory.getInt(sges + ibv_sge.SIZEOF + ibv_sge.length$off));
            assertEquals(0x33, NativeMemory.getInt(sges + ibv_sge.SIZEOF + ibv_sge.lkey$off));
            NativeMemory.putAddress(array.badWr, next);
            assertEquals(1, array.badIndex());
            // Posting again reuses the same array.
            assertEquals(list, array.write(first));
        } finally {
            array.free();
        }
    }
}
