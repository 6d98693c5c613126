package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpType;
import org.verbs4j.WcStatus;

/**
 * The careless sequence of issue 26, item 5, as a user who never read the Javadoc types it: register a segment of a
 * shared arena with the plain {@code registerMemory(segment, access)}, close the arena, and let a peer RDMA WRITE 64
 * bytes through the region's rkey. Before the fix, ffm and jnr accepted the registration, and the WRITE completed
 * SUCCESS into whatever the allocator had placed at the freed address since. Now the plain call takes only memory
 * that is never freed, so the sequence ends at its first step with an IllegalArgumentException that names the fix.
 * Each step prints what it saw, so that a run shows the user's view.
 */
final class CarelessRegistration {
    /** The size of the careless user's buffer and of each later allocation, bytes. */
    static final int SIZE = 4096;
    /** The later allocations, which may reuse the freed address. */
    private static final int LATER = 16;

    private CarelessRegistration() {}

    /**
     * Runs the sequence on {@code tb}: refused at the registration, or, on a provider that accepts it, carried on
     * to the remote WRITE and failed with what the WRITE did.
     *
     * @param tb the testbed; the peer's PD registers the careless memory
     */
    static void run(Testbed tb) {
        QpPair p = tb.pair(QpType.RC);
        Arena arena = Arena.ofShared();
        MemorySegment careless = arena.allocate(SIZE, 64);
        MemoryRegion mr;
        try {
            mr = p.remote().pd().registerMemory(careless, Testbed.ALL_ACCESS);
        } catch (IllegalArgumentException e) {
            System.out.println("[" + tb.provider().name() + "] registerMemory(segment of Arena.ofShared(), access): "
                    + e);
            arena.close();
            assertTrue(String.valueOf(e.getMessage()).contains("registerMemory(segment, access, arena)"),
                    "the refusal must name the fix, registerMemory(segment, access, arena): " + e.getMessage());
            System.out.println("[" + tb.provider().name() + "] no region, no rkey: the peer has nothing to WRITE "
                    + "through once the arena is closed");
            return;
        }
        long address = mr.address();
        int rkey = mr.rkey();
        System.out.println("[" + tb.provider().name() + "] registerMemory(segment of Arena.ofShared(), access): "
                + "accepted, address 0x" + Long.toHexString(address) + ", rkey 0x" + Integer.toHexString(rkey));
        arena.close();
        System.out.println("[" + tb.provider().name() + "] arena.close(): the region is "
                + (mr.isClosed() ? "closed" : "still open"));
        try (Arena later = Arena.ofShared()) {
            List<MemorySegment> live = new ArrayList<>();
            for (int i = 0; i < LATER; i++) {
                live.add(later.allocate(SIZE, 64)); // zeroed
            }
            MemoryRegion src = tb.buffer(64);
            Data.fill(src, 0x5a);
            WcStatus status = p.write(1, src, 64, address, rkey).status();
            int changed = 0;
            String where = "";
            for (MemorySegment m : live) {
                for (long i = 0; i < SIZE; i++) {
                    if (m.get(ValueLayout.JAVA_BYTE, i) != 0) {
                        changed++;
                    }
                }
                if (m.address() <= address && address < m.address() + SIZE) {
                    where = " (a later allocation, 0x" + Long.toHexString(m.address()) + ", now lives at the freed"
                            + " address)";
                }
            }
            String seen = "a peer's RDMA WRITE of 64 bytes to 0x" + Long.toHexString(address) + " through rkey 0x"
                    + Integer.toHexString(rkey) + " after arena.close(): " + status + "; " + changed + " bytes of "
                    + LATER + " later allocations changed" + where;
            System.out.println("[" + tb.provider().name() + "] " + seen);
            fail("a plain registerMemory of a shared arena's memory was accepted, and " + seen);
        }
    }
}
