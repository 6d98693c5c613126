package org.verbs4j;

import java.net.InetAddress;

/**
 * A connection-manager event, {@code struct rdma_cm_event}, taken from a {@link CmEventChannel}. Closing it
 * acknowledges it ({@code rdma_ack_cm_event}); use try-with-resources. Its id cannot be closed before every
 * event of it is acknowledged.
 *
 * <p>Every getter works after {@link #close()}, from any thread, and returns what it returned before: the values,
 * private data included, are copied out of the native event before {@link CmEventChannel#getEvent()} returns,
 * and {@code rdma_ack_cm_event} then frees it. A second {@code close()}, from any thread, does nothing.
 * {@link #id()} and {@link #listenId()} may name ids closed since; their methods then throw
 * {@link IllegalStateException}.
 *
 * @see "rdma_get_cm_event(3)"
 * @see "rdma_ack_cm_event(3)"
 */
public interface CmEvent extends AutoCloseable {
    /** The IB CM reject reason when nobody listens on the port ({@code IB_CM_REJ_INVALID_SERVICE_ID}). */
    int REJECT_INVALID_SERVICE_ID = 8;
    /** The IB CM reject reason of {@link CmId#reject} ({@code IB_CM_REJ_CONSUMER_DEFINED}). */
    int REJECT_CONSUMER_DEFINED = 28;
    /**
     * The IB CM reject reason a passive side gets when the active id is closed while its connect waits for an
     * answer ({@code IB_CM_REJ_TIMEOUT}: the kernel's CM rejects the request it sent as it destroys the id).
     */
    int REJECT_TIMEOUT = 4;

    /** {@return what happened} */
    CmEventType type();

    /**
     * {@return 0 on success; else a negative errno (such as {@code -ETIMEDOUT}, -110) or a transport-specific
     * value: for {@link CmEventType#REJECTED} on InfiniBand and RoCE, the IB CM reject reason}
     */
    int status();

    /**
     * {@return the id the event is for; for {@link CmEventType#CONNECT_REQUEST}, the new id of the incoming
     * connection, which the listener's owner accepts, rejects or closes}
     */
    CmId id();

    /** {@return for {@link CmEventType#CONNECT_REQUEST}, the listening id the request arrived on; else null} */
    CmId listenId();

    /**
     * {@return a copy of the private data the peer sent with a connect request, an accept or a reject (on
     * {@link CmEventType#CONNECT_REQUEST}, {@link CmEventType#ESTABLISHED} on the active side and
     * {@link CmEventType#REJECTED}); the transport may pad it with zeros (see {@link ConnectionParameters});
     * empty when there is none}
     */
    byte[] privateData();

    /** {@return on a connect request or an accept, the peer's {@code responder_resources}; else 0} */
    int responderResources();

    /** {@return on a connect request or an accept, the peer's {@code initiator_depth}; else 0} */
    int initiatorDepth();

    /**
     * {@return on {@link CmEventType#MULTICAST_JOIN}, how to send to the group joined: the {@code param.ud} of
     * the event; else null}
     */
    CmUdParameters udParameters();

    /**
     * {@return on {@link CmEventType#MULTICAST_JOIN} and {@link CmEventType#MULTICAST_ERROR}, the group's address
     * as given to {@link CmId#joinMulticast} (librdmacm returns it as the join's context); else null}
     */
    InetAddress multicastGroup();

    /** {@return whether {@link #close()} acknowledged it} */
    boolean isAcked();

    /**
     * Acknowledges the event. A second call does nothing.
     *
     * @see "rdma_ack_cm_event(3)"
     */
    @Override
    void close();
}
