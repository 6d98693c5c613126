package org.verbs4j.provider.emulated.cm;

import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.verbs4j.CmEvent;
import org.verbs4j.CmEventType;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.Mtu;
import org.verbs4j.provider.emulated.cm.EmulatedCmId.State;
import org.verbs4j.provider.emulated.verbs.EmulatedDevice;
import org.verbs4j.provider.emulated.wire.GsiAgent;
import org.verbs4j.provider.emulated.wire.RoceEndpoint;
import org.verbs4j.provider.emulated.wire.codec.CmMad;
import org.verbs4j.provider.emulated.wire.codec.CmaHeader;
import org.verbs4j.provider.emulated.wire.codec.Opcode;
import org.verbs4j.provider.emulated.wire.codec.Packet;
import org.verbs4j.provider.emulated.wire.codec.Reject;

/**
 * The communication manager agent of a wire device: its QP1 (the GSI QP, Q_Key {@code 0x80010000}), speaking the
 * IB CM protocol in UD datagrams over RoCE v2, as Linux's ib_cm does over rxe. It carries an emulated id's connect
 * (REQ, with rdma_cm's {@link CmaHeader} in the private data), accept (REP, then RTU from the active side),
 * reject (REJ) and disconnect (DREQ, DREP) to a peer in another process, or to a kernel rdma_cm peer.
 *
 * <p>Every method, the receive path included, runs under the connection manager's lock, so a message and the
 * events and QP transitions it causes are one step, as in {@link InJvmCmExchange}. A message that expects an answer
 * (REQ, REP, DREQ) is sent again every {@value #RETRY_MS} ms, at most {@value #MAX_RETRIES} times; then the
 * connection fails as rdma_cm's does (UNREACHABLE, {@code -ETIMEDOUT}; DISCONNECTED for a DREQ). Tests: see the end.
 */
public final class CmAgent implements CmExchange, GsiAgent {
    private static final System.Logger LOG = System.getLogger(CmAgent.class.getName());
    static final int RETRY_MS = 1000;
    static final int MAX_RETRIES = 15;
    /** rdma_cm's CM response timeout, 4.096 us * 2^20, about 4.3 s. */
    private static final int CM_RESPONSE_TIMEOUT = 20;
    private static final int HOP_LIMIT = 64;
    /** The IBA's reject reason when no listener has the REQ's service ID. */
    private static final int REJECT_INVALID_SERVICE_ID = CmEvent.REJECT_INVALID_SERVICE_ID;
    /** The headers of a RoCE v2 packet and ICRC beside the path MTU (IBA and Linux {@code iboe_get_mtu}). */
    private static final int ROCE_OVERHEAD = 40 + 8 + 12 + 8 + 28 + 4;

    private final EmulatedConnectionManager cm = EmulatedConnectionManager.INSTANCE;
    private final RoceEndpoint endpoint;
    private final EmulatedDevice device;
    private final GsiSender gsi;
    /** The receive thread's MAD. */
    private final CmMad in = new CmMad();
    private final Map<Integer, CmSession> byCommId = new HashMap<>();
    private final Map<EmulatedCmId, CmSession> byId = new IdentityHashMap<>();

    public CmAgent(RoceEndpoint endpoint, EmulatedDevice device) {
        this.endpoint = endpoint;
        this.device = device;
        this.gsi = new GsiSender(endpoint, device.name());
    }

    // ---------------------------------------------------------------- receive

    /**
     * A datagram for QP1: checked as rxe checks a GSI packet (UD SEND_ONLY, the GSI Q_Key, a whole MAD), then handed
     * to the CM under its lock. Returns null if it was taken, else why it was dropped. Called on the receive thread.
     */
    @Override
    public Reject onDatagram(Packet p, ByteBuffer buf, InetSocketAddress from) {
        if (p.opcode != (Opcode.UD | Opcode.SEND_ONLY)) {
            return Reject.BAD_OPCODE;
        }
        if (p.qkey != CmMad.GSI_QKEY) {
            return Reject.BAD_QKEY;
        }
        String bad = in.parse(buf, p.payloadOffset(), p.payloadLength);
        if (bad != null) {
            LOG.log(Level.DEBUG, () -> device.name() + ": GSI datagram from " + from + " dropped: " + bad);
            return Reject.BAD_LENGTH;
        }
        // rxe sends from a port of its choosing, as RoCE v2 allows; every RoCE device receives on the one port.
        InetSocketAddress peer = new InetSocketAddress(from.getAddress(), endpoint.localPort);
        cm.lock.lock();
        try {
            LOG.log(Level.DEBUG, () -> device.name() + ": received " + in + " from " + from);
            switch (in.attributeId) {
                case CmMad.ATTR_REQ -> onReq(in, peer);
                case CmMad.ATTR_REP -> onRep(in, peer);
                case CmMad.ATTR_RTU -> onRtu(in);
                case CmMad.ATTR_REJ -> onRej(in);
                case CmMad.ATTR_DREQ -> onDreq(in, peer);
                case CmMad.ATTR_DREP -> onDrep(in);
                case CmMad.ATTR_MRA -> onMra(in);
                default -> { }
            }
        } finally {
            cm.lock.unlock();
        }
        return null;
    }

