package org.verbs4j.spi.support.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.verbs4j.CmUdParameters;
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
     * @param udContext on a multicast join or error, the join's context ({@code param.ud.private_data}), else 0
     * @param ud on a multicast join, {@code param.ud}'s address vector, QPN and Q_Key; else null
     */
    record RawEvent(long event, long id, long listenId, int type, int status, byte[] privateData,
                    int responderResources, int initiatorDepth, long udContext, CmUdParameters ud) {}

    /**
     * {@code rdma_create_event_channel(3)}.
     *
     * @return the new channel's handle
     */
    long createEventChannel();

    /**
     * The channel's file descriptor, {@code channel->fd}.
     *
     * @param channel the channel's handle
     * @return the descriptor
     */
    int fd(long channel);

    /**
     * {@code rdma_destroy_event_channel(3)}; the caller has closed every id on it.
     *
     * @param channel the channel's handle
     */
    void destroyEventChannel(long channel);

    /**
     * {@code rdma_create_id(3)}.
     *
     * @param channel the channel its events go to
     * @param portSpace an {@code enum rdma_port_space} value
     * @return the new id's handle
     */
    long createId(long channel, int portSpace);

    /**
     * {@code rdma_destroy_id(3)}; the caller has acknowledged every event of the id.
     *
     * @param id the id's handle
     */
    void destroyId(long id);

    /**
     * {@code rdma_bind_addr(3)}.
     *
     * @param id the id's handle
     * @param address the local address and port
     */
    void bindAddr(long id, InetSocketAddress address);

    /**
     * {@code rdma_resolve_addr(3)}.
     *
     * @param id the id's handle
     * @param src the local address, or null to let the kernel choose
     * @param dst the destination
     * @param timeoutMs how long resolution may take, milliseconds
     */
    void resolveAddr(long id, InetSocketAddress src, InetSocketAddress dst, int timeoutMs);

    /**
     * {@code rdma_resolve_route(3)}.
     *
     * @param id the id's handle
     * @param timeoutMs how long resolution may take, milliseconds
     */
    void resolveRoute(long id, int timeoutMs);

    /**
     * {@code rdma_listen(3)}.
     *
     * @param id the id's handle
     * @param backlog pending requests allowed
     */
    void listen(long id, int backlog);

    /**
     * {@code rdma_connect(3)} for a QP the caller manages: its QPN and whether it has an SRQ go in the REQ.
     *
     * @param id the id's handle
     * @param parameters private data and the RDMA READ depths and retries
     * @param qpNum the QP's number
     * @param srq whether the QP receives through an SRQ
     */
    void connect(long id, ConnectionParameters parameters, int qpNum, boolean srq);

    /**
     * {@code rdma_accept(3)} for a QP the caller manages and has moved to RTS.
     *
     * @param id the id's handle
     * @param parameters private data and the RDMA READ depths
     * @param qpNum the QP's number
     * @param srq whether the QP receives through an SRQ
     */
    void accept(long id, ConnectionParameters parameters, int qpNum, boolean srq);

    /**
     * {@code rdma_reject(3)}.
     *
     * @param id the id's handle
     * @param privateData the bytes for the peer, empty for none
     */
    void reject(long id, byte[] privateData);

    /**
     * {@code rdma_establish(3)}: completes an active connect after the caller moved its QP to RTS.
     *
     * @param id the id's handle
     */
    void establish(long id);

    /**
     * {@code rdma_disconnect(3)}.
     *
     * @param id the id's handle
     */
    void disconnect(long id);

    /**
     * {@code rdma_migrate_id(3)}.
     *
     * @param id the id's handle
     * @param channel the new channel's handle
     */
    void migrate(long id, long channel);

    /**
     * {@code rdma_set_option(3)} at level {@code RDMA_OPTION_ID}: the value goes as the option's C type
     * ({@code uint8_t} for TOS and ACK_TIMEOUT, {@code int} for REUSEADDR and AFONLY).
     *
     * @param id the id's handle
     * @param optname {@code RDMA_OPTION_ID_TOS} (0), {@code _REUSEADDR} (1), {@code _AFONLY} (2) or
     *     {@code _ACK_TIMEOUT} (3)
     * @param value the option's value, checked
     */
    void setOption(long id, int optname, int value);

    /**
     * {@code rdma_join_multicast(3)}, or {@code rdma_join_multicast_ex(3)} for a join that is not a full member's.
     *
     * @param id the id's handle
     * @param group the group's address
     * @param context the join's context, which its events carry in {@code param.ud.private_data}
     * @param joinFlags an {@code enum rdma_cm_mc_join_flags} value
     */
    void joinMulticast(long id, InetAddress group, long context, int joinFlags);

    /**
     * {@code rdma_leave_multicast(3)}; the caller has detached its QP and acknowledged every event of the id.
     *
     * @param id the id's handle
     * @param group the group's address
     */
    void leaveMulticast(long id, InetAddress group);

    /**
     * {@code rdma_init_qp_attr(3)}: the attributes, with their mask, that move the id's QP to {@code state}.
     *
     * @param id the id's handle
     * @param state the state to move to
     * @return the attributes the connection manager gives
     */
    QpAttributes initQpAttr(long id, QpState state);

    /**
     * The device the id is bound to, {@code id->verbs}.
     *
     * @param id the id's handle
     * @return the device's name, or null when the id is bound to none
     */
    String deviceName(long id);

    /**
     * {@code id->port_num}.
     *
     * @param id the id's handle
     * @return the port, 0 before the id is bound to a device
     */
    int portNum(long id);

    /**
     * The id's source address, {@code rdma_get_local_addr}.
     *
     * @param id the id's handle
     * @return the address, or null when it has none
     */
    InetSocketAddress localAddress(long id);

    /**
     * The id's destination address, {@code rdma_get_peer_addr}.
     *
     * @param id the id's handle
     * @return the address, or null when it has none
     */
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
     * @param channel the channel's handle
     * @return the event, copied
     */
    RawEvent getEvent(long channel);

    /**
     * {@code rdma_ack_cm_event(3)}.
     *
     * @param event the event's handle, {@link RawEvent#event()}
     */
    void ackEvent(long event);
}
