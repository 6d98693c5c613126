package org.verbs4j.provider.jnr.internal;

import jnr.ffi.annotations.SaveError;

/** The C library functions the provider needs to wait on verbs file descriptors with a timeout. */
public interface LibC {
    /**
     * Waits for events on {@code nfds} {@code struct pollfd}s at {@code fds}.
     *
     * @param timeoutMillis milliseconds, -1 for ever
     * @see "poll(2)"
     */
    @SaveError
    int poll(long fds, long nfds, int timeoutMillis);
}
