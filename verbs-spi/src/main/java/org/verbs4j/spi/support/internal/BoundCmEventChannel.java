package org.verbs4j.spi.support.internal;

import java.util.concurrent.TimeUnit;
import org.verbs4j.CmEvent;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.spi.support.AbstractCmEventChannel;

/**
 * An event channel of a {@link BoundConnectionManager}. A wait polls the channel's descriptor in slices of
 * at most {@value #SLICE_MS} ms outside the lock, so a close from another thread ends it within a slice; the
 * event is then taken under the lock, where the descriptor is checked again, so {@code rdma_get_cm_event}
 * never blocks.
 */
final class BoundCmEventChannel extends AbstractCmEventChannel {
    /** The longest single wait on the descriptor, milliseconds. */
    static final long SLICE_MS = 100;

    final BoundConnectionManager cm;
    final long handle;
    private final int fd;

    BoundCmEventChannel(BoundConnectionManager cm, long handle) {
        super(cm.lock);
        this.cm = cm;
        this.handle = handle;
        this.fd = cm.binding.fd(handle);
    }

    @Override
    protected CmEvent await(long nanos) {
        long deadline = System.nanoTime() + Math.min(nanos, Long.MAX_VALUE / 4);
        while (true) {
            CmEvent e = takeIfReady();
            if (e != null) {
                return e;
            }
            long left = deadline - System.nanoTime();
            if (nanos == 0 || left <= 0) {
                return null;
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new VerbsException("rdma_get_cm_event", Errno.EINTR, "the waiting thread was interrupted");
            }
            cm.binding.awaitReadable(fd, Math.min(left, TimeUnit.MILLISECONDS.toNanos(SLICE_MS)));
        }
    }

    /** Takes an event if one is queued, under the lock; null if none. */
    private CmEvent takeIfReady() {
        cm.lock.lock();
        try {
            checkOpen();
            while (cm.binding.awaitReadable(fd, 0)) {
                CmEvent e = BoundCmId.translate(cm, this, cm.binding.getEvent(handle));
                if (e != null) {
                    return e;
                }
            }
            return null;
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    protected void destroy() {
        cm.binding.destroyEventChannel(handle);
    }

    @Override
    public String toString() {
        return "CmEventChannel[fd " + fd + (isClosed() ? ", closed" : ", " + ids() + " ids") + "]";
    }
}
