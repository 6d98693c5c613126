package org.verbs4j;

// Over 500 lines on purpose: it is ibv_qp_attr whole, with its builder and each field's range check and Javadoc;
// one value type is one file.

import java.util.Objects;

/**
 * QP attributes for {@code ibv_modify_qp} and from {@code ibv_query_qp}, {@code struct ibv_qp_attr}
 * with its mask. Each setter records its {@link QpAttrMask} bit, so {@link QueuePair#modify} sends
 * exactly the attributes that were set. PSNs and QPNs are 24-bit; Q_Keys are 32-bit.
 *
 * <p>The static factories build the attribute sets that the usual transitions require
 * ({@code ibv_modify_qp(3)}, IBA 10.3): RESET to INIT, INIT to RTR, RTR to RTS.
 *
 * @see "ibv_modify_qp(3)"
 * @see "ibv_query_qp(3)"
 */
public final class QpAttributes {
    // Over 600 lines: one value class, struct ibv_qp_attr: a setter, getter and mask bit per field.
    private int mask;
    private QpState qpState = QpState.RESET;
    private QpState curQpState = QpState.RESET;
    private Mtu pathMtu = Mtu.MTU_1024;
    private PathMigState pathMigState = PathMigState.MIGRATED;
    private int qkey;
    private int rqPsn;
    private int sqPsn;
    private int destQpNum;
    private int qpAccessFlags;
    private QpCapabilities cap;
    private AhAttributes ahAttr;
    private AhAttributes altAhAttr;
    private int pkeyIndex;
    private int altPkeyIndex;
    private boolean enSqdAsyncNotify;
    private boolean sqDraining;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private int minRnrTimer;
    private int portNum;
    private int timeout;
    private int retryCnt;
    private int rnrRetry;
    private int altPortNum;
    private int altTimeout;
    private int rateLimit;

    /** Empty attributes: no mask bit set; the setters or the static factories fill them. */
    public QpAttributes() {}

    /**
     * RESET to INIT for RC and UC: {@code STATE|PKEY_INDEX|PORT|ACCESS_FLAGS}.
     *
     * @param portNum the local port, 1-based
     * @param pkeyIndex the P_Key index, usually 0
     * @param accessFlags the remote access the QP allows as a responder ({@link AccessFlags})
     * @return the attributes
     */
    public static QpAttributes toInit(int portNum, int pkeyIndex, int accessFlags) {
        return new QpAttributes().state(QpState.INIT).port(portNum).pkeyIndex(pkeyIndex).accessFlags(accessFlags);
    }

    /**
     * RESET to INIT for UD: {@code STATE|PKEY_INDEX|PORT|QKEY}.
     *
     * @param portNum the local port, 1-based
     * @param pkeyIndex the P_Key index, usually 0
     * @param qkey the Q_Key, 32-bit
     * @return the attributes
     */
    public static QpAttributes toInitUd(int portNum, int pkeyIndex, int qkey) {
        return new QpAttributes().state(QpState.INIT).port(portNum).pkeyIndex(pkeyIndex).qkey(qkey);
    }

    /**
     * INIT to RTR for RC: {@code STATE|AV|PATH_MTU|DEST_QPN|RQ_PSN|MAX_DEST_RD_ATOMIC|MIN_RNR_TIMER}.
     * For UC, leave out the last two with {@link #toRtrUc}.
     *
     * @param av how to reach the remote port
     * @param mtu the path MTU
     * @param destQpNum the remote QP number, 24-bit
     * @param rqPsn the first PSN expected from the remote QP, 24-bit
     * @param maxDestRdAtomic the RDMA READ and atomics accepted at once as a responder
     * @param minRnrTimer the RNR NAK timer code, 0..31
     * @return the attributes
     */
    public static QpAttributes toRtr(AhAttributes av, Mtu mtu, int destQpNum, int rqPsn, int maxDestRdAtomic,
                                     int minRnrTimer) {
        return toRtrUc(av, mtu, destQpNum, rqPsn).maxDestRdAtomic(maxDestRdAtomic).minRnrTimer(minRnrTimer);
    }

