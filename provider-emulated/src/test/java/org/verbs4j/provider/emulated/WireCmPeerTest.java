package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.CmPortSpace;
import org.verbs4j.CompletionQueue;
import org.verbs4j.ConnectionManager;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.provider.emulated.verbs.EmulatedDevice;
import org.verbs4j.provider.emulated.wire.RoceEndpoint;
import org.verbs4j.provider.emulated.wire.codec.CmMad;
import org.verbs4j.provider.emulated.wire.codec.CmaHeader;
import org.verbs4j.provider.emulated.wire.codec.Icrc;
import org.verbs4j.provider.emulated.wire.codec.Ipv4Udp;
import org.verbs4j.provider.emulated.wire.codec.Opcode;
import org.verbs4j.provider.emulated.wire.codec.Packet;
import org.verbs4j.provider.emulated.wire.codec.Reject;
import org.verbs4j.tck.Completions;

/**
 * The wire device's IB CM agent seen from a CM peer that a test plays by hand (issue 26: tests written for the
 * survivors of mutation testing of {@code CmAgent}; tck/reports/mutation.md). A test socket on an address of
 * {@code roce0}'s /24 is the QP1 of a peer device: it sends REQ, REP, RTU, REJ, DREQ, DREP and MRA MADs in UD
 * datagrams, some of them again, stale, foreign or malformed, or stays silent, and reads what the agent sends back;
 * the test also checks which CM events the verbs4j side sees, and that it sees none where none is due. None of this
 * is reachable through two verbs4j ids over a loopback that loses nothing and answers at once: a message sent again
 * because its answer was lost (the REP or RTU sent again), answers of another session or state,
 * a DREQ for a connection already gone (IBA 12.9.6: a DREP at once), two DREQs crossing, the retries and their end
 * (UNREACHABLE with {@code -ETIMEDOUT}, DISCONNECTED for a DREQ), an MRA, and REQs that rdma_cm does not take.
 *
 * <p>The agent's retries (1 s apart, 15 of them) are shortened for a test through {@code verbs4j.emulated.cm.retryMs}
 * and {@code verbs4j.emulated.cm.maxRetries}, system properties the agent reads at each use;
 * they are cleared after each test. Every wait for a message or an event that should come ends at the TCK's
 * deadline ({@link Completions#timeoutMs()}; 3 s in the mutation profile), and this class is in the wire layer's
 * killing suite (tck/mutation/run). A message the agent could not handle (a RuntimeException on the receive
 * thread, counted by the endpoint as {@link Reject#BAD_STATE}) fails the test.
 */
@Tag("wire")
class WireCmPeerTest {
    static final String RETRY_MS = "verbs4j.emulated.cm.retryMs";
    static final String MAX_RETRIES = "verbs4j.emulated.cm.maxRetries";
    static final int LISTEN_PORT = 7483;
    static final long PEER_GUID = 0x0200_5eff_fe10_0001L;
    static final int PEER_QPN = 0x00beef;
    static final int PEER_PSN = 0x4321;
    /** rdma_cm's reject reason for a REQ no listener takes (IBA 12.6.7.2: invalid service ID). */
    static final int INVALID_SERVICE_ID = 8;
    /** How long the peer listens for a message or an event that must not come, ms. */
    static final long QUIET_MS = 300;
    /** Each test's peer has an address of its own, so that a late retry of an earlier test cannot reach it. */
    private static int nextHost = 150;

    private final Icrc icrc = new Icrc();
    private final ConnectionManager cm = new EmulatedProvider().connectionManager();
    private final List<CmId> ids = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private RoceEndpoint ep;
    private InetAddress peerIp;
    private PeerSocket peer;
    private CmEventChannel ch;
    private int gsiPsn;
    private long failedBefore;
    /** The RTU {@link #established} read. */
    private Mad lastRtu;

    @BeforeEach
    void open() throws IOException {
        EmulatedDevice roce0 = (EmulatedDevice) new EmulatedProvider().device("roce0");
        ep = RoceEndpoint.of(roce0);
        byte[] a = ep.local.getAddress().getAddress();
        a[3] = (byte) nextHost++;
        peerIp = InetAddress.getByAddress(a);
        peer = new PeerSocket(a, ep.localPort, 1 << 20);
        ch = cm.createEventChannel();
        failedBefore = ep.rejected(Reject.BAD_STATE);
    }

