package org.verbs4j;

/**
 * The kind of a connection-manager event, {@code enum rdma_cm_event_type}. The constants keep rdma_cm's
 * names and order, so {@link #value()} is the C value.
 *
 * @see "rdma_get_cm_event(3) EVENT TYPES"
 * @see "rdma_cm(7)"
 */
public enum CmEventType {
    /** {@code RDMA_CM_EVENT_ADDR_RESOLVED} (0): {@link CmId#resolveAddr} succeeded; the id is bound to a device. */
    ADDR_RESOLVED,
    /** {@code RDMA_CM_EVENT_ADDR_ERROR} (1): address resolution failed; the status is a negative errno. */
    ADDR_ERROR,
    /** {@code RDMA_CM_EVENT_ROUTE_RESOLVED} (2): {@link CmId#resolveRoute} succeeded. */
    ROUTE_RESOLVED,
    /** {@code RDMA_CM_EVENT_ROUTE_ERROR} (3): route resolution failed; the status is a negative errno. */
    ROUTE_ERROR,
    /** {@code RDMA_CM_EVENT_CONNECT_REQUEST} (4): a peer connects to a listening id; the event carries the new id. */
    CONNECT_REQUEST,
    /** {@code RDMA_CM_EVENT_CONNECT_RESPONSE} (5): the peer answered a connect made without a QP. */
    CONNECT_RESPONSE,
    /** {@code RDMA_CM_EVENT_CONNECT_ERROR} (6): an error while establishing the connection. */
    CONNECT_ERROR,
    /** {@code RDMA_CM_EVENT_UNREACHABLE} (7): the peer did not answer a connect or an accept. */
    UNREACHABLE,
    /**
     * {@code RDMA_CM_EVENT_REJECTED} (8): the peer rejected the connection. On InfiniBand and RoCE the status is
     * the IB CM REJ reason: {@value CmEvent#REJECT_INVALID_SERVICE_ID} when nobody listens on the port,
     * {@value CmEvent#REJECT_CONSUMER_DEFINED} when the peer called {@link CmId#reject}.
     */
    REJECTED,
    /** {@code RDMA_CM_EVENT_ESTABLISHED} (9): the connection is up; both QPs are in RTS. */
    ESTABLISHED,
    /** {@code RDMA_CM_EVENT_DISCONNECTED} (10): the connection was disconnected by either side. */
    DISCONNECTED,
    /** {@code RDMA_CM_EVENT_DEVICE_REMOVAL} (11): the id's device was removed. */
    DEVICE_REMOVAL,
    /** {@code RDMA_CM_EVENT_MULTICAST_JOIN} (12): a multicast join completed. */
    MULTICAST_JOIN,
    /** {@code RDMA_CM_EVENT_MULTICAST_ERROR} (13): a multicast join failed. */
    MULTICAST_ERROR,
    /** {@code RDMA_CM_EVENT_ADDR_CHANGE} (14): the network address the id is bound to changed device. */
    ADDR_CHANGE,
    /** {@code RDMA_CM_EVENT_TIMEWAIT_EXIT} (15): the disconnected QP left its timewait state and may be reused. */
    TIMEWAIT_EXIT;

    /** {@return the C value of {@code enum rdma_cm_event_type}} */
    public int value() {
        return ordinal();
    }

    /**
     * The event type of a C value.
     *
     * @param value an {@code enum rdma_cm_event_type} value
     * @return the constant
     * @throws IllegalArgumentException for a value rdma_cm does not define here
     */
    public static CmEventType of(int value) {
        CmEventType[] all = values();
        if (value < 0 || value >= all.length) {
            throw new IllegalArgumentException("rdma_cm_event_type " + value + " is not 0.." + (all.length - 1));
        }
        return all[value];
    }

    /**
     * The text librdmacm gives this event type, so that a log line reads as a C program's does.
     *
     * @return the C constant's name, such as {@code "RDMA_CM_EVENT_ESTABLISHED"}
     * @see "rdma_event_str(3)"
     */
    public String description() {
        return "RDMA_CM_EVENT_" + name();
    }
}
