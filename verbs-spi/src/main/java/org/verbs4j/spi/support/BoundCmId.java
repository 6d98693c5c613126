package org.verbs4j.spi.support;

import java.net.InetSocketAddress;
import java.util.Objects;
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
import org.verbs4j.QpState;
import org.verbs4j.QueuePair;
import org.verbs4j.VerbsException;

/**
 * An id of a {@link BoundConnectionManager}: a native {@code struct rdma_cm_id} with the state librdmacm does
 * not keep for a QP the application manages. Every method runs under the manager's lock.
 */
final class BoundCmId implements CmId {
    /** {@code RDMA_MAX_RESP_RES}/{@code RDMA_MAX_INIT_DEPTH}: librdmacm leaves the CM's value in place. */
    private static final int CM_DEFAULT = 0xff;
    private static final int REMOTE_ACCESS = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;

    private final BoundConnectionManager cm;
    private final CmPortSpace portSpace;
    final long handle;
    /** The new id of a connect request, not yet accepted or rejected. */
    private boolean requestPending;
    BoundCmEventChannel channel;
    private QueuePair qp;
    private boolean listening;
    /** This end's connect parameters: their RDMA READ depths go into the QP at the connect response. */
    private ConnectionParameters connectParameters;
    /** ESTABLISHED was taken from the channel. */
    private boolean connected;
    /** disconnect() was called on this id. */
    private boolean disconnectedHere;
    /** Events of (or about) the id taken and not acknowledged. */
    int unacked;
    private volatile boolean closed;

    BoundCmId(BoundConnectionManager cm, BoundCmEventChannel channel, CmPortSpace portSpace, long handle,
              boolean request) {
        this.cm = cm;
        this.channel = channel;
        this.portSpace = portSpace;
        this.handle = handle;
        this.requestPending = request;
    }

    private void lock() {
        cm.lock.lock();
        if (closed) {
            cm.lock.unlock();
            throw new IllegalStateException("the CmId is closed");
        }
    }