    @AfterEach
    void close() throws Exception {
        try {
            // The DREQs of the ids closed below end at their first retry, so that no session outlives the test.
            retries(50, 0);
            for (CmId id : ids.reversed()) {
                if (!id.isClosed()) {
                    if (id.qp() != null) {
                        id.destroyQp();
                    }
                    id.close();
                }
            }
            for (AutoCloseable r : resources.reversed()) {
                r.close();
            }
            ch.close();
            peer.close();
        } finally {
            System.clearProperty(RETRY_MS);
            System.clearProperty(MAX_RETRIES);
        }
        assertEquals(failedBefore, ep.rejected(Reject.BAD_STATE),
                "a GSI datagram failed in the agent (a RuntimeException on the receive thread)");
    }

    private static void retries(int intervalMs, int count) {
        System.setProperty(RETRY_MS, Integer.toString(intervalMs));
        System.setProperty(MAX_RETRIES, Integer.toString(count));
    }

    private static int ipv4(InetAddress a) {
        byte[] b = a.getAddress();
        return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | b[3] & 0xff;
    }

    // ---------------------------------------------------------------- the peer's QP1

    /** The first {@code length} bytes of {@code mad} in a GSI datagram to roce0's QP1: {@code opcode}, {@code qkey}. */
    private void sendRaw(int opcode, int qkey, byte[] mad, int length) throws IOException {
        Packet h = new Packet();
        h.opcode = opcode;
        h.destQpn = CmMad.GSI_QPN;
        h.psn = gsiPsn++;
        h.pkey = Packet.DEFAULT_PKEY;
        h.qkey = qkey;
        h.srcQpn = CmMad.GSI_QPN;
        h.payloadLength = length;
        ByteBuffer p = ByteBuffer.allocate(RoceEndpoint.MAX_PACKET);
        int off = h.writeHeaders(p);
        p.put(off, mad, 0, length);
        int len = h.seal(p, icrc, new Ipv4Udp().set(ipv4(peerIp), ep.localPort, ep.localAddr, ep.localPort));
        peer.send(p.position(0).limit(len), new InetSocketAddress(ep.local.getAddress(), ep.localPort));
    }

    private static byte[] bytes(CmMad m) {
        ByteBuffer b = ByteBuffer.allocate(CmMad.LENGTH);
        m.write(b, 0);
        return b.array();
    }

    private void send(CmMad m) throws IOException {
        sendRaw(Opcode.UD | Opcode.SEND_ONLY, CmMad.GSI_QKEY, bytes(m), CmMad.LENGTH);
    }

    /** A MAD the agent sent: its bytes and its fields as {@link CmMad} reads them. */
    record Mad(byte[] raw, CmMad m) {
        int attr() {
            return ByteBuffer.wrap(raw).getShort(16) & 0xffff;
        }

        long tid() {
            return ByteBuffer.wrap(raw).getLong(8);
        }

        /** The sender's comm ID: the first word of every CM message (IBA 12.6). */
        int local() {
            return ByteBuffer.wrap(raw).getInt(24);
        }

        /** The receiver's comm ID: the second word of every CM message but the REQ. */
        int remote() {
            return ByteBuffer.wrap(raw).getInt(28);
        }
    }

    /** The next MAD at the peer, within {@link Completions#timeoutMs()}: a whole CM MAD in a UD SEND_ONLY to QP1. */
    private Mad receive(String what) throws Exception {
        ByteBuffer b = peer.nextWithin(Completions.timeoutMs());
        if (b == null) {
            throw new AssertionError(what + ": no MAD at the peer in " + Completions.timeoutMs() + " ms");
        }
        Packet p = new Packet();
        Ipv4Udp ip = new Ipv4Udp().set(ep.localAddr, ep.localPort, ipv4(peerIp), ep.localPort);
        assertNull(p.parse(b, b.position(), icrc, ip), what + ": a datagram that does not parse");
        assertEquals(Opcode.UD | Opcode.SEND_ONLY, p.opcode, what + ": " + p);
        assertEquals(CmMad.GSI_QPN, p.destQpn, what + ": " + p);
        assertEquals(CmMad.GSI_QKEY, p.qkey, what + ": " + p);
        assertEquals(CmMad.LENGTH, p.payloadLength, what + ": " + p);
        byte[] raw = new byte[CmMad.LENGTH];
        b.get(p.payloadOffset(), raw);
        CmMad m = new CmMad();
        assertNull(m.parse(ByteBuffer.wrap(raw), 0, raw.length), what + ": a MAD that does not parse");
        assertEquals(CmMad.MGMT_CLASS_CM, raw[1], what + ": the management class");
        return new Mad(raw, m);
    }

