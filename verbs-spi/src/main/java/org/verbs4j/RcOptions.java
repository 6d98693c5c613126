package org.verbs4j;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The options of {@link RcEndpoint#connect} and {@link RcListener#listen}: queue sizes, the WR opcodes the QP
 * posts through {@link WrSession}s, private data and the timeout. Immutable; each {@code with} method returns a
 * changed copy.
 */
public final class RcOptions {
    private final int maxSendWr;
    private final int maxRecvWr;
    private final int maxSge;
    private final int maxInlineData;
    private final Set<WrOpcode> sendOps;
    private final byte[] privateData;
    private final int timeoutMs;
    private final int backlog;

    private RcOptions(int maxSendWr, int maxRecvWr, int maxSge, int maxInlineData, Set<WrOpcode> sendOps,
                      byte[] privateData, int timeoutMs, int backlog) {
        this.maxSendWr = maxSendWr;
        this.maxRecvWr = maxRecvWr;
        this.maxSge = maxSge;
        this.maxInlineData = maxInlineData;
        this.sendOps = sendOps;
        this.privateData = privateData;
        this.timeoutMs = timeoutMs;
        this.backlog = backlog;
    }

    /**
     * {@return the defaults: 64 send and 64 receive WRs of 1 SGE, no inline data, no WR-session opcodes (only
     * {@code postSend}), no private data, a 5000 ms timeout for each step, a backlog of 16}
     */
    public static RcOptions defaults() {
        return new RcOptions(64, 64, 1, 0, Set.of(), new byte[0], 5000, 16);
    }

    /**
     * With other queue depths.
     *
     * @param sendWr send WRs the QP holds, 1 or more
     * @param recvWr receive WRs the QP holds, 1 or more
     * @return the changed copy
     * @throws IllegalArgumentException if a depth is below 1
     */
    public RcOptions withQueueDepth(int sendWr, int recvWr) {
        if (sendWr < 1 || recvWr < 1) {
            throw new IllegalArgumentException("queue depths are 1 or more, not " + sendWr + " and " + recvWr);
        }
        return new RcOptions(sendWr, recvWr, maxSge, maxInlineData, sendOps, privateData, timeoutMs, backlog);
    }

    /**
     * With another SGE count and inline size.
     *
     * @param sge SGEs per send and receive WR, 1 or more
     * @param inlineBytes inline data per send WR, bytes, 0 or more
     * @return the changed copy
     * @throws IllegalArgumentException if sge is below 1 or inlineBytes negative
     */
    public RcOptions withSge(int sge, int inlineBytes) {
        if (sge < 1 || inlineBytes < 0) {
            throw new IllegalArgumentException("sge is 1 or more and inlineBytes 0 or more, not " + sge + " and "
                    + inlineBytes);
        }
        return new RcOptions(maxSendWr, maxRecvWr, sge, inlineBytes, sendOps, privateData, timeoutMs, backlog);
    }

    /**
     * With the opcodes the QP's {@link WrSession}s post ({@code send_ops_flags}).
     *
     * @param ops the opcodes; none for a QP posted with {@code postSend} only
     * @return the changed copy
     * @throws NullPointerException if an opcode is null
     */
    public RcOptions withSendOps(WrOpcode... ops) {
        Set<WrOpcode> set = EnumSet.noneOf(WrOpcode.class);
        for (WrOpcode op : ops) {
            set.add(Objects.requireNonNull(op, "ops"));
        }
        return new RcOptions(maxSendWr, maxRecvWr, maxSge, maxInlineData, Set.copyOf(set), privateData, timeoutMs,
                backlog);
    }

    /**
     * With private data: sent with the connect (active side) or the accept (passive side).
     *
     * @param data the bytes; copied
     * @return the changed copy
     * @throws NullPointerException if data is null
     */
    public RcOptions withPrivateData(byte[] data) {
        return new RcOptions(maxSendWr, maxRecvWr, maxSge, maxInlineData, sendOps,
                Objects.requireNonNull(data, "data").clone(), timeoutMs, backlog);
    }

    /**
     * With another timeout for each step (address and route resolution, the peer's answer).
     *
     * @param ms milliseconds, 1 or more
     * @return the changed copy
     * @throws IllegalArgumentException if ms is below 1
     */
    public RcOptions withTimeoutMs(int ms) {
        if (ms < 1) {
            throw new IllegalArgumentException("timeoutMs is 1 or more, not " + ms);
        }
        return new RcOptions(maxSendWr, maxRecvWr, maxSge, maxInlineData, sendOps, privateData, ms, backlog);
    }

    /**
     * With another listen backlog.
     *
     * @param n pending connection requests, 0 or more
     * @return the changed copy
     * @throws IllegalArgumentException if n is negative
     */
    public RcOptions withBacklog(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("backlog is 0 or more, not " + n);
        }
        return new RcOptions(maxSendWr, maxRecvWr, maxSge, maxInlineData, sendOps, privateData, timeoutMs, n);
    }

    /** {@return send WRs the QP holds} */
    public int maxSendWr() {
        return maxSendWr;
    }

    /** {@return receive WRs the QP holds} */
    public int maxRecvWr() {
        return maxRecvWr;
    }

    /** {@return SGEs per WR} */
    public int maxSge() {
        return maxSge;
    }

    /** {@return inline data per send WR, bytes} */
    public int maxInlineData() {
        return maxInlineData;
    }

    /** {@return the WR-session opcodes} */
    public Set<WrOpcode> sendOps() {
        return sendOps;
    }

    /** {@return a copy of the private data} */
    public byte[] privateData() {
        return privateData.clone();
    }

    /** {@return the timeout of each step, milliseconds} */
    public int timeoutMs() {
        return timeoutMs;
    }

    /** {@return the listen backlog} */
    public int backlog() {
        return backlog;
    }

    /** {@return the QP attributes these options give, on one CQ for sends and receives} */
    QpInitAttributes qpAttributes(CompletionQueue cq) {
        QpInitAttributes.Builder b = QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(maxSendWr)
                .maxRecvWr(maxRecvWr).maxSendSge(maxSge).maxRecvSge(maxSge).maxInlineData(maxInlineData);
        if (!sendOps.isEmpty()) {
            b.sendOps(sendOps.toArray(WrOpcode[]::new));
        }
        return b.build();
    }
}
