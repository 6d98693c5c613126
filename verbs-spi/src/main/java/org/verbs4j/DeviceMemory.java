package org.verbs4j;

import java.lang.foreign.MemorySegment;

/**
 * Device memory, {@code struct ibv_dm}: a buffer in the device's own memory, which the host reaches only by copying
 * ({@link #copyToDm}, {@link #copyFromDm}) and a peer reaches through a zero-based region
 * ({@link ProtectionDomain#registerDeviceMemory}). Offsets are bytes from the buffer's start.
 *
 * <p>A copy moves bytes between a {@link MemorySegment} of the caller's (native or heap) and the device through
 * memory the provider owns, so that no arena the caller closes during the copy can make the library read or write
 * freed memory: the segment is checked and read (or written) by Java's own bounds and liveness checks.
 *
 * <p>Like every {@link VerbsObject}, each method but {@link #isClosed()} and {@link #close()} throws
 * {@link IllegalStateException} once the buffer is freed.
 *
 * @see "ibv_alloc_dm(3)"
 * @see "ibv_memcpy_to_dm(3)"
 * @see "ibv_memcpy_from_dm(3)"
 */
public interface DeviceMemory extends VerbsObject {
    /** {@return the context the buffer was allocated on} */
    Context context();

    /** {@return the buffer's length, bytes, as allocated} */
    long length();

    /**
     * Copies all of {@code source} into the buffer at {@code dmOffset} ({@code ibv_memcpy_to_dm}).
     *
     * @param dmOffset where the copy starts in the buffer, bytes
     * @param source the bytes to copy, native or heap
     * @throws NullPointerException if {@code source} is null
     * @throws IllegalArgumentException if {@code dmOffset} is negative or the copy would end past {@link #length()};
     *     nothing is copied
     * @throws IllegalStateException if {@code source}'s arena is closed
     * @throws VerbsException with the errno the device answers, such as {@code EINVAL} for an offset or length it
     *     cannot address (mlx5 copies whole 4-byte words)
     * @see "ibv_memcpy_to_dm(3)"
     */
    void copyToDm(long dmOffset, MemorySegment source);

    /**
     * Copies {@code destination.byteSize()} bytes of the buffer from {@code dmOffset} into {@code destination}
     * ({@code ibv_memcpy_from_dm}).
     *
     * @param dmOffset where the copy starts in the buffer, bytes
     * @param destination where the bytes go, native or heap, not read-only
     * @throws NullPointerException if {@code destination} is null
     * @throws IllegalArgumentException if {@code dmOffset} is negative, the copy would end past {@link #length()},
     *     or {@code destination} is read-only; nothing is copied
     * @throws IllegalStateException if {@code destination}'s arena is closed
     * @throws VerbsException with the errno the device answers
     * @see "ibv_memcpy_from_dm(3)"
     */
    void copyFromDm(long dmOffset, MemorySegment destination);

    /**
     * Frees the buffer.
     *
     * @throws VerbsException {@code EBUSY} while a region registered on it ({@link
     *     ProtectionDomain#registerDeviceMemory}) is open: a region never outlives its memory
     * @see "ibv_free_dm(3)"
     */
    @Override
    void close();
}