    /** The next MAD, a {@code attr}. */
    private Mad expect(int attr, String what) throws Exception {
        Mad m = receive(what);
        assertEquals(CmMad.name(attr), CmMad.name(m.attr()), what + ": " + m.m());
        return m;
    }

    private void assertQuiet(String why) throws Exception {
        ByteBuffer b = peer.nextWithin(QUIET_MS);
        if (b != null) {
            Packet p = new Packet();
            p.parse(b, b.position(), null, null);
            CmMad m = new CmMad();
            m.parse(b, p.payloadOffset(), p.payloadLength);
            throw new AssertionError(why + ": " + m);
        }
    }

    // ---------------------------------------------------------------- the verbs4j side's events

    /** An event's values, taken before it is acknowledged. */
    record Ev(CmEventType type, int status, CmId id, byte[] privateData) { }

    private Ev event(CmEventType type, String what) {
        try (CmEvent e = ch.getEvent(Completions.timeoutMs(), TimeUnit.MILLISECONDS)) {
            assertNotNull(e, what + ": no " + type + " event in " + Completions.timeoutMs() + " ms");
            assertEquals(type, e.type(), what + ": the event (status " + e.status() + ")");
            return new Ev(e.type(), e.status(), e.id(), e.privateData());
        }
    }

    private void assertNoEvent(String why) {
        try (CmEvent e = ch.getEvent(QUIET_MS, TimeUnit.MILLISECONDS)) {
            assertNull(e, () -> why + ": " + e.type() + " status " + e.status());
        }
    }

    private QueuePair qp(CmId id) {
        ProtectionDomain pd = id.context().allocPd();
        CompletionQueue cq = id.context().createCq(8);
        resources.add(pd);
        resources.add(cq);
        return id.createQp(pd, QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(4).maxRecvWr(4).build());
    }

    // ---------------------------------------------------------------- the verbs4j side active

    /** An id connecting to the peer, its REQ read at the peer. */
    private CmId connect() throws Exception {
        CmId id = cm.createId(ch, CmPortSpace.TCP);
        ids.add(id);
        id.resolveAddr(null, new InetSocketAddress(peerIp, LISTEN_PORT), 1000);
        event(CmEventType.ADDR_RESOLVED, "resolve the peer");
        assertEquals(ep.local.getAddress(), id.localAddress().getAddress(), "the peer is reached through roce0");
        id.resolveRoute(1000);
        event(CmEventType.ROUTE_RESOLVED, "the route to the peer");
        qp(id);
        id.connect(ConnectionParameters.defaults());
        return id;
    }

    /** The peer's REP to {@code req}, from comm ID {@code local}. */
    private static CmMad rep(Mad req, int local) {
        CmMad m = new CmMad().begin(CmMad.ATTR_REP, req.tid());
        m.localCommId = local;
        m.remoteCommId = req.local();
        m.localQpn = PEER_QPN;
        m.startingPsn = PEER_PSN;
        m.responderResources = 1;
        m.initiatorDepth = 1;
        m.rnrRetryCount = 7;
        m.localCaGuid = PEER_GUID;
        return m;
    }

    /** A message of {@code attr} from comm ID {@code local} to comm ID {@code remote}. */
    private static CmMad message(int attr, long tid, int local, int remote) {
        CmMad m = new CmMad().begin(attr, tid);
        m.localCommId = local;
        m.remoteCommId = remote;
        return m;
    }

    /** An id connected to the peer (REQ, REP, RTU), whose peer comm ID is {@code peerComm}; returns the REQ. */
    private Mad established(CmId[] out, int peerComm) throws Exception {
        out[0] = connect();
        Mad req = expect(CmMad.ATTR_REQ, "the REQ");
        send(rep(req, peerComm));
        Mad rtu = expect(CmMad.ATTR_RTU, "the RTU for the REP");
        lastRtu = rtu;
        assertEquals(req.local(), rtu.local(), "the RTU's sender comm ID");
        assertEquals(peerComm, rtu.remote(), "the RTU names the REP's sender");
        assertEquals(req.tid(), rtu.tid(), "the RTU's transaction ID");
        event(CmEventType.ESTABLISHED, "the REP");
        assertEquals(QpState.RTS, out[0].qp().state());
        return req;
    }

