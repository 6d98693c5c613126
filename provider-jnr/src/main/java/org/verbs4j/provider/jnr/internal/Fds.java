package org.verbs4j.provider.jnr.internal;

import java.util.concurrent.TimeUnit;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.nativecommon.internal.PosixStructs;

/** Waiting on the file descriptors of completion channels and async events, with a timeout. */
public final class Fds {
    private static final short POLLIN = 1;

    private Fds() {}

    /**
     * Waits until {@code fd} is readable or the timeout passes.
     *
     * @param pollfd {@code sizeof(struct pollfd)} bytes of scratch memory for one {@code struct pollfd}
     * @return whether it is readable
     * @see "poll(2)"
     */
    public static boolean awaitReadable(NativeLibraries libs, long pollfd, int fd, long timeout, TimeUnit unit) {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            long left = deadline - System.nanoTime();
            int ms = left <= 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(left + 999_999));
            NativeMemory.putInt(pollfd + PosixStructs.pollfd.fd$off, fd);
            NativeMemory.putShort(pollfd + PosixStructs.pollfd.events$off, POLLIN);
            NativeMemory.putShort(pollfd + PosixStructs.pollfd.revents$off, 0);
            int n = libs.libc().poll(pollfd, 1, ms);
            if (n > 0) {
                return true;
            }
            if (n == 0) {
                if (System.nanoTime() - deadline >= 0) {
                    return false;
                }
                continue;
            }
            int errno = libs.lastErrno();
            if (errno != Errno.EINTR) {
                throw new VerbsException("poll", errno, "fd " + fd);
            }
        }
    }
}
