package org.verbs4j;

/**
 * The status of a work completion, {@code enum ibv_wc_status}.
 *
 * @see "ibv_poll_cq(3)"
 */
public enum WcStatus {
    /** {@code IBV_WC_SUCCESS}: the operation completed; the completion's other fields are valid. */
    SUCCESS,
    /** Local length error: a receive buffer too short for the message, or a send longer than allowed. */
    LOC_LEN_ERR,
    /** {@code IBV_WC_LOC_QP_OP_ERR}: an internal QP consistency error, such as a WR too large for the QP. */
    LOC_QP_OP_ERR,
    /** {@code IBV_WC_LOC_EEC_OP_ERR}: an internal EE context error (RD only). */
    LOC_EEC_OP_ERR,
    /** Local protection error: an SGE outside the registered region or with a bad lkey. */
    LOC_PROT_ERR,
    /** The work request was flushed because the QP was in the error state. */
    WR_FLUSH_ERR,
    /** {@code IBV_WC_MW_BIND_ERR}: a memory window bind failed. */
    MW_BIND_ERR,
    /** {@code IBV_WC_BAD_RESP_ERR}: the responder returned an unexpected transport opcode. */
    BAD_RESP_ERR,
    /** {@code IBV_WC_LOC_ACCESS_ERR}: a protection error on a local buffer an RDMA READ or atomic writes. */
    LOC_ACCESS_ERR,
    /** The responder saw an invalid request, for example a message longer than its receive buffer. */
    REM_INV_REQ_ERR,
    /** The responder refused the access: bad rkey, missing access bit, or out of bounds. */
    REM_ACCESS_ERR,
    /** {@code IBV_WC_REM_OP_ERR}: the responder could not complete the operation. */
    REM_OP_ERR,
    /** {@code IBV_WC_RETRY_EXC_ERR}: no acknowledgement after {@code retry_cnt} retries of the transport. */
    RETRY_EXC_ERR,
    /** The responder had no receive posted after {@code rnr_retry} attempts. */
    RNR_RETRY_EXC_ERR,
    /** {@code IBV_WC_LOC_RDD_VIOL_ERR}: the RDD of the local QP does not match (RD only). */
    LOC_RDD_VIOL_ERR,
    /** {@code IBV_WC_REM_INV_RD_REQ_ERR}: the responder saw an invalid RD request (RD only). */
    REM_INV_RD_REQ_ERR,
    /** {@code IBV_WC_REM_ABORT_ERR}: the responder aborted the operation. */
    REM_ABORT_ERR,
    /** {@code IBV_WC_INV_EECN_ERR}: an invalid EE context number (RD only). */
    INV_EECN_ERR,
    /** {@code IBV_WC_INV_EEC_STATE_ERR}: an EE context in an invalid state (RD only). */
    INV_EEC_STATE_ERR,
    /** {@code IBV_WC_FATAL_ERR}: a fatal error of the device or transport. */
    FATAL_ERR,
    /** {@code IBV_WC_RESP_TIMEOUT_ERR}: the response timed out. */
    RESP_TIMEOUT_ERR,
    /** {@code IBV_WC_GENERAL_ERR}: any other error; the provider may say more in its vendor error. */
    GENERAL_ERR,
    /** {@code IBV_WC_TM_ERR}: a tag-matching error. */
    TM_ERR,
    /** {@code IBV_WC_TM_RNDV_INCOMPLETE}: a tag-matching rendezvous did not complete. */
    TM_RNDV_INCOMPLETE;

    private static final WcStatus[] BY_VALUE = values();

    /** {@return the {@code IBV_WC_*} value (the ordinal, as in {@code verbs.h})} */
    public int value() {
        return ordinal();
    }

    /**
     * The status with the given value.
     *
     * @param value the {@code IBV_WC_*} value
     * @return the status
     * @throws IllegalArgumentException if no status has that value
     */
    public static WcStatus of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("no ibv_wc_status has the value " + value);
        }
        return BY_VALUE[value];
    }

    /**
     * The text libibverbs gives this status, so that a log line reads as a C program's does.
     *
     * @return the text, such as {@code "local length error"}
     * @see "ibv_wc_status_str"
     */
    public String description() {
        return DESCRIPTIONS[ordinal()];
    }

    private static final String[] DESCRIPTIONS = {
            "success",
            "local length error",
            "local QP operation error",
            "local EE context operation error",
            "local protection error",
            "Work Request Flushed Error",
            "memory management operation error",
            "bad response error",
            "local access error",
            "remote invalid request error",
            "remote access error",
            "remote operation error",
            "transport retry counter exceeded",
            "RNR retry counter exceeded",
            "local RDD violation error",
            "remote invalid RD request",
            "aborted error",
            "invalid EE context number",
            "invalid EE context state",
            "fatal error",
            "response timeout error",
            "general error",
            "TM error",
            "TM software rendezvous"};
}
