package org.verbs4j;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * A connection-manager id, {@code struct rdma_cm_id}: the connection manager's socket. It is bound to an
 * address and, through it, to a device; it owns at most one QP, which the connection manager moves through
 * its states as librdmacm does (INIT on {@link #createQp}, RTR and RTS on connect and accept, ERR on
 * disconnect or reject), so the QP is used with the ordinary verbs API once the id is connected.
 *
 * <p>Results of the asynchronous calls ({@link #resolveAddr}, {@link #resolveRoute}, {@link #connect},
 * {@link #accept}, {@link #disconnect}) arrive as {@link CmEvent}s on the id's channel. A call made in a
 * state where rdma_cm refuses it fails with {@link VerbsException} {@code EINVAL}.
 *
 * <p>A {@link CmPortSpace#TCP} id connects an RC QP. A {@link CmPortSpace#UDP} id has a UD QP, which
 * {@link #createQp} moves to RTS at once, and joins multicast groups ({@link #joinMulticast}); connecting or
 * listening on it (SIDR) is not supported ({@code EOPNOTSUPP}).
 *
 * <p>Close order: the QP ({@link #destroyQp()}), every event of the id acknowledged, then the id. Closing a
 * connected id disconnects it, as {@code rdma_destroy_id} does: the peer gets
 * {@link CmEventType#DISCONNECTED}. After {@link #close()} every method but {@link #isClosed()} and
 * {@code close()} (which then does nothing) throws {@link IllegalStateException}, on any thread: a closed id never
 * touches the freed {@code struct rdma_cm_id}. A call racing a {@code close()} on another thread either completes
 * as it would have before the close or throws {@link IllegalStateException}. The events of the id taken before
 * stay readable (see {@link CmEvent}).
 *
 * @see "rdma_cm(7)"
 * @see "rdma_create_id(3)"
 */
public interface CmId extends AutoCloseable {
    /**
     * The Q_Key of every {@link CmPortSpace#UDP} id's QP and of the groups it joins, a 32-bit key: librdmacm's
     * {@code RDMA_UDP_QKEY}.
     */
    int UDP_QKEY = 0x01234567;

    /** The destination QPN of a multicast group (IBA: DestQP 0xFFFFFF), as {@link CmUdParameters#qpNum()} gives. */
    int MULTICAST_QPN = 0xffffff;

    /** {@return the channel the id's events go to} */
    CmEventChannel channel();

    /** {@return the id's port space} */
    CmPortSpace portSpace();

    /**
     * {@return the device context the id is bound to, or null before it is bound to a device (by an address
     * that belongs to one, by {@link #resolveAddr} or as the new id of a connect request)}. The context belongs
     * to the connection manager and is shared by every id on its device, as librdmacm's {@code id->verbs}:
     * allocate PDs and CQs on it and close those, but never close the context itself
     * ({@link IllegalStateException}).
     */
    Context context();

    /** {@return the port of the device the id is bound to, 1-based, or 0 before it is bound to a device} */
    int portNum();

    /** {@return the local address and port, or null before the id is bound} */
    InetSocketAddress localAddress();

    /** {@return the peer's address and port, or null before an address is resolved or a request arrives} */
    InetSocketAddress remoteAddress();

    /**
     * Binds the id to a local address and port. Port 0 picks a free port. An address that belongs to an RDMA
     * device binds the id to that device; the wildcard address binds no device.
     *
     * @param address a local address; the wildcard ({@code 0.0.0.0} or {@code ::}) for every device
     * @throws NullPointerException if address is null
     * @throws IllegalArgumentException if the address is unresolved
     * @throws VerbsException {@code EADDRINUSE} if another id holds the port, {@code EADDRNOTAVAIL} if the
     *     address is not local, {@code EINVAL} if the id is already bound
     * @see "rdma_bind_addr(3)"
     */
    void bindAddr(InetSocketAddress address);

    /**
     * Starts resolving a destination address to a device and a destination GID. The result is
     * {@link CmEventType#ADDR_RESOLVED} or {@link CmEventType#ADDR_ERROR} (status {@code -ETIMEDOUT} when no
     * answer came within the timeout). An id not bound yet is bound to {@code src}, or to a local address with
     * a free port.
     *
     * @param src the local address to bind to, or null to pick one
     * @param dst the destination's address and port
     * @param timeoutMs how long resolution may take, milliseconds, 0 or more
     * @throws NullPointerException if dst is null
     * @throws IllegalArgumentException if timeoutMs is negative or an address is unresolved
     * @throws VerbsException {@code EINVAL} if the id is listening, resolving, or connected
     * @see "rdma_resolve_addr(3)"
     */
    void resolveAddr(InetSocketAddress src, InetSocketAddress dst, int timeoutMs);

    /**
     * Starts resolving the route to the resolved address. The result is {@link CmEventType#ROUTE_RESOLVED} or
     * {@link CmEventType#ROUTE_ERROR}.
     *
     * @param timeoutMs how long resolution may take, milliseconds, 0 or more
     * @throws IllegalArgumentException if timeoutMs is negative
     * @throws VerbsException {@code EINVAL} unless the address was resolved ({@code ADDR_RESOLVED})
     * @see "rdma_resolve_route(3)"
     */
    void resolveRoute(int timeoutMs);

    /**
     * Listens for connection requests on the bound address. Each arrives as a
     * {@link CmEventType#CONNECT_REQUEST} whose {@link CmEvent#id()} is a new id.
     *
     * @param backlog how many requests may wait for {@link #accept} or {@link #reject}, 0 or more; 0 lets the
     *     provider choose
     * @throws IllegalArgumentException if backlog is negative
     * @throws VerbsException {@code EINVAL} if the id is not bound or already in use; {@code EOPNOTSUPP} on a
     *     {@link CmPortSpace#UDP} id (SIDR is not supported)
     * @see "rdma_listen(3)"
     */
    void listen(int backlog);

    /**
     * Creates the id's QP on its device and moves it to INIT, with the port and the P_Key of the id's route
     * and remote write, read and atomic access. Allowed once the route is resolved (active side) or on the new
     * id of a connect request (passive side). A {@link CmPortSpace#UDP} id's UD QP, which may be created once the
     * id is bound to a device, moves on to RTR and RTS (SQ PSN 0) with Q_Key {@link #UDP_QKEY}, as librdmacm's
     * {@code rdma_create_qp} does, and is ready to send.
     *
     * @param pd a protection domain of {@link #context()}
     * @param attributes the QP's attributes; its type must be the port space's ({@link CmPortSpace#qpType()})
     * @return the QP, in INIT (in RTS for a UDP id); it belongs to the id: destroy it with {@link #destroyQp()}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if pd is closed or is not on the id's device context
     * @throws VerbsException {@code EINVAL} if the id is not bound to a device, already has a QP, or the QP type
     *     does not fit the port space; the errors of {@code ibv_create_qp(3)}
     * @see "rdma_create_qp(3)"
     */
    QueuePair createQp(ProtectionDomain pd, QpInitAttributes attributes);

    /** {@return the id's QP, or null when it has none} */
    QueuePair qp();

    /**
     * Destroys the id's QP. Does nothing when it has none.
     *
     * @throws VerbsException {@code EBUSY} if the QP cannot be destroyed yet (see {@link QueuePair#close()})
     * @see "rdma_destroy_qp(3)"
     */
    void destroyQp();

    /**
     * Sends a connection request to the resolved destination. The id's QP moves to RTR and RTS when the peer
     * accepts, then {@link CmEventType#ESTABLISHED} arrives with the peer's private data. If the peer rejects,
     * or nobody listens, {@link CmEventType#REJECTED} arrives and the QP moves to ERR.
     *
     * @param parameters private data (at most {@link ConnectionParameters#MAX_CONNECT_PRIVATE_DATA} bytes on
     *     InfiniBand and RoCE) and the QP's connection parameters
     * @throws NullPointerException if parameters is null
     * @throws IllegalArgumentException if the private data is too long for the transport
     * @throws VerbsException {@code EINVAL} unless the route is resolved and the id has a QP; {@code EOPNOTSUPP}
     *     on a {@link CmPortSpace#UDP} id (SIDR is not supported)
     * @see "rdma_connect(3)"
     */
    void connect(ConnectionParameters parameters);

    /**
     * Accepts the connection request this id was created by. The QP moves to RTR and RTS; the peer gets
     * {@link CmEventType#ESTABLISHED} with this private data, then this id gets {@link CmEventType#ESTABLISHED}.
     *
     * @param parameters private data (at most {@link ConnectionParameters#MAX_ACCEPT_PRIVATE_DATA} bytes on
     *     InfiniBand and RoCE) and the QP's connection parameters
     * @throws NullPointerException if parameters is null
     * @throws IllegalArgumentException if the private data is too long for the transport
     * @throws VerbsException {@code EINVAL} unless the id is a connect request's new id with a QP, not yet
     *     accepted or rejected
     * @see "rdma_accept(3)"
     */
    void accept(ConnectionParameters parameters);

    /**
     * Rejects the connection request this id was created by. The peer gets {@link CmEventType#REJECTED} with
     * status {@link CmEvent#REJECT_CONSUMER_DEFINED} on InfiniBand and RoCE, and the private data.
     *
     * @param privateData the bytes for the peer, at most {@link ConnectionParameters#MAX_REJECT_PRIVATE_DATA}
     *     on InfiniBand and RoCE; empty for none
     * @throws NullPointerException if privateData is null
     * @throws IllegalArgumentException if the private data is too long for the transport
     * @throws VerbsException {@code EINVAL} unless the id is a connect request's new id, not yet accepted or
     *     rejected
     * @see "rdma_reject(3)"
     */
    void reject(byte[] privateData);

    /**
     * Disconnects. The id's QP moves to ERR at once, so its outstanding WRs complete with
     * {@link WcStatus#WR_FLUSH_ERR}. The peer gets {@link CmEventType#DISCONNECTED}; this id gets it when the
     * peer disconnects in turn (or closes its id). An id that got {@code DISCONNECTED} because the peer
     * disconnected first gets no second one. The peer's QP stays as it is until the peer calls
     * {@code disconnect} too, as with librdmacm.
     *
     * @throws VerbsException {@code EINVAL} if the id is not connected, or was already disconnected from this
     *     side
     * @see "rdma_disconnect(3)"
     */
    void disconnect();

    /**
     * Moves the id to another event channel: its future events, and those queued but not yet taken, go there.
     * The new id of a connect request arrives on the listener's channel; an application that serves each
     * connection apart moves it to a channel of its own.
     *
     * @param channel the new channel
     * @throws NullPointerException if channel is null
     * @throws IllegalStateException if the channel is closed
     * @throws IllegalArgumentException if the channel belongs to another connection manager
     * @throws VerbsException {@code EBUSY} while an event of the id that was taken is not acknowledged
     * @see "rdma_migrate_id(3)"
     */
    void migrate(CmEventChannel channel);

    /**
     * Sets the type of service of the id's connection ({@code rdma_set_option(3)}, {@code RDMA_OPTION_ID_TOS}): on
     * RoCE the traffic class of the QP's address vector, and the IP header's TOS byte. It takes effect when the
     * route is resolved ({@link #resolveRoute}); set it before.
     *
     * @param tos the type of service, 8 bits (0..255)
     * @throws IllegalArgumentException if tos is outside 0..255
     * @see "rdma_set_option(3)"
     */
    void setTos(int tos);

    /**
     * Lets the id share its port ({@code rdma_set_option(3)}, {@code RDMA_OPTION_ID_REUSEADDR}): ids that all set
     * it may bind the same address and port, until one of them listens; a listening id shares its port with
     * nobody. Without it, a second bind of an address and port is {@code EADDRINUSE}, and a bind that overlaps
     * a wildcard bind on the port is {@code EADDRNOTAVAIL}. Ports of different addresses never conflict.
     *
     * @param reuse whether the port may be shared
     * @throws VerbsException {@code EINVAL} for turning it off once the id is bound, or on once it listens (the
     *     kernel's {@code rdma_set_reuseaddr})
     * @see "rdma_set_option(3)"
     */
    void setReuseAddress(boolean reuse);

    /**
     * Makes an IPv6 bind cover IPv6 only ({@code rdma_set_option(3)}, {@code RDMA_OPTION_ID_AFONLY}): two ids that
     * both set it, one on IPv4 and one on IPv6, may bind the same port even when either is a wildcard.
     *
     * @param afOnly whether the id's address family is its only one
     * @throws VerbsException {@code EINVAL} once the id has resolved an address or listens (the kernel's
     *     {@code rdma_set_afonly}: a new or a bound id only)
     * @see "rdma_set_option(3)"
     */
    void setAfOnly(boolean afOnly);

    /**
     * Sets the local ACK timeout the id's RC QP gets in RTS ({@code rdma_set_option(3)},
     * {@code RDMA_OPTION_ID_ACK_TIMEOUT}), instead of the one the connection manager derives from the path: the QP
     * waits 4.096 µs × 2<sup>timeout</sup> for an ACK before it retries (0: forever). Set it before the connection
     * is established.
     *
     * @param timeout the QP attribute {@code timeout}, 5 bits (0..31)
     * @throws IllegalArgumentException if timeout is outside 0..31
     * @throws VerbsException {@code EINVAL} on a {@link CmPortSpace#UDP} id (its QP is UD)
     * @see "rdma_set_option(3)"
     */
    void setAckTimeout(int timeout);

    /**
     * Joins a multicast group. The result arrives as {@link CmEventType#MULTICAST_JOIN}, whose
     * {@link CmEvent#udParameters()} tell how to send to the group (an address vector to its multicast GID, QPN
     * {@value #MULTICAST_QPN}, Q_Key {@value #UDP_QKEY}), or as {@link CmEventType#MULTICAST_ERROR} with a
     * negative errno. When the join event is taken from the channel, the id's QP, if it has one then, is attached
     * to the group ({@link QueuePair#attachMulticast}), as librdmacm does; a failed attach turns the event into
     * {@code MULTICAST_ERROR} with its errno. A QP created after that is not attached.
     *
     * @param group the group's address: IPv4 224.0.0.0/4 or IPv6 ff00::/8; on RoCE v2 devices the kernel takes
     *     IPv4 groups only
     * @throws NullPointerException if group is null
     * @throws VerbsException {@code EINVAL} if the address is not a multicast address, the id is not a
     *     {@link CmPortSpace#UDP} id, or it is not bound to a device (bind it to a device's address or resolve an
     *     address first); {@code EADDRINUSE} if the id already joined the group ({@link #leaveMulticast} first);
     *     the errors of the connection manager's join ({@code EOPNOTSUPP} where the device cannot join such a
     *     group)
     * @see "rdma_join_multicast(3)"
     */
    void joinMulticast(InetAddress group);

    /**
     * Joins a multicast group as {@code type} says: {@link MulticastJoinType#FULL_MEMBER} is
     * {@link #joinMulticast(InetAddress)}; {@link MulticastJoinType#SENDONLY_FULL_MEMBER} joins to send only: the
     * join event is the same, but the id's QP is not attached to the group, as librdmacm leaves it.
     *
     * @param group the group's address, as for {@link #joinMulticast(InetAddress)}
     * @param type how to join
     * @throws NullPointerException if an argument is null
     * @throws VerbsException as {@link #joinMulticast(InetAddress)}; {@code EOPNOTSUPP} where the device cannot
     *     join send-only (on InfiniBand, a subnet administrator without send-only full members)
     * @see "rdma_join_multicast_ex(3)"
     */
    void joinMulticast(InetAddress group, MulticastJoinType type);

    /**
     * Leaves a multicast group the id joined: the id's QP is detached from it first
     * ({@link QueuePair#detachMulticast}), if the join attached it and the QP is still open, and a join event of the
     * group not yet taken is dropped.
     * Destroying the id leaves every group it joined.
     *
     * @param group the group's address, as given to {@link #joinMulticast}
     * @throws NullPointerException if group is null
     * @throws VerbsException {@code EADDRNOTAVAIL} if the id has not joined the group; {@code EBUSY} while an
     *     event of the id that was taken is not acknowledged (librdmacm would wait for it); the errors of
     *     {@code ibv_detach_mcast(3)}, the group then still joined
     * @see "rdma_leave_multicast(3)"
     */
    void leaveMulticast(InetAddress group);

    /** {@return whether {@link #close()} has succeeded} */
    boolean isClosed();

    /**
     * Destroys the id; a connected id is disconnected first. An id whose {@link #connect} has had no answer yet
     * gives it up without waiting for the peer: no event of it comes any more, and the peer's request id gets
     * {@link CmEventType#REJECTED} (status {@link CmEvent#REJECT_TIMEOUT} on InfiniBand and RoCE). A second call
     * does nothing.
     *
     * @throws VerbsException {@code EBUSY} while the id has a QP ({@link #destroyQp()} first) or an event of
     *     it is not acknowledged ({@link CmEvent#close()} first); the id stays open
     * @see "rdma_destroy_id(3)"
     */
    @Override
    void close();
}
