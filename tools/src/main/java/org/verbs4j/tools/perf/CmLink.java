package org.verbs4j.tools.perf;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.CmPortSpace;
import org.verbs4j.ConnectionManager;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.Gid;
import org.verbs4j.QueuePair;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tools.cli.UsageException;

/**
 * The connection manager's side of {@code -R}, as perftest's {@code rdma_cm} mode: one event channel, a listener
 * or active ids, each id's QP made by the caller on the id's context, connected through {@code rdma_connect} and
 * {@code rdma_accept} instead of an exchange of QPNs and PSNs. Every event is acknowledged as it is taken; those
 * of another id than the one awaited wait in a list, so one thread can drive both ends of a loopback run.
 */
final class CmLink implements AutoCloseable {
    /** How long a step of the connection may take, milliseconds. */
    static final int WAIT_MS = 30_000;
    /** perftest's retry count and RNR retry count of an rdma_cm connection (7: forever, for RNR). */
    private static final int RETRIES = 7;
    /** How long a client keeps connecting to a peer that rejects it (not listening yet), milliseconds. */
    static final int RETRY_MS = 10_000;

    private final ConnectionManager cm;
    private final CmEventChannel channel;
    private final Deque<CmId> ids = new ArrayDeque<>();
    private final List<CmEvent> pending = new ArrayList<>();
    private CmId listener;
    /** The type of service of each id this link connects ({@code rdma_set_option} TOS, perftest's -T), or -1. */
    private final int tos;

    private CmLink(ConnectionManager cm, int tos) {
        this.cm = cm;
        this.tos = tos;
        this.channel = cm.createEventChannel();
    }

    /**
     * A link through the provider's connection manager.
     *
     * @throws UsageException if the provider has none
     */
    static CmLink open(VerbsProvider p, int tos) {
        if (!p.hasConnectionManager()) {
            throw new UsageException("-R connects the QPs through the connection manager (rdma_cm), and provider '"
                    + p.name() + "' has none");
        }
        return new CmLink(p.connectionManager(), tos);
    }

    /** The connection parameters of a perf QP: the RDMA READ depths perftest gives READ and atomic tests. */
    static ConnectionParameters parameters(PerfSettings s, int outReads) {
        boolean reads = s.test().opcode() == org.verbs4j.WrOpcode.RDMA_READ || s.test().isAtomic();
        int depth = reads ? outReads : 0;
        return new ConnectionParameters(new byte[0], depth, depth, RETRIES, RETRIES);
    }

