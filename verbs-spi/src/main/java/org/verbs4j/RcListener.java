package org.verbs4j;

import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.verbs4j.spi.VerbsProvider;

/**
 * A listening connection-manager id that accepts RC connections one call at a time: each
 * {@link #accept()} returns an {@link RcEndpoint} with its own channel, PD, CQ and QP in RTS.
 *
 * <pre>{@code
 * try (RcListener listener = RcListener.listen(provider, new InetSocketAddress(7471), RcOptions.defaults());
 *      RcEndpoint ep = listener.accept()) {
 *     ...
 * }
 * }</pre>
 *
 * @see "rdma_listen(3)"
 * @see "rdma_accept(3)"
 */
public final class RcListener implements AutoCloseable {
    private final CmEventChannel channel;
    private final CmId id;
    private final RcOptions options;
    private final ConnectionManager cm;

    private RcListener(ConnectionManager cm, CmEventChannel channel, CmId id, RcOptions options) {
        this.cm = cm;
        this.channel = channel;
        this.id = id;
        this.options = options;
    }

    /**
     * Binds to an address and listens.
     *
     * @param provider the provider whose connection manager to use
     * @param address the local address and port; port 0 picks a free one ({@link #address()} tells which)
     * @param options the accepted endpoints' queue sizes and opcodes, the private data sent with each accept,
     *     the timeout of each accept's steps, the backlog
     * @return the listener
     * @throws NullPointerException if an argument is null
     * @throws UnsupportedOperationException if the provider has no connection manager
     * @throws VerbsException {@code EADDRINUSE} if the port is taken, {@code EADDRNOTAVAIL} if the address is
     *     not local
     * @see "rdma_bind_addr(3)"
     * @see "rdma_listen(3)"
     */
    public static RcListener listen(VerbsProvider provider, InetSocketAddress address, RcOptions options) {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(options, "options");
        ConnectionManager cm = provider.connectionManager();
        CmEventChannel channel = cm.createEventChannel();
        CmId id = null;
        try {
            id = cm.createId(channel, CmPortSpace.TCP);
            id.bindAddr(address);
            id.listen(options.backlog());
            return new RcListener(cm, channel, id, options);
        } catch (RuntimeException e) {
            CmSteps.closeQuietly(e, id, channel);
            throw e;
        }
    }

    /** {@return the address and port the listener is bound to} */
    public InetSocketAddress address() {
        return id.localAddress();
    }

    /**
     * Waits for the next connection request, however long it takes, and accepts it.
     *
     * @return the connected endpoint
     * @throws CmConnectException if the connection did not come up after the request
     * @throws IllegalStateException if the listener is closed
     */
    public RcEndpoint accept() {
        return accept(Long.MAX_VALUE, TimeUnit.MILLISECONDS);
    }

    /**
     * Waits at most {@code timeout} for a connection request and accepts it: a new channel, PD, CQ and QP, the
     * accept with {@link RcOptions#privateData()}, then {@link CmEventType#ESTABLISHED}. Other events on the
     * listener's channel are acknowledged and dropped.
     *
     * @param timeout the longest wait for a request
     * @param unit its unit
     * @return the connected endpoint, or null if no request came in time
     * @throws CmConnectException if the connection did not come up after the request; nothing is left open
     * @throws IllegalStateException if the listener is closed
     */
    public RcEndpoint accept(long timeout, TimeUnit unit) {
        long deadline = System.nanoTime() + Math.min(unit.toNanos(timeout), Long.MAX_VALUE / 4);
        while (true) {
            long left = deadline - System.nanoTime();
            CmId child;
            byte[] peer;
            try (CmEvent e = channel.getEvent(Math.max(0, left), TimeUnit.NANOSECONDS)) {
                if (e == null) {
                    return null;
                }
                if (e.type() != CmEventType.CONNECT_REQUEST) {
                    continue;
                }
                child = e.id();
                peer = e.privateData();
            }
            return accept(child, peer);
        }
    }

    private RcEndpoint accept(CmId child, byte[] peer) {
        CmEventChannel own = null;
        ProtectionDomain pd = null;
        CompletionQueue cq = null;
        try {
            own = cm.createEventChannel();
            child.migrate(own);
            pd = child.context().allocPd();
            cq = child.context().createCq(options.maxSendWr() + options.maxRecvWr());
            QueuePair qp = child.createQp(pd, options.qpAttributes(cq));
            child.accept(ConnectionParameters.of(options.privateData()));
            CmSteps.expect(own, CmEventType.ESTABLISHED, options.timeoutMs(), "rdma_accept");
            return RcEndpoint.accepted(own, child, pd, cq, qp, peer);
        } catch (RuntimeException e) {
            CmSteps.closeQuietly(e, child::destroyQp, cq, pd, child, own);
            throw e;
        }
    }

    /**
     * Stops listening and destroys the id and its channel. Endpoints already accepted stay connected.
     *
     * @throws VerbsException as {@link CmId#close()} and {@link CmEventChannel#close()}
     */
    @Override
    public void close() {
        id.close();
        channel.close();
    }
}
