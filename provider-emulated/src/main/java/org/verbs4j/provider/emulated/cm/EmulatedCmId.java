package org.verbs4j.provider.emulated.cm;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadLocalRandom;

import org.verbs4j.AccessFlags;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.CmPortSpace;
import org.verbs4j.CmUdParameters;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.MulticastJoinType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.emulated.verbs.EmulatedContext;
import org.verbs4j.provider.emulated.verbs.EmulatedDevice;
import org.verbs4j.provider.emulated.verbs.EmulatedProtectionDomain;
import org.verbs4j.provider.emulated.verbs.EmulatedQueuePair;
import org.verbs4j.spi.support.AbstractCmId;
import org.verbs4j.spi.support.CmArguments;

/**
 * An id of the emulated connection manager: its addresses, its QP, its channel and its state, which follows
 * rdma_cm's. Connect, accept, reject and disconnect check the state here, then go through the id's
 * {@link CmExchange}, chosen once when the id is attached to its device, under the manager's lock.
 */
public final class EmulatedCmId extends AbstractCmId<EmulatedCmEventChannel> {
    /** The one port of an emulated device. */
    private static final int PORT_NUM = 1;
    /** The wildcard address an id binds to when it resolves an address that no device owns. */
    private static final InetAddress WILDCARD = new InetSocketAddress(0).getAddress();

    /** rdma_cm's id states, as far as the emulated provider needs them. */
    enum State {
        IDLE, BOUND, ADDR_QUERY, ADDR_RESOLVED, ROUTE_RESOLVED, LISTEN, CONNECT, REQ_RECEIVED, ESTABLISHED,
        DISCONNECT_SENT, DISCONNECT_RECEIVED, DISCONNECTED, DONE
    }

    // The fields are guarded by the connection manager's lock; the CmExchange implementations change them too.
    final EmulatedConnectionManager cm;
    State state = State.IDLE;
    EmulatedDevice device;
    /** How the id's CM messages travel: its device's exchange, in-JVM until it is attached to a wire device. */
    private CmExchange exchange = InJvmCmExchange.INSTANCE;
    private EmulatedContext context;
    InetSocketAddress local;
    InetSocketAddress remote;
    /** The port this id holds in the manager's table, or 0 (the new id of a request holds none). */
    private int boundPort;
    /** The other end, from connect until the connection ends. */
    EmulatedCmId peer;
    /** This end's parameters, sent with its REQ or REP. */
    ConnectionParameters params;
    /** The type of service set ({@code RDMA_OPTION_ID_TOS}), or -1. */
    int tos = -1;
    /** The traffic class of the id's route: its TOS when the route was resolved, or the peer's from its REQ. */
    int routeTos;
    /** The local ACK timeout set ({@code RDMA_OPTION_ID_ACK_TIMEOUT}), or -1 for the CM's. */
    int ackTimeout = -1;
    /** {@code RDMA_OPTION_ID_REUSEADDR}: the port may be shared with other ids that set it. */
    boolean reuseAddr;
    /**
     * {@code RDMA_OPTION_ID_AFONLY}: the id's bind covers its address family only. Unless set, the bind makes it
     * true for IPv4 and false for IPv6 (the kernel's {@code cma_bind_addr}, with {@code bindv6only} 0).
     */
    boolean afOnly;
    /** Whether {@link #afOnly} was set by {@code rdma_set_option}. */
    private boolean afOnlySet;
    /** This end's first PSN. */
    final int psn = ThreadLocalRandom.current().nextInt(1 << 24);

    /** A new id, counted by its channel. Holds the cm lock. */
    EmulatedCmId(EmulatedConnectionManager cm, EmulatedCmEventChannel channel, CmPortSpace portSpace) {
        super(cm.lock, channel, portSpace);
        this.cm = cm;
    }

    /** {@return the channel the id's events go to} Holds the cm lock. */
    EmulatedCmEventChannel events() {
        return eventChannel();
    }

    /** {@return the id's QP as created, closed or not, or null} Holds the cm lock. */
    EmulatedQueuePair queuePair() {
        return (EmulatedQueuePair) ownQp();
    }

