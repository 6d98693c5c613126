package org.verbs4j;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.verbs4j.spi.support.RegionLifetime;

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

    /**
     * {@return the region's first address: what a peer uses as {@code remote_addr}; 0 for a region registered
     * {@link AccessFlags#ZERO_BASED}, whose addresses are offsets (its I/O virtual address,
     * {@code ibv_reg_mr_iova(3)}), else the address of its memory}
     */
    long address();

    /** {@return the region's length, bytes} */
    long length();

    /**
     * {@return the registered memory}
     *
     * @throws UnsupportedOperationException for a region of device memory
     *     ({@link ProtectionDomain#registerDeviceMemory}), which the host reaches through its {@link DeviceMemory},
     *     or of a dma-buf ({@link ProtectionDomain#registerDmabuf})
     */
    MemorySegment segment();

    /** {@return the {@link AccessFlags} it was registered with} */
    int access();

    /**
     * Re-registers the region in place, as a deregistration followed by a registration would
     * ({@code ibv_rereg_mr}): {@code flags} says what changes, and the other arguments are read only for it. After
     * it returns, every getter answers the new values; the keys may have changed (read {@link #lkey()} and
     * {@link #rkey()} again), and WRs still using the old ones may fail. A new segment follows
     * {@link ProtectionDomain#registerMemory(MemorySegment, int)}'s rule: memory that is never freed; memory of an
     * arena that can be closed goes through {@link #reregister(int, ProtectionDomain, MemorySegment, int, Arena)}.
     * A region with memory windows bound to it, or without host memory (of device memory or a dma-buf), cannot be
     * re-registered.
     *
     * <p>When the device fails a change of translation, the region is deregistered, since the device may then name
     * either memory: the exception says so, and the region is closed. Other failures leave it as it was.
     *
     * @param flags {@link ReregFlags} bits, at least one
     * @param pd with {@link ReregFlags#CHANGE_PD}, the new protection domain, of this region's context
     * @param segment with {@link ReregFlags#CHANGE_TRANSLATION}, the new memory
     * @param access with {@link ReregFlags#CHANGE_ACCESS}, the new {@link AccessFlags}
     * @throws NullPointerException if {@code pd} or {@code segment} is needed and null
     * @throws IllegalArgumentException for flags 0 or beyond {@link ReregFlags#ALL}, a closed {@code pd} or one of
     *     another context, a segment {@link ProtectionDomain#registerMemory(MemorySegment, int)} refuses, unknown
     *     access bits, or a region of device memory or a dma-buf
     * @throws IllegalStateException if the region is closed, or the new segment's arena is
     * @throws VerbsException {@code EBUSY} while a memory window is bound to the region; {@code EOPNOTSUPP} if the
     *     device cannot re-register (rxe, {@link Capabilities#reregMr()}); or the errno of the device's answer
     * @see "ibv_rereg_mr(3)"
     */
    void reregister(int flags, ProtectionDomain pd, MemorySegment segment, int access);

    /**
     * {@link #reregister(int, ProtectionDomain, MemorySegment, int)} onto memory of {@code owner}: the region is
     * closed before {@code owner} frees it. The region also still closes when the arena of its earlier memory
     * closes, if it was registered with one.
     *
     * @param flags {@link ReregFlags} bits, {@link ReregFlags#CHANGE_TRANSLATION} among them
     * @param pd with {@link ReregFlags#CHANGE_PD}, the new protection domain
     * @param segment the new memory, allocated from {@code owner}
     * @param access with {@link ReregFlags#CHANGE_ACCESS}, the new {@link AccessFlags}
     * @param owner the arena that frees {@code segment}
     * @throws NullPointerException if {@code segment} or {@code owner} is null
     * @throws IllegalArgumentException if {@code flags} lacks {@link ReregFlags#CHANGE_TRANSLATION}, if
     *     {@code segment} is not of {@code owner}, or as the plain re-registration
     * @throws IllegalStateException if the region or {@code owner} is closed, or {@code owner} is confined to another
     *     thread
     * @throws VerbsException as the plain re-registration
     * @see "ibv_rereg_mr(3)"
     */
    default void reregister(int flags, ProtectionDomain pd, MemorySegment segment, int access, Arena owner) {
        RegionLifetime.reowned(this, flags, pd, segment, access, owner);
    }

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
