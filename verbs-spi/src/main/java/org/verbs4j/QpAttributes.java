package org.verbs4j;

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

    /** RESET to INIT for RC and UC: {@code STATE|PKEY_INDEX|PORT|ACCESS_FLAGS}. */
    public static QpAttributes toInit(int portNum, int pkeyIndex, int accessFlags) {
        return new QpAttributes().state(QpState.INIT).port(portNum).pkeyIndex(pkeyIndex).accessFlags(accessFlags);
    }

    /** RESET to INIT for UD: {@code STATE|PKEY_INDEX|PORT|QKEY}. */
    public static QpAttributes toInitUd(int portNum, int pkeyIndex, int qkey) {
        return new QpAttributes().state(QpState.INIT).port(portNum).pkeyIndex(pkeyIndex).qkey(qkey);
    }

    /**
     * INIT to RTR for RC: {@code STATE|AV|PATH_MTU|DEST_QPN|RQ_PSN|MAX_DEST_RD_ATOMIC|MIN_RNR_TIMER}.
     * For UC, leave out the last two with {@link #toRtrUc}.
     */
    public static QpAttributes toRtr(AhAttributes av, Mtu mtu, int destQpNum, int rqPsn, int maxDestRdAtomic,
                                     int minRnrTimer) {
        return toRtrUc(av, mtu, destQpNum, rqPsn).maxDestRdAtomic(maxDestRdAtomic).minRnrTimer(minRnrTimer);
    }

    /** INIT to RTR for UC: {@code STATE|AV|PATH_MTU|DEST_QPN|RQ_PSN}. */
    public static QpAttributes toRtrUc(AhAttributes av, Mtu mtu, int destQpNum, int rqPsn) {
        return new QpAttributes().state(QpState.RTR).ahAttr(av).pathMtu(mtu).destQpNum(destQpNum).rqPsn(rqPsn);
    }

    /** RTR to RTS for RC: {@code STATE|SQ_PSN|TIMEOUT|RETRY_CNT|RNR_RETRY|MAX_QP_RD_ATOMIC}. */
    public static QpAttributes toRts(int sqPsn, int timeout, int retryCnt, int rnrRetry, int maxRdAtomic) {
        return toRtsUnreliable(sqPsn).timeout(timeout).retryCnt(retryCnt).rnrRetry(rnrRetry).maxRdAtomic(maxRdAtomic);
    }

    /** RTR to RTS for UC and UD: {@code STATE|SQ_PSN}. */
    public static QpAttributes toRtsUnreliable(int sqPsn) {
        return new QpAttributes().state(QpState.RTS).sqPsn(sqPsn);
    }

    /** Any state to the given one, with nothing else: INIT to RTR on UD, to SQD, to ERR, to RESET. */
    public static QpAttributes toState(QpState state) {
        return new QpAttributes().state(state);
    }

    /** {@return the {@link QpAttrMask} bits of the attributes set so far} */
    public int mask() {
        return mask;
    }

    /** {@return whether every bit of {@code bits} is set in {@link #mask()}} */
    public boolean has(int bits) {
        return (mask & bits) == bits;
    }

    /**
     * Replaces the mask. A provider answering {@code query} uses it to say which attributes it filled.
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

    public QpState state() {
        return qpState;
    }

    public QpAttributes state(QpState s) {
        qpState = Objects.requireNonNull(s, "state");
        mask |= QpAttrMask.STATE;
        return this;
    }

    public QpState curState() {
        return curQpState;
    }

    public QpAttributes curState(QpState s) {
        curQpState = Objects.requireNonNull(s, "curState");
        mask |= QpAttrMask.CUR_STATE;
        return this;
    }

    public Mtu pathMtu() {
        return pathMtu;
    }

    public QpAttributes pathMtu(Mtu mtu) {
        pathMtu = Objects.requireNonNull(mtu, "pathMtu");
        mask |= QpAttrMask.PATH_MTU;
        return this;
    }

    public PathMigState pathMigState() {
        return pathMigState;
    }

    public QpAttributes pathMigState(PathMigState s) {
        pathMigState = Objects.requireNonNull(s, "pathMigState");
        mask |= QpAttrMask.PATH_MIG_STATE;
        return this;
    }

    /** {@return the Q_Key, 32-bit (UD)} */
    public int qkey() {
        return qkey;
    }

    public QpAttributes qkey(int qkey) {
        this.qkey = qkey;
        mask |= QpAttrMask.QKEY;
        return this;
    }

    /** {@return the receive PSN, 24-bit} */
    public int rqPsn() {
        return rqPsn;
    }

    public QpAttributes rqPsn(int psn) {
        rqPsn = check24("rqPsn", psn);
        mask |= QpAttrMask.RQ_PSN;
        return this;
    }

    /** {@return the send PSN, 24-bit} */
    public int sqPsn() {
        return sqPsn;
    }

    public QpAttributes sqPsn(int psn) {
        sqPsn = check24("sqPsn", psn);
        mask |= QpAttrMask.SQ_PSN;
        return this;
    }

    /** {@return the remote QPN, 24-bit} */
    public int destQpNum() {
        return destQpNum;
    }

    public QpAttributes destQpNum(int qpn) {
        destQpNum = check24("destQpNum", qpn);
        mask |= QpAttrMask.DEST_QPN;
        return this;
    }

    /** {@return the remote access this QP allows as a responder ({@link AccessFlags})} */
    public int accessFlags() {
        return qpAccessFlags;
    }

    public QpAttributes accessFlags(int flags) {
        if ((flags & ~AccessFlags.ALL) != 0) {
            throw new IllegalArgumentException("unknown access flag bits 0x" + Integer.toHexString(flags & ~AccessFlags.ALL));
        }
        qpAccessFlags = flags;
        mask |= QpAttrMask.ACCESS_FLAGS;
        return this;
    }

    public QpCapabilities cap() {
        return cap;
    }

    public QpAttributes cap(QpCapabilities c) {
        cap = Objects.requireNonNull(c, "cap");
        mask |= QpAttrMask.CAP;
        return this;
    }

    /** {@return the primary path's address vector (connected QPs)} */
    public AhAttributes ahAttr() {
        return ahAttr;
    }

    public QpAttributes ahAttr(AhAttributes av) {
        ahAttr = Objects.requireNonNull(av, "ahAttr");
        mask |= QpAttrMask.AV;
        return this;
    }

    public AhAttributes altAhAttr() {
        return altAhAttr;
    }

    /** Sets the alternate path: its address vector, P_Key index, port and timeout ({@code ALT_PATH}). */
    public QpAttributes altPath(AhAttributes av, int altPkeyIndex, int altPortNum, int altTimeout) {
        this.altAhAttr = Objects.requireNonNull(av, "altAhAttr");
        this.altPkeyIndex = checkRange("altPkeyIndex", altPkeyIndex, 0xffff);
        this.altPortNum = checkRange("altPortNum", altPortNum, 255);
        this.altTimeout = checkRange("altTimeout", altTimeout, 31);
        mask |= QpAttrMask.ALT_PATH;
        return this;
    }

    public int pkeyIndex() {
        return pkeyIndex;
    }

    public QpAttributes pkeyIndex(int index) {
        pkeyIndex = checkRange("pkeyIndex", index, 0xffff);
        mask |= QpAttrMask.PKEY_INDEX;
        return this;
    }

    public int altPkeyIndex() {
        return altPkeyIndex;
    }

    public boolean enSqdAsyncNotify() {
        return enSqdAsyncNotify;
    }

    public QpAttributes enSqdAsyncNotify(boolean on) {
        enSqdAsyncNotify = on;
        mask |= QpAttrMask.EN_SQD_ASYNC_NOTIFY;
        return this;
    }

    /** {@return whether the send queue is draining (query only, SQD)} */
    public boolean sqDraining() {
        return sqDraining;
    }

    /** Sets the draining flag a query reports; it sets no mask bit. */
    public QpAttributes sqDraining(boolean draining) {
        sqDraining = draining;
        return this;
    }

    /** Outstanding RDMA READ and atomics this QP may initiate. */
    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    public QpAttributes maxRdAtomic(int n) {
        maxRdAtomic = checkRange("maxRdAtomic", n, 255);
        mask |= QpAttrMask.MAX_QP_RD_ATOMIC;
        return this;
    }

    /** Outstanding RDMA READ and atomics this QP accepts as a responder. */
    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    public QpAttributes maxDestRdAtomic(int n) {
        maxDestRdAtomic = checkRange("maxDestRdAtomic", n, 255);
        mask |= QpAttrMask.MAX_DEST_RD_ATOMIC;
        return this;
    }

    /** {@return the RNR NAK timer code, 0..31 (IBA table 45; 12 is 0.64 ms)} */
    public int minRnrTimer() {
        return minRnrTimer;
    }

    public QpAttributes minRnrTimer(int code) {
        minRnrTimer = checkRange("minRnrTimer", code, 31);
        mask |= QpAttrMask.MIN_RNR_TIMER;
        return this;
    }

    /** {@return the local port, 1-based} */
    public int port() {
        return portNum;
    }

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

    public QpAttributes timeout(int code) {
        timeout = checkRange("timeout", code, 31);
        mask |= QpAttrMask.TIMEOUT;
        return this;
    }

    /** Transport retries, 0..7. */
    public int retryCnt() {
        return retryCnt;
    }

    public QpAttributes retryCnt(int n) {
        retryCnt = checkRange("retryCnt", n, 7);
        mask |= QpAttrMask.RETRY_CNT;
        return this;
    }

    /** RNR retries, 0..7; 7 means retry forever. */
    public int rnrRetry() {
        return rnrRetry;
    }

    public QpAttributes rnrRetry(int n) {
        rnrRetry = checkRange("rnrRetry", n, 7);
        mask |= QpAttrMask.RNR_RETRY;
        return this;
    }

    public int altPort() {
        return altPortNum;
    }

    public int altTimeout() {
        return altTimeout;
    }

    /** {@return the packet-pacing rate limit, kbps (RAW_PACKET)} */
    public int rateLimit() {
        return rateLimit;
    }

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