    /**
     * The address a loopback run listens on: the IPv4 address in the port's first IPv4-mapped GID (a RoCE v2
     * device's own address, such as rxe0's on its netdev), else the loopback address.
     */
    static InetAddress addressOf(Device device, int port) {
        try (Context c = device.open()) {
            int n = c.queryPort(port).gidTblLen();
            for (int i = 0; i < n; i++) {
                Gid g = c.queryGid(port, i);
                if (g.subnetPrefix() == 0 && g.interfaceId() >>> 32 == 0xffffL) {
                    byte[] b = g.toBytes();
                    return InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]});
                }
            }
            return InetAddress.getLoopbackAddress();
        } catch (UnknownHostException e) {
            throw new AssertionError("four bytes are always an IPv4 address", e);
        }
    }

    private CmId keep(CmId id) {
        ids.push(id);
        return id;
    }

    /** Listens on {@code address}: an address of a device binds the listener to it, the wildcard to none. */
    CmId listen(InetSocketAddress address) {
        listener = keep(cm.createId(channel, CmPortSpace.TCP));
        listener.bindAddr(address);
        listener.listen(16);
        return listener;
    }

    /**
     * Resolves {@code dst}, gives the id to {@code makeQp} for its QP and sends the connect request; the caller
     * then awaits {@link CmEventType#ESTABLISHED} with {@link #await}.
     */
    CmId connect(InetSocketAddress dst, Function<CmId, QueuePair> makeQp, ConnectionParameters parameters) {
        CmId id = keep(cm.createId(channel, CmPortSpace.TCP));
        if (tos >= 0) {
            id.setTos(tos); // before the route, which takes it as its traffic class
        }
        id.resolveAddr(null, dst, WAIT_MS);
        await(id, CmEventType.ADDR_RESOLVED, "rdma_resolve_addr of " + dst);
        id.resolveRoute(WAIT_MS);
        await(id, CmEventType.ROUTE_RESOLVED, "rdma_resolve_route to " + dst);
        makeQp.apply(id);
        id.connect(parameters);
        return id;
    }

    /**
     * {@link #connect} and waits for ESTABLISHED, trying again for {@value #RETRY_MS} ms while the peer rejects it
     * (it does not listen yet), as perftest's client: {@code onFailure} releases what {@code makeQp} made besides
     * the QP, then the id is destroyed.
     */
    CmId connectRetrying(InetSocketAddress dst, Function<CmId, QueuePair> makeQp, ConnectionParameters parameters,
                         Runnable onFailure, String what) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RETRY_MS);
        while (true) {
            CmId id = null;
            try {
                id = connect(dst, makeQp, parameters);
                await(id, CmEventType.ESTABLISHED, what + " to " + dst);
                return id;
            } catch (UsageException e) {
                onFailure.run();
                if (id != null) {
                    discard(id);
                }
                if (System.nanoTime() - until > 0 || !e.getMessage().contains("REJECTED")) {
                    throw e;
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /**
     * Takes the next connect request on the listener, gives its new id to {@code makeQp} for its QP and accepts
     * it; the caller then awaits {@link CmEventType#ESTABLISHED} with {@link #await}.
     *
     * @param waitMs how long to wait for the request, ms; 0 waits as long as it takes, as perftest's server waits
     *               for its client (and as the TCP channel's accept does): a client may take long to start on a
     *               loaded machine
     */
    CmId accept(Function<CmId, QueuePair> makeQp, ConnectionParameters parameters, int waitMs) {
        CmEvent request = await(null, CmEventType.CONNECT_REQUEST, "rdma_listen on " + listener.localAddress(),
                waitMs);
        CmId id = keep(request.id());
        makeQp.apply(id);
        id.accept(parameters);
        return id;
    }

    /**
     * Waits for event {@code type} of {@code id} (of any id for a connect request, when {@code id} is null).
     *
     * @throws UsageException if another event of the id comes instead (a reject, an error), or none in time
     */
    CmEvent await(CmId id, CmEventType type, String after) {
        return await(id, type, after, WAIT_MS);
    }

    /** As {@link #await(CmId, CmEventType, String)}, for at most {@code waitMs} ms, or for ever when it is 0. */
    private CmEvent await(CmId id, CmEventType type, String after, int waitMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs == 0 ? WAIT_MS : waitMs);
        while (true) {
            for (Iterator<CmEvent> it = pending.iterator(); it.hasNext(); ) {
                CmEvent e = it.next();
                boolean mine = id == null ? e.type() == CmEventType.CONNECT_REQUEST : e.id() == id;
                if (mine) {
                    it.remove();
                    if (e.type() != type) {
                        throw new UsageException("rdma_cm: " + e.type() + " (status " + e.status() + ") after "
                                + after + ", where " + type + " was expected");
                    }
                    return e;
                }
            }
            long left = deadline - System.nanoTime();
            CmEvent e = left > 0 ? channel.getEvent(left, TimeUnit.NANOSECONDS) : null;
            if (e == null && waitMs == 0) {
                deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
                continue;
            }
            if (e == null) {
                throw new UsageException("rdma_cm: no " + type + " within " + waitMs + " ms after " + after);
            }
            e.close(); // acknowledged at once: its fields stay readable
            pending.add(e);
        }
    }

    /** Destroys an id that failed to connect (its QP first), and forgets its events. */
    void discard(CmId id) {
        ids.remove(id);
        pending.removeIf(e -> e.id() == id);
        if (!id.isClosed()) {
            id.destroyQp();
            id.close();
        }
    }

    /** Destroys every id, newest first (each one's QP first), then the channel; the first failure is thrown last. */
    @Override
    public void close() {
        RuntimeException first = null;
        while (!ids.isEmpty()) {
            CmId id = ids.pop();
            first = attempt(first, () -> {
                if (!id.isClosed()) {
                    id.destroyQp();
                    id.close();
                }
            });
        }
        first = attempt(first, channel::close);
        if (first != null) {
            throw first;
        }
    }

    /** Runs a step of close; its failure joins {@code first}, or becomes it. */
    private static RuntimeException attempt(RuntimeException first, Runnable step) {
        try {
            step.run();
            return first;
        } catch (RuntimeException e) {
            if (first == null) {
                return e;
            }
            first.addSuppressed(e);
            return first;
        }
    }
}