    // ---------------------------------------------------------------- the verbs4j side passive

    private CmId listen() {
        CmId id = cm.createId(ch, CmPortSpace.TCP);
        ids.add(id);
        id.bindAddr(new InetSocketAddress(ep.local.getAddress(), LISTEN_PORT));
        id.listen(8);
        return id;
    }

    /** A REQ from the peer, comm ID {@code local} on CA {@code guid}, for the listener. */
    private CmMad req(int local, long guid) {
        CmMad m = new CmMad().begin(CmMad.ATTR_REQ, 0x77_0000L + local);
        m.localCommId = local;
        m.serviceId = CmaHeader.serviceId(LISTEN_PORT);
        m.localCaGuid = guid;
        m.localQpn = PEER_QPN;
        m.responderResources = 1;
        m.initiatorDepth = 1;
        m.remoteCmResponseTimeout = 20;
        m.transportServiceType = 0;
        m.startingPsn = PEER_PSN;
        m.localCmResponseTimeout = 20;
        m.retryCount = 7;
        m.rnrRetryCount = 7;
        m.pathMtu = 3;
        m.maxCmRetries = 15;
        System.arraycopy(Gid.ofIpv4(peerIp.getAddress()).toBytes(), 0, m.localGid, 0, 16);
        System.arraycopy(Gid.ofIpv4(ep.local.getAddress().getAddress()).toBytes(), 0, m.remoteGid, 0, 16);
        m.hopLimit = 64;
        m.localAckTimeout = 14;
        m.privateData = new CmaHeader(ipv4(peerIp), 40000, ep.localAddr).prepend(new byte[] {(byte) local});
        return m;
    }

    /** The connect request's id for a REQ the peer sent, with a QP. */
    private CmId request(String what) {
        Ev e = event(CmEventType.CONNECT_REQUEST, what);
        ids.add(e.id());
        qp(e.id());
        return e.id();
    }

    // ---------------------------------------------------------------- the rules

    @Test
    @DisplayName("A GSI datagram that is not a UD SEND_ONLY, has another Q_Key than the GSI's or holds less than a "
            + "whole MAD is dropped, as rxe drops it; the same REQ in a proper datagram is taken")
    void malformedGsiDatagramsAreDropped() throws Exception {
        listen();
        // A REQ the agent reads and rejects first: a datagram taken with no MAD parsed would act on it again.
        CmMad otherSpace = req(0x1000, PEER_GUID);
        otherSpace.serviceId = 0x0111L << 16 | LISTEN_PORT;
        send(otherSpace);
        assertEquals(0x1000, expect(CmMad.ATTR_REJ, "a REQ for another port space").remote());
        byte[] req = bytes(req(0x1001, PEER_GUID));
        sendRaw(Opcode.UD | Opcode.SEND_ONLY_WITH_IMMEDIATE, CmMad.GSI_QKEY, req, CmMad.LENGTH);
        sendRaw(Opcode.UD | Opcode.SEND_ONLY, CmMad.GSI_QKEY + 1, req, CmMad.LENGTH);
        sendRaw(Opcode.UD | Opcode.SEND_ONLY, CmMad.GSI_QKEY, req, CmMad.LENGTH - 4);
        assertNoEvent("a REQ in a SEND_ONLY with immediate, with another Q_Key, or 4 bytes short was taken");
        assertQuiet("a dropped datagram was answered");
        sendRaw(Opcode.UD | Opcode.SEND_ONLY, CmMad.GSI_QKEY, req, CmMad.LENGTH);
        CmId child = request("the same REQ in a proper datagram");
        child.reject(new byte[0]);
        Mad rej = expect(CmMad.ATTR_REJ, "the reject");
        assertEquals(0x1001, rej.remote(), "the REJ names the REQ's sender");
    }

