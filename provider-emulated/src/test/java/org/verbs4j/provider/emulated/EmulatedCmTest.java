package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.CmPortSpace;
import org.verbs4j.CompletionQueue;
import org.verbs4j.ConnectionManager;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RcEndpoint;
import org.verbs4j.RcListener;
import org.verbs4j.RcOptions;
import org.verbs4j.VerbsException;

/** The emulated connection manager's own rules: addresses, ports, misuse, and many connections at once. */
class EmulatedCmTest {
    private final EmulatedProvider provider = new EmulatedProvider();
    private final ConnectionManager cm = provider.connectionManager();
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private static int errno(Runnable call) {
        return assertThrows(VerbsException.class, call::run).errno();
    }

    @Test
    void addressesAndPorts() throws Exception {
        try (CmEventChannel ch = cm.createEventChannel()) {
            CmId a = cm.createId(ch, CmPortSpace.TCP);
            CmId b = cm.createId(ch, CmPortSpace.TCP);
            CmId c = cm.createId(ch, CmPortSpace.TCP);
            a.bindAddr(new InetSocketAddress(LOOPBACK, 0));
            int port = a.localAddress().getPort();
            assertTrue(port >= 49152, "an ephemeral port: " + port);
            assertEquals("emu0", a.context().device().name(), "loopback maps to emu0");
            assertEquals(1, a.portNum());
            assertEquals(Errno.EADDRINUSE, errno(() -> b.bindAddr(new InetSocketAddress(LOOPBACK, port))));
            InetAddress testNet = InetAddress.getByName("192.0.2.1");
            assertEquals(Errno.EADDRNOTAVAIL, errno(() -> b.bindAddr(new InetSocketAddress(testNet, 0))));
            b.bindAddr(new InetSocketAddress(InetAddress.getByName("10.255.0.1"), 0));
            assertEquals("emu0", b.context().device().name(), "10.255.0.1 is emu0's GID address");
            assertSame(a.context(), b.context(), "ids of one device share the connection manager's context");
            assertEquals(Errno.EINVAL, errno(() -> b.bindAddr(new InetSocketAddress(LOOPBACK, 0))));
            c.bindAddr(new InetSocketAddress(0));
            assertNull(c.context(), "the wildcard binds no device");
            assertEquals(Errno.EOPNOTSUPP, errno(() -> cm.createId(ch, CmPortSpace.IPOIB)));
            Context ctx = a.context();
            assertThrows(IllegalStateException.class, ctx::close, "the shared context cannot be closed");
            assertTrue(!ctx.isClosed());
            a.close();
            b.close();
            c.close();
            CmId again = cm.createId(ch, CmPortSpace.TCP);
            again.bindAddr(new InetSocketAddress(LOOPBACK, port));
            assertEquals(port, again.localAddress().getPort(), "a closed id's port is free again");
            again.close();
        }
    }

    @Test
    void createQpMisuse() {
        try (CmEventChannel ch = cm.createEventChannel(); Context other = provider.devices().get(0).open()) {
            CmId id = cm.createId(ch, CmPortSpace.TCP);
            ProtectionDomain foreign = other.allocPd();
            CompletionQueue fcq = other.createCq(8);
            QpInitAttributes rc = QpInitAttributes.builder(QpType.RC).cq(fcq).build();
            assertEquals(Errno.EINVAL, errno(() -> id.createQp(foreign, rc)), "an id without a device");
            id.resolveAddr(null, new InetSocketAddress(LOOPBACK, 1), 1000);
            try (CmEvent e = ch.getEvent(5, TimeUnit.SECONDS)) {
                assertEquals(CmEventType.ADDR_RESOLVED, e.type());
            }
            assertThrows(IllegalArgumentException.class, () -> id.createQp(foreign, rc), "a PD of another context");
            ProtectionDomain pd = id.context().allocPd();
            CompletionQueue cq = id.context().createCq(8);
            assertEquals(Errno.EINVAL, errno(() -> id.createQp(pd,
                    QpInitAttributes.builder(QpType.UD).cq(cq).build())), "a UD QP on a TCP id");
            QueuePair qp = id.createQp(pd, QpInitAttributes.builder(QpType.RC).cq(cq).build());
            assertEquals(QpState.INIT, qp.state(), "rdma_create_qp leaves the QP in INIT");
            assertEquals(Errno.EINVAL, errno(() -> id.createQp(pd, QpInitAttributes.builder(QpType.RC).cq(cq).build())));
            assertEquals(Errno.EINVAL, errno(() -> id.connect(ConnectionParameters.defaults())),
                    "connect before the route is resolved");
            qp.close(); // closed behind the id's back: the id no longer has a QP
            assertNull(id.qp());
            id.close();
            assertThrows(IllegalStateException.class, id::qp);
            assertThrows(IllegalStateException.class, () -> id.listen(1));
            cq.close();
            pd.close();
        }
    }