    /**
     * The session a message answers: by the remote communication ID it names (ours), or, when that is 0 (a REJ or
     * DREQ from a side that never learned it), by its sender's communication ID and CA GUID.
     */
    private CmSession answering(CmMad m) {
        if (m.remoteCommId == 0) {
            for (CmSession s : byCommId.values()) {
                if (s.remoteCommId == m.localCommId && m.localCommId != 0) {
                    return s;
                }
            }
            return null;
        }
        CmSession s = byCommId.get(m.remoteCommId);
        return s != null && (s.remoteCommId == 0 || s.remoteCommId == m.localCommId) ? s : null;
    }

    private void onReq(CmMad m, InetSocketAddress from) {
        for (CmSession s : byCommId.values()) {
            if (s.remoteCommId == m.localCommId && s.remoteGuid == m.localCaGuid) {
                // A REQ again: our REP was lost, or is on its way.
                if (s.answer != null) {
                    gsi.sendBytes(s.answer, s.peer);
                }
                return;
            }
        }
        int port = CmaHeader.portOf(m.serviceId);
        CmaHeader hdr = CmaHeader.parse(m.privateData);
        EmulatedCmId listener = port < 0 || hdr == null ? null
                : cm.listener(new InetSocketAddress(ipv4(hdr.dstAddr()), port), device);
        if (listener == null || m.transportServiceType != 0) {
            LOG.log(Level.DEBUG, () -> device.name() + ": no listener for service 0x" + Long.toHexString(m.serviceId));
            gsi.reject(m.localCommId, 0, m.transactionId, CmMad.REJECTED_REQ, REJECT_INVALID_SERVICE_ID, new byte[0], from);
            return;
        }
        EmulatedCmId child = new EmulatedCmId(cm, listener.events(), listener.portSpace());
        child.attach(device);
        child.local = new InetSocketAddress(ipv4(hdr.dstAddr()), port);
        child.remote = new InetSocketAddress(ipv4(hdr.srcAddr()), hdr.srcPort());
        child.state = State.REQ_RECEIVED;
        child.routeTos = m.trafficClass; // the passive side's route is the REQ's path, with its traffic class
        CmSession s = open(child);
        s.remoteCommId = m.localCommId;
        s.remoteGuid = m.localCaGuid;
        s.tid = m.transactionId;
        s.peer = from;
        s.remoteGid = Gid.of(m.localGid);
        s.remoteQpn = m.localQpn;
        s.remotePsn = m.startingPsn;
        s.mtu = Mtu.of(Math.min(pathMtu().value(), Math.max(1, m.pathMtu)));
        s.reqRetryCount = m.retryCount;
        s.reqRnrRetryCount = m.rnrRetryCount;
        // rdma_cm reports the parameters from the passive side's view: the REQ's initiator depth is the responder
        // resources this side needs, and the other way round.
        listener.events().post(new EmulatedCmEvent(CmEventType.CONNECT_REQUEST, 0, child, listener,
                CmaHeader.userData(m.privateData), m.initiatorDepth, m.responderResources));
    }

