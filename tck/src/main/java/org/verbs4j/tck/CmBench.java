package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.CmPortSpace;
import org.verbs4j.CompletionQueue;
import org.verbs4j.ConnectionManager;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Gid;
import org.verbs4j.MemoryRegion;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;

/**
 * The connection-management rules' helpers: channels, ids and each end's PD, CQ and QP, closed in reverse
 * order after the test (QP, CQ, PD, id, channel), so a failing rule leaves nothing open.
 */
final class CmBench implements AutoCloseable {
    /** How long a rule waits for an event that must come, milliseconds. */
    static final long EVENT_WAIT_MS = Completions.timeoutMs();

    final ConnectionManager cm;
    final InetAddress address;
    private final Testbed tb;
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    /** One end of a connection: its id and the verbs objects made on the id's context. */
    record End(CmEventChannel channel, CmId id, ProtectionDomain pd, CompletionQueue cq, QueuePair qp) {}

    CmBench(Testbed tb, ConnectionManager cm) {
        this.tb = tb;
        this.cm = cm;
        this.address = address(tb);
    }

    /**
     * The address the rules connect to: the system property {@code verbs4j.rdma.cmAddress}, else the IPv4
     * address of the first IPv4-mapped GID of the port under test (a RoCE v2 device's IP), else 127.0.0.1.
     */
    private static InetAddress address(Testbed tb) {
        try {
            String named = System.getProperty("verbs4j.rdma.cmAddress");
            if (named != null && !named.isBlank()) {
                return InetAddress.getByName(named.trim());
            }
            int n = tb.portAttributes().gidTblLen();
            for (int i = 0; i < n; i++) {
                Gid g = tb.context().queryGid(tb.port(), i);
                if (g.subnetPrefix() == 0 && (g.interfaceId() >>> 32) == 0xffff) {
                    byte[] b = g.toBytes();
                    return InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]});
                }
            }
            return InetAddress.getLoopbackAddress();
        } catch (java.io.IOException e) {
            throw new IllegalStateException("verbs4j.rdma.cmAddress does not name an IP address", e);
        }
    }

    <T extends AutoCloseable> T keep(T resource) {
        resources.push(resource);
        return resource;
    }

    CmEventChannel channel() {
        return keep(cm.createEventChannel());
    }

    CmId id(CmEventChannel channel) {
        return keep(cm.createId(channel, CmPortSpace.TCP));
    }

    /** A listening id on a free port of {@link #address}. */
    CmId listener(CmEventChannel channel) {
        CmId id = id(channel);
        id.bindAddr(new InetSocketAddress(address, 0));
        id.listen(8);
        return id;
    }

    /** A new id with its address and route resolved towards {@code port}. */
    CmId resolved(CmEventChannel channel, int port) {
        return resolved(channel, port, id -> { });
    }

    /** A new id, given its options by {@code options}, with its address and route resolved towards {@code port}. */
    CmId resolved(CmEventChannel channel, int port, Consumer<CmId> options) {
        CmId id = id(channel);
        options.accept(id);
        id.resolveAddr(null, new InetSocketAddress(address, port), (int) EVENT_WAIT_MS);
        expect(channel, CmEventType.ADDR_RESOLVED, "rdma_resolve_addr of " + address + ":" + port);
        id.resolveRoute((int) EVENT_WAIT_MS);
        expect(channel, CmEventType.ROUTE_RESOLVED, "rdma_resolve_route");
        return id;
    }

    /** A UDP id bound to {@link #address} on a free port, so to its device. */
    CmId udp(CmEventChannel channel) {
        CmId id = keep(cm.createId(channel, CmPortSpace.UDP));
        id.bindAddr(new InetSocketAddress(address, 0));
        return id;
    }

    /** A PD, a CQ and an RC QP (in INIT) on the id's context, closed after the test. */
    End end(CmEventChannel channel, CmId id) {
        return end(channel, id, QpType.RC);
    }

    /** A PD, a CQ and a QP of the id's port space's type on the id's context, closed after the test. */
    End end(CmEventChannel channel, CmId id, QpType type) {
        ProtectionDomain pd = keep(id.context().allocPd());
        CompletionQueue cq = keep(id.context().createCq(64));
        QueuePair qp = id.createQp(pd, QpInitAttributes.builder(type).cq(cq).maxSendWr(16).maxRecvWr(16).build());
        keep(() -> {
            if (!id.isClosed()) { // a rule may destroy the QP and close the id itself
                id.destroyQp();
            }
        });
        return new End(channel, id, pd, cq, qp);
    }

    /** A registered buffer in an end's PD, deregistered after the test. */
    MemoryRegion buffer(End end, int bytes) {
        return keep(end.pd().registerMemory(tb.memory(bytes), Testbed.ALL_ACCESS, tb.arena()));
    }

    /**
     * Takes the next event, which must be {@code type}, and acknowledges it.
     *
     * @return the event, acknowledged (its getters still work)
     */
    static CmEvent expect(CmEventChannel channel, CmEventType type, String after) {
        CmEvent e = channel.getEvent(EVENT_WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(e, "no event within " + EVENT_WAIT_MS + " ms after " + after + "; expected " + type);
        e.close();
        assertEquals(type, e.type(), "the event after " + after + " (status " + e.status() + ")");
        return e;
    }

    /** The start of a connection: a listener on its channel, and an active end resolved towards it, with its QP. */
    record Setup(CmEventChannel listenChannel, CmId listener, End active) {}

    /** A listener on a channel of its own, and an active id on another, resolved towards it, with its QP in INIT. */
    Setup setup() {
        return setup(id -> { });
    }

    /** {@link #setup()}, the active id given its options by {@code options} before it resolves. */
    Setup setup(Consumer<CmId> options) {
        CmEventChannel lch = channel();
        CmId listener = listener(lch);
        CmEventChannel ach = channel();
        CmId active = resolved(ach, listener.localAddress().getPort(), options);
        return new Setup(lch, listener, end(ach, active));
    }

    /** A connected pair: the active end (a) connected with {@code connectData}, the passive (b) accepted with {@code acceptData}. */
    record Connection(End a, End b, CmId listener, CmEvent request, CmEvent established) {}

    Connection connect(byte[] connectData, byte[] acceptData) {
        return connect(connectData, acceptData, id -> { });
    }

    /** {@link #connect(byte[], byte[])}, the active id given its options by {@code options} before it resolves. */
    Connection connect(byte[] connectData, byte[] acceptData, Consumer<CmId> options) {
        Setup s = setup(options);
        CmEventChannel lch = s.listenChannel();
        CmId listener = s.listener();
        End a = s.active();
        CmEventChannel ach = a.channel();
        a.id().connect(ConnectionParameters.of(connectData));
        CmEvent request = expect(lch, CmEventType.CONNECT_REQUEST, "rdma_connect");
        CmId child = request.id();
        keep(child);
        End b = end(lch, child);
        child.accept(ConnectionParameters.of(acceptData));
        CmEvent established = expect(ach, CmEventType.ESTABLISHED, "rdma_accept (active side)");
        expect(lch, CmEventType.ESTABLISHED, "rdma_accept (passive side)");
        return new Connection(a, b, listener, request, established);
    }

    /** Closes everything the test made, newest first; the first failure is thrown after the rest are closed. */
    @Override
    public void close() {
        RuntimeException first = null;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = new IllegalStateException("cleanup after the rule failed", e);
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
