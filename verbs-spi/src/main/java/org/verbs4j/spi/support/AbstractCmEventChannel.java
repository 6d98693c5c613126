package org.verbs4j.spi.support;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;

/**
 * What every provider's {@link CmEventChannel} shares: the closed flag, the count of ids on the channel, the
 * argument checks of a wait, and {@link #close()} with its {@code EBUSY} while an id uses the channel. A
 * provider implements the wait ({@link #await(long)}) and the release of its resources ({@link #destroy()}).
 *
 * <p>Every id, channel and event of one connection manager is guarded by one lock, the manager's, which the
 * channel is given; the id count changes only under it.
 *
 * @see "rdma_create_event_channel(3)"
 * @see "rdma_destroy_event_channel(3)"
 */
public abstract class AbstractCmEventChannel implements CmEventChannel {
    /** The connection manager's lock. */
    protected final ReentrantLock lock;
    /** Open ids on the channel. Guarded by {@link #lock}. */
    private int ids;
    private volatile boolean closed;

    /**
     * A channel.
     *
     * @param lock the lock of its connection manager
     */
    protected AbstractCmEventChannel(ReentrantLock lock) {
        this.lock = Objects.requireNonNull(lock, "lock");
    }

    /**
     * Throws if the channel is closed.
     *
     * @throws IllegalStateException if it is
     */
    public final void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the event channel is closed");
        }
    }

    /** {@return how many open ids use the channel} Holds the lock. */
    protected final int ids() {
        return ids;
    }

    /** An id now uses the channel. Holds the lock. */
    final void idAdded() {
        ids++;
    }

    /** An id no longer uses the channel. Holds the lock. */
    final void idRemoved() {
        ids--;
    }

    @Override
    public final CmEvent getEvent() {
        checkOpen();
        return await(Long.MAX_VALUE);
    }

    @Override
    public final CmEvent getEvent(long timeout, TimeUnit unit) {
        checkOpen();
        CmArguments.waitTimeout(timeout, unit);
        return await(unit.toNanos(timeout));
    }

    /**
     * Waits for the next event and takes it.
     *
     * @param nanos the longest wait, nanoseconds; {@link Long#MAX_VALUE} for no limit, 0 to return at once
     * @return the event, or null if none came in time
     * @throws IllegalStateException if the channel is closed before or during the wait
     * @throws VerbsException {@code EINTR} if the waiting thread is interrupted
     */
    protected abstract CmEvent await(long nanos);

    /**
     * Releases the channel's resources, under the lock, once no id uses it. If it throws, the channel stays
     * open. A waiter must see the channel closed once it holds the lock again.
     */
    protected abstract void destroy();

    @Override
    public final boolean isClosed() {
        return closed;
    }

    @Override
    public final void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (ids > 0) {
                throw new VerbsException("rdma_destroy_event_channel", Errno.EBUSY,
                        ids + " id(s) still use the channel: close them first, as rdma_destroy_event_channel(3)"
                                + " requires");
            }
            destroy();
            closed = true;
        } finally {
            lock.unlock();
        }
    }
}