    private void unlock() {
        cm.lock.unlock();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the CmId is closed");
        }
    }

    private static VerbsException invalid(String verb, String why) {
        return new VerbsException(verb, Errno.EINVAL, why);
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
        lock();
        try {
            Context[] c = contexts();
            return c == null ? null : c[1];
        } finally {
            unlock();
        }
    }

    /** {real, handed out} for the id's device, or null before it is bound to one. Holds the lock. */
    private Context[] contexts() {
        String device = cm.binding.deviceName(handle);
        return device == null ? null : cm.context(device);
    }

    @Override
    public int portNum() {
        lock();
        try {
            return cm.binding.deviceName(handle) == null ? 0 : cm.binding.portNum(handle);
        } finally {
            unlock();
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        lock();
        try {
            return cm.binding.localAddress(handle);
        } finally {
            unlock();
        }
    }

    @Override
    public InetSocketAddress remoteAddress() {
        lock();
        try {
            return cm.binding.remoteAddress(handle);
        } finally {
            unlock();
        }
    }

    @Override
    public QueuePair qp() {
        checkOpen();
        QueuePair q = qp;
        return q == null || q.isClosed() ? null : q;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    // ---------------------------------------------------------------- addressing

    @Override
    public void bindAddr(InetSocketAddress address) {
        checkOpen();
        CmArguments.address(address, "address");
        lock();
        try {
            cm.binding.bindAddr(handle, address);
        } finally {
            unlock();
        }
    }

    @Override
    public void resolveAddr(InetSocketAddress src, InetSocketAddress dst, int timeoutMs) {
        checkOpen();
        CmArguments.resolveAddr(src, dst, timeoutMs);
        lock();
        try {
            if (listening) {
                throw invalid("rdma_resolve_addr", "the id is listening");
            }
            cm.binding.resolveAddr(handle, src, dst, timeoutMs);
        } finally {
            unlock();
        }
    }

    @Override
    public void resolveRoute(int timeoutMs) {
        checkOpen();
        CmArguments.timeoutMs(timeoutMs);
        lock();
        try {
            cm.binding.resolveRoute(handle, timeoutMs);
        } finally {
            unlock();
        }
    }

    @Override
    public void listen(int backlog) {
        checkOpen();
        CmArguments.backlog(backlog);
        lock();
        try {
            if (cm.binding.localAddress(handle) == null) {
                throw invalid("rdma_listen", "the id is not bound: bindAddr first");
            }
            cm.binding.listen(handle, backlog);
            listening = true;
        } finally {
            unlock();
        }
    }

    @Override
    public void migrate(CmEventChannel to) {
        checkOpen();
        Objects.requireNonNull(to, "channel");
        BoundCmEventChannel target = cm.channel(to);
        lock();
        try {
            target.checkOpen();
            if (unacked > 0) {
                throw new VerbsException("rdma_migrate_id", Errno.EBUSY,
                        unacked + " event(s) of the id are not acknowledged");
            }
            if (target != channel) {
                cm.binding.migrate(handle, target.handle);
                channel.ids--;
                target.ids++;
                channel = target;
            }
        } finally {
            unlock();
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
            Context[] ctx = contexts();
            if (ctx == null) {
                throw invalid("rdma_create_qp", "the id is not bound to a device yet: resolve an address first");
            }
            if (listening) {
                throw invalid("rdma_create_qp", "a listening id has no QP; create it on the id of each request");
            }
            if (qp() != null) {
                throw invalid("rdma_create_qp", "the id already has a QP");
            }
            if (pd.isClosed()) {
                throw new IllegalArgumentException("pd: it is closed");
            }
            if (pd.context() != ctx[0] && pd.context() != ctx[1]) {
                throw new IllegalArgumentException("pd: it is not a protection domain of the id's context");
            }
            if (attributes.type() != portSpace.qpType()) {
                throw invalid("rdma_create_qp", "a " + portSpace + " id takes " + portSpace.qpType() + " QPs, not "
                        + attributes.type());
            }
            QueuePair q = pd.createQp(attributes);
            try {
                q.modify(cm.binding.initQpAttr(handle, QpState.INIT).accessFlags(REMOTE_ACCESS));
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
    public void destroyQp() {
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

    /**
     * Moves the QP to RTS with the connection manager's attributes, as librdmacm's {@code ucma_modify_qp_rtr}
     * and {@code ucma_modify_qp_rts} do: INIT again (the CM's values replace the defaults), RTR, RTS, with the
     * local RDMA READ depths where they are not librdmacm's "leave it" value.
     */
    private void toRts(QueuePair q, int responderResources, int initiatorDepth) {
        q.modify(cm.binding.initQpAttr(handle, QpState.INIT));
        QpAttributes rtr = cm.binding.initQpAttr(handle, QpState.RTR);
        if (responderResources != CM_DEFAULT) {
            rtr.maxDestRdAtomic(responderResources);
        }
        q.modify(rtr);
        QpAttributes rts = cm.binding.initQpAttr(handle, QpState.RTS);
        if (initiatorDepth != CM_DEFAULT) {
            rts.maxRdAtomic(initiatorDepth);
        }
        q.modify(rts);
    }

    private static void toErr(QueuePair q) {
        if (q != null && !q.isClosed() && q.state() != QpState.ERR && q.state() != QpState.RESET) {
            q.modify(QpAttributes.toState(QpState.ERR));
        }
    }

    // ---------------------------------------------------------------- connect, accept, reject, disconnect

    @Override
    public void connect(ConnectionParameters parameters) {
        checkOpen();
        CmArguments.connect(parameters, ConnectionParameters.MAX_CONNECT_PRIVATE_DATA);
        lock();
        try {
            QueuePair q = qp();
            if (q == null) {
                throw invalid("rdma_connect", "the id has no QP: createQp first");
            }
            cm.binding.connect(handle, parameters, q.qpNum(), q.initAttributes().srq() != null);
            connectParameters = parameters;
        } finally {
            unlock();
        }
    }

    @Override
    public void accept(ConnectionParameters parameters) {
        checkOpen();
        CmArguments.accept(parameters, ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA);
        lock();
        try {
            if (!requestPending) {
                throw invalid("rdma_accept", "the id is not a connect request's, or it was answered");
            }
            QueuePair q = qp();
            if (q == null) {
                throw invalid("rdma_accept", "the id has no QP: createQp first");
            }
            toRts(q, parameters.responderResources(), parameters.initiatorDepth());
            cm.binding.accept(handle, parameters, q.qpNum(), q.initAttributes().srq() != null);
            requestPending = false;
        } finally {
            unlock();
        }
    }

    @Override
    public void reject(byte[] privateData) {
        checkOpen();
        CmArguments.reject(privateData, ConnectionParameters.MAX_REJECT_PRIVATE_DATA);
        lock();
        try {
            if (!requestPending) {
                throw invalid("rdma_reject", "the id is not a connect request's, or it was answered");
            }
            cm.binding.reject(handle, privateData);
            requestPending = false;
        } finally {
            unlock();
        }
    }

    @Override
    public void disconnect() {
        lock();
        try {
            if (!connected) {
                throw invalid("rdma_disconnect", "the id is not connected");
            }
            if (disconnectedHere) {
                throw invalid("rdma_disconnect", "the id was already disconnected from this side");
            }
            toErr(qp());
            cm.binding.disconnect(handle);
            disconnectedHere = true;
        } finally {
            unlock();
        }
    }

    // ---------------------------------------------------------------- events

    /**
     * Turns an event taken from a channel into the application's: a new id for a connect request, the
     * active side's QP moved to RTS at the connect response (then ESTABLISHED), the QP moved to ERR on a
     * reject. Holds the lock.
     *
     * @return the event, or null for one of an id no longer known (it was acknowledged)
     */
    static CmEvent translate(BoundConnectionManager cm, BoundCmEventChannel channel, CmBinding.RawEvent raw) {
        CmEventType type = CmEventType.of(raw.type());
        int status = raw.status();
        BoundCmId listenId = null;
        BoundCmId id;
        if (type == CmEventType.CONNECT_REQUEST) {
            listenId = cm.ids.get(raw.listenId());
            id = cm.register(new BoundCmId(cm, channel, listenId != null ? listenId.portSpace : CmPortSpace.TCP,
                    raw.id(), true));
        } else {
            id = cm.ids.get(raw.id());
        }
        if (id == null) {
            cm.binding.ackEvent(raw.event());
            return null;
        }
        switch (type) {
            case CONNECT_RESPONSE -> {
                QueuePair q = id.qp();
                if (q != null) {
                    status = id.establish(q);
                    type = status == 0 ? CmEventType.ESTABLISHED : CmEventType.CONNECT_ERROR;
                }
            }
            case ESTABLISHED -> id.connected = true;
            case REJECTED -> toErr(id.qp());
            default -> { }
        }
        id.unacked++;
        if (listenId != null) {
            listenId.unacked++;
        }
        return new BoundCmEvent(cm, raw.event(), type, status, id, listenId, raw);
    }

    /** The active side's half of a connect response; 0, or the negative errno it failed with (QP in ERR). */
    private int establish(QueuePair q) {
        ConnectionParameters p = connectParameters;
        try {
            toRts(q, p.responderResources(), p.initiatorDepth());
            cm.binding.establish(handle);
            connected = true;
            return 0;
        } catch (VerbsException e) {
            try {
                toErr(q);
                cm.binding.reject(handle, new byte[0]);
            } catch (RuntimeException again) {
                e.addSuppressed(again);
            }
            return -e.errno();
        }
    }

    // ---------------------------------------------------------------- close

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
            cm.binding.destroyId(handle);
            closed = true;
            cm.ids.remove(handle);
            channel.ids--;
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "CmId[" + portSpace + (closed ? ", closed" : "") + "]";
    }
}
