package org.verbs4j.provider.nativecommon.internal;

import java.util.concurrent.TimeUnit;
import org.verbs4j.VerbsException;

/**
 * The libc calls of the native bindings: {@code calloc(3)}, {@code free(3)} and {@code poll(2)}. Control path.
 */
public interface CLibrary {
    /**
     * Allocates zeroed native memory, 8-byte aligned ({@code calloc(3)}).
     *
     * @param bytes its size, at least 1
     * @return its address
     * @throws OutOfMemoryError if the allocation fails
     */
    long allocate(long bytes);

    /**
     * Frees memory {@link #allocate} gave ({@code free(3)}).
     *
     * @param address its address
     */
    void free(long address);

    /**
     * Waits with {@code poll(2)} until a descriptor is readable.
     *
     * @param fd the descriptor
     * @param timeout the longest wait; 0 checks once
     * @param unit the unit of {@code timeout}
     * @param verb the verb waited for, for the exception's message
     * @return whether it became readable in time
     * @throws VerbsException if {@code poll} fails other than with {@code EINTR}
     */
    boolean awaitReadable(int fd, long timeout, TimeUnit unit, String verb);
}