    /**
     * INIT to RTR for UC: {@code STATE|AV|PATH_MTU|DEST_QPN|RQ_PSN}.
     *
     * @param av how to reach the remote port
     * @param mtu the path MTU
     * @param destQpNum the remote QP number, 24-bit
     * @param rqPsn the first PSN expected from the remote QP, 24-bit
     * @return the attributes
     */
    public static QpAttributes toRtrUc(AhAttributes av, Mtu mtu, int destQpNum, int rqPsn) {
        return new QpAttributes().state(QpState.RTR).ahAttr(av).pathMtu(mtu).destQpNum(destQpNum).rqPsn(rqPsn);
    }

    /**
     * RTR to RTS for RC: {@code STATE|SQ_PSN|TIMEOUT|RETRY_CNT|RNR_RETRY|MAX_QP_RD_ATOMIC}.
     *
     * @param sqPsn the first PSN this QP sends, 24-bit
     * @param timeout the ACK timeout code, 0..31 (14 is about 67 ms)
     * @param retryCnt the transport retry count, 0..7
     * @param rnrRetry the RNR retry count, 0..7 (7 retries forever)
     * @param maxRdAtomic the RDMA READ and atomics this QP may have outstanding
     * @return the attributes
     */
    public static QpAttributes toRts(int sqPsn, int timeout, int retryCnt, int rnrRetry, int maxRdAtomic) {
        return toRtsUnreliable(sqPsn).timeout(timeout).retryCnt(retryCnt).rnrRetry(rnrRetry).maxRdAtomic(maxRdAtomic);
    }

    /**
     * RTR to RTS for UC and UD: {@code STATE|SQ_PSN}.
     *
     * @param sqPsn the first PSN this QP sends, 24-bit
     * @return the attributes
     */
    public static QpAttributes toRtsUnreliable(int sqPsn) {
        return new QpAttributes().state(QpState.RTS).sqPsn(sqPsn);
    }

    /**
     * Any state to the given one, with nothing else: INIT to RTR on UD, to SQD, to ERR, to RESET.
     *
     * @param state the state to move to
     * @return the attributes
     */
    public static QpAttributes toState(QpState state) {
        return new QpAttributes().state(state);
    }

    /** {@return the {@link QpAttrMask} bits of the attributes set so far} */
    public int mask() {
        return mask;
    }

    /**
     * Whether attributes were set.
     *
     * @param bits {@link QpAttrMask} bits
     * @return whether every one of them is set in {@link #mask()}
     */
    public boolean has(int bits) {
        return (mask & bits) == bits;
    }

    /**
     * Replaces the mask. A provider answering {@code query} uses it to say which attributes it filled.
     *
     * @param mask {@link QpAttrMask} bits
     * @return this
     */
    public QpAttributes mask(int mask) {
        this.mask = mask;
        return this;
    }

    private static int check24(String name, int v) {
        if ((v & ~0xffffff) != 0) {
            throw new IllegalArgumentException(name + " is 24 bits (0..16777215): " + v);
        }
        return v;
    }

    private static int checkRange(String name, int v, int max) {
        if (v < 0 || v > max) {
            throw new IllegalArgumentException(name + " is 0.." + max + ": " + v);
        }
        return v;
    }

    /** {@return the QP state: the one to move to, or the one a query reports} */
    public QpState state() {
        return qpState;
    }

    /**
     * Sets the state to move to ({@code IBV_QP_STATE}).
     *
     * @param s the new state
     * @return this
     * @throws NullPointerException if {@code s} is null
     */
    public QpAttributes state(QpState s) {
        qpState = Objects.requireNonNull(s, "state");
        mask |= QpAttrMask.STATE;
        return this;
    }

    /** {@return the state the caller believes the QP is in ({@code cur_qp_state})} */
    public QpState curState() {
        return curQpState;
    }

    /**
     * Sets the state the caller believes the QP is in ({@code IBV_QP_CUR_STATE}).
     *
     * @param s the current state
     * @return this
     * @throws NullPointerException if {@code s} is null
     */
    public QpAttributes curState(QpState s) {
        curQpState = Objects.requireNonNull(s, "curState");
        mask |= QpAttrMask.CUR_STATE;
        return this;
    }

    /** {@return the path MTU} */
    public Mtu pathMtu() {
        return pathMtu;
    }

    /**
     * Sets the path MTU ({@code IBV_QP_PATH_MTU}).
     *
     * @param mtu at most the port's active MTU
     * @return this
     * @throws NullPointerException if {@code mtu} is null
     */
    public QpAttributes pathMtu(Mtu mtu) {
        pathMtu = Objects.requireNonNull(mtu, "pathMtu");
        mask |= QpAttrMask.PATH_MTU;
        return this;
    }

