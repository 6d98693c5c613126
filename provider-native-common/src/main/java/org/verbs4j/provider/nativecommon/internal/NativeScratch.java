package org.verbs4j.provider.nativecommon.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;

/**
 * The native scratch memory of one verbs object (WR and SGE arrays, {@code bad_wr} words), allocated once and
 * reused for every call. Freed by {@link #free()} after the object's destroy verb; the {@link Cleaner} frees it
 * if the object is dropped unclosed. No native code keeps a pointer into it once a call has returned. The
 * shared code passes its addresses to the binding, so no call acquires the arena.
 */
public final class NativeScratch {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Arena arena = Arena.ofShared();
    private final Cleaner.Cleanable cleanable;

    /**
     * Opens the scratch memory of {@code owner}.
     *
     * @param owner the object whose memory it is; when it becomes unreachable, the memory is freed
     */
    public NativeScratch(Object owner) {
        Arena a = arena;
        this.cleanable = CLEANER.register(owner, a::close);
    }

    /**
     * Allocates zeroed memory, 8-byte aligned.
     *
     * @param bytes its size (at least 8 bytes are given)
     * @return the memory
     */
    public MemorySegment allocate(long bytes) {
        return arena.allocate(Math.max(8, bytes), 8);
    }

    /** Frees every allocation; a second call does nothing. */
    public void free() {
        cleanable.clean();
    }
}
