package org.verbs4j.provider.emulated;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.verbs4j.AsyncEvent;
import org.verbs4j.Capabilities;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.PortAttributes;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.ThreadDomain;
import org.verbs4j.VerbsException;

/**
 * An open emulated device. It records every object created from it, so that {@link #close()} can release
 * them all, and queues the asynchronous events of its objects.
 */
final class EmulatedContext implements Context {
    final EmulatedDevice device;
    /** Guards object creation and destruction in this context. */
    final Object lock = new Object();
    private final List<EmulatedObject> objects = new ArrayList<>();
    private final LinkedBlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>();
    private volatile boolean closed;
    /** Whether the connection manager owns it: ids share it, so the application may not close it. */
    private final boolean cmOwned;

    EmulatedContext(EmulatedDevice device) {
        this(device, false);
    }

    EmulatedContext(EmulatedDevice device, boolean cmOwned) {
        this.device = device;
        this.cmOwned = cmOwned;
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the context of " + device.name() + " is closed");
        }
    }

    /** Records a new object; refused once the context is closed. */
    <T extends EmulatedObject> T register(T object) {
        synchronized (lock) {
            checkOpen();
            objects.add(object);
            return object;
        }
    }

    void forget(EmulatedObject object) {
        synchronized (lock) {
            objects.remove(object);
        }
    }

    void postEvent(AsyncEvent event) {
        if (!closed) {
            events.add(event);
        }
    }

    @Override
    public Device device() {
        checkOpen();
        return device;
    }

    @Override
    public DeviceAttributes queryDevice() {
        checkOpen();
        return device.attributes();
    }

    @Override
    public PortAttributes queryPort(int portNum) {
        checkOpen();
        checkPort(portNum);
        return device.port();
    }

    static void checkPort(int portNum) {
        if (portNum != 1) {
            throw new IllegalArgumentException("an emulated device has one port, port 1, not port " + portNum);
        }
    }

    @Override
    public Gid queryGid(int portNum, int index) {
        checkOpen();
        checkPort(portNum);
        if (index < 0 || index >= EmulatedDevice.GID_TABLE_LENGTH) {
            throw new IllegalArgumentException("GID index " + index + " is outside the table of "
                    + EmulatedDevice.GID_TABLE_LENGTH + " entries");
        }
        return device.gid(index);
    }

    @Override
    public Capabilities capabilities() {
        checkOpen();
        return device.capabilities();
    }

    @Override
    public ProtectionDomain allocPd() {
        checkOpen();
        return register(new EmulatedProtectionDomain(this));
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        checkOpen();
        return register(new EmulatedCompletionChannel(this));
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
        checkOpen();
        if (cqe < 1) {
            throw new IllegalArgumentException("a CQ needs at least 1 entry, not " + cqe);
        }
        EmulatedCompletionChannel ch = null;
        if (channel != null) {
            if (!(channel instanceof EmulatedCompletionChannel c) || c.context != this) {
                throw new IllegalArgumentException("the completion channel belongs to another context");
            }
            c.checkOpen();
            ch = c;
        }
        if (compVector != 0) {
            throw new IllegalArgumentException("an emulated device has one completion vector, 0, not " + compVector);
        }
        if (cqe > EmulatedDevice.MAX_CQE) {
            throw new VerbsException("ibv_create_cq", Errno.EINVAL,
                    "cqe " + cqe + " exceeds max_cqe " + EmulatedDevice.MAX_CQE);
        }
        return register(new EmulatedCompletionQueue(this, cqe, ch));
    }

    @Override
    public ThreadDomain allocTd() {
        checkOpen();
        return register(new EmulatedThreadDomain(this));
    }

    @Override
    public AsyncEvent pollAsyncEvent(long timeout, TimeUnit unit) {
        checkOpen();
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout cannot be negative: " + timeout);
        }
        try {
            return timeout == 0 ? events.poll() : events.poll(timeout, unit);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (cmOwned) {
            throw new IllegalStateException("the context of " + device.name() + " belongs to the connection manager"
                    + " and is shared by its ids (rdma_cm's id->verbs): close the objects made from it, not the context");
        }
        List<EmulatedQueuePair> qps = new ArrayList<>();
        synchronized (lock) {
            if (closed) {
                return;
            }
            for (EmulatedObject o : objects) {
                if (o instanceof EmulatedQueuePair qp) {
                    qps.add(qp);
                }
            }
        }
        // Open WR sessions end first, outside the context's lock: their owners may need the context meanwhile.
        int held = 0;
        try {
            for (EmulatedQueuePair qp : qps) {
                qp.awaitSessionForClose();
                held++;
            }
            synchronized (lock) {
                if (closed) {
                    return;
                }
                // Newest first: every object is younger than the objects it depends on.
                for (int i = objects.size() - 1; i >= 0; i--) {
                    objects.get(i).forceClose();
                }
                objects.clear();
                closed = true;
                events.clear();
            }
        } finally {
            for (int i = 0; i < held; i++) {
                qps.get(i).endSessionClose();
            }
        }
    }

    @Override
    public String toString() {
        return "EmulatedContext[" + device.name() + (closed ? ", closed]" : "]");
    }
}
