package org.verbs4j.provider.emulated;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

import org.verbs4j.AccessFlags;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.CmPortSpace;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QueuePair;
import org.verbs4j.VerbsException;
import org.verbs4j.spi.support.CmArguments;

/**
 * An id of the emulated connection manager: its addresses, its QP, its channel and its state, which follows
 * rdma_cm's. Connect, accept, reject and disconnect are {@link CmHandshake}'s, under the manager's lock.
 */
final class EmulatedCmId implements CmId {
    /** The one port of an emulated device. */
    private static final int PORT_NUM = 1;
    /** The REQ's timeout, in the IB CM reject reason of an id destroyed while its connect is pending. */
    private static final int REJECT_TIMEOUT = 4;
    /** The wildcard address an id binds to when it resolves an address that no device owns. */
    private static final InetAddress WILDCARD = new InetSocketAddress(0).getAddress();

    /** rdma_cm's id states, as far as the emulated provider needs them. */
    enum State {
        IDLE, BOUND, ADDR_QUERY, ADDR_RESOLVED, ROUTE_RESOLVED, LISTEN, CONNECT, REQ_RECEIVED, ESTABLISHED,
        DISCONNECT_SENT, DISCONNECT_RECEIVED, DISCONNECTED, DONE
    }

    // The fields are guarded by the connection manager's lock; CmHandshake changes them too.
    final EmulatedConnectionManager cm;
    final CmPortSpace portSpace;
    EmulatedCmEventChannel channel;
    State state = State.IDLE;
    EmulatedDevice device;
    private EmulatedContext context;
    InetSocketAddress local;
    InetSocketAddress remote;
    /** The port this id holds in the manager's table, or 0 (the new id of a request holds none). */
    private int boundPort;
    EmulatedQueuePair qp;
    /** The other end, from connect until the connection ends. */
    EmulatedCmId peer;
    /** This end's parameters, sent with its REQ or REP. */
    ConnectionParameters params;
    /** This end's first PSN. */
    final int psn = ThreadLocalRandom.current().nextInt(1 << 24);
    /** Events taken from the channel and not acknowledged. Guarded by the cm lock. */
    int unacked;
    private volatile boolean closed;

