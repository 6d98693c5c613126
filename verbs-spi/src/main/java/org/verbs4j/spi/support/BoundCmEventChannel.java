package org.verbs4j.spi.support;

import java.util.concurrent.TimeUnit;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;

/**
 * An event channel of a {@link BoundConnectionManager}. A wait polls the channel's descriptor in slices of
 * at most {@value #SLICE_MS} ms outside the lock, so a close from another thread ends it within a slice; the
 * event is then taken under the lock, where the descriptor is checked again, so {@code rdma_get_cm_event}
 * never blocks.
 */
final class BoundCmEventChannel implements CmEventChannel {
    /** The longest single wait on the descriptor, milliseconds. */
    static final long SLICE_MS = 100;

    final BoundConnectionManager cm;
    final long handle;
    private final int fd;
    /** Open ids on the channel. Guarded by the cm lock. */
    int ids;
    private volatile boolean closed;

    BoundCmEventChannel(BoundConnectionManager cm, long handle) {
        this.cm = cm;
        this.handle = handle;
        this.fd = cm.binding.fd(handle);
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the event channel is closed");
        }
    }

    @Override
    public CmEvent getEvent() {
        checkOpen();
        return await(Long.MAX_VALUE);
    }

    @Override
    public CmEvent getEvent(long timeout, TimeUnit unit) {
        checkOpen();
        CmArguments.waitTimeout(timeout, unit);
        return await(unit.toNanos(timeout));
    }

    private CmEvent await(long nanos) {
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
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        cm.lock.lock();
        try {
            if (closed) {
                return;
            }
            if (ids > 0) {
                throw new VerbsException("rdma_destroy_event_channel", Errno.EBUSY,
                        ids + " id(s) still use the channel: close them first, as rdma_destroy_event_channel(3)"
                                + " requires");
            }
            cm.binding.destroyEventChannel(handle);
            closed = true;
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "CmEventChannel[fd " + fd + (closed ? ", closed" : ", " + ids + " ids") + "]";
    }
}
