package org.verbs4j.provider.ffm.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.ffm.internal.Structs.pollfd;
import org.verbs4j.spi.support.Arguments;

/** Waits for a libibverbs event descriptor (completion channel, async events) with {@code poll(2)}. */
public final class Poller {
    private static final short POLLIN = 1;

    private Poller() {}

    /**
     * Whether {@code fd} became readable within the timeout; 0 checks once without waiting.
     *
     * @throws IllegalArgumentException if timeout is negative
     */
    public static boolean awaitReadable(int fd, long timeout, TimeUnit unit, String verb) {
        Arguments.timeout(timeout, unit);
        long nanos = unit.toNanos(timeout);
        long deadline = System.nanoTime() + nanos;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(pollfd.LAYOUT);
            while (true) {
                long left = deadline - System.nanoTime();
                int millis = nanos == 0 || left <= 0 ? 0 : (int) Math.max(1, Math.min(Integer.MAX_VALUE,
                        TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
                pollfd.fd$vh.set(p, 0L, fd);
                pollfd.events$vh.set(p, 0L, POLLIN);
                pollfd.revents$vh.set(p, 0L, (short) 0);
                int rc = Ibverbs.poll(p, 1, millis);
                if (rc > 0) {
                    return true;
                }
                if (rc < 0) {
                    int errno = Ibverbs.errno();
                    if (errno != Errno.EINTR) {
                        throw new VerbsException(verb, errno, "poll(2) on fd " + fd);
                    }
                }
                if (millis == 0 || System.nanoTime() - deadline >= 0) {
                    return false;
                }
            }
        }
    }
}
