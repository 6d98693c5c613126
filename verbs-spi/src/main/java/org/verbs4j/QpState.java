package org.verbs4j;

/**
 * A queue pair's state, {@code enum ibv_qp_state}.
 *
 * <p>The legal transitions and the attributes each one requires are those of
 * {@code ibv_modify_qp(3)} and the InfiniBand Architecture Specification, chapter 10.3.
 *
 * @see "ibv_modify_qp(3)"
 */
public enum QpState {
    /** {@code IBV_QPS_RESET}: the state a QP is created in; it neither sends nor receives. */
    RESET(0),
    /** {@code IBV_QPS_INIT}: initialized; receives may be posted but are not processed. */
    INIT(1),
    /** Ready to receive. */
    RTR(2),
    /** Ready to send. */
    RTS(3),
    /** Send queue drained. */
    SQD(4),
    /** Send queue error (UC and UD only). */
    SQE(5),
    /** {@code IBV_QPS_ERR}: error; outstanding and new WRs complete with {@link WcStatus#WR_FLUSH_ERR}. */
    ERR(6),
    /** {@code IBV_QPS_UNKNOWN}: a state the provider could not name. */
    UNKNOWN(7);

    private static final QpState[] BY_VALUE = values();
    private final int value;

    QpState(int value) {
        this.value = value;
    }

    /** {@return the {@code IBV_QPS_*} value} */
    public int value() {
        return value;
    }

    /**
     * The state with the given {@code IBV_QPS_*} value.
     *
     * @param value the {@code IBV_QPS_*} value
     * @return the state
     * @throws IllegalArgumentException if no state has that value
     */
    public static QpState of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("no ibv_qp_state has the value " + value);
        }
        return BY_VALUE[value];
    }
}
