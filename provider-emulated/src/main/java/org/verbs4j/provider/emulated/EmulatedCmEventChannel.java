package org.verbs4j.provider.emulated;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.spi.support.CmArguments;

/** An event channel of the emulated connection manager: a queue under the manager's lock. */
final class EmulatedCmEventChannel implements CmEventChannel {
    final EmulatedConnectionManager cm;
    private final ArrayDeque<EmulatedCmEvent> queue = new ArrayDeque<>();
    private final Condition arrived;
    /** Open ids on the channel. Guarded by the cm lock. */
    int ids;
    private volatile boolean closed;

    EmulatedCmEventChannel(EmulatedConnectionManager cm) {
        this.cm = cm;
        this.arrived = cm.lock.newCondition();
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the event channel is closed");
        }
    }

    /** Queues an event. Holds the cm lock. */
    void post(EmulatedCmEvent event) {
        if (!closed) {
            queue.addLast(event);
            arrived.signal();
        }
    }

    /** Moves the queued events of an id to another channel. Holds the cm lock. */
    void moveEvents(EmulatedCmId id, EmulatedCmEventChannel to) {
        for (Iterator<EmulatedCmEvent> it = queue.iterator(); it.hasNext(); ) {
            EmulatedCmEvent e = it.next();
            if (e.id == id) {
                it.remove();
                to.post(e);
            }
        }
    }

    /** Drops the queued events of an id that is being destroyed. Holds the cm lock. */
    void dropEvents(EmulatedCmId id) {
        queue.removeIf(e -> e.id == id);
    }

    @Override
    public CmEvent getEvent() {
        return await(Long.MAX_VALUE);
    }

    @Override
    public CmEvent getEvent(long timeout, TimeUnit unit) {
        checkOpen();
        CmArguments.waitTimeout(timeout, unit);
        return await(unit.toNanos(timeout));
    }

    private CmEvent await(long nanos) {
        cm.lock.lock();
        try {
            long left = nanos;
            while (true) {
                checkOpen();
                EmulatedCmEvent e = queue.pollFirst();
                if (e != null) {
                    e.taken = true;
                    e.id.unacked++;
                    return e;
                }
                if (left <= 0) {
                    return null;
                }
                left = left == Long.MAX_VALUE ? waitForever() : arrived.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException("rdma_get_cm_event", Errno.EINTR, "the waiting thread was interrupted");
        } finally {
            cm.lock.unlock();
        }
    }

    private long waitForever() throws InterruptedException {
        arrived.await();
        return Long.MAX_VALUE;
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
                        ids + " id(s) still use the channel: close them first");
            }
            closed = true;
            queue.clear();
            arrived.signalAll();
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "EmulatedCmEventChannel[" + (closed ? "closed" : ids + " ids") + "]";
    }
}