    @Test
    @DisplayName("A REQ for a service ID outside rdma_cm's TCP port space, without an IPv4 CMA header, or for a "
            + "transport other than RC is rejected with reason 8 (invalid service ID) and reaches no listener")
    void reqsRdmaCmDoesNotTakeAreRejected() throws Exception {
        listen();
        CmMad otherSpace = req(0x2001, PEER_GUID);
        otherSpace.serviceId = 0x0111L << 16 | LISTEN_PORT; // RDMA_PS_UDP
        CmMad noHeader = req(0x2002, PEER_GUID);
        noHeader.privateData = new byte[CmaHeader.LENGTH]; // version 0, but IP version 0: not an IPv4 header
        CmMad uc = req(0x2003, PEER_GUID);
        uc.transportServiceType = 1;
        for (CmMad m : List.of(otherSpace, noHeader, uc)) {
            send(m);
            Mad rej = expect(CmMad.ATTR_REJ, "the REJ of REQ " + Integer.toHexString(m.localCommId));
            assertEquals(m.localCommId, rej.remote(), "the REJ names the REQ's sender");
            assertEquals(0, rej.local(), "a REJ of a REQ no listener took names no comm ID of its own");
            assertEquals(m.transactionId, rej.tid(), "the REJ answers the REQ's transaction");
            assertEquals(CmMad.REJECTED_REQ, rej.m().messageRejected, "the message rejected");
            assertEquals(INVALID_SERVICE_ID, ByteBuffer.wrap(rej.raw()).getShort(24 + 10) & 0xffff, "the reason");
        }
        assertNoEvent("a REQ rdma_cm does not take reached the listener");
        send(req(0x2004, PEER_GUID));
        request("a REQ for the listener's port, with a CMA header, for RC");
    }

    @Test
    @DisplayName("A REQ received again before the accept is not a second request; after it, it gets the same REP "
            + "again (its REP was lost); an RTU before the accept is ignored; a REQ of another comm ID or CA is a "
            + "new request")
    void repeatedReqGetsTheSameRep() throws Exception {
        // No retry of the REP within the test: a REP that comes is the answer to the REQ sent again.
        retries(60_000, 15);
        listen();
        CmMad req = req(0x3001, PEER_GUID);
        send(req);
        CmId child = request("the REQ");
        send(req);
        assertNoEvent("the REQ again made a second connect request");
        assertQuiet("the REQ again before the accept was answered");
        send(message(CmMad.ATTR_RTU, req.transactionId, 0x3001, 0x5a5a5a5a));
        assertNoEvent("an RTU for an unknown comm ID was taken");
        child.accept(ConnectionParameters.defaults());
        Mad rep = expect(CmMad.ATTR_REP, "the REP");
        assertEquals(0x3001, rep.remote(), "the REP names the REQ's sender");
        assertEquals(req.transactionId, rep.tid(), "the REP answers the REQ's transaction");
        send(req);
        Mad again = expect(CmMad.ATTR_REP, "the REP again, for the REQ again");
        assertArrayEquals(rep.raw(), again.raw(), "the REP sent again is the same MAD");
        assertNoEvent("the REQ again after the accept made an event");
        send(req(0x3001, PEER_GUID + 1));
        request("the same comm ID on another CA: a new connection").reject(new byte[0]);
        assertEquals(0x3001, expect(CmMad.ATTR_REJ, "its reject").remote());
        send(req(0x3002, PEER_GUID));
        request("another comm ID on the same CA: a new connection").reject(new byte[0]);
        assertEquals(0x3002, expect(CmMad.ATTR_REJ, "its reject").remote());
        send(message(CmMad.ATTR_RTU, req.transactionId, 0x3001, rep.local()));
        Ev e = event(CmEventType.ESTABLISHED, "the RTU");
        assertSame(child, e.id());
        assertEquals(QpState.RTS, child.qp().state());
        send(message(CmMad.ATTR_RTU, req.transactionId, 0x3001, rep.local()));
        assertNoEvent("the RTU again made a second ESTABLISHED");
    }

    @Test
    @DisplayName("An RTU before the accept is ignored (the request stays pending)")
    void rtuBeforeAcceptIsIgnored() throws Exception {
        listen();
        CmMad req = req(0x3101, PEER_GUID);
        send(req);
        CmId child = request("the REQ");
        // The REQ's id is known only by the REP: the RTU names comm ID 0, and is found by its sender's.
        send(message(CmMad.ATTR_RTU, req.transactionId, 0x3101, 0));
        assertNoEvent("an RTU before the accept established the connection");
        child.accept(ConnectionParameters.defaults());
        Mad rep = expect(CmMad.ATTR_REP, "the REP");
        send(message(CmMad.ATTR_RTU, req.transactionId, 0x3101, rep.local()));
        assertSame(child, event(CmEventType.ESTABLISHED, "the RTU after the REP").id());
    }