    /** {@return the path migration state} */
    public PathMigState pathMigState() {
        return pathMigState;
    }

    /**
     * Sets the path migration state ({@code IBV_QP_PATH_MIG_STATE}).
     *
     * @param s the new migration state
     * @return this
     * @throws NullPointerException if {@code s} is null
     */
    public QpAttributes pathMigState(PathMigState s) {
        pathMigState = Objects.requireNonNull(s, "pathMigState");
        mask |= QpAttrMask.PATH_MIG_STATE;
        return this;
    }

    /** {@return the Q_Key, 32-bit (UD)} */
    public int qkey() {
        return qkey;
    }

    /**
     * Sets the Q_Key of a UD QP ({@code IBV_QP_QKEY}).
     *
     * @param qkey any 32-bit value
     * @return this
     */
    public QpAttributes qkey(int qkey) {
        this.qkey = qkey;
        mask |= QpAttrMask.QKEY;
        return this;
    }

    /** {@return the receive PSN, 24-bit} */
    public int rqPsn() {
        return rqPsn;
    }

    /**
     * Sets the receive queue's first PSN ({@code IBV_QP_RQ_PSN}).
     *
     * @param psn 24-bit
     * @return this
     * @throws IllegalArgumentException if {@code psn} does not fit in 24 bits
     */
    public QpAttributes rqPsn(int psn) {
        rqPsn = check24("rqPsn", psn);
        mask |= QpAttrMask.RQ_PSN;
        return this;
    }

    /** {@return the send PSN, 24-bit} */
    public int sqPsn() {
        return sqPsn;
    }

    /**
     * Sets the send queue's first PSN ({@code IBV_QP_SQ_PSN}).
     *
     * @param psn 24-bit
     * @return this
     * @throws IllegalArgumentException if {@code psn} does not fit in 24 bits
     */
    public QpAttributes sqPsn(int psn) {
        sqPsn = check24("sqPsn", psn);
        mask |= QpAttrMask.SQ_PSN;
        return this;
    }

    /** {@return the remote QPN, 24-bit} */
    public int destQpNum() {
        return destQpNum;
    }

    /**
     * Sets the remote QP number ({@code IBV_QP_DEST_QPN}).
     *
     * @param qpn 24-bit
     * @return this
     * @throws IllegalArgumentException if {@code qpn} does not fit in 24 bits
     */
    public QpAttributes destQpNum(int qpn) {
        destQpNum = check24("destQpNum", qpn);
        mask |= QpAttrMask.DEST_QPN;
        return this;
    }

    /** {@return the remote access this QP allows as a responder ({@link AccessFlags})} */
    public int accessFlags() {
        return qpAccessFlags;
    }

    /**
     * Sets the remote access this QP allows as a responder ({@code IBV_QP_ACCESS_FLAGS}).
     *
     * @param flags {@link AccessFlags} bits
     * @return this
     * @throws IllegalArgumentException for bits that are not access flags
     */
    public QpAttributes accessFlags(int flags) {
        if ((flags & ~AccessFlags.ALL) != 0) {
            throw new IllegalArgumentException("unknown access flag bits 0x" + Integer.toHexString(flags & ~AccessFlags.ALL));
        }
        qpAccessFlags = flags;
        mask |= QpAttrMask.ACCESS_FLAGS;
        return this;
    }

    /** {@return the queue sizes, or null when not set} */
    public QpCapabilities cap() {
        return cap;
    }

    /**
     * Sets the queue sizes ({@code IBV_QP_CAP}).
     *
     * @param c the new sizes
     * @return this
     * @throws NullPointerException if {@code c} is null
     */
    public QpAttributes cap(QpCapabilities c) {
        cap = Objects.requireNonNull(c, "cap");
        mask |= QpAttrMask.CAP;
        return this;
    }

    /** {@return the primary path's address vector (connected QPs)} */
    public AhAttributes ahAttr() {
        return ahAttr;
    }

    /**
     * Sets the primary path's address vector ({@code IBV_QP_AV}).
     *
     * @param av how to reach the remote port
     * @return this
     * @throws NullPointerException if {@code av} is null
     */
    public QpAttributes ahAttr(AhAttributes av) {
        ahAttr = Objects.requireNonNull(av, "ahAttr");
        mask |= QpAttrMask.AV;
        return this;
    }

