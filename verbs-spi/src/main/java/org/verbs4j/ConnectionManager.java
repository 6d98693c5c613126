package org.verbs4j;

/**
 * A provider's RDMA connection manager, after librdmacm ({@code rdma_cm(7)}): it maps IP addresses and ports
 * to devices and QPs, and connects a QP to a peer's without the application exchanging QPN, PSN and GID.
 *
 * <p>Get it with {@link org.verbs4j.spi.VerbsProvider#connectionManager()}. The usual sequence, on the
 * active side: {@link #createEventChannel()}, {@link #createId}, {@link CmId#resolveAddr} (then
 * {@code ADDR_RESOLVED}), {@link CmId#resolveRoute} ({@code ROUTE_RESOLVED}), {@link CmId#createQp},
 * {@link CmId#connect} ({@code ESTABLISHED}). On the passive side: {@link CmId#bindAddr}, {@link CmId#listen},
 * then for each {@code CONNECT_REQUEST} event: {@link CmId#createQp} and {@link CmId#accept} on the event's new
 * id ({@code ESTABLISHED}). {@link RcEndpoint} and {@link RcListener} do all of it in one call.
 *
 * @see "rdma_cm(7)"
 */
public interface ConnectionManager {
    /**
     * Opens an event channel.
     *
     * @return the channel; close it after its ids
     * @see "rdma_create_event_channel(3)"
     */
    CmEventChannel createEventChannel();

    /**
     * Creates an id, the connection manager's equivalent of a socket.
     *
     * @param channel where the id's events are queued
     * @param portSpace its port space: {@link CmPortSpace#TCP} for RC connections, {@link CmPortSpace#UDP} for a
     *     UD QP that joins multicast groups
     * @return the id, not bound to an address or a device yet
     * @throws NullPointerException if an argument is null
     * @throws IllegalStateException if the channel is closed
     * @throws VerbsException {@code EOPNOTSUPP} if the provider does not support that port space (every provider
     *     of verbs4j supports TCP and UDP)
     * @see "rdma_create_id(3)"
     */
    CmId createId(CmEventChannel channel, CmPortSpace portSpace);
}