    @Test
    void migrateMovesQueuedEvents() {
        try (CmEventChannel ch = cm.createEventChannel(); CmEventChannel other = cm.createEventChannel()) {
            CmId id = cm.createId(ch, CmPortSpace.TCP);
            id.resolveAddr(null, new InetSocketAddress(LOOPBACK, 1), 1000);
            CmEvent e = ch.getEvent(5, TimeUnit.SECONDS);
            assertEquals(Errno.EBUSY, errno(() -> id.migrate(other)), "an event of the id is not acknowledged");
            e.close();
            id.resolveRoute(1000);
            id.migrate(other);
            assertSame(other, id.channel());
            assertNull(ch.getEvent(0, TimeUnit.MILLISECONDS), "the queued event moved");
            try (CmEvent r = other.getEvent(5, TimeUnit.SECONDS)) {
                assertEquals(CmEventType.ROUTE_RESOLVED, r.type());
                assertSame(id, r.id());
            }
            assertEquals(Errno.EBUSY, errno(other::close), "the id now uses the other channel");
            ch.close();
            id.close();
        }
    }

    @Test
    void manyClientsAtOnce() throws Exception {
        int n = 8;
        try (RcListener listener = RcListener.listen(provider, new InetSocketAddress(LOOPBACK, 0),
                RcOptions.defaults().withBacklog(n))) {
            InetSocketAddress at = new InetSocketAddress(LOOPBACK, listener.address().getPort());
            List<CompletableFuture<RcEndpoint>> clients = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                byte[] name = {(byte) i};
                clients.add(CompletableFuture.supplyAsync(() -> RcEndpoint.connect(provider, at,
                        RcOptions.defaults().withPrivateData(name))));
            }
            List<RcEndpoint> servers = new ArrayList<>();
            boolean[] seen = new boolean[n];
            for (int i = 0; i < n; i++) {
                RcEndpoint s = listener.accept(10, TimeUnit.SECONDS);
                assertNotNull(s, "connection " + i);
                seen[s.peerPrivateData()[0]] = true;
                servers.add(s);
            }
            for (int i = 0; i < n; i++) {
                assertTrue(seen[i], "client " + i + " was accepted");
                try (RcEndpoint c = clients.get(i).get(10, TimeUnit.SECONDS)) {
                    assertEquals(QpState.RTS, c.qp().state());
                }
            }
            for (RcEndpoint s : servers) {
                s.close();
            }
        }
    }

    @Test
    void rejectedConvenienceConnectLeavesNothingOpen() {
        try (CmEventChannel ch = cm.createEventChannel()) {
            CmId probe = cm.createId(ch, CmPortSpace.TCP);
            probe.bindAddr(new InetSocketAddress(LOOPBACK, 0));
            int port = probe.localAddress().getPort();
            probe.close();
            org.verbs4j.CmConnectException e = assertThrows(org.verbs4j.CmConnectException.class,
                    () -> RcEndpoint.connect(provider, new InetSocketAddress(LOOPBACK, port), RcOptions.defaults()));
            assertEquals(CmEventType.REJECTED, e.event());
            assertEquals(CmEvent.REJECT_INVALID_SERVICE_ID, e.status());
            assertEquals(Errno.ECONNREFUSED, e.errno());
        }
    }
}
