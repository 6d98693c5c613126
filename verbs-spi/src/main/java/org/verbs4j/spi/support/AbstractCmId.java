package org.verbs4j.spi.support;

import java.net.InetAddress;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.verbs4j.AhAttributes;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmId;
import org.verbs4j.CmPortSpace;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Errno;
import org.verbs4j.MulticastJoinType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.VerbsException;

/**
 * What every provider's {@link CmId} shares: its channel, port space, QP, count of unacknowledged events and
 * closed flag; the checked getters; the argument checks and locking of every call; {@code createQp} and
 * {@code destroyQp}; {@code migrate}; the multicast groups joined, with the attach of the QP when a join
 * completes; and {@code close} with its {@code EBUSY} rules. A provider implements
 * the addressing, the connection steps and what its connection manager does to destroy an id, in the
 * {@code on...} methods, which run under the connection manager's lock on an open id.
 *
 * <p>After {@link #close()} every method but {@link #isClosed()} and {@link #close()} throws
 * {@link IllegalStateException}, from any thread: a closed id touches no native memory.
 *
 * @param <C> the provider's event channel
 * @see "rdma_cm(7)"
 */
public abstract class AbstractCmId<C extends AbstractCmEventChannel> implements CmId {
    /** The connection manager's lock: it guards every id, channel and event of the manager. */
    protected final ReentrantLock lock;
    private final CmPortSpace portSpace;
    private C channel;
    private QueuePair qp;
    /** Events of (or about) the id taken and not acknowledged. Guarded by {@link #lock}. */
    private int unacked;
    /** The multicast groups joined and not left. Guarded by {@link #lock}. */
    private final CmJoins joins = new CmJoins();
    private volatile boolean closed;

    /**
     * An id on a channel, which counts it until the id is closed. Holds the lock.
     *
     * @param lock the lock of its connection manager
     * @param channel the channel its events go to
     * @param portSpace its port space
     */
    protected AbstractCmId(ReentrantLock lock, C channel, CmPortSpace portSpace) {
        this.lock = Objects.requireNonNull(lock, "lock");
        this.channel = Objects.requireNonNull(channel, "channel");
        this.portSpace = Objects.requireNonNull(portSpace, "portSpace");
        channel.idAdded();
    }

