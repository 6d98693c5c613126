package org.verbs4j.provider.emulated;

import java.net.InetSocketAddress;
import java.util.Arrays;

import org.verbs4j.AhAttributes;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventType;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.Mtu;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpState;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.emulated.EmulatedCmId.State;

/**
 * The IB CM's exchange between two emulated ids, reduced to what each message does: REQ (connect), REP and
 * RTU (accept), REJ (reject, or no listener), DREQ and DREP (disconnect). Both ends change in one step under
 * the connection manager's lock, with the events each message raises and the QP transitions librdmacm makes.
 * Every method holds that lock. An id on a wire device connects through its device's {@link CmAgent} instead, in IB
 * CM messages to a peer in another process (or this one), with the same states and events.
 */
final class CmHandshake {
    private static final int GID_INDEX = 1;
    private static final int PORT_NUM = 1;
    /** The ACK timeout the CM gives RC requesters: 14, about 67 ms (the IB CM derives it from the path). */
    private static final int ACK_TIMEOUT = 14;
    /** The RNR NAK timer the CM gives RC responders: 12, 0.64 ms, librdmacm's default. */
    private static final int MIN_RNR_TIMER = 12;

    private CmHandshake() {}

    static VerbsException invalid(String verb, String why) {
        return new VerbsException(verb, Errno.EINVAL, why);
    }

    private static byte[] padded(byte[] data, int length) {
        return Arrays.copyOf(data, length);
    }

    /** REQ: a new id on the listener's channel and a CONNECT_REQUEST, or a REJ when nobody listens. */
    static void connect(EmulatedCmId self, ConnectionParameters parameters) {
        if (self.state != State.ROUTE_RESOLVED) {
            throw invalid("rdma_connect", "the route is not resolved (state " + self.state + ")");
        }
        if (self.qp() == null) {
            throw invalid("rdma_connect", "the id has no QP: create it with createQp first (connecting without"
                    + " a QP, as rdma_establish(3) allows, is not supported by the emulated provider)");
        }
        CmAgent agent = agent(self);
        if (agent != null) {
            agent.connect(self, parameters);
            return;
        }
        self.params = parameters;
        EmulatedCmId listener = self.cm.listener(self.remote, self.device);
        if (listener == null) {
            self.state = State.DONE;
            toError(self);
            self.events().post(new EmulatedCmEvent(CmEventType.REJECTED, CmEvent.REJECT_INVALID_SERVICE_ID, self, null,
                    new byte[ConnectionParameters.MAX_REJECT_PRIVATE_DATA], 0, 0));
            return;
        }
        EmulatedCmId child = new EmulatedCmId(self.cm, listener.events(), self.portSpace());
        child.attach(self.device);
        child.local = new InetSocketAddress(self.remote.getAddress(), self.remote.getPort());
        child.remote = self.local;
        child.state = State.REQ_RECEIVED;
        child.peer = self;
        self.peer = child;
        self.state = State.CONNECT;
        listener.events().post(new EmulatedCmEvent(CmEventType.CONNECT_REQUEST, 0, child, listener,
                padded(parameters.privateData(), ConnectionParameters.MAX_CONNECT_PRIVATE_DATA),
                parameters.responderResources(), parameters.initiatorDepth()));
    }

    /** REP and RTU: both QPs to RTR and RTS, ESTABLISHED on the active side, then on the passive side. */
    static void accept(EmulatedCmId self, ConnectionParameters parameters) {
        if (self.state != State.REQ_RECEIVED) {
            throw invalid("rdma_accept", "the id is not a connect request's, or it was answered (state "
                    + self.state + ")");
        }
        if (self.qp() == null) {
            throw invalid("rdma_accept", "the id has no QP: create it with createQp first");
        }
        CmAgent agent = wire(self);
        if (agent != null) {
            agent.accept(self, parameters);
            return;
        }
        EmulatedCmId active = self.peer;
        if (active == null || active.isClosed() || active.state != State.CONNECT || active.qp() == null) {
            throw invalid("rdma_accept", "the requesting id is gone");
        }
        self.params = parameters;
        ConnectionParameters req = active.params;
        // librdmacm moves the passive QP to RTR and RTS before it sends the REP.
        bringUp(self, active, parameters.responderResources(), parameters.initiatorDepth(), req.retryCount(),
                req.rnrRetryCount());
        // The active side, on the REP: RTR and RTS, then RTU to the passive side.
        bringUp(active, self, req.responderResources(), req.initiatorDepth(), req.retryCount(),
                parameters.rnrRetryCount());
        active.state = State.ESTABLISHED;
        self.state = State.ESTABLISHED;
        active.events().post(new EmulatedCmEvent(CmEventType.ESTABLISHED, 0, active, null,
                padded(parameters.privateData(), ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA),
                parameters.responderResources(), parameters.initiatorDepth()));
        self.events().post(EmulatedCmEvent.of(CmEventType.ESTABLISHED, 0, self));
    }

