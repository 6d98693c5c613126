package org.verbs4j.provider.emulated.cm;

import java.net.InetSocketAddress;
import java.util.Arrays;

import org.verbs4j.CmEvent;
import org.verbs4j.CmEventType;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.emulated.cm.EmulatedCmId.State;
import org.verbs4j.provider.emulated.verbs.EmulatedDevice;

/**
 * The IB CM's exchange between two ids of in-JVM devices, reduced to what each message does: REQ (connect), REP
 * and RTU (accept), REJ (reject, or no listener), DREQ and DREP (disconnect). Both ends change in one step under
 * the connection manager's lock, with the events each message raises and the QP transitions librdmacm makes.
 */
public final class InJvmCmExchange implements CmExchange {
    public static final InJvmCmExchange INSTANCE = new InJvmCmExchange();

    private InJvmCmExchange() {}

    private static byte[] padded(byte[] data, int length) {
        return Arrays.copyOf(data, length);
    }

    /** REQ: a new id on the listener's channel and a CONNECT_REQUEST, or a REJ when nobody listens. */
    @Override
    public void connect(EmulatedCmId self, ConnectionParameters parameters) {
        self.params = parameters;
        EmulatedCmId listener = self.cm.listener(self.remote, self.device);
        if (listener == null) {
            self.state = State.DONE;
            CmTransitions.toError(self);
            self.events().post(new EmulatedCmEvent(CmEventType.REJECTED, CmEvent.REJECT_INVALID_SERVICE_ID, self, null,
                    new byte[ConnectionParameters.MAX_REJECT_PRIVATE_DATA], 0, 0));
            return;
        }
        EmulatedCmId child = new EmulatedCmId(self.cm, listener.events(), self.portSpace());
        child.attach(self.device);
        child.local = new InetSocketAddress(self.remote.getAddress(), self.remote.getPort());
        child.remote = self.local;
        child.state = State.REQ_RECEIVED;
        child.routeTos = self.routeTos; // the passive side's route is the REQ's path, with its traffic class
        child.peer = self;
        self.peer = child;
        self.state = State.CONNECT;
        listener.events().post(new EmulatedCmEvent(CmEventType.CONNECT_REQUEST, 0, child, listener,
                padded(parameters.privateData(), ConnectionParameters.MAX_CONNECT_PRIVATE_DATA),
                parameters.responderResources(), parameters.initiatorDepth()));
    }

    /** REP and RTU: both QPs to RTR and RTS, ESTABLISHED on the active side, then on the passive side. */
    @Override
    public void accept(EmulatedCmId self, ConnectionParameters parameters) {
        EmulatedCmId active = self.peer;
        if (active == null || active.isClosed() || active.state != State.CONNECT || active.qp() == null) {
            throw new VerbsException("rdma_accept", Errno.EINVAL, "the requesting id is gone");
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
        CmTransitions.bringUp(self, other.device.gid(CmTransitions.GID_INDEX), EmulatedDevice.MTU,
                other.queuePair().qpn, other.psn, self.psn, responderResources, initiatorDepth, retryCount,
                rnrRetryCount);
    }

    /** REJ: the other end, if it is still there, gets REJECTED with the reason and the private data. */
    @Override
    public void reject(EmulatedCmId self, int reason, byte[] privateData) {
        EmulatedCmId other = self.peer;
        self.peer = null;
        if (other == null || other.isClosed()) {
            return;
        }
        other.peer = null;
        other.state = State.DONE;
        CmTransitions.toError(other);
        other.events().post(new EmulatedCmEvent(CmEventType.REJECTED, reason, other, null,
                padded(privateData, ConnectionParameters.MAX_REJECT_PRIVATE_DATA), 0, 0));
    }

    /** DREQ: the other end learns of the disconnect. If it is gone, this end is disconnected at once. */
    @Override
    public void sendDreq(EmulatedCmId self) {
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
    @Override
    public void sendDrep(EmulatedCmId self) {
        EmulatedCmId other = self.peer;
        self.peer = null;
        if (other != null && !other.isClosed() && other.state == State.DISCONNECT_SENT) {
            other.peer = null;
            other.state = State.DISCONNECTED;
            other.events().post(EmulatedCmEvent.of(CmEventType.DISCONNECTED, 0, other));
        }
    }

    @Override
    public String toString() {
        return "InJvmCmExchange";
    }
}
