package org.verbs4j;

/**
 * The status of a work completion, {@code enum ibv_wc_status}.
 *
 * @see "ibv_poll_cq(3)"
 */
public enum WcStatus {
    SUCCESS,
    /** Local length error: a receive buffer too short for the message, or a send longer than allowed. */
    LOC_LEN_ERR,
    LOC_QP_OP_ERR,
    LOC_EEC_OP_ERR,
    /** Local protection error: an SGE outside the registered region or with a bad lkey. */
    LOC_PROT_ERR,
    /** The work request was flushed because the QP was in the error state. */
    WR_FLUSH_ERR,
    MW_BIND_ERR,
    BAD_RESP_ERR,
    LOC_ACCESS_ERR,
    /** The responder saw an invalid request, for example a message longer than its receive buffer. */
    REM_INV_REQ_ERR,
    /** The responder refused the access: bad rkey, missing access bit, or out of bounds. */
    REM_ACCESS_ERR,
    REM_OP_ERR,
    RETRY_EXC_ERR,
    /** The responder had no receive posted after {@code rnr_retry} attempts. */
    RNR_RETRY_EXC_ERR,
    LOC_RDD_VIOL_ERR,
    REM_INV_RD_REQ_ERR,
    REM_ABORT_ERR,
    INV_EECN_ERR,
    INV_EEC_STATE_ERR,
    FATAL_ERR,
    RESP_TIMEOUT_ERR,
    GENERAL_ERR,
    TM_ERR,
    TM_RNDV_INCOMPLETE;

    private static final WcStatus[] BY_VALUE = values();

    /** {@return the {@code IBV_WC_*} value (the ordinal, as in {@code verbs.h})} */
    public int value() {
        return ordinal();
    }

    /**
     * The status with the given value.
     *
     * @throws IllegalArgumentException if no status has that value
     */
    public static WcStatus of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("no ibv_wc_status has the value " + value);
        }
        return BY_VALUE[value];
    }
}
