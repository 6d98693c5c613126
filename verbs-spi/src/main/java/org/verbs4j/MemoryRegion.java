package org.verbs4j;

import java.lang.foreign.MemorySegment;

/**
 * A registered memory region, {@code struct ibv_mr}.
 *
 * <p>A region never outlives its memory. It keeps its segment reachable, and it is refused at registration
 * when the segment's arena is already closed. Memory of an arena that can be closed is registered with that
 * arena ({@link ProtectionDomain#registerMemory(MemorySegment, int, java.lang.foreign.Arena)}), and the region
 * closes itself when the arena closes, before the memory is freed (windows still bound to it are deallocated
 * first); {@link ProtectionDomain#registerMemory(MemorySegment, int)} takes only memory that is never freed,
 * of the global arena, and refuses the rest with {@link IllegalArgumentException}.
 *
 * <p>Like every {@link VerbsObject}, each method but {@link #isClosed()} and {@link #close()} throws
 * {@link IllegalStateException} once the region is closed.
 *
 * @see "ibv_reg_mr(3)"
 */
public interface MemoryRegion extends VerbsObject {
    /** {@return the protection domain the region is registered in} */
    ProtectionDomain pd();

    /** {@return the 32-bit local key, for SGEs} */
    int lkey();

    /** {@return the 32-bit remote key, for a peer's RDMA and atomics} */
    int rkey();

    /** {@return the region's first address: what a peer uses as {@code remote_addr}} */
    long address();

    /** {@return the region's length, bytes} */
    long length();

    /**
     * {@return the registered memory}
     *
     * @throws UnsupportedOperationException for a region of device memory
     *     ({@link ProtectionDomain#registerDeviceMemory}), which the host reaches through its {@link DeviceMemory}
     */
    MemorySegment segment();

    /** {@return the {@link AccessFlags} it was registered with} */
    int access();

    /**
     * Deregisters the region.
     *
     * @throws VerbsException while a memory window is bound to it: {@code EBUSY}, or {@code EINVAL} on
     *     devices that follow IBA 10.6.7.2.6 literally, rxe among them
     * @see "ibv_dereg_mr(3)"
     */
    @Override
    void close();
}
