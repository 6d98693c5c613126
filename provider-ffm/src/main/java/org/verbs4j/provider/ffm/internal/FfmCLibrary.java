package org.verbs4j.provider.ffm.internal;

import java.util.concurrent.TimeUnit;
import org.verbs4j.provider.nativecommon.internal.CLibrary;

/**
 * {@link CLibrary} through FFM: {@code calloc} and {@code free} of {@link Ibverbs}, {@code poll} of
 * {@link Poller}.
 */
interface FfmCLibrary extends CLibrary {
    @Override
    default long allocate(long bytes) {
        long address = Ibverbs.calloc(bytes);
        if (address == 0) {
            throw new OutOfMemoryError("calloc of " + bytes + " bytes failed");
        }
        return address;
    }

    @Override
    default void free(long address) {
        Ibverbs.free(address);
    }

    @Override
    default boolean awaitReadable(int fd, long timeout, TimeUnit unit, String verb) {
        return Poller.awaitReadable(fd, timeout, unit, verb);
    }
}
