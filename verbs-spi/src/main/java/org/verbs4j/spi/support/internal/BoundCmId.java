package org.verbs4j.spi.support.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.verbs4j.AccessFlags;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmEventType;
import org.verbs4j.CmPortSpace;
import org.verbs4j.CmUdParameters;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Context;
import org.verbs4j.MulticastJoinType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.VerbsException;
import org.verbs4j.spi.support.AbstractCmId;
import org.verbs4j.spi.support.CmArguments;

/**
 * An id of a {@link BoundConnectionManager}: a native {@code struct rdma_cm_id} with the state librdmacm does
 * not keep for a QP the application manages. Every method runs under the manager's lock.
 */
final class BoundCmId extends AbstractCmId<BoundCmEventChannel> {
    /** {@code RDMA_MAX_RESP_RES}/{@code RDMA_MAX_INIT_DEPTH}: librdmacm leaves the CM's value in place. */
    private static final int CM_DEFAULT = 0xff;
    private static final int REMOTE_ACCESS = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;

    private final BoundConnectionManager cm;
    final long handle;
    /** The new id of a connect request, not yet accepted or rejected. */
    private boolean requestPending;
    private boolean listening;
    /** This end's connect parameters: their RDMA READ depths go into the QP at the connect response. */
    private ConnectionParameters connectParameters;
    /** ESTABLISHED was taken from the channel. */
    private boolean connected;
    /** disconnect() was called on this id. */
    private boolean disconnectedHere;

    /** A new id, counted by its channel. Holds the manager's lock. */
    BoundCmId(BoundConnectionManager cm, BoundCmEventChannel channel, CmPortSpace portSpace, long handle,
              boolean request) {
        super(cm.lock, channel, portSpace);
        this.cm = cm;
        this.handle = handle;
        this.requestPending = request;
    }

    // ---------------------------------------------------------------- getters

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
        checkConnected("rdma_listen");
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
    protected BoundCmEventChannel channelOf(CmEventChannel to) {
        return cm.channel(to);
    }

    @Override
    protected void onMigrate(BoundCmEventChannel from, BoundCmEventChannel to) {
        cm.binding.migrate(handle, to.handle);
    }

    // ---------------------------------------------------------------- QP

    @Override
    protected boolean isBoundToDevice() {
        return contexts() != null;
    }

    @Override
    protected boolean isListening() {
        return listening;
    }

    @Override
    protected boolean isOwnProtectionDomain(ProtectionDomain pd) {
        Context[] ctx = contexts();
        return pd.context() == ctx[0] || pd.context() == ctx[1];
    }

    @Override
    protected QpAttributes qpInitState() {
        QpAttributes init = cm.binding.initQpAttr(handle, QpState.INIT);
        // A UD QP's INIT takes the Q_Key rdma_init_qp_attr gives, and no access flags.
        return portSpace().qpType() == QpType.UD ? init : init.accessFlags(REMOTE_ACCESS);
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
    protected void onConnect(ConnectionParameters parameters) {
        QueuePair q = qp();
        if (q == null) {
            throw invalid("rdma_connect", "the id has no QP: createQp first");
        }
        cm.binding.connect(handle, parameters, q.qpNum(), q.initAttributes().srq() != null);
        connectParameters = parameters;
    }

    @Override
    protected void onAccept(ConnectionParameters parameters) {
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
    }

    @Override
    protected void onReject(byte[] privateData) {
        if (!requestPending) {
            throw invalid("rdma_reject", "the id is not a connect request's, or it was answered");
        }
        cm.binding.reject(handle, privateData);
        requestPending = false;
    }

    @Override
    protected void onDisconnect() {
        if (!connected) {
            throw invalid("rdma_disconnect", "the id is not connected");
        }
        if (disconnectedHere) {
            throw invalid("rdma_disconnect", "the id was already disconnected from this side");
        }
        toErr(qp());
        cm.binding.disconnect(handle);
        disconnectedHere = true;
    }

    @Override
    protected void onSetOption(int optname, int value) {
        cm.binding.setOption(handle, optname, value);
    }

    // ---------------------------------------------------------------- multicast

    @Override
    protected void onJoinMulticast(InetAddress group, long context, MulticastJoinType type) {
        cm.binding.joinMulticast(handle, group, context, type.value());
    }

    @Override
    protected void onLeaveMulticast(InetAddress group) {
        cm.binding.leaveMulticast(handle, group);
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
            id = cm.register(new BoundCmId(cm, channel,
                    listenId != null ? listenId.portSpace() : CmPortSpace.TCP, raw.id(), true));
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
        InetAddress group = null;
        CmUdParameters ud = null;
        if (type == CmEventType.MULTICAST_JOIN || type == CmEventType.MULTICAST_ERROR) {
            group = id.joinedGroup(raw.udContext());
            if (type == CmEventType.MULTICAST_JOIN && raw.ud() != null) {
                ud = raw.ud();
                int attached = group == null ? 0 : id.multicastJoined(group, ud.ahAttributes());
                if (attached != 0) {
                    type = CmEventType.MULTICAST_ERROR;
                    status = attached;
                    ud = null;
                }
            }
        }
        id.eventTaken();
        if (listenId != null) {
            listenId.eventTaken();
        }
        return new BoundCmEvent(cm, raw.event(), type, status, id, listenId, raw, ud, group);
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
    protected void onClose() {
        cm.binding.destroyId(handle);
        cm.ids.remove(handle);
    }

    @Override
    public String toString() {
        return "CmId[" + (isClosed() ? "closed" : portSpace()) + "]";
    }

    /** An event of this id that was taken is acknowledged, for {@link BoundCmEvent}. Holds the lock. */
    void acknowledged() {
        eventAcknowledged();
    }
}