    /** {@return the alternate path's address vector, or null when not set} */
    public AhAttributes altAhAttr() {
        return altAhAttr;
    }

    /**
     * Sets the alternate path ({@code IBV_QP_ALT_PATH}).
     *
     * @param av the alternate path's address vector
     * @param altPkeyIndex its P_Key index, 0..65535
     * @param altPortNum its port, 0..255
     * @param altTimeout its ACK timeout code, 0..31
     * @return this
     * @throws NullPointerException if {@code av} is null
     * @throws IllegalArgumentException for an index, port or timeout out of range
     */
    public QpAttributes altPath(AhAttributes av, int altPkeyIndex, int altPortNum, int altTimeout) {
        this.altAhAttr = Objects.requireNonNull(av, "altAhAttr");
        this.altPkeyIndex = checkRange("altPkeyIndex", altPkeyIndex, 0xffff);
        this.altPortNum = checkRange("altPortNum", altPortNum, 255);
        this.altTimeout = checkRange("altTimeout", altTimeout, 31);
        mask |= QpAttrMask.ALT_PATH;
        return this;
    }

    /** {@return the primary path's P_Key index} */
    public int pkeyIndex() {
        return pkeyIndex;
    }

    /**
     * Sets the primary path's P_Key index ({@code IBV_QP_PKEY_INDEX}).
     *
     * @param index 0..65535
     * @return this
     * @throws IllegalArgumentException outside 0..65535
     */
    public QpAttributes pkeyIndex(int index) {
        pkeyIndex = checkRange("pkeyIndex", index, 0xffff);
        mask |= QpAttrMask.PKEY_INDEX;
        return this;
    }

    /** {@return the alternate path's P_Key index} */
    public int altPkeyIndex() {
        return altPkeyIndex;
    }

    /** {@return whether reaching SQD raises {@link AsyncEventType#SQ_DRAINED}} */
    public boolean enSqdAsyncNotify() {
        return enSqdAsyncNotify;
    }

    /**
     * Sets whether reaching SQD raises an event ({@code IBV_QP_EN_SQD_ASYNC_NOTIFY}).
     *
     * @param on true for {@link AsyncEventType#SQ_DRAINED}
     * @return this
     */
    public QpAttributes enSqdAsyncNotify(boolean on) {
        enSqdAsyncNotify = on;
        mask |= QpAttrMask.EN_SQD_ASYNC_NOTIFY;
        return this;
    }

    /** {@return whether the send queue is draining (query only, SQD)} */
    public boolean sqDraining() {
        return sqDraining;
    }

    /**
     * Sets the draining flag a query reports; it sets no mask bit.
     *
     * @param draining whether the send queue is draining
     * @return this
     */
    public QpAttributes sqDraining(boolean draining) {
        sqDraining = draining;
        return this;
    }

    /** {@return the outstanding RDMA READ and atomics this QP may initiate, 0..255} */
    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    /**
     * Sets the outstanding RDMA READ and atomics this QP may initiate ({@code IBV_QP_MAX_QP_RD_ATOMIC}).
     *
     * @param n 0..255, at most the device's {@code max_qp_init_rd_atom}
     * @return this
     * @throws IllegalArgumentException outside 0..255
     */
    public QpAttributes maxRdAtomic(int n) {
        maxRdAtomic = checkRange("maxRdAtomic", n, 255);
        mask |= QpAttrMask.MAX_QP_RD_ATOMIC;
        return this;
    }

    /** {@return the outstanding RDMA READ and atomics this QP accepts as a responder, 0..255} */
    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    /**
     * Sets the outstanding RDMA READ and atomics this QP accepts ({@code IBV_QP_MAX_DEST_RD_ATOMIC}).
     *
     * @param n 0..255, at most the device's {@code max_qp_rd_atom}
     * @return this
     * @throws IllegalArgumentException outside 0..255
     */
    public QpAttributes maxDestRdAtomic(int n) {
        maxDestRdAtomic = checkRange("maxDestRdAtomic", n, 255);
        mask |= QpAttrMask.MAX_DEST_RD_ATOMIC;
        return this;
    }

    /** {@return the RNR NAK timer code, 0..31 (IBA table 45; 12 is 0.64 ms)} */
    public int minRnrTimer() {
        return minRnrTimer;
    }

