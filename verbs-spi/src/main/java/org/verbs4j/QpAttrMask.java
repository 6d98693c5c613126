package org.verbs4j;

import java.util.StringJoiner;

/**
 * The attribute mask of {@code ibv_modify_qp} and {@code ibv_query_qp}, {@code enum ibv_qp_attr_mask},
 * as the 32-bit values of {@code verbs.h}. {@link QpAttributes} sets these bits as its setters are called.
 *
 * @see "ibv_modify_qp(3)"
 */
public final class QpAttrMask {
    /** {@code IBV_QP_STATE}: the new state ({@code qp_state}). */
    public static final int STATE = 1;
    /** {@code IBV_QP_CUR_STATE}: the state the caller believes the QP is in ({@code cur_qp_state}). */
    public static final int CUR_STATE = 1 << 1;
    /** {@code IBV_QP_EN_SQD_ASYNC_NOTIFY}: whether reaching SQD raises {@link AsyncEventType#SQ_DRAINED}. */
    public static final int EN_SQD_ASYNC_NOTIFY = 1 << 2;
    /** {@code IBV_QP_ACCESS_FLAGS}: the remote access allowed ({@code qp_access_flags}). */
    public static final int ACCESS_FLAGS = 1 << 3;
    /** {@code IBV_QP_PKEY_INDEX}: the primary path's P_Key index. */
    public static final int PKEY_INDEX = 1 << 4;
    /** {@code IBV_QP_PORT}: the primary path's port. */
    public static final int PORT = 1 << 5;
    /** {@code IBV_QP_QKEY}: the Q_Key of UD QPs. */
    public static final int QKEY = 1 << 6;
    /** {@code IBV_QP_AV}: the primary path's address vector ({@code ah_attr}). */
    public static final int AV = 1 << 7;
    /** {@code IBV_QP_PATH_MTU}: the path MTU. */
    public static final int PATH_MTU = 1 << 8;
    /** {@code IBV_QP_TIMEOUT}: the ACK timeout code of RC requesters (4.096 us times 2 to its power). */
    public static final int TIMEOUT = 1 << 9;
    /** {@code IBV_QP_RETRY_CNT}: the transport retry count, 0..7. */
    public static final int RETRY_CNT = 1 << 10;
    /** {@code IBV_QP_RNR_RETRY}: the RNR retry count, 0..7 (7 retries forever). */
    public static final int RNR_RETRY = 1 << 11;
    /** {@code IBV_QP_RQ_PSN}: the receive queue's first PSN. */
    public static final int RQ_PSN = 1 << 12;
    /** {@code IBV_QP_MAX_QP_RD_ATOMIC}: outstanding RDMA READ and atomics as initiator. */
    public static final int MAX_QP_RD_ATOMIC = 1 << 13;
    /** {@code IBV_QP_ALT_PATH}: the alternate path. */
    public static final int ALT_PATH = 1 << 14;
    /** {@code IBV_QP_MIN_RNR_TIMER}: the RNR NAK timer code of responders. */
    public static final int MIN_RNR_TIMER = 1 << 15;
    /** {@code IBV_QP_SQ_PSN}: the send queue's first PSN. */
    public static final int SQ_PSN = 1 << 16;
    /** {@code IBV_QP_MAX_DEST_RD_ATOMIC}: outstanding RDMA READ and atomics as responder. */
    public static final int MAX_DEST_RD_ATOMIC = 1 << 17;
    /** {@code IBV_QP_PATH_MIG_STATE}: the path migration state. */
    public static final int PATH_MIG_STATE = 1 << 18;
    /** {@code IBV_QP_CAP}: the queue sizes ({@code cap}). */
    public static final int CAP = 1 << 19;
    /** {@code IBV_QP_DEST_QPN}: the remote QP number. */
    public static final int DEST_QPN = 1 << 20;
    /** {@code IBV_QP_RATE_LIMIT}: the send rate limit, kbps. */
    public static final int RATE_LIMIT = 1 << 25;

    /** Every bit above. */
    public static final int ALL = (1 << 21) - 1 | RATE_LIMIT;

    private static final String[] NAMES = {
        "STATE", "CUR_STATE", "EN_SQD_ASYNC_NOTIFY", "ACCESS_FLAGS", "PKEY_INDEX", "PORT", "QKEY", "AV",
        "PATH_MTU", "TIMEOUT", "RETRY_CNT", "RNR_RETRY", "RQ_PSN", "MAX_QP_RD_ATOMIC", "ALT_PATH",
        "MIN_RNR_TIMER", "SQ_PSN", "MAX_DEST_RD_ATOMIC", "PATH_MIG_STATE", "CAP", "DEST_QPN"
    };

    private QpAttrMask() {}

    /**
     * {@return the mask as {@code STATE|PKEY_INDEX|PORT}, or {@code 0}}
     *
     * @param mask {@link QpAttrMask} bits
     */
    public static String toString(int mask) {
        if (mask == 0) {
            return "0";
        }
        StringJoiner j = new StringJoiner("|");
        for (int i = 0; i < NAMES.length; i++) {
            if ((mask & (1 << i)) != 0) {
                j.add(NAMES[i]);
            }
        }
        if ((mask & RATE_LIMIT) != 0) {
            j.add("RATE_LIMIT");
        }
        if ((mask & ~ALL) != 0) {
            j.add("0x" + Integer.toHexString(mask & ~ALL));
        }
        return j.toString();
    }
}