    @Test
    @DisplayName("A REP received again (its RTU was lost) gets the same RTU again and no second event; a REP from "
            + "another sender comm ID, or for a comm ID the agent does not hold, is ignored")
    void repeatedRepGetsTheSameRtu() throws Exception {
        CmId[] id = new CmId[1];
        Mad req = established(id, 0x4001);
        send(rep(req, 0x4001));
        Mad again = expect(CmMad.ATTR_RTU, "the REP again");
        assertArrayEquals(lastRtu.raw(), again.raw(), "the RTU sent again is the same MAD");
        assertNoEvent("the REP again made a second ESTABLISHED");
        send(rep(req, 0x4002));
        assertQuiet("a REP from another sender comm ID was answered");
        CmMad unknown = rep(req, 0x4001);
        unknown.remoteCommId = req.local() ^ 0x00ff_0000;
        send(unknown);
        assertQuiet("a REP for an unknown comm ID was answered");
        assertNoEvent("a foreign REP made an event");
        assertEquals(QpState.RTS, id[0].qp().state());
    }

    @Test
    @DisplayName("Stale and foreign answers on an established connection are ignored: an RTU, a REJ, a DREP, a REJ "
            + "for an unknown comm ID; a DREQ naming the connection from another sender comm ID is taken as one for "
            + "a gone connection (a DREP at once, IBA 12.9.6), and the true DREQ disconnects")
    void staleAndForeignMessagesAreIgnored() throws Exception {
        CmId[] id = new CmId[1];
        Mad req = established(id, 0x5001);
        int a = req.local();
        send(message(CmMad.ATTR_RTU, req.tid(), 0x5001, a));
        CmMad rej = message(CmMad.ATTR_REJ, req.tid(), 0x5001, a);
        rej.reason = 28;
        send(rej);
        send(message(CmMad.ATTR_DREP, req.tid(), 0x5001, a));
        CmMad rejUnknown = message(CmMad.ATTR_REJ, req.tid(), 0x5001, a ^ 0x0f00_0000);
        rejUnknown.reason = 28;
        send(rejUnknown);
        assertNoEvent("an RTU, a REJ or a DREP on an established connection made an event");
        assertQuiet("a stale message was answered");
        assertEquals(QpState.RTS, id[0].qp().state(), "a stale message moved the QP");
        send(message(CmMad.ATTR_DREQ, 0x99, 0x5002, a));
        Mad drep = expect(CmMad.ATTR_DREP, "a DREQ from another sender comm ID");
        assertEquals(a, drep.local(), "the DREP echoes the comm ID the DREQ named");
        assertEquals(0x5002, drep.remote(), "the DREP names the DREQ's sender");
        assertEquals(0x99, drep.tid(), "the DREP answers the DREQ's transaction");
        assertNoEvent("a DREQ from another sender comm ID disconnected the connection");
        send(message(CmMad.ATTR_DREQ, 0x9a, 0x5001, a));
        event(CmEventType.DISCONNECTED, "the peer's DREQ");
        id[0].disconnect();
        Mad answer = expect(CmMad.ATTR_DREP, "the DREP of rdma_disconnect");
        assertEquals(0x9a, answer.tid(), "the DREP answers the DREQ's transaction");
        assertEquals(0x5001, answer.remote());
    }

    @Test
    @DisplayName("A REJ of an accepted or pending request ends that request only: one naming comm ID 0 is found by "
            + "its sender's comm ID, and one whose sender the agent does not know is ignored")
    void rejEndsTheRequestItNames() throws Exception {
        listen();
        send(req(0x6001, PEER_GUID));
        CmId first = request("the first REQ");
        send(req(0x6002, PEER_GUID));
        CmId second = request("the second REQ");
        CmMad foreign = message(CmMad.ATTR_REJ, 1, 0x6003, 0);
        foreign.reason = 28;
        send(foreign);
        assertNoEvent("a REJ from an unknown sender, naming comm ID 0, ended a request");
        CmMad rej = message(CmMad.ATTR_REJ, 2, 0x6002, 0);
        rej.reason = 28;
        send(rej);
        Ev e = event(CmEventType.REJECTED, "a REJ naming comm ID 0 from the second REQ's sender");
        assertSame(second, e.id(), "the REJ's request");
        assertEquals(28, e.status(), "the REJ's reason");
        first.accept(ConnectionParameters.defaults());
        Mad rep = expect(CmMad.ATTR_REP, "the REP");
        CmMad rejRep = message(CmMad.ATTR_REJ, 3, 0x6001, rep.local());
        rejRep.messageRejected = CmMad.REJECTED_REP;
        rejRep.reason = 28;
        send(rejRep);
        e = event(CmEventType.REJECTED, "a REJ of the REP");
        assertSame(first, e.id());
        assertEquals(QpState.ERR, first.qp().state(), "a rejected connection's QP");
        assertQuiet("a rejected REP was sent again");
    }