    /** INIT to RTR to RTS towards the other end's QP, with the attributes the kernel CM gives librdmacm. */
    private static void bringUp(EmulatedCmId self, EmulatedCmId other, int responderResources, int initiatorDepth,
                                int retryCount, int rnrRetryCount) {
        bringUp(self, other.device.gid(GID_INDEX), EmulatedDevice.MTU, other.queuePair().qpn, other.psn, self.psn,
                responderResources, initiatorDepth, retryCount, rnrRetryCount);
    }

    /**
     * INIT to RTR to RTS towards a QP known by its GID and QPN (a peer over the wire), expecting {@code rqPsn} and
     * sending from {@code sqPsn}.
     */
    static void bringUp(EmulatedCmId self, Gid gid, Mtu mtu, int qpn, int rqPsn, int sqPsn, int responderResources,
                        int initiatorDepth, int retryCount, int rnrRetryCount) {
        AhAttributes av = AhAttributes.roce(gid, GID_INDEX, PORT_NUM);
        self.queuePair().modify(QpAttributes.toRtr(av, mtu, qpn, rqPsn, Math.max(1, responderResources),
                MIN_RNR_TIMER));
        self.queuePair().modify(QpAttributes.toRts(sqPsn, ACK_TIMEOUT, retryCount, rnrRetryCount,
                Math.max(1, initiatorDepth)));
    }

    /** REJ from the passive side: the active side gets REJECTED with the reason and the private data. */
    static void reject(EmulatedCmId self, int reason, byte[] privateData) {
        CmAgent agent = wire(self);
        if (agent != null) {
            agent.reject(self, reason, privateData);
            return;
        }
        EmulatedCmId other = self.peer;
        self.peer = null;
        if (other == null || other.isClosed()) {
            return;
        }
        other.peer = null;
        other.state = State.DONE;
        toError(other);
        other.events().post(new EmulatedCmEvent(CmEventType.REJECTED, reason, other, null,
                padded(privateData, ConnectionParameters.MAX_REJECT_PRIVATE_DATA), 0, 0));
    }

    /** rdma_disconnect: this side's QP to ERR, then a DREQ (first to disconnect) or a DREP (second). */
    static void disconnect(EmulatedCmId self) {
        switch (self.state) {
            case ESTABLISHED -> {
                toError(self);
                self.state = State.DISCONNECT_SENT;
                sendDreq(self);
            }
            case DISCONNECT_RECEIVED -> {
                toError(self);
                self.state = State.DISCONNECTED;
                sendDrep(self);
            }
            default -> throw invalid("rdma_disconnect", "the id is not connected (state " + self.state + ")");
        }
    }

    /** DREQ: the other end learns of the disconnect. If it is gone, this end is disconnected at once. */
    static void sendDreq(EmulatedCmId self) {
        CmAgent agent = wire(self);
        if (agent != null) {
            agent.sendDreq(self);
            return;
        }
        EmulatedCmId other = self.peer;
        if (other != null && !other.isClosed() && other.state == State.ESTABLISHED) {
            other.state = State.DISCONNECT_RECEIVED;
            other.events().post(EmulatedCmEvent.of(CmEventType.DISCONNECTED, 0, other));
        } else {
            self.peer = null;
            self.state = State.DISCONNECTED;
            self.events().post(EmulatedCmEvent.of(CmEventType.DISCONNECTED, 0, self));
        }
    }

    /** DREP: the end that disconnected first gets its DISCONNECTED. */
    static void sendDrep(EmulatedCmId self) {
        CmAgent agent = wire(self);
        if (agent != null) {
            agent.sendDrep(self);
            return;
        }
        EmulatedCmId other = self.peer;
        self.peer = null;
        if (other != null && !other.isClosed() && other.state == State.DISCONNECT_SENT) {
            other.peer = null;
            other.state = State.DISCONNECTED;
            other.events().post(EmulatedCmEvent.of(CmEventType.DISCONNECTED, 0, other));
        }
    }

    /** The CM agent of the id's wire device, or null for an in-JVM device (or none yet). */
    private static CmAgent agent(EmulatedCmId id) {
        return id.device == null || id.device.roce == null ? null : id.device.roce.cmAgent();
    }

    /** The agent that carries the id's connection over the wire, or null if the id's peer is in this JVM. */
    private static CmAgent wire(EmulatedCmId id) {
        CmAgent agent = agent(id);
        return agent != null && agent.owns(id) ? agent : null;
    }

    static void toError(EmulatedCmId id) {
        EmulatedQueuePair q = id.queuePair();
        if (q != null && !q.isClosed() && q.state != QpState.ERR) {
            q.modify(QpAttributes.toState(QpState.ERR));
        }
    }
}
