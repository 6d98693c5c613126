package org.verbs4j.provider.emulated.engine;

import static org.verbs4j.QpAttrMask.*;

import org.verbs4j.QpAttrMask;
import org.verbs4j.QpState;
import org.verbs4j.QpType;

/**
 * The QP state machine of the InfiniBand Architecture Specification (10.3) and {@code ibv_modify_qp(3)}:
 * which transitions are legal and which attributes each one requires and allows, per QP type. SQE has no
 * outgoing transition here: this device never enters it (a UC or UD send error moves the QP to ERR, as in rxe),
 * and a modify to SQE is refused before this check.
 */
public final class QpTransitions {
    private QpTransitions() {}

    /**
     * Checks a modify.
     *
     * @param mask the {@link QpAttrMask} bits given
     * @return null if the modify is legal, else what is wrong
     */
    public static String check(QpType type, QpState cur, QpState next, int mask) {
        boolean ud = type == QpType.UD;
        // XRC_SEND requests as RC does but has no responder; XRC_RECV responds as RC does but never sends.
        boolean rc = type == QpType.RC || type == QpType.XRC_SEND;
        boolean responds = type == QpType.RC || type == QpType.XRC_RECV;
        // What a move into RTS (from RTR, RTS or SQD) may also change.
        int toRtsOptional = ud ? CUR_STATE | QKEY
                : CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | (responds ? MIN_RNR_TIMER : 0);
        int required;
        int optional;
        if (next == QpState.RESET || next == QpState.ERR) {
            return extra(mask, STATE, 0, cur, next);
        }
        switch (cur) {
            case RESET -> {
                if (next != QpState.INIT) {
                    return illegal(cur, next);
                }
                required = STATE | PKEY_INDEX | PORT | (ud ? QKEY : ACCESS_FLAGS);
                optional = 0;
            }
            case INIT -> {
                if (next == QpState.INIT) {
                    required = STATE;
                    optional = PKEY_INDEX | PORT | (ud ? QKEY : ACCESS_FLAGS);
                } else if (next == QpState.RTR) {
                    required = ud ? STATE
                            : responds ? STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER
                            : STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN;
                    optional = ud ? PKEY_INDEX | QKEY : ALT_PATH | ACCESS_FLAGS | PKEY_INDEX;
                } else {
                    return illegal(cur, next);
                }
            }
            case RTR -> {
                if (next != QpState.RTS) {
                    return illegal(cur, next);
                }
                required = rc ? STATE | SQ_PSN | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC
                        : type == QpType.XRC_RECV ? STATE | SQ_PSN | TIMEOUT : STATE | SQ_PSN;
                optional = toRtsOptional;
            }
            case RTS -> {
                if (next == QpState.RTS) {
                    required = STATE;
                    optional = toRtsOptional;
                } else if (next == QpState.SQD) {
                    required = STATE;
                    optional = EN_SQD_ASYNC_NOTIFY;
                } else {
                    return illegal(cur, next);
                }
            }
            case SQD -> {
                if (next == QpState.RTS) {
                    required = STATE;
                    optional = toRtsOptional;
                } else if (next == QpState.SQD) {
                    required = STATE;
                    optional = ud ? PKEY_INDEX | QKEY
                            : AV | PATH_MTU | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC | MAX_DEST_RD_ATOMIC
                              | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | MIN_RNR_TIMER | PATH_MIG_STATE;
                } else {
                    return illegal(cur, next);
                }
            }
            default -> {
                return illegal(cur, next);
            }
        }
        if ((mask & required) != required) {
            return cur + " -> " + next + " on " + type + " requires " + QpAttrMask.toString(required) + " but "
                    + QpAttrMask.toString(required & ~mask) + " is missing (ibv_modify_qp(3))";
        }
        return extra(mask, required, optional, cur, next);
    }

    private static String extra(int mask, int required, int optional, QpState cur, QpState next) {
        int bad = mask & ~(required | optional | RATE_LIMIT);
        if (bad != 0) {
            return cur + " -> " + next + " does not accept " + QpAttrMask.toString(bad) + " (ibv_modify_qp(3))";
        }
        return null;
    }

    private static String illegal(QpState cur, QpState next) {
        return cur + " -> " + next + " is not a legal QP state transition (IBA 10.3)";
    }
}