    @Test
    @DisplayName("A DREQ for a connection already gone (its DREP was lost) is answered with a DREP at once and no "
            + "event (IBA 12.9.6)")
    void dreqForAGoneConnectionIsAnsweredAtOnce() throws Exception {
        CmId[] id = new CmId[1];
        Mad req = established(id, 0x7001);
        int a = req.local();
        send(message(CmMad.ATTR_DREQ, 0x71, 0x7001, a));
        event(CmEventType.DISCONNECTED, "the DREQ");
        id[0].disconnect();
        assertEquals(0x71, expect(CmMad.ATTR_DREP, "the DREP").tid());
        send(message(CmMad.ATTR_DREQ, 0x71, 0x7001, a));
        Mad drep = expect(CmMad.ATTR_DREP, "the DREQ again");
        assertEquals(a, drep.local(), "the DREP's sender comm ID");
        assertEquals(0x7001, drep.remote(), "the DREP names the DREQ's sender");
        assertEquals(0x71, drep.tid(), "the DREP answers the DREQ's transaction");
        assertNoEvent("a DREQ for a gone connection made an event");
    }

    @Test
    @DisplayName("Two DREQs crossing: the peer's DREQ while this side's waits for its DREP is answered with a DREP "
            + "and ends the disconnect (DISCONNECTED); the late DREP is ignored")
    void crossingDreqsEndTheDisconnect() throws Exception {
        CmId[] id = new CmId[1];
        Mad req = established(id, 0x8001);
        int a = req.local();
        id[0].disconnect();
        Mad dreq = expect(CmMad.ATTR_DREQ, "rdma_disconnect's DREQ");
        assertEquals(a, dreq.local());
        assertEquals(0x8001, dreq.remote());
        send(message(CmMad.ATTR_DREQ, 0x81, 0x8001, a));
        Mad drep = expect(CmMad.ATTR_DREP, "the DREP of the crossing DREQ");
        assertEquals(a, drep.local());
        assertEquals(0x8001, drep.remote());
        assertEquals(0x81, drep.tid(), "the DREP answers the peer's DREQ");
        Ev e = event(CmEventType.DISCONNECTED, "the crossing DREQ");
        assertEquals(0, e.status());
        send(message(CmMad.ATTR_DREP, dreq.tid(), 0x8001, a));
        assertNoEvent("the late DREP made a second DISCONNECTED");
    }

    @Test
    @DisplayName("An unanswered REQ is sent again max-retries times, retry-interval apart, then the connect fails: "
            + "UNREACHABLE with -ETIMEDOUT, the QP in ERR, nothing more sent")
    void unansweredReqEndsUnreachable() throws Exception {
        retries(100, 2);
        CmId id = connect();
        Mad req = expect(CmMad.ATTR_REQ, "the REQ");
        for (int i = 1; i <= 2; i++) {
            assertArrayEquals(req.raw(), expect(CmMad.ATTR_REQ, "retry " + i).raw(), "retry " + i);
        }
        Ev e = event(CmEventType.UNREACHABLE, "the REQ's retries run out");
        assertEquals(-Errno.ETIMEDOUT, e.status());
        assertSame(id, e.id());
        assertEquals(QpState.ERR, id.qp().state(), "the QP of a connect that failed");
        assertQuiet("a REQ after the retries ran out");
        send(rep(req, 0x9001));
        assertQuiet("a REP after the connect failed was answered");
        assertNoEvent("a REP after the connect failed made an event");
    }

