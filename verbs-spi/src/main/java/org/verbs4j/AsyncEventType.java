package org.verbs4j;

/**
 * The type of an asynchronous event, {@code enum ibv_event_type}.
 *
 * @see "ibv_get_async_event(3)"
 */
public enum AsyncEventType {
    CQ_ERR,
    QP_FATAL,
    QP_REQ_ERR,
    QP_ACCESS_ERR,
    COMM_EST,
    SQ_DRAINED,
    PATH_MIG,
    PATH_MIG_ERR,
    DEVICE_FATAL,
    PORT_ACTIVE,
    PORT_ERR,
    LID_CHANGE,
    PKEY_CHANGE,
    SM_CHANGE,
    SRQ_ERR,
    SRQ_LIMIT_REACHED,
    QP_LAST_WQE_REACHED,
    CLIENT_REREGISTER,
    GID_CHANGE,
    WQ_FATAL;

    /** {@return the {@code IBV_EVENT_*} value} */
    public int value() {
        return ordinal();
    }

    /**
     * The type with the given value.
     *
     * @throws IllegalArgumentException if no type has that value
     */
    public static AsyncEventType of(int value) {
        if (value < 0 || value >= values().length) {
            throw new IllegalArgumentException("no ibv_event_type has the value " + value);
        }
        return values()[value];
    }
}
