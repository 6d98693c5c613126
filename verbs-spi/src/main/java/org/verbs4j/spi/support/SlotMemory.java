package org.verbs4j.spi.support;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;

/**
 * Native memory that a provider's {@link org.verbs4j.PreparedSends} keeps its WR slots in, written by the
 * setters and read by the provider library during a post. It is one segment of a shared arena: a store after
 * {@link #close()}, even one racing it from another thread, throws {@link IllegalStateException} instead of
 * writing freed memory (closing a shared arena waits for the accesses in flight). The library reads it by
 * address, which the arena does not see: the provider closes it only under the lock its posts hold. Dropped
 * unclosed, it is freed once its owner is collected.
 */
public final class SlotMemory {
    private static final Cleaner CLEANER = Cleaner.create();

    private final MemorySegment segment;
    private final Cleaner.Cleanable cleanable;

    /**
     * Allocates zeroed memory, 8-byte aligned.
     *
     * @param owner the object whose memory it is; when it becomes unreachable, the memory is freed
     * @param bytes the size in bytes, at least 1
     */
    public SlotMemory(Object owner, long bytes) {
        Arena arena = Arena.ofShared();
        this.segment = arena.allocate(bytes, 8);
        this.cleanable = CLEANER.register(owner, arena::close);
    }

    /** {@return the address of the first byte} */
    public long address() {
        return segment.address();
    }

    /**
     * Stores 8 bytes, native order. Offsets are not checked for alignment (the aligned layouts would add that
     * check to every store); a provider's offsets are aligned by construction.
     *
     * @param offset the offset in bytes, within the memory
     * @param value the value
     * @throws IndexOutOfBoundsException if the 8 bytes are outside the memory
     * @throws IllegalStateException after {@link #close()}
     */
    public void putLong(long offset, long value) {
        segment.set(JAVA_LONG_UNALIGNED, offset, value);
    }

    /**
     * Stores 4 bytes, native order.
     *
     * @param offset the offset in bytes, within the memory
     * @param value the value
     * @throws IndexOutOfBoundsException if the 4 bytes are outside the memory
     * @throws IllegalStateException after {@link #close()}
     */
    public void putInt(long offset, int value) {
        segment.set(JAVA_INT_UNALIGNED, offset, value);
    }

    /** Frees the memory; a second call does nothing. The caller holds the lock of the posts that read it. */
    public void close() {
        cleanable.clean();
    }
}