    @Test
    @DisplayName("An MRA for a pending REQ starts its retries over (a kernel ib_cm peer sends one when it needs "
            + "longer)")
    void mraStartsTheRetriesOver() throws Exception {
        retries(300, 2);
        connect();
        Mad req = expect(CmMad.ATTR_REQ, "the REQ");
        expect(CmMad.ATTR_REQ, "retry 1");
        // An MRA of the REQ (IBA 12.6.6): message MRAed 0 (REQ), service timeout 20.
        ByteBuffer mra = ByteBuffer.allocate(CmMad.LENGTH);
        mra.put(0, (byte) CmMad.BASE_VERSION).put(1, (byte) CmMad.MGMT_CLASS_CM).put(2, (byte) CmMad.CLASS_VERSION)
                .put(3, (byte) CmMad.METHOD_SEND).putLong(8, req.tid()).putShort(16, (short) CmMad.ATTR_MRA)
                .putInt(24, 0xa001).putInt(28, req.local()).put(32, (byte) 0).put(33, (byte) (20 << 3));
        sendRaw(Opcode.UD | Opcode.SEND_ONLY, CmMad.GSI_QKEY, mra.array(), CmMad.LENGTH);
        // The same MRA naming a comm ID the agent does not hold: ignored.
        sendRaw(Opcode.UD | Opcode.SEND_ONLY, CmMad.GSI_QKEY, mra.putInt(28, req.local() ^ 0x0f00_0000).array(),
                CmMad.LENGTH);
        expect(CmMad.ATTR_REQ, "retry 2 (the first after the MRA)");
        expect(CmMad.ATTR_REQ, "retry 3: the MRA gave the REQ its retries again");
        assertEquals(-Errno.ETIMEDOUT, event(CmEventType.UNREACHABLE, "the retries after the MRA run out").status());
    }

    @Test
    @DisplayName("An unanswered REP is sent again, then the accepted request fails: UNREACHABLE with -ETIMEDOUT")
    void unansweredRepEndsUnreachable() throws Exception {
        retries(100, 2);
        listen();
        send(req(0xb001, PEER_GUID));
        CmId child = request("the REQ");
        child.accept(ConnectionParameters.defaults());
        Mad rep = expect(CmMad.ATTR_REP, "the REP");
        for (int i = 1; i <= 2; i++) {
            assertArrayEquals(rep.raw(), expect(CmMad.ATTR_REP, "retry " + i).raw(), "retry " + i);
        }
        Ev e = event(CmEventType.UNREACHABLE, "the REP's retries run out");
        assertSame(child, e.id());
        assertEquals(-Errno.ETIMEDOUT, e.status());
        assertEquals(QpState.ERR, child.qp().state());
        assertQuiet("a REP after the retries ran out");
    }

    @Test
    @DisplayName("An unanswered DREQ is sent again, then the disconnect ends all the same: DISCONNECTED, status 0")
    void unansweredDreqEndsDisconnected() throws Exception {
        CmId[] id = new CmId[1];
        established(id, 0xc001);
        retries(100, 2);
        id[0].disconnect();
        Mad dreq = expect(CmMad.ATTR_DREQ, "the DREQ");
        for (int i = 1; i <= 2; i++) {
            assertArrayEquals(dreq.raw(), expect(CmMad.ATTR_DREQ, "retry " + i).raw(), "retry " + i);
        }
        Ev e = event(CmEventType.DISCONNECTED, "the DREQ's retries run out");
        assertEquals(0, e.status());
        assertSame(id[0], e.id());
        assertQuiet("a DREQ after the retries ran out");
    }

    @Test
    @DisplayName("An id closed while connected sends its DREQ; a DREQ of the peer crossing it is answered at once "
            + "(IBA 12.9.6), and the end of the DREQ's retries reaches no channel")
    void closedIdGetsNoEvent() throws Exception {
        CmId[] id = new CmId[1];
        Mad req = established(id, 0xd001);
        retries(200, 1);
        id[0].destroyQp();
        id[0].close();
        Mad dreq = expect(CmMad.ATTR_DREQ, "the close's DREQ");
        send(message(CmMad.ATTR_DREQ, 0xd1, 0xd001, req.local()));
        Mad drep = expect(CmMad.ATTR_DREP, "the peer's DREQ after the close");
        assertEquals(0xd1, drep.tid(), "the DREP answers the peer's DREQ");
        assertEquals(0xd001, drep.remote());
        assertArrayEquals(dreq.raw(), expect(CmMad.ATTR_DREQ, "its retry").raw());
        Thread.sleep(250);
        assertNoEvent("an event of a closed id was delivered");
        assertQuiet("a DREQ after its retries ran out");
    }
}
