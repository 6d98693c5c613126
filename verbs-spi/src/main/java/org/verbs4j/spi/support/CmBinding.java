package org.verbs4j.spi.support;

import java.net.InetSocketAddress;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpState;

/**
 * The calls of a native connection manager (librdmacm, {@code rdma_cm(7)}) that {@link BoundConnectionManager}
 * drives: one method per verb, on native handles ({@code struct rdma_event_channel *},
 * {@code struct rdma_cm_id *}, {@code struct rdma_cm_event *} as addresses). A binding only calls and copies;
 * every rule (state, order, acknowledgement, the QP's transitions) is the object model's. Each method throws
 * {@link org.verbs4j.VerbsException} with the verb's errno when the verb fails.
 *
 * <p>The object model holds its lock around every call but {@link #awaitReadable}, so a binding needs no
 * locking of its own.
 */
public interface CmBinding {
    /**
     * An event as {@code rdma_get_cm_event} returned it, copied before it is acknowledged.
     *
     * @param event the {@code struct rdma_cm_event *}, for {@link #ackEvent}
     * @param id the event's {@code struct rdma_cm_id *}: the new id for a connect request
     * @param listenId the listening id of a connect request, else 0
     * @param type the {@code enum rdma_cm_event_type} value
     * @param status the event's status
     * @param privateData a copy of the private data, empty for none
     * @param responderResources {@code param.conn.responder_resources}
     * @param initiatorDepth {@code param.conn.initiator_depth}
     */
    record RawEvent(long event, long id, long listenId, int type, int status, byte[] privateData,
                    int responderResources, int initiatorDepth) {}

    /** {@return a new channel}; {@code rdma_create_event_channel(3)} */
    long createEventChannel();

    /** {@return the channel's file descriptor} */
    int fd(long channel);

    /** {@code rdma_destroy_event_channel(3)}. */
    void destroyEventChannel(long channel);

    /** {@return a new id on the channel}; {@code rdma_create_id(3)} with an {@code enum rdma_port_space} value */
    long createId(long channel, int portSpace);

    /** {@code rdma_destroy_id(3)}; the caller has acknowledged every event of the id. */
    void destroyId(long id);

    /** {@code rdma_bind_addr(3)}. */
    void bindAddr(long id, InetSocketAddress address);

    /** {@code rdma_resolve_addr(3)}; src may be null. */
    void resolveAddr(long id, InetSocketAddress src, InetSocketAddress dst, int timeoutMs);

    /** {@code rdma_resolve_route(3)}. */
    void resolveRoute(long id, int timeoutMs);

    /** {@code rdma_listen(3)}. */
    void listen(long id, int backlog);

    /** {@code rdma_connect(3)} for a QP the caller manages: its QPN and whether it has an SRQ go in the REQ. */
    void connect(long id, ConnectionParameters parameters, int qpNum, boolean srq);

    /** {@code rdma_accept(3)} for a QP the caller manages and has moved to RTS. */
    void accept(long id, ConnectionParameters parameters, int qpNum, boolean srq);

    /** {@code rdma_reject(3)}. */
    void reject(long id, byte[] privateData);

    /** {@code rdma_establish(3)}: completes an active connect after the caller moved its QP to RTS. */
    void establish(long id);

    /** {@code rdma_disconnect(3)}. */
    void disconnect(long id);

    /** {@code rdma_migrate_id(3)}. */
    void migrate(long id, long channel);

    /**
     * {@code rdma_init_qp_attr(3)}: the attributes, with their mask, that move the id's QP to {@code state}.
     *
     * @return the attributes the connection manager gives
     */
    QpAttributes initQpAttr(long id, QpState state);

    /** {@return the name of the device the id is bound to ({@code id->verbs}), or null when it is bound to none} */
    String deviceName(long id);

    /** {@return {@code id->port_num}, 0 before the id is bound to a device} */
    int portNum(long id);

    /** {@return the id's source address ({@code rdma_get_local_addr}), or null when it has none} */
    InetSocketAddress localAddress(long id);

    /** {@return the id's destination address ({@code rdma_get_peer_addr}), or null when it has none} */
    InetSocketAddress remoteAddress(long id);

    /**
     * Waits with {@code poll(2)} until the descriptor is readable.
     *
     * @param fd the channel's descriptor
     * @param timeoutNanos the longest wait; 0 checks once
     * @return whether it is readable
     */
    boolean awaitReadable(int fd, long timeoutNanos);

    /**
     * {@code rdma_get_cm_event(3)}, called only when the channel's descriptor is readable, so it does not block.
     *
     * @return the event, copied
     */
    RawEvent getEvent(long channel);

    /** {@code rdma_ack_cm_event(3)}. */
    void ackEvent(long event);
}