    /**
     * Sets the RNR NAK timer code a responder sends ({@code IBV_QP_MIN_RNR_TIMER}).
     *
     * @param code 0..31 (IBA table 45)
     * @return this
     * @throws IllegalArgumentException outside 0..31
     */
    public QpAttributes minRnrTimer(int code) {
        minRnrTimer = checkRange("minRnrTimer", code, 31);
        mask |= QpAttrMask.MIN_RNR_TIMER;
        return this;
    }

    /** {@return the local port, 1-based} */
    public int port() {
        return portNum;
    }

    /**
     * Sets the local port ({@code IBV_QP_PORT}).
     *
     * @param portNum 1..255
     * @return this
     * @throws IllegalArgumentException outside 1..255
     */
    public QpAttributes port(int portNum) {
        if (portNum < 1 || portNum > 255) {
            throw new IllegalArgumentException("port is 1..255 (ports are 1-based): " + portNum);
        }
        this.portNum = portNum;
        mask |= QpAttrMask.PORT;
        return this;
    }

    /** {@return the local ACK timeout code, 0..31: 4.096 µs × 2^timeout, 0 for infinite} */
    public int timeout() {
        return timeout;
    }

    /**
     * Sets the local ACK timeout code ({@code IBV_QP_TIMEOUT}).
     *
     * @param code 0..31: 4.096 us times 2 to its power, 0 for infinite
     * @return this
     * @throws IllegalArgumentException outside 0..31
     */
    public QpAttributes timeout(int code) {
        timeout = checkRange("timeout", code, 31);
        mask |= QpAttrMask.TIMEOUT;
        return this;
    }

    /** {@return the transport retry count, 0..7} */
    public int retryCnt() {
        return retryCnt;
    }

    /**
     * Sets the transport retry count ({@code IBV_QP_RETRY_CNT}).
     *
     * @param n 0..7
     * @return this
     * @throws IllegalArgumentException outside 0..7
     */
    public QpAttributes retryCnt(int n) {
        retryCnt = checkRange("retryCnt", n, 7);
        mask |= QpAttrMask.RETRY_CNT;
        return this;
    }

    /** {@return the RNR retry count, 0..7; 7 means retry forever} */
    public int rnrRetry() {
        return rnrRetry;
    }

    /**
     * Sets the RNR retry count ({@code IBV_QP_RNR_RETRY}).
     *
     * @param n 0..7; 7 retries forever
     * @return this
     * @throws IllegalArgumentException outside 0..7
     */
    public QpAttributes rnrRetry(int n) {
        rnrRetry = checkRange("rnrRetry", n, 7);
        mask |= QpAttrMask.RNR_RETRY;
        return this;
    }

    /** {@return the alternate path's port, 1-based} */
    public int altPort() {
        return altPortNum;
    }

    /** {@return the alternate path's ACK timeout code, 0..31} */
    public int altTimeout() {
        return altTimeout;
    }

    /** {@return the packet-pacing rate limit, kbps (RAW_PACKET)} */
    public int rateLimit() {
        return rateLimit;
    }

    /**
     * Sets the packet-pacing rate limit ({@code IBV_QP_RATE_LIMIT}).
     *
     * @param kbps kilobits per second, 0 for none
     * @return this
     * @throws IllegalArgumentException if {@code kbps} is negative
     */
    public QpAttributes rateLimit(int kbps) {
        if (kbps < 0) {
            throw new IllegalArgumentException("rateLimit cannot be negative: " + kbps);
        }
        rateLimit = kbps;
        mask |= QpAttrMask.RATE_LIMIT;
        return this;
    }

    @Override
    public String toString() {
        return "QpAttributes[mask=" + QpAttrMask.toString(mask) + ", state=" + qpState + ", pathMtu=" + pathMtu
                + ", qkey=0x" + Integer.toHexString(qkey) + ", rqPsn=" + rqPsn + ", sqPsn=" + sqPsn
                + ", destQpNum=0x" + Integer.toHexString(destQpNum) + ", access=" + AccessFlags.toString(qpAccessFlags)
                + ", port=" + portNum + ", pkeyIndex=" + pkeyIndex + ", timeout=" + timeout + ", retryCnt=" + retryCnt
                + ", rnrRetry=" + rnrRetry + ", minRnrTimer=" + minRnrTimer + ", maxRdAtomic=" + maxRdAtomic
                + ", maxDestRdAtomic=" + maxDestRdAtomic + ", cap=" + cap + ", ahAttr=" + ahAttr + "]";
    }
}