    /**
     * Throws if the id is closed.
     *
     * @throws IllegalStateException if it is
     */
    protected final void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the CmId is closed");
        }
    }

    /**
     * Takes the lock of an open id.
     *
     * @throws IllegalStateException if the id is closed (the lock is not held then)
     */
    protected final void lock() {
        lock.lock();
        if (closed) {
            lock.unlock();
            throw new IllegalStateException("the CmId is closed");
        }
    }

    /** Releases the lock. */
    protected final void unlock() {
        lock.unlock();
    }

    /**
     * The {@code EINVAL} of a call made in a state where rdma_cm refuses it.
     *
     * @param verb the librdmacm call
     * @param why what is wrong
     * @return the exception
     */
    protected static VerbsException invalid(String verb, String why) {
        return new VerbsException(verb, Errno.EINVAL, why);
    }

    // ---------------------------------------------------------------- state for the provider

    /** {@return the channel the id's events go to, unchecked} Holds the lock, or reads it once for a post. */
    protected final C eventChannel() {
        return channel;
    }

    /** {@return the id's QP as it was created, closed or not, or null} Holds the lock. */
    protected final QueuePair ownQp() {
        return qp;
    }

    /** An event of the id was taken from its channel. Holds the lock. */
    protected final void eventTaken() {
        unacked++;
    }

    /** An event of the id that was taken is acknowledged. Holds the lock. */
    protected final void eventAcknowledged() {
        unacked--;
    }

    // ---------------------------------------------------------------- getters

    @Override
    public final CmEventChannel channel() {
        checkOpen();
        return channel;
    }

    @Override
    public final CmPortSpace portSpace() {
        checkOpen();
        return portSpace;
    }

    @Override
    public final QueuePair qp() {
        checkOpen();
        QueuePair q = qp;
        return q == null || q.isClosed() ? null : q;
    }

    @Override
    public final boolean isClosed() {
        return closed;
    }

    // ---------------------------------------------------------------- QP

    /** {@return whether the id is bound to a device, so a QP can be made on it} Holds the lock. */
    protected abstract boolean isBoundToDevice();

    /** {@return whether the id listens, so it takes no QP} Holds the lock. */
    protected abstract boolean isListening();

    /**
     * {@return whether {@code pd} is a protection domain of the id's device context} Holds the lock.
     *
     * @param pd an open protection domain
     */
    protected abstract boolean isOwnProtectionDomain(ProtectionDomain pd);

    /** {@return the attributes that move a new QP of the id to INIT} Holds the lock. */
    protected abstract QpAttributes qpInitState();

    @Override
    public final QueuePair createQp(ProtectionDomain pd, QpInitAttributes attributes) {
        checkOpen();
        Objects.requireNonNull(pd, "pd");
        Objects.requireNonNull(attributes, "attributes");
        lock();
        try {
            if (!isBoundToDevice()) {
                throw invalid("rdma_create_qp", "the id is not bound to a device yet: resolve an address first");
            }
            if (isListening()) {
                throw invalid("rdma_create_qp", "a listening id has no QP; create it on the id of each request");
            }
            if (qp() != null) {
                throw invalid("rdma_create_qp", "the id already has a QP");
            }
            if (pd.isClosed()) {
                throw new IllegalArgumentException("pd: it is closed");
            }
            if (!isOwnProtectionDomain(pd)) {
                throw new IllegalArgumentException("pd: it is not a protection domain of the id's context");
            }
            if (attributes.type() != portSpace.qpType()) {
                throw invalid("rdma_create_qp", "a " + portSpace + " id takes " + portSpace.qpType() + " QPs, not "
                        + attributes.type());
            }
            QueuePair q = pd.createQp(attributes);
            try {
                q.modify(qpInitState());
                if (portSpace.qpType() == QpType.UD) {
                    // librdmacm's rdma_create_qp takes a UD QP on to RTS (ucma_init_ud_qp): it sends at once.
                    q.modify(QpAttributes.toState(QpState.RTR));
                    q.modify(QpAttributes.toRtsUnreliable(0));
                }
            } catch (RuntimeException e) {
                q.close();
                throw e;
            }
            qp = q;
            return q;
        } finally {
            unlock();
        }
    }

    @Override
    public final void destroyQp() {
        lock();
        try {
            QueuePair q = qp;
            if (q != null) {
                q.close();
                qp = null;
            }
        } finally {
            unlock();
        }
    }

    // ---------------------------------------------------------------- connection steps

    /**
     * Sends the connect request; the parameters are checked. Holds the lock.
     *
     * @param parameters the connect parameters
     */
    protected abstract void onConnect(ConnectionParameters parameters);

    /**
     * Accepts the request; the parameters are checked. Holds the lock.
     *
     * @param parameters the accept parameters
     */
    protected abstract void onAccept(ConnectionParameters parameters);

    /**
     * Rejects the request; the private data is checked. Holds the lock.
     *
     * @param privateData the private data for the peer
     */
    protected abstract void onReject(byte[] privateData);

    /** Disconnects. Holds the lock. */
    protected abstract void onDisconnect();

    /**
     * Refuses a connection step on an id whose port space is not connected: a UDP id's connect, listen or
     * accept would be SIDR, which verbs4j does not support.
     *
     * @param verb the librdmacm call
     * @throws VerbsException {@code EOPNOTSUPP} on a UDP (or IPoIB) id
     */
    protected final void checkConnected(String verb) {
        if (portSpace.qpType() == QpType.UD) {
            throw new VerbsException(verb, Errno.EOPNOTSUPP, "a " + portSpace + " id resolves service IDs (SIDR),"
                    + " which verbs4j does not support; UDP ids join multicast groups (joinMulticast)");
        }
    }

    @Override
    public final void connect(ConnectionParameters parameters) {
        checkOpen();
        checkConnected("rdma_connect");
        CmArguments.connect(parameters, ConnectionParameters.MAX_CONNECT_PRIVATE_DATA);
        lock();
        try {
            onConnect(parameters);
        } finally {
            unlock();
        }
    }

    @Override
    public final void accept(ConnectionParameters parameters) {
        checkOpen();
        checkConnected("rdma_accept");
        CmArguments.accept(parameters, ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA);
        lock();
        try {
            onAccept(parameters);
        } finally {
            unlock();
        }
    }

    @Override
    public final void reject(byte[] privateData) {
        checkOpen();
        CmArguments.reject(privateData, ConnectionParameters.MAX_REJECT_PRIVATE_DATA);
        lock();
        try {
            onReject(privateData);
        } finally {
            unlock();
        }
    }

    @Override
    public final void disconnect() {
        lock();
        try {
            onDisconnect();
        } finally {
            unlock();
        }
    }

    // ---------------------------------------------------------------- options

    /** {@code RDMA_OPTION_ID_TOS}: the type of service, 8 bits, applied when the route is resolved. */
    protected static final int OPTION_TOS = 0;
    /** {@code RDMA_OPTION_ID_REUSEADDR}: whether the id's port may be shared, 0 or 1. */
    protected static final int OPTION_REUSEADDR = 1;
    /** {@code RDMA_OPTION_ID_AFONLY}: whether an IPv6 wildcard leaves the IPv4 port free, 0 or 1. */
    protected static final int OPTION_AFONLY = 2;
    /** {@code RDMA_OPTION_ID_ACK_TIMEOUT}: the QP's local ACK timeout, 5 bits. */
    protected static final int OPTION_ACK_TIMEOUT = 3;

    /**
     * Sets an option of level {@code RDMA_OPTION_ID}, checked. Holds the lock.
     *
     * @param optname one of the {@code OPTION_} constants
     * @param value its value
     */
    protected abstract void onSetOption(int optname, int value);

    @Override
    public final void setTos(int tos) {
        checkOpen();
        if (tos < 0 || tos > 0xff) {
            throw new IllegalArgumentException("tos is 8 bits (0..255): " + tos);
        }
        lock();
        try {
            onSetOption(OPTION_TOS, tos);
        } finally {
            unlock();
        }
    }

    @Override
    public final void setReuseAddress(boolean reuse) {
        checkOpen();
        lock();
        try {
            // The kernel's rdma_set_reuseaddr: any change on a new id, then only turning it on, never once listening.
            boolean fresh = localAddress() == null;
            if (!fresh && (!reuse || isListening())) {
                throw invalid("rdma_set_option", "RDMA_OPTION_ID_REUSEADDR " + (reuse ? "on" : "off") + ": "
                        + (reuse ? "the id listens" : "the id is bound; only turning it on is allowed after the bind"));
            }
            onSetOption(OPTION_REUSEADDR, reuse ? 1 : 0);
        } finally {
            unlock();
        }
    }

    @Override
    public final void setAfOnly(boolean afOnly) {
        checkOpen();
        lock();
        try {
            // The kernel's rdma_set_afonly: in RDMA_CM_IDLE or RDMA_CM_ADDR_BOUND only.
            if (localAddress() != null && (remoteAddress() != null || isListening())) {
                throw invalid("rdma_set_option", "RDMA_OPTION_ID_AFONLY: the id is past its bind (it listens, or"
                        + " has a destination)");
            }
            onSetOption(OPTION_AFONLY, afOnly ? 1 : 0);
        } finally {
            unlock();
        }
    }

    @Override
    public final void setAckTimeout(int timeout) {
        checkOpen();
        if (timeout < 0 || timeout > 31) {
            throw new IllegalArgumentException("timeout is the QP's 5-bit local ACK timeout (0..31): " + timeout);
        }
        lock();
        try {
            if (portSpace.qpType() != QpType.RC) {
                throw invalid("rdma_set_option", "RDMA_OPTION_ID_ACK_TIMEOUT: a " + portSpace + " id has "
                        + portSpace.qpType() + " QPs, which do not retransmit; the kernel takes it for RC only");
            }
            onSetOption(OPTION_ACK_TIMEOUT, timeout);
        } finally {
            unlock();
        }
    }

    // ---------------------------------------------------------------- multicast

    /**
     * Starts the join of a multicast group in the connection manager: its result is an event of type
     * {@code MULTICAST_JOIN} or {@code MULTICAST_ERROR} that carries {@code context}. The id is a UDP id bound to a
     * device, and has not joined the group. Holds the lock.
     *
     * @param group the group's address, a multicast address
     * @param context the join's context, for {@link #joinedGroup}
     * @param type how to join
     */
    protected abstract void onJoinMulticast(InetAddress group, long context, MulticastJoinType type);

    /**
     * Leaves a group in the connection manager, and drops its events not yet taken; the QP is detached already.
     * Holds the lock.
     *
     * @param group the group's address
     */
    protected abstract void onLeaveMulticast(InetAddress group);

    @Override
    public final void joinMulticast(InetAddress group) {
        joinMulticast(group, MulticastJoinType.FULL_MEMBER);
    }

    @Override
    public final void joinMulticast(InetAddress group, MulticastJoinType type) {
        checkOpen();
        CmArguments.multicastGroup(group);
        Objects.requireNonNull(type, "type");
        lock();
        try {
            if (portSpace.qpType() != QpType.UD) {
                throw invalid("rdma_join_multicast", "a " + portSpace + " id has a " + portSpace.qpType()
                        + " QP; only UD QPs join multicast groups: create the id in CmPortSpace.UDP");
            }
            if (!isBoundToDevice()) {
                throw invalid("rdma_join_multicast", "the id is not bound to a device yet: bind it to a device's"
                        + " address or resolve an address first");
            }
            long context = joins.next(group);
            onJoinMulticast(group, context, type);
            joins.add(group, context, type == MulticastJoinType.SENDONLY_FULL_MEMBER);
        } finally {
            unlock();
        }
    }

    /**
     * {@return the group of a join this id started and has not left, by its context; null for a group left since}
     * Holds the lock.
     *
     * @param context the join's context, as given to {@link #onJoinMulticast}
     */
    protected final InetAddress joinedGroup(long context) {
        return joins.group(context);
    }

    /**
     * A join event of the id is being taken from its channel: attaches the id's QP, if it has one and the join is
     * not send-only, to the group's (MGID, MLID) from the event's address vector, as librdmacm's
     * {@code ucma_process_join} does. Holds the lock.
     *
     * @param group the group joined, from {@link #joinedGroup}
     * @param ah the event's address vector: its DGID is the group's MGID, its DLID the MLID
     * @return 0, or the negative errno of {@code ibv_attach_mcast}, which makes the event a {@code MULTICAST_ERROR}
     */
    protected final int multicastJoined(InetAddress group, AhAttributes ah) {
        return joins.attach(group, qp(), ah);
    }

    @Override
    public final void leaveMulticast(InetAddress group) {
        checkOpen();
        Objects.requireNonNull(group, "group");
        lock();
        try {
            if (joins.contains(group) && unacked > 0) {
                throw new VerbsException("rdma_leave_multicast", Errno.EBUSY, unacked + " event(s) of the id are"
                        + " not acknowledged: close them first (librdmacm waits for them)");
            }
            joins.leave(group, qp());
            onLeaveMulticast(group);
        } finally {
            unlock();
        }
    }

    // ---------------------------------------------------------------- migrate and close

    /**
     * {@return the provider's channel behind {@code channel}}
     *
     * @param channel a channel
     * @throws IllegalArgumentException if it belongs to another connection manager
     */
    protected abstract C channelOf(CmEventChannel channel);

    /**
     * Moves the id to another channel in the connection manager, with the events queued for it but not taken.
     * Holds the lock.
     *
     * @param from the id's channel
     * @param to the new channel, open
     */
    protected abstract void onMigrate(C from, C to);

    @Override
    public final void migrate(CmEventChannel to) {
        checkOpen();
        Objects.requireNonNull(to, "channel");
        C target = channelOf(to);
        lock();
        try {
            target.checkOpen();
            if (unacked > 0) {
                throw new VerbsException("rdma_migrate_id", Errno.EBUSY,
                        unacked + " event(s) of the id are not acknowledged");
            }
            if (target != channel) {
                onMigrate(channel, target);
                channel.idRemoved();
                target.idAdded();
                channel = target;
            }
        } finally {
            unlock();
        }
    }

    /**
     * Destroys the id in the connection manager, once it has no QP and no unacknowledged event; a connected
     * id is disconnected. Holds the lock. If it throws, the id stays open.
     */
    protected abstract void onClose();

    @Override
    public final void close() {
        lock.lock();
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
            onClose();
            joins.clear();
            closed = true;
            channel.idRemoved();
        } finally {
            lock.unlock();
        }
    }
}