    private void onRep(CmMad m, InetSocketAddress from) {
        CmSession s = byCommId.get(m.remoteCommId);
        if (s == null) {
            return;
        }
        EmulatedCmId id = s.id;
        if (id.state != State.CONNECT || s.remoteCommId != 0) {
            if (s.remoteCommId == m.localCommId && s.answer != null) {
                gsi.sendBytes(s.answer, s.peer);
            }
            return;
        }
        s.remoteCommId = m.localCommId;
        s.remoteGuid = m.localCaGuid;
        s.remoteQpn = m.localQpn;
        s.remotePsn = m.startingPsn;
        s.peer = from;
        s.settle();
        try {
            // The IB CM's starting PSNs name what each side's receive queue expects (Linux cm.c: the active side
            // sends from the REP's, the passive side from the REQ's), so each side sends from the other's.
            CmTransitions.bringUp(id, s.remoteGid, s.mtu, s.remoteQpn, id.psn, s.remotePsn, m.initiatorDepth,
                    m.responderResources, id.params.retryCount(), m.rnrRetryCount);
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "REP could not bring the QP up: " + e);
            id.state = State.DONE;
            CmTransitions.toError(id);
            gsi.reject(s.remoteCommId, s.localCommId, s.tid, CmMad.REJECTED_REP, CmEvent.REJECT_CONSUMER_DEFINED,
                    new byte[0], s.peer);
            close(s);
            post(id, new EmulatedCmEvent(CmEventType.CONNECT_ERROR, -Errno.EINVAL, id, null, new byte[0], 0, 0));
            return;
        }
        CmMad rtu = gsi.begin(CmMad.ATTR_RTU, s.tid);
        rtu.localCommId = s.localCommId;
        rtu.remoteCommId = s.remoteCommId;
        s.answer = gsi.send(rtu, s.peer);
        id.state = State.ESTABLISHED;
        post(id, new EmulatedCmEvent(CmEventType.ESTABLISHED, 0, id, null, m.privateData, m.initiatorDepth,
                m.responderResources));
    }

    private void onRtu(CmMad m) {
        CmSession s = answering(m);
        if (s == null || s.id.state != State.CONNECT) {
            return;
        }
        s.settle();
        s.id.state = State.ESTABLISHED;
        post(s.id, EmulatedCmEvent.of(CmEventType.ESTABLISHED, 0, s.id));
    }

    private void onRej(CmMad m) {
        CmSession s = answering(m);
        if (s == null) {
            return;
        }
        EmulatedCmId id = s.id;
        if (id.state != State.CONNECT && id.state != State.REQ_RECEIVED) {
            return;
        }
        close(s);
        id.state = State.DONE;
        CmTransitions.toError(id);
        post(id, new EmulatedCmEvent(CmEventType.REJECTED, m.reason, id, null, m.privateData, 0, 0));
    }

    private void onDreq(CmMad m, InetSocketAddress from) {
        CmSession s = answering(m);
        if (s == null || s.id.state == State.DISCONNECTED || s.id.state == State.DONE) {
            // IBA 12.9.6: a DREQ for a connection that is gone is answered at once.
            gsi.drep(m.remoteCommId, m.localCommId, m.transactionId, from);
            return;
        }
        EmulatedCmId id = s.id;
        s.tid = m.transactionId;
        switch (id.state) {
            case ESTABLISHED -> {
                id.state = State.DISCONNECT_RECEIVED;
                post(id, EmulatedCmEvent.of(CmEventType.DISCONNECTED, 0, id));
            }
            case DISCONNECT_SENT -> {
                // Both ends disconnected at once: answer, and take the DREQ as this end's answer.
                gsi.drep(s.localCommId, s.remoteCommId, m.transactionId, from);
                finish(s);
            }
            default -> { }
        }
    }

    private void onDrep(CmMad m) {
        CmSession s = answering(m);
        if (s != null && s.id.state == State.DISCONNECT_SENT) {
            finish(s);
        }
    }

    private void onMra(CmMad m) {
        CmSession s = answering(m);
        if (s != null && s.pending != null) {
            // The peer needs longer: start the retries over.
            s.retriesLeft = maxRetries();
        }
    }

    // ---------------------------------------------------------------- the id's calls: CmExchange

    /** rdma_connect over the wire: a REQ to the listener's device; CONNECT until REP or REJ. */
    @Override
    public void connect(EmulatedCmId self, ConnectionParameters parameters) {
        CmSession s = open(self);
        self.params = parameters;
        s.tid = ThreadLocalRandom.current().nextLong() & 0x0000_0000_ffff_ffffL;
        s.peer = new InetSocketAddress(self.remote.getAddress(), endpoint.localPort);
        s.remoteGid = Gid.ofIpv4(self.remote.getAddress().getAddress());
        s.mtu = pathMtu();
        CmMad m = gsi.begin(CmMad.ATTR_REQ, s.tid);
        m.localCommId = s.localCommId;
        m.serviceId = CmaHeader.serviceId(self.remote.getPort());
        m.localCaGuid = device.guid();
        m.localQkey = 0;
        m.localQpn = self.queuePair().qpn;
        m.responderResources = parameters.responderResources();
        m.initiatorDepth = parameters.initiatorDepth();
        m.remoteCmResponseTimeout = CM_RESPONSE_TIMEOUT;
        m.transportServiceType = 0;
        m.startingPsn = self.psn;
        m.localCmResponseTimeout = CM_RESPONSE_TIMEOUT;
        m.retryCount = parameters.retryCount();
        m.rnrRetryCount = parameters.rnrRetryCount();
        m.pkey = Packet.DEFAULT_PKEY;
        m.pathMtu = s.mtu.value();
        m.maxCmRetries = MAX_RETRIES;
        m.srq = false;
        m.localLid = CmMad.PERMISSIVE_LID;
        m.remoteLid = CmMad.PERMISSIVE_LID;
        System.arraycopy(device.gid(CmTransitions.GID_INDEX).toBytes(), 0, m.localGid, 0, 16);
        System.arraycopy(s.remoteGid.toBytes(), 0, m.remoteGid, 0, 16);
        m.flowLabel = 0;
        m.packetRate = 0;
        m.trafficClass = self.routeTos;
        m.hopLimit = HOP_LIMIT;
        m.sl = 0;
        m.subnetLocal = false;
        m.localAckTimeout = CmTransitions.ackTimeout(self);
        m.privateData = new CmaHeader(RoceEndpoint.ipv4(self.local), self.local.getPort(),
                RoceEndpoint.ipv4(self.remote)).prepend(parameters.privateData());
        self.state = State.CONNECT;
        expectAnswer(s, CmMad.ATTR_REQ, gsi.send(m, s.peer));
    }

    /** rdma_accept over the wire: the QP to RTR and RTS, then a REP; CONNECT until the RTU. */
    @Override
    public void accept(EmulatedCmId self, ConnectionParameters parameters) {
        CmSession s = byId.get(self);
        self.params = parameters;
        CmTransitions.bringUp(self, s.remoteGid, s.mtu, s.remoteQpn, self.psn, s.remotePsn,
                parameters.responderResources(),
                parameters.initiatorDepth(), s.reqRetryCount, s.reqRnrRetryCount);
        CmMad m = gsi.begin(CmMad.ATTR_REP, s.tid);
        m.localCommId = s.localCommId;
        m.remoteCommId = s.remoteCommId;
        m.localQkey = 0;
        m.localQpn = self.queuePair().qpn;
        m.startingPsn = self.psn;
        m.responderResources = parameters.responderResources();
        m.initiatorDepth = parameters.initiatorDepth();
        m.targetAckDelay = 0;
        m.failoverAccepted = 0;
        m.endToEndFlowControl = false;
        m.rnrRetryCount = parameters.rnrRetryCount();
        m.srq = false;
        m.localCaGuid = device.guid();
        m.privateData = parameters.privateData();
        self.state = State.CONNECT;
        byte[] rep = gsi.send(m, s.peer);
        s.answer = rep;
        expectAnswer(s, CmMad.ATTR_REP, rep);
    }

    /** rdma_reject, or the end of a pending connect at close: a REJ; the id's connection is over. */
    @Override
    public void reject(EmulatedCmId self, int reason, byte[] privateData) {
        CmSession s = byId.get(self);
        close(s);
        int rejected = self.state == State.CONNECT && s.remoteCommId == 0 ? CmMad.REJECTED_OTHER
                : s.remoteCommId != 0 && s.answer != null ? CmMad.REJECTED_REP : CmMad.REJECTED_REQ;
        gsi.reject(s.remoteCommId, s.localCommId, s.tid, rejected, reason, privateData, s.peer);
    }

    /** DREQ: this end disconnects first; DISCONNECTED comes with the DREP, or when the retries run out. */
    @Override
    public void sendDreq(EmulatedCmId self) {
        CmSession s = byId.get(self);
        s.tid = ThreadLocalRandom.current().nextLong() & 0x0000_0000_ffff_ffffL;
        self.state = State.DISCONNECT_SENT;
        CmMad m = gsi.begin(CmMad.ATTR_DREQ, s.tid);
        m.localCommId = s.localCommId;
        m.remoteCommId = s.remoteCommId;
        m.remoteQpn = s.remoteQpn;
        expectAnswer(s, CmMad.ATTR_DREQ, gsi.send(m, s.peer));
    }

    /** DREP: this end answers the other's DREQ; the connection is over. */
    @Override
    public void sendDrep(EmulatedCmId self) {
        CmSession s = byId.get(self);
        gsi.drep(s.localCommId, s.remoteCommId, s.tid, s.peer);
        close(s);
    }

    // ---------------------------------------------------------------- sessions and retries

    private CmSession open(EmulatedCmId id) {
        int commId;
        do {
            commId = ThreadLocalRandom.current().nextInt();
        } while (commId == 0 || byCommId.containsKey(commId));
        CmSession s = new CmSession(id, commId);
        byCommId.put(commId, s);
        byId.put(id, s);
        return s;
    }

    private void close(CmSession s) {
        s.settle();
        byCommId.remove(s.localCommId, s);
        byId.remove(s.id, s);
    }

    /** The disconnect is complete on this end: DISCONNECTED, and the session ends. */
    private void finish(CmSession s) {
        close(s);
        EmulatedCmId id = s.id;
        id.state = State.DISCONNECTED;
        CmTransitions.toError(id);
        post(id, EmulatedCmEvent.of(CmEventType.DISCONNECTED, 0, id));
    }

    private void expectAnswer(CmSession s, int attr, byte[] mad) {
        s.pendingAttr = attr;
        s.pending = mad;
        s.retriesLeft = maxRetries();
        int generation = ++s.generation;
        cm.schedule(() -> retry(s, generation), retryMs());
    }

    private void retry(CmSession s, int generation) {
        if (s.generation != generation || s.pending == null) {
            return;
        }
        if (s.retriesLeft-- > 0) {
            gsi.sendBytes(s.pending, s.peer);
            cm.schedule(() -> retry(s, generation), retryMs());
            return;
        }
        EmulatedCmId id = s.id;
        LOG.log(Level.DEBUG, () -> device.name() + ": no answer to " + CmMad.name(s.pendingAttr) + " from " + s.peer);
        if (s.pendingAttr == CmMad.ATTR_DREQ) {
            finish(s);
            return;
        }
        close(s);
        id.state = State.DONE;
        CmTransitions.toError(id);
        post(id, EmulatedCmEvent.of(CmEventType.UNREACHABLE, -Errno.ETIMEDOUT, id));
    }

    private static void post(EmulatedCmId id, EmulatedCmEvent event) {
        if (!id.isClosed()) {
            id.events().post(event);
        }
    }

    /**
     * The path MTU of this device's link, as rxe derives it from its netdev: the interface's MTU less the RoCE v2
     * headers, rounded down to an IB MTU, at most 4096 (loopback). An interface the JDK cannot find gives 1024.
     */
    private Mtu pathMtu() {
        int mtu;
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(endpoint.local.getAddress());
            mtu = nif == null ? 1500 : nif.getMTU();
        } catch (SocketException e) {
            mtu = 1500;
        }
        int room = mtu - ROCE_OVERHEAD;
        Mtu best = Mtu.MTU_256;
        for (Mtu m : Mtu.values()) {
            if (m.bytes() <= room && m.bytes() <= EmulatedDevice.MTU.bytes()) {
                best = m;
            }
        }
        return best;
    }

    private static InetAddress ipv4(int a) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (a >>> 24), (byte) (a >>> 16), (byte) (a >>> 8), (byte) a});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public String toString() {
        return "CmAgent[" + device.name() + ", " + byCommId.size() + " connection(s), "
                + Arrays.toString(byCommId.keySet().toArray()) + "]";
    }

    // ---------------------------------------------------------------- the retry knobs (read at each use)

    /**
     * The time between two sends of an unanswered message: {@value #RETRY_MS} ms, or {@code
     * -Dverbs4j.emulated.cm.retryMs}, which tests set to wait less than 15 s for a connection to fail.
     */
    private static int retryMs() {
        return Integer.getInteger("verbs4j.emulated.cm.retryMs", RETRY_MS);
    }

    /** How often an unanswered message goes again: {@value #MAX_RETRIES}, or -Dverbs4j.emulated.cm.maxRetries. */
    private static int maxRetries() {
        return Integer.getInteger("verbs4j.emulated.cm.maxRetries", MAX_RETRIES);
    }
}
