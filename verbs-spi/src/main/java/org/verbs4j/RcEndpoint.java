package org.verbs4j;

import java.net.InetSocketAddress;
import java.util.Objects;
import org.verbs4j.spi.VerbsProvider;

/**
 * One end of a connected RC QP pair, set up by the connection manager in one call: {@link #connect} on the
 * active side, {@link RcListener#accept()} on the passive side. It owns an event channel, a {@link CmId}, a
 * protection domain, one CQ for both its sends and receives, and the QP in RTS; {@link #close()} releases them
 * all, disconnecting first.
 *
 * <p>It takes no GID index: the connection manager chooses the source GID from the route. Linux's rdma_cm takes
 * the entry of the route's network device and IP address in its default RoCE mode, RoCE v2 where the port has it
 * ({@code default_roce_mode} in its configfs); the emulated connection manager takes the IPv4 RoCE v2 entry. That
 * is the entry {@link GidEntry#preferred} picks on such a port.
 *
 * <pre>{@code
 * try (Arena arena = Arena.ofConfined();
 *      RcEndpoint ep = RcEndpoint.connect(provider, new InetSocketAddress("10.0.0.2", 7471), RcOptions.defaults())) {
 *     MemorySegment buf = arena.allocate(4096, 64);
 *     MemoryRegion mr = ep.pd().registerMemory(buf, AccessFlags.LOCAL_WRITE, arena);
 *     ep.qp().postSend(...);   // the verbs API, unchanged
 * }
 * }</pre>
 *
 * @see "rdma_cm(7)"
 */
public final class RcEndpoint implements AutoCloseable {
    private final CmEventChannel channel;
    private final CmId id;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final byte[] peerPrivateData;
    private boolean disconnected;
    private boolean closed;

    private RcEndpoint(CmEventChannel channel, CmId id, ProtectionDomain pd, CompletionQueue cq, QueuePair qp,
                       byte[] peerPrivateData) {
        this.channel = channel;
        this.id = id;
        this.pd = pd;
        this.cq = cq;
        this.qp = qp;
        this.peerPrivateData = peerPrivateData;
    }

    /**
     * Connects to a listener: resolves the address and the route, creates the PD, CQ and QP, connects and waits
     * for {@link CmEventType#ESTABLISHED}. Each step waits at most {@link RcOptions#timeoutMs()}.
     *
     * @param provider the provider whose connection manager and device to use
     * @param server the listener's address and port
     * @param options queue sizes, opcodes, the private data sent with the connect, the timeout
     * @return the connected endpoint, its QP in RTS
     * @throws NullPointerException if an argument is null
     * @throws UnsupportedOperationException if the provider has no connection manager
     * @throws CmConnectException if a step ended with another event (such as {@link CmEventType#REJECTED}, then
     *     with the peer's private data) or none in time; nothing is left open
     * @see "rdma_resolve_addr(3)"
     * @see "rdma_connect(3)"
     */
    public static RcEndpoint connect(VerbsProvider provider, InetSocketAddress server, RcOptions options) {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(options, "options");
        ConnectionManager cm = provider.connectionManager();
        CmEventChannel channel = cm.createEventChannel();
        CmId id = null;
        ProtectionDomain pd = null;
        CompletionQueue cq = null;
        try {
            id = cm.createId(channel, CmPortSpace.TCP);
            id.resolveAddr(null, server, options.timeoutMs());
            CmSteps.expect(channel, CmEventType.ADDR_RESOLVED, options.timeoutMs(), "rdma_resolve_addr");
            id.resolveRoute(options.timeoutMs());
            CmSteps.expect(channel, CmEventType.ROUTE_RESOLVED, options.timeoutMs(), "rdma_resolve_route");
            pd = id.context().allocPd();
            cq = id.context().createCq(options.maxSendWr() + options.maxRecvWr());
            QueuePair qp = id.createQp(pd, options.qpAttributes(cq));
            id.connect(ConnectionParameters.of(options.privateData()));
            byte[] peer = CmSteps.expect(channel, CmEventType.ESTABLISHED, options.timeoutMs(), "rdma_connect");
            return new RcEndpoint(channel, id, pd, cq, qp, peer);
        } catch (RuntimeException e) {
            CmId failed = id;
            CmSteps.closeQuietly(e, failed == null ? null : failed::destroyQp, cq, pd, id, channel);
            throw e;
        }
    }

    /** The passive side's endpoint, made by {@link RcListener#accept()}. */
    static RcEndpoint accepted(CmEventChannel channel, CmId id, ProtectionDomain pd, CompletionQueue cq,
                               QueuePair qp, byte[] peerPrivateData) {
        return new RcEndpoint(channel, id, pd, cq, qp, peerPrivateData);
    }

    /** {@return the connected QP, in RTS until a disconnect} */
    public QueuePair qp() {
        return qp;
    }

    /** {@return the protection domain the QP is in: register the buffers here} */
    public ProtectionDomain pd() {
        return pd;
    }

    /** {@return the CQ of both the QP's sends and its receives} */
    public CompletionQueue cq() {
        return cq;
    }

    /** {@return the connection manager's id of the connection} */
    public CmId id() {
        return id;
    }

    /** {@return the endpoint's own event channel: {@link CmEventType#DISCONNECTED} arrives here} */
    public CmEventChannel channel() {
        return channel;
    }

    /**
     * {@return a copy of the private data the peer sent: the accept's on the active side, the connect's on the
     * passive side; the transport may pad it with zeros}
     */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /**
     * Disconnects: the QP moves to ERR, its outstanding WRs complete with {@link WcStatus#WR_FLUSH_ERR}, and the
     * peer gets {@link CmEventType#DISCONNECTED}. A second call does nothing.
     *
     * @see "rdma_disconnect(3)"
     */
    public synchronized void disconnect() {
        if (!disconnected) {
            disconnected = true;
            id.disconnect();
        }
    }

    /**
     * Disconnects if still connected, then destroys the QP, CQ, PD, id and channel. A second call does nothing.
     *
     * @throws VerbsException if a resource cannot be released (such as {@code EBUSY} for a PD that still has
     *     memory regions the caller registered: deregister them first)
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (!disconnected && qp.state() != QpState.ERR) {
            try {
                disconnect();
            } catch (VerbsException e) {
                // the peer went first or the connection never finished: there is nothing left to disconnect
            }
        }
        id.destroyQp();
        cq.close();
        pd.close();
        id.close();
        channel.close();
        closed = true;
    }
}
