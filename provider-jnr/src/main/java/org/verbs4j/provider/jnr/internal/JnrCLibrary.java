package org.verbs4j.provider.jnr.internal;

import java.util.concurrent.TimeUnit;
import org.verbs4j.provider.nativecommon.internal.CLibrary;
import org.verbs4j.provider.nativecommon.internal.PosixStructs;

/**
 * {@link CLibrary} through JNR-FFI: {@code calloc} and {@code free} of {@link NativeMemory}, {@code poll} of
 * {@link Fds}.
 */
interface JnrCLibrary extends CLibrary {
    /** {@return libibverbs and libc, loaded} */
    NativeLibraries libs();

    @Override
    default long allocate(long bytes) {
        return NativeMemory.allocate(bytes);
    }

    @Override
    default void free(long address) {
        NativeMemory.free(address);
    }

    @Override
    default boolean awaitReadable(int fd, long timeout, TimeUnit unit, String verb) {
        long pollfd = NativeMemory.allocate(PosixStructs.pollfd.SIZEOF);
        try {
            return Fds.awaitReadable(libs(), pollfd, fd, timeout, unit);
        } finally {
            NativeMemory.free(pollfd);
        }
    }
}
