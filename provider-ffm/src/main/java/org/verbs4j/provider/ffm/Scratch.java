package org.verbs4j.provider.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;

/**
 * The native scratch memory of one verbs object (WR arrays, SGE lists, completion arrays), reused for
 * every call. Freed when the object closes; the {@link Cleaner} frees it if the object is dropped
 * without being closed. No native code keeps a pointer into it once a call has returned.
 */
final class Scratch {
    private final Arena arena = Arena.ofShared();
    private final Cleaner.Cleanable cleanable;

    Scratch(Object owner) {
        Arena a = arena;
        this.cleanable = FfmContext.CLEANER.register(owner, a::close);
    }

    /** Zeroed memory of {@code bytes} bytes, 8-byte aligned (at least 8 bytes). */
    MemorySegment allocate(long bytes) {
        return arena.allocate(Math.max(8, bytes), 8);
    }

    void free() {
        cleanable.clean();
    }
}
