package org.verbs4j;

/**
 * The type of an asynchronous event, {@code enum ibv_event_type}.
 *
 * @see "ibv_get_async_event(3)"
 */
public enum AsyncEventType {
    /** {@code IBV_EVENT_CQ_ERR}: a CQ overran; it no longer reports completions. */
    CQ_ERR,
    /** {@code IBV_EVENT_QP_FATAL}: an error on a QP that prevented a completion; the QP is in ERR. */
    QP_FATAL,
    /** {@code IBV_EVENT_QP_REQ_ERR}: the QP's transport saw an invalid request; the QP is in ERR. */
    QP_REQ_ERR,
    /** {@code IBV_EVENT_QP_ACCESS_ERR}: a local access violation on the QP; the QP is in ERR. */
    QP_ACCESS_ERR,
    /** {@code IBV_EVENT_COMM_EST}: the first packet arrived on a QP in RTR. */
    COMM_EST,
    /** {@code IBV_EVENT_SQ_DRAINED}: a QP moved to SQD has no outstanding send WRs left. */
    SQ_DRAINED,
    /** {@code IBV_EVENT_PATH_MIG}: the QP migrated to its alternate path. */
    PATH_MIG,
    /** {@code IBV_EVENT_PATH_MIG_ERR}: migrating the QP to its alternate path failed. */
    PATH_MIG_ERR,
    /** {@code IBV_EVENT_DEVICE_FATAL}: the device failed; close the context. */
    DEVICE_FATAL,
    /** {@code IBV_EVENT_PORT_ACTIVE}: a port became active. */
    PORT_ACTIVE,
    /** {@code IBV_EVENT_PORT_ERR}: a port is no longer active. */
    PORT_ERR,
    /** {@code IBV_EVENT_LID_CHANGE}: a port's LID changed. */
    LID_CHANGE,
    /** {@code IBV_EVENT_PKEY_CHANGE}: a port's P_Key table changed. */
    PKEY_CHANGE,
    /** {@code IBV_EVENT_SM_CHANGE}: a port's subnet manager changed. */
    SM_CHANGE,
    /** {@code IBV_EVENT_SRQ_ERR}: an error on an SRQ; it is no longer usable. */
    SRQ_ERR,
    /** {@code IBV_EVENT_SRQ_LIMIT_REACHED}: an SRQ's receive WRs fell below its armed limit. */
    SRQ_LIMIT_REACHED,
    /** {@code IBV_EVENT_QP_LAST_WQE_REACHED}: a QP on an SRQ in ERR will consume no more of its WRs. */
    QP_LAST_WQE_REACHED,
    /** {@code IBV_EVENT_CLIENT_REREGISTER}: the subnet manager asks for the port's registrations again. */
    CLIENT_REREGISTER,
    /** {@code IBV_EVENT_GID_CHANGE}: a port's GID table changed. */
    GID_CHANGE,
    /** {@code IBV_EVENT_WQ_FATAL}: an error on a work queue; it is in ERR. */
    WQ_FATAL;

    /** {@return the {@code IBV_EVENT_*} value} */
    public int value() {
        return ordinal();
    }

    /**
     * The type with the given value.
     *
     * @param value the {@code IBV_EVENT_*} value
     * @return the event type
     * @throws IllegalArgumentException if no type has that value
     */
    public static AsyncEventType of(int value) {
        if (value < 0 || value >= values().length) {
            throw new IllegalArgumentException("no ibv_event_type has the value " + value);
        }
        return values()[value];
    }

    /**
     * The text libibverbs gives this event type, so that a log line reads as a C program's does.
     *
     * @return the text, such as {@code "local work queue catastrophic error"}
     * @see "ibv_event_type_str(3)"
     */
    public String description() {
        return DESCRIPTIONS[ordinal()];
    }

    private static final String[] DESCRIPTIONS = {
            "CQ error",
            "local work queue catastrophic error",
            "invalid request local work queue error",
            "local access violation work queue error",
            "communication established",
            "send queue drained",
            "path migrated",
            "path migration request error",
            "local catastrophic error",
            "port active",
            "port error",
            "LID change",
            "P_Key change",
            "SM change",
            "SRQ catastrophic error",
            "SRQ limit reached",
            "last WQE reached",
            "client reregistration",
            "GID table change",
            "WQ fatal"};
}
