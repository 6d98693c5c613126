package org.verbs4j.provider.emulated.cm;

import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.locks.Condition;

import org.verbs4j.CmEvent;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.spi.support.AbstractCmEventChannel;

/** An event channel of the emulated connection manager: a queue under the manager's lock. */
public final class EmulatedCmEventChannel extends AbstractCmEventChannel {
    final EmulatedConnectionManager cm;
    private final ArrayDeque<EmulatedCmEvent> queue = new ArrayDeque<>();
    private final Condition arrived;

    EmulatedCmEventChannel(EmulatedConnectionManager cm) {
        super(cm.lock);
        this.cm = cm;
        this.arrived = cm.lock.newCondition();
    }

    /** Queues an event. Holds the cm lock. */
    void post(EmulatedCmEvent event) {
        if (!isClosed()) {
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

    /** Drops the queued events of an id's multicast group, which it leaves. Holds the cm lock. */
    void dropEvents(EmulatedCmId id, InetAddress group) {
        queue.removeIf(e -> e.id == id && group.equals(e.multicastGroup()));
    }

    /** Drops the queued events of an id that is being destroyed. Holds the cm lock. */
    void dropEvents(EmulatedCmId id) {
        queue.removeIf(e -> e.id == id);
    }

    @Override
    protected CmEvent await(long nanos) {
        cm.lock.lock();
        try {
            long left = nanos;
            while (true) {
                checkOpen();
                EmulatedCmEvent e = queue.pollFirst();
                if (e != null) {
                    e = e.id.joinTaken(e);
                    e.taken = true;
                    e.id.taken();
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
    protected void destroy() {
        queue.clear();
        arrived.signalAll();
    }

    @Override
    public String toString() {
        return "EmulatedCmEventChannel[" + (isClosed() ? "closed" : ids() + " ids") + "]";
    }
}