    EmulatedCmId(EmulatedConnectionManager cm, EmulatedCmEventChannel channel, CmPortSpace portSpace) {
        this.cm = cm;
        this.channel = channel;
        this.portSpace = portSpace;
        channel.ids++;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the CmId is closed");
        }
    }

    private static VerbsException invalid(String verb, String why) {
        return CmHandshake.invalid(verb, why);
    }

    private void lock() {
        cm.lock.lock();
        checkOpenLocked();
    }

    private void checkOpenLocked() {
        if (closed) {
            cm.lock.unlock();
            throw new IllegalStateException("the CmId is closed");
        }
    }

    // ---------------------------------------------------------------- getters

    @Override
    public CmEventChannel channel() {
        checkOpen();
        return channel;
    }

    @Override
    public CmPortSpace portSpace() {
        checkOpen();
        return portSpace;
    }

    @Override
    public Context context() {
        checkOpen();
        return context;
    }

    @Override
    public int portNum() {
        checkOpen();
        return device == null ? 0 : PORT_NUM;
    }

    @Override
    public InetSocketAddress localAddress() {
        checkOpen();
        return local;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        checkOpen();
        return remote;
    }

    @Override
    public QueuePair qp() {
        checkOpen();
        EmulatedQueuePair q = qp;
        return q == null || q.isClosed() ? null : q;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    boolean isListeningFor(EmulatedDevice d) {
        return state == State.LISTEN && (device == null || device == d);
    }

    // ---------------------------------------------------------------- addressing

    @Override
    public void bindAddr(InetSocketAddress address) {
        checkOpen();
        CmArguments.address(address, "address");
        lock();
        try {
            if (state != State.IDLE) {
                throw invalid("rdma_bind_addr", "the id is already bound (state " + state + ")");
            }
            bind(address, "rdma_bind_addr");
            state = State.BOUND;
        } finally {
            cm.lock.unlock();
        }
    }

    private void bind(InetSocketAddress address, String verb) {
        InetAddress ip = address.getAddress();
        EmulatedDevice d = EmulatedConnectionManager.deviceOf(ip);
        if (d == null) {
            throw new VerbsException(verb, Errno.EADDRNOTAVAIL, ip.getHostAddress()
                    + " is not an address of this host or of an emulated device");
        }
        int port = cm.bindPort(this, address.getPort());
        boundPort = port;
        local = new InetSocketAddress(ip, port);
        if (!ip.isAnyLocalAddress()) {
            attach(d);
        }
    }

    void attach(EmulatedDevice d) {
        device = d;
        context = cm.context(d);
    }

    @Override
    public void resolveAddr(InetSocketAddress src, InetSocketAddress dst, int timeoutMs) {
        checkOpen();
        CmArguments.resolveAddr(src, dst, timeoutMs);
        lock();
        try {
            if (state != State.IDLE && state != State.BOUND) {
                throw invalid("rdma_resolve_addr", "the id is " + state + "; addresses are resolved on a new or bound id");
            }
            EmulatedDevice d = EmulatedConnectionManager.deviceOf(dst.getAddress());
            if (state == State.IDLE) {
                bind(src != null ? src : new InetSocketAddress(d != null ? WireRoutes.source(d, dst.getAddress())
                        : WILDCARD, 0),
                        "rdma_resolve_addr");
                state = State.BOUND;
            }
            remote = dst;
            if (d == null) {
                state = State.ADDR_QUERY;
                cm.schedule(() -> {
                    if (!closed && state == State.ADDR_QUERY) {
                        state = State.BOUND;
                        channel.post(EmulatedCmEvent.of(CmEventType.ADDR_ERROR, -Errno.ETIMEDOUT, this));
                    }
                }, timeoutMs);
                return;
            }
            if (device != null && device != d) {
                throw invalid("rdma_resolve_addr", "the id is bound to " + device.name() + " but " + dst
                        + " is reached through " + d.name());
            }
            attach(d);
            state = State.ADDR_RESOLVED;
            channel.post(EmulatedCmEvent.of(CmEventType.ADDR_RESOLVED, 0, this));
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    public void resolveRoute(int timeoutMs) {
        checkOpen();
        CmArguments.timeoutMs(timeoutMs);
        lock();
        try {
            if (state != State.ADDR_RESOLVED) {
                throw invalid("rdma_resolve_route", "the address is not resolved (state " + state + ")");
            }
            state = State.ROUTE_RESOLVED;
            channel.post(EmulatedCmEvent.of(CmEventType.ROUTE_RESOLVED, 0, this));
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    public void listen(int backlog) {
        checkOpen();
        CmArguments.backlog(backlog);
        lock();
        try {
            if (state != State.BOUND) {
                throw invalid("rdma_listen", "the id must be bound and unused to listen (state " + state + ")");
            }
            state = State.LISTEN;
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    public void migrate(CmEventChannel to) {
        checkOpen();
        Objects.requireNonNull(to, "channel");
        EmulatedCmEventChannel target = cm.channel(to);
        lock();
        try {
            target.checkOpen();
            if (unacked > 0) {
                throw new VerbsException("rdma_migrate_id", Errno.EBUSY,
                        unacked + " event(s) of the id are not acknowledged");
            }
            if (target != channel) {
                channel.moveEvents(this, target);
                channel.ids--;
                target.ids++;
                channel = target;
            }
        } finally {
            cm.lock.unlock();
        }
    }

    // ---------------------------------------------------------------- QP

    @Override
    public QueuePair createQp(ProtectionDomain pd, QpInitAttributes attributes) {
        checkOpen();
        Objects.requireNonNull(pd, "pd");
        Objects.requireNonNull(attributes, "attributes");
        lock();
        try {
            if (context == null) {
                throw invalid("rdma_create_qp", "the id is not bound to a device yet: resolve an address first");
            }
            if (state == State.LISTEN) {
                throw invalid("rdma_create_qp", "a listening id has no QP; create it on the id of each request");
            }
            if (qp() != null) {
                throw invalid("rdma_create_qp", "the id already has a QP");
            }
            if (!(pd instanceof EmulatedProtectionDomain epd) || epd.context != context) {
                throw new IllegalArgumentException("pd: it is not a protection domain of the id's context");
            }
            if (pd.isClosed()) {
                throw new IllegalArgumentException("pd: it is closed");
            }
            if (attributes.type() != portSpace.qpType()) {
                throw invalid("rdma_create_qp", "a " + portSpace + " id takes " + portSpace.qpType() + " QPs, not "
                        + attributes.type());
            }
            EmulatedQueuePair q = (EmulatedQueuePair) pd.createQp(attributes);
            try {
                q.modify(QpAttributes.toInit(PORT_NUM, 0,
                        AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC));
            } catch (RuntimeException e) {
                q.close();
                throw e;
            }
            qp = q;
            return q;
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    public void destroyQp() {
        checkOpen();
        lock();
        try {
            EmulatedQueuePair q = qp;
            if (q != null) {
                q.close();
                qp = null;
            }
        } finally {
            cm.lock.unlock();
        }
    }

    // ---------------------------------------------------------------- connect, accept, reject, disconnect

    @Override
    public void connect(ConnectionParameters parameters) {
        checkOpen();
        CmArguments.connect(parameters, ConnectionParameters.MAX_CONNECT_PRIVATE_DATA);
        lock();
        try {
            CmHandshake.connect(this, parameters);
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    public void accept(ConnectionParameters parameters) {
        checkOpen();
        CmArguments.accept(parameters, ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA);
        lock();
        try {
            CmHandshake.accept(this, parameters);
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    public void reject(byte[] privateData) {
        checkOpen();
        CmArguments.reject(privateData, ConnectionParameters.MAX_REJECT_PRIVATE_DATA);
        lock();
        try {
            if (state != State.REQ_RECEIVED) {
                throw invalid("rdma_reject", "the id is not a connect request's, or it was answered (state "
                        + state + ")");
            }
            state = State.DONE;
            CmHandshake.reject(this, CmEvent.REJECT_CONSUMER_DEFINED, privateData);
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    public void disconnect() {
        checkOpen();
        lock();
        try {
            CmHandshake.disconnect(this);
        } finally {
            cm.lock.unlock();
        }
    }

    // ---------------------------------------------------------------- acknowledge and close

    /** Acknowledges an event of this id. */
    void ack(EmulatedCmEvent event) {
        cm.lock.lock();
        try {
            if (event.acknowledge() && event.taken) {
                unacked--;
            }
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    public void close() {
        cm.lock.lock();
        try {
            if (closed) {
                return;
            }
            if (qp() != null) {
                throw new VerbsException("rdma_destroy_id", Errno.EBUSY,
                        "the id still has its QP: destroyQp() first, as rdma_destroy_id(3) requires");
            }
            if (unacked > 0) {
                throw new VerbsException("rdma_destroy_id", Errno.EBUSY, unacked
                        + " event(s) of the id are not acknowledged: close them first, as rdma_destroy_id(3) requires");
            }
            switch (state) {
                case ESTABLISHED -> CmHandshake.sendDreq(this);
                case DISCONNECT_RECEIVED -> CmHandshake.sendDrep(this);
                case CONNECT -> CmHandshake.reject(this, REJECT_TIMEOUT, new byte[0]);
                case REQ_RECEIVED -> CmHandshake.reject(this, CmEvent.REJECT_CONSUMER_DEFINED, new byte[0]);
                default -> { }
            }
            closed = true;
            state = State.DONE;
            if (boundPort != 0) {
                cm.releasePort(this, boundPort);
            }
            channel.dropEvents(this);
            channel.ids--;
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "EmulatedCmId[" + portSpace + ", " + state + ", local " + local + ", remote " + remote + "]";
    }
}
