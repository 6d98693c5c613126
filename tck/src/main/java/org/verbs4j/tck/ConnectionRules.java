package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AhAttributes;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.GidType;
import org.verbs4j.LinkLayer;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpState;
import org.verbs4j.RcEndpoint;
import org.verbs4j.RcListener;
import org.verbs4j.RcOptions;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.VerbsException;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;
import org.verbs4j.spi.VerbsProvider;

/**
 * Connection management ({@code rdma_cm(7)}): listen, connect, accept, reject and disconnect with private data,
 * the order of events, event-channel timeouts, and the QP transitions the connection manager makes. A provider
 * without a connection manager skips the area, with that reason.
 */
public abstract class ConnectionRules extends CmArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected ConnectionRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    @Test
    @DisplayName("required_ connectionManager() works exactly when hasConnectionManager() is true, else UnsupportedOperationException [rdma_cm(7)]")
    void required_capabilityMatchesConnectionManager() {
        VerbsProvider p = kit().providerUnderTest();
        if (p.hasConnectionManager()) {
            assertNotNull(p.connectionManager());
        } else {
            Expect.thrown("connectionManager() without one", UnsupportedOperationException.class,
                    p::connectionManager);
        }
    }

    @Test
    @DisplayName("required_ listen, connect and accept give a connected RC pair in RTS with private data both ways, the passive id addressed from the active one's local and remote addresses [rdma_connect(3), rdma_accept(3), rdma_get_cm_event(3), rdma_get_peer_addr(3), rdma_get_local_addr(3)]")
    void required_connectAccept() {
        assumeCm();
        byte[] hello = text("hello from the active side");
        byte[] welcome = text("welcome from the passive side");
        CmBench.Connection c = cm.connect(hello, welcome);
        assertPrefix(hello, c.request().privateData(), "CONNECT_REQUEST's private data");
        assertSame(c.listener(), c.request().listenId(), "CONNECT_REQUEST's listen id");
        assertPrefix(welcome, c.established().privateData(), "the active side's ESTABLISHED private data");
        assertEquals(QpState.RTS, c.a().qp().state(), "the active QP after ESTABLISHED");
        assertEquals(QpState.RTS, c.b().qp().state(), "the passive QP after ESTABLISHED");
        assertNotNull(c.b().id().remoteAddress(), "the passive id knows its peer");
        assertEquals(c.listener().localAddress().getPort(), c.b().id().localAddress().getPort(),
                "the passive id's local port is the listener's");
        // rdma_get_peer_addr(3), rdma_get_local_addr(3): the passive id's peer is the active id's local address and
        // port, and its local address the one the active side connected to.
        assertEquals(c.a().id().localAddress(), c.b().id().remoteAddress(),
                "the passive id's peer address and port are the active id's local ones");
        assertEquals(c.a().id().remoteAddress().getAddress(), c.b().id().localAddress().getAddress(),
                "the passive id's local address is the one the active side connected to");
        sendAndReceive(c.a(), c.b(), "ping");
        sendAndReceive(c.b(), c.a(), "pong");
    }

    private void sendAndReceive(CmBench.End from, CmBench.End to, String message) {
        MemoryRegion src = cm.buffer(from, 64);
        MemoryRegion dst = cm.buffer(to, 64);
        byte[] bytes = text(message);
        src.segment().asByteBuffer().put(bytes);
        to.qp().postRecv(new RecvWr(1, Sge.of(dst, 0, 64)));
        from.qp().postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(src, 0, bytes.length)));
        WorkCompletion sent = Completions.awaitOne(from.cq(), "the SEND of '" + message + "'");
        assertEquals(WcStatus.SUCCESS, sent.status(), "the SEND of '" + message + "'");
        WorkCompletion got = Completions.awaitOne(to.cq(), "the receive of '" + message + "'");
        assertEquals(WcStatus.SUCCESS, got.status());
        assertEquals(WcOpcode.RECV, got.opcode());
        byte[] arrived = new byte[bytes.length];
        dst.segment().asByteBuffer().get(arrived);
        assertArrayEquals(bytes, arrived, "the bytes received");
    }

    @Test
    @DisplayName("required_ events arrive in order: ADDR_RESOLVED, ROUTE_RESOLVED, ESTABLISHED, DISCONNECTED on the active side; CONNECT_REQUEST, ESTABLISHED, DISCONNECTED on the passive [rdma_cm(7) EVENTS]")
    void required_eventsInOrder() {
        assumeCm();
        CmEventChannel lch = cm.channel();
        CmId listener = cm.listener(lch);
        CmEventChannel ach = cm.channel();
        CmId active = cm.id(ach);
        active.resolveAddr(null, new InetSocketAddress(cm.address, listener.localAddress().getPort()), 5000);
        List<CmEventType> activeEvents = new ArrayList<>();
        List<CmEventType> passiveEvents = new ArrayList<>();
        activeEvents.add(CmBench.expect(ach, CmEventType.ADDR_RESOLVED, "rdma_resolve_addr").type());
        active.resolveRoute(5000);
        activeEvents.add(CmBench.expect(ach, CmEventType.ROUTE_RESOLVED, "rdma_resolve_route").type());
        cm.end(ach, active);
        active.connect(ConnectionParameters.defaults());
        CmEvent req = CmBench.expect(lch, CmEventType.CONNECT_REQUEST, "rdma_connect");
        passiveEvents.add(req.type());
        CmId child = cm.keep(req.id());
        cm.end(lch, child);
        child.accept(ConnectionParameters.defaults());
        activeEvents.add(CmBench.expect(ach, CmEventType.ESTABLISHED, "rdma_accept").type());
        passiveEvents.add(CmBench.expect(lch, CmEventType.ESTABLISHED, "rdma_accept").type());
        active.disconnect();
        passiveEvents.add(CmBench.expect(lch, CmEventType.DISCONNECTED, "the peer's rdma_disconnect").type());
        child.disconnect();
        activeEvents.add(CmBench.expect(ach, CmEventType.DISCONNECTED, "both rdma_disconnects").type());
        assertEquals(List.of(CmEventType.ADDR_RESOLVED, CmEventType.ROUTE_RESOLVED, CmEventType.ESTABLISHED,
                CmEventType.DISCONNECTED), activeEvents);
        assertEquals(List.of(CmEventType.CONNECT_REQUEST, CmEventType.ESTABLISHED, CmEventType.DISCONNECTED),
                passiveEvents);
    }

    @Test
    @DisplayName("required_ a rejected connect gets REJECTED with the reject's private data (status 28, consumer defined, on IB and RoCE) and its QP goes to ERR [rdma_reject(3), rdma_get_cm_event(3) REJECTED]")
    void required_rejectWithPrivateData() {
        assumeCm();
        CmBench.Setup s = cm.setup();
        CmEventChannel lch = s.listenChannel();
        CmBench.End a = s.active();
        CmEventChannel ach = a.channel();
        CmId active = a.id();
        byte[] ask = text("may I?");
        active.connect(ConnectionParameters.of(ask));
        CmEvent req = CmBench.expect(lch, CmEventType.CONNECT_REQUEST, "rdma_connect");
        assertPrefix(ask, req.privateData(), "CONNECT_REQUEST's private data");
        CmId child = cm.keep(req.id());
        byte[] no = text("no: the server is full");
        child.reject(no);
        CmEvent rej = CmBench.expect(ach, CmEventType.REJECTED, "rdma_reject");
        if (ibCm()) {
            assertEquals(CmEvent.REJECT_CONSUMER_DEFINED, rej.status(), "the IB CM reject reason of rdma_reject");
        }
        assertPrefix(no, rej.privateData(), "REJECTED's private data");
        assertEquals(QpState.ERR, a.qp().state(), "librdmacm moves the QP of a rejected connect to ERR");
    }

    @Test
    @DisplayName("required_ a connect to a port nobody listens on gets REJECTED (status 8, invalid service ID, on IB and RoCE) [rdma_get_cm_event(3) REJECTED]")
    void required_noListenerRejects() {
        assumeCm();
        CmEventChannel lch = cm.channel();
        CmId probe = cm.id(lch);
        probe.bindAddr(new InetSocketAddress(cm.address, 0));
        int port = probe.localAddress().getPort();
        probe.close(); // the port is free again, and nobody listens on it
        CmEventChannel ach = cm.channel();
        CmId active = cm.resolved(ach, port);
        cm.end(ach, active);
        active.connect(ConnectionParameters.defaults());
        CmEvent rej = CmBench.expect(ach, CmEventType.REJECTED, "rdma_connect to port " + port + " with no listener");
        if (ibCm()) {
            assertEquals(CmEvent.REJECT_INVALID_SERVICE_ID, rej.status(), "the IB CM reject reason with no listener");
        }
    }

    @Test
    @DisplayName("required_ disconnect moves the QP to ERR at once, flushing its receives with WR_FLUSH_ERR; the peer gets DISCONNECTED, and the first side gets it when the peer disconnects too [rdma_disconnect(3)]")
    void required_disconnectFlushes() {
        assumeCm();
        CmBench.Connection c = cm.connect(new byte[0], new byte[0]);
        MemoryRegion ra = cm.buffer(c.a(), 64);
        MemoryRegion rb = cm.buffer(c.b(), 64);
        c.a().qp().postRecv(new RecvWr(11, Sge.of(ra, 0, 64)));
        c.b().qp().postRecv(new RecvWr(22, Sge.of(rb, 0, 64)));
        c.a().id().disconnect();
        assertEquals(QpState.ERR, c.a().qp().state(), "the QP of the side that disconnected");
        WorkCompletion fa = Completions.awaitOne(c.a().cq(), "the flushed receive of the side that disconnected");
        assertEquals(11, fa.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, fa.status());
        CmBench.expect(c.b().channel(), CmEventType.DISCONNECTED, "the peer's rdma_disconnect");
        c.b().id().disconnect();
        assertEquals(QpState.ERR, c.b().qp().state(), "the QP of the side that disconnected second");
        WorkCompletion fb = Completions.awaitOne(c.b().cq(), "the flushed receive of the second side");
        assertEquals(22, fb.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, fb.status());
        CmBench.expect(c.a().channel(), CmEventType.DISCONNECTED, "both sides' rdma_disconnect");
        Expect.errno("a second rdma_disconnect", () -> c.a().id().disconnect(), Errno.EINVAL);
    }

    @Test
    @DisplayName("required_ getEvent with a timeout returns null when no event comes, refuses a negative timeout, and a closed channel refuses it [rdma_get_cm_event(3)]")
    void required_getEventTimeout() {
        assumeCm();
        CmEventChannel ch = cm.channel();
        assertNull(ch.getEvent(0, TimeUnit.MILLISECONDS), "no event is queued");
        assertNull(ch.getEvent(50, TimeUnit.MILLISECONDS), "no event came within 50 ms");
        Expect.badInput("getEvent(-1 ms)", () -> ch.getEvent(-1, TimeUnit.MILLISECONDS));
        ch.close();
        Expect.thrown("getEvent on a closed channel", IllegalStateException.class,
                () -> ch.getEvent(0, TimeUnit.MILLISECONDS));
        Expect.thrown("getEvent() on a closed channel", IllegalStateException.class, ch::getEvent);
    }

    @Test
    @DisplayName("required_ closing a channel wakes a thread blocked in getEvent() with IllegalStateException [rdma_destroy_event_channel(3)]")
    void required_closeWakesWaiter() throws Exception {
        assumeCm();
        CmEventChannel ch = cm.channel();
        CompletableFuture<Throwable> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                ch.getEvent();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        assertNull(ch.getEvent(100, TimeUnit.MILLISECONDS), "no event on a new channel");
        ch.close();
        Throwable t = waiter.get(CmBench.EVENT_WAIT_MS, TimeUnit.MILLISECONDS);
        assertTrue(t instanceof IllegalStateException, "the blocked getEvent() ended with " + t);
    }

    @Test
    @DisplayName("required_ resolving an address nobody answers ends in ADDR_ERROR (or a failed call), never ADDR_RESOLVED [rdma_resolve_addr(3)]")
    void required_unreachableAddress() throws Exception {
        assumeCm();
        CmEventChannel ch = cm.channel();
        CmId id = cm.id(ch);
        // TEST-NET-2 (RFC 5737): never assigned. TEST-NET-1's 192.0.2.1 is the soft-RoCE guest's own dummy0.
        InetSocketAddress nobody = new InetSocketAddress(java.net.InetAddress.getByName("198.51.100.1"), 7471);
        try {
            id.resolveAddr(null, nobody, 300);
        } catch (VerbsException e) {
            return; // no route: the call itself fails, as rdma_resolve_addr does on a host without one
        }
        CmEvent e = ch.getEvent(CmBench.EVENT_WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(e, "no event within " + CmBench.EVENT_WAIT_MS + " ms of a 300 ms resolution");
        e.close();
        assertEquals(CmEventType.ADDR_ERROR, e.type(), "resolving TEST-NET-2 (198.51.100.1)");
        assertTrue(e.status() < 0, "ADDR_ERROR's status is a negative errno, not " + e.status());
    }

    @Test
    @DisplayName("required_ private data longer than the transport carries is refused with IllegalArgumentException: connect 56, accept 196, reject 148 bytes on IB and RoCE [rdma_connect(3), IBA 12.6]")
    void required_privateDataLimits() {
        assumeCm();
        assumeTrue(ibCm(), "the limits checked are InfiniBand's and RoCE's");
        CmBench.Setup s = cm.setup();
        CmEventChannel lch = s.listenChannel();
        CmEventChannel ach = s.active().channel();
        CmId active = s.active().id();
        Expect.badInput("connect with 57 bytes", () -> active.connect(ConnectionParameters.of(
                new byte[ConnectionParameters.MAX_CONNECT_PRIVATE_DATA + 1])));
        byte[] most = new byte[ConnectionParameters.MAX_CONNECT_PRIVATE_DATA];
        Arrays.fill(most, (byte) 0x5a);
        active.connect(ConnectionParameters.of(most));
        CmEvent req = CmBench.expect(lch, CmEventType.CONNECT_REQUEST, "rdma_connect with 56 bytes");
        assertPrefix(most, req.privateData(), "56 bytes of private data");
        CmId child = cm.keep(req.id());
        cm.end(lch, child);
        Expect.badInput("accept with 197 bytes", () -> child.accept(ConnectionParameters.of(
                new byte[ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA + 1])));
        Expect.badInput("reject with 149 bytes", () -> child.reject(
                new byte[ConnectionParameters.MAX_REJECT_PRIVATE_DATA + 1]));
        child.reject(new byte[0]);
        CmBench.expect(ach, CmEventType.REJECTED, "rdma_reject");
    }

    @Test
    @DisplayName("required_ an id with a QP or an unacknowledged event, and a channel with an id, refuse close with EBUSY and stay usable [rdma_destroy_id(3), rdma_destroy_event_channel(3)]")
    void required_closeOrder() {
        assumeCm();
        CmBench.Setup s = cm.setup();
        CmEventChannel ch = s.listenChannel();
        CmEventChannel ach = s.active().channel();
        CmId active = s.active().id();
        Expect.errno("close an id that has a QP", active::close, Errno.EBUSY);
        assertFalse(active.isClosed());
        Expect.errno("close a channel with an id", ach::close, Errno.EBUSY);
        assertFalse(ach.isClosed());
        active.connect(ConnectionParameters.defaults());
        CmEvent req = ch.getEvent(CmBench.EVENT_WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(req, "CONNECT_REQUEST");
        CmId child = req.id();
        Expect.errno("close an id whose event is not acknowledged", child::close, Errno.EBUSY);
        req.close();
        assertTrue(req.isAcked());
        child.close();
        assertTrue(child.isClosed());
        Expect.closed("a closed id", () -> child.accept(ConnectionParameters.defaults()));
        CmBench.expect(ach, CmEventType.REJECTED, "the request's id closed without an answer");
    }

    @Test
    @DisplayName("required_ RcListener.accept and RcEndpoint.connect give a connected pair in one call each, with private data both ways [rdma_cm(7)]")
    void required_convenienceLayer() throws Exception {
        assumeCm();
        VerbsProvider p = kit().providerUnderTest();
        byte[] hello = text("client");
        byte[] welcome = text("server");
        try (RcListener listener = cm.keep(RcListener.listen(p, new InetSocketAddress(cm.address, 0),
                RcOptions.defaults().withPrivateData(welcome)))) {
            int port = listener.address().getPort();
            CompletableFuture<RcEndpoint> client = CompletableFuture.supplyAsync(() -> RcEndpoint.connect(p,
                    new InetSocketAddress(cm.address, port), RcOptions.defaults().withPrivateData(hello)));
            try (RcEndpoint server = listener.accept(CmBench.EVENT_WAIT_MS, TimeUnit.MILLISECONDS);
                 RcEndpoint c = client.get(CmBench.EVENT_WAIT_MS, TimeUnit.MILLISECONDS)) {
                assertNotNull(server, "no connection within " + CmBench.EVENT_WAIT_MS + " ms");
                assertPrefix(hello, server.peerPrivateData(), "the server's view of the client's private data");
                assertPrefix(welcome, c.peerPrivateData(), "the client's view of the server's private data");
                assertEquals(QpState.RTS, server.qp().state());
                assertEquals(QpState.RTS, c.qp().state());
                c.disconnect();
                CmBench.expect(server.channel(), CmEventType.DISCONNECTED, "the client's disconnect");
            }
        }
    }

    @Test
    @DisplayName("required_ an RcEndpoint, which takes no GID index, sends from a RoCE v2 GID on an Ethernet port that has one: the connection manager's choice [rdma_cm(7), ibv_query_gid_ex(3)]")
    void required_endpointSendsFromRoceV2Gid() throws Exception {
        assumeCm();
        VerbsProvider p = kit().providerUnderTest();
        try (RcListener listener = cm.keep(RcListener.listen(p, new InetSocketAddress(cm.address, 0),
                RcOptions.defaults()))) {
            int port = listener.address().getPort();
            CompletableFuture<RcEndpoint> client = CompletableFuture.supplyAsync(() -> RcEndpoint.connect(p,
                    new InetSocketAddress(cm.address, port), RcOptions.defaults()));
            try (RcEndpoint server = listener.accept(CmBench.EVENT_WAIT_MS, TimeUnit.MILLISECONDS);
                 RcEndpoint c = client.get(CmBench.EVENT_WAIT_MS, TimeUnit.MILLISECONDS)) {
                assertNotNull(server, "no connection within " + CmBench.EVENT_WAIT_MS + " ms");
                AhAttributes av = c.qp().query().ahAttr();
                assertNotNull(av, "the connected QP's address vector");
                Context ctx = c.pd().context();
                int ibPort = av.portNum();
                assumeTrue(ctx.queryPort(ibPort).linkLayer() == LinkLayer.ETHERNET
                        && ctx.queryGidTable().stream().anyMatch(e -> e.portNum() == ibPort
                                && e.type() == GidType.ROCE_V2),
                        "port " + ibPort + " is not RoCE or lists no RoCE v2 GID");
                assertNotNull(av.grh(), "a RoCE QP's address vector is global");
                assertEquals(GidType.ROCE_V2, ctx.queryGidType(ibPort, av.grh().sgidIndex()),
                        "the type of the endpoint's source GID, index " + av.grh().sgidIndex());
            }
        }
    }
}