    /** An event of the id was taken from its channel. Holds the cm lock. */
    void taken() {
        eventTaken();
    }

    // ---------------------------------------------------------------- getters

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
        if (!afOnlySet) {
            afOnly = ip instanceof Inet4Address;
        }
        int port = cm.bindPort(this, address);
        boundPort = port;
        local = new InetSocketAddress(ip, port);
        if (!ip.isAnyLocalAddress()) {
            attach(d);
        }
    }

    /** Binds the id to its device, which decides how its CM messages travel. Holds the cm lock. */
    void attach(EmulatedDevice d) {
        device = d;
        context = cm.context(d);
        exchange = EmulatedDevices.cmExchange(d);
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
                    if (!isClosed() && state == State.ADDR_QUERY) {
                        state = State.BOUND;
                        events().post(EmulatedCmEvent.of(CmEventType.ADDR_ERROR, -Errno.ETIMEDOUT, this));
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
            events().post(EmulatedCmEvent.of(CmEventType.ADDR_RESOLVED, 0, this));
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
            routeTos = Math.max(0, tos);
            events().post(EmulatedCmEvent.of(CmEventType.ROUTE_RESOLVED, 0, this));
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    public void listen(int backlog) {
        checkOpen();
        checkConnected("rdma_listen");
        CmArguments.backlog(backlog);
        lock();
        try {
            if (state != State.BOUND) {
                throw invalid("rdma_listen", "the id must be bound and unused to listen (state " + state + ")");
            }
            if (reuseAddr) {
                // A listener shares its port with nobody: the kernel's rdma_listen checks the port as if this id
                // did not reuse it, then turns reuse off.
                cm.checkPort(this, local, false, "rdma_listen");
                reuseAddr = false;
            }
            state = State.LISTEN;
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    protected EmulatedCmEventChannel channelOf(CmEventChannel to) {
        return cm.channel(to);
    }

    @Override
    protected void onMigrate(EmulatedCmEventChannel from, EmulatedCmEventChannel to) {
        from.moveEvents(this, to);
    }

    // ---------------------------------------------------------------- QP

    @Override
    protected boolean isBoundToDevice() {
        return context != null;
    }

    @Override
    protected boolean isListening() {
        return state == State.LISTEN;
    }

    @Override
    protected boolean isOwnProtectionDomain(ProtectionDomain pd) {
        return pd instanceof EmulatedProtectionDomain epd && epd.context == context;
    }

    @Override
    protected QpAttributes qpInitState() {
        if (portSpace() == CmPortSpace.UDP) {
            return QpAttributes.toInitUd(PORT_NUM, 0, UDP_QKEY);
        }
        return QpAttributes.toInit(PORT_NUM, 0,
                AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC);
    }

    @Override
    protected void onSetOption(int optname, int value) {
        switch (optname) {
            case OPTION_TOS -> tos = value;
            case OPTION_REUSEADDR -> reuseAddr = value != 0;
            case OPTION_AFONLY -> {
                afOnly = value != 0;
                afOnlySet = true;
            }
            case OPTION_ACK_TIMEOUT -> ackTimeout = value;
            default -> throw new IllegalArgumentException("RDMA_OPTION_ID " + optname);
        }
    }

    // ---------------------------------------------------------------- multicast

    /**
     * Joins at once, as the kernel's CM does on RoCE (no SA to ask): the event gives an address vector to the
     * group's GID (IPv4-mapped, {@code ::ffff:a.b.c.d}, as {@code cma_iboe_set_mgid} makes it on RoCE v2), the
     * route of {@link CmTransitions#route} (hop limit 64, IPv6's default, as the kernel's CM gives on RoCE v2), with
     * QPN {@value CmId#MULTICAST_QPN} and the UDP Q_Key. An IPv6 group is {@code EOPNOTSUPP}, as the kernel refuses
     * it on RoCE v2.
     */
    @Override
    protected void onJoinMulticast(InetAddress group, long context, MulticastJoinType type) {
        if (!(group instanceof Inet4Address)) {
            throw new VerbsException("rdma_join_multicast", Errno.EOPNOTSUPP, "an emulated device is RoCE v2,"
                    + " whose multicast groups are IPv4 (the kernel's CM refuses IPv6 groups there): "
                    + group.getHostAddress());
        }
        CmUdParameters ud = new CmUdParameters(CmTransitions.route(Gid.ofIpv4(group.getAddress()), 0), MULTICAST_QPN,
                UDP_QKEY);
        events().post(EmulatedCmEvent.joined(this, group, ud));
    }

    @Override
    protected void onLeaveMulticast(InetAddress group) {
        events().dropEvents(this, group);
    }

    /**
     * The event to hand out for {@code e}, taken from the channel: a join's attaches the id's QP, and becomes
     * {@code MULTICAST_ERROR} if that fails. Holds the cm lock.
     */
    EmulatedCmEvent joinTaken(EmulatedCmEvent e) {
        if (e.type() != CmEventType.MULTICAST_JOIN) {
            return e;
        }
        int status = multicastJoined(e.multicastGroup(), e.udParameters().ahAttributes());
        return status == 0 ? e : EmulatedCmEvent.joinFailed(this, e.multicastGroup(), status);
    }

    // ---------------------------------------------------------------- connect, accept, reject, disconnect

    @Override
    protected void onConnect(ConnectionParameters parameters) {
        if (state != State.ROUTE_RESOLVED) {
            throw invalid("rdma_connect", "the route is not resolved (state " + state + ")");
        }
        if (qp() == null) {
            throw invalid("rdma_connect", "the id has no QP: create it with createQp first (connecting without"
                    + " a QP, as rdma_establish(3) allows, is not supported by the emulated provider)");
        }
        exchange.connect(this, parameters);
    }

    @Override
    protected void onAccept(ConnectionParameters parameters) {
        if (state != State.REQ_RECEIVED) {
            throw invalid("rdma_accept", "the id is not a connect request's, or it was answered (state "
                    + state + ")");
        }
        if (qp() == null) {
            throw invalid("rdma_accept", "the id has no QP: create it with createQp first");
        }
        exchange.accept(this, parameters);
    }

    @Override
    protected void onReject(byte[] privateData) {
        if (state != State.REQ_RECEIVED) {
            throw invalid("rdma_reject", "the id is not a connect request's, or it was answered (state "
                    + state + ")");
        }
        state = State.DONE;
        exchange.reject(this, CmEvent.REJECT_CONSUMER_DEFINED, privateData);
    }

    /** rdma_disconnect: this side's QP to ERR, then a DREQ (first to disconnect) or a DREP (second). */
    @Override
    protected void onDisconnect() {
        switch (state) {
            case ESTABLISHED -> {
                CmTransitions.toError(this);
                state = State.DISCONNECT_SENT;
                exchange.sendDreq(this);
            }
            case DISCONNECT_RECEIVED -> {
                CmTransitions.toError(this);
                state = State.DISCONNECTED;
                exchange.sendDrep(this);
            }
            default -> throw invalid("rdma_disconnect", "the id is not connected (state " + state + ")");
        }
    }

    // ---------------------------------------------------------------- acknowledge and close

    /** Acknowledges an event of this id. */
    void ack(EmulatedCmEvent event) {
        cm.lock.lock();
        try {
            if (event.acknowledge() && event.taken) {
                eventAcknowledged();
            }
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    protected void onClose() {
        switch (state) {
            case ESTABLISHED -> exchange.sendDreq(this);
            case DISCONNECT_RECEIVED -> exchange.sendDrep(this);
            case CONNECT -> exchange.reject(this, CmEvent.REJECT_TIMEOUT, new byte[0]);
            case REQ_RECEIVED -> exchange.reject(this, CmEvent.REJECT_CONSUMER_DEFINED, new byte[0]);
            default -> { }
        }
        state = State.DONE;
        if (boundPort != 0) {
            cm.releasePort(this, boundPort);
        }
        events().dropEvents(this);
    }

    @Override
    public String toString() {
        return "EmulatedCmId[" + (isClosed() ? "closed" : portSpace()) + ", " + state + ", local " + local + ", remote " + remote + "]";
    }
}
