package org.verbs4j;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What a QP is created with, {@code struct ibv_qp_init_attr_ex}.
 *
 * @param type transport service type
 * @param sendCq the CQ for send completions; null only on an XRC_RECV QP, which has no CQ
 * @param recvCq the CQ for receive completions; null only on an XRC_RECV QP
 * @param srq the shared receive queue, or null
 * @param cap work queue sizes
 * @param sqSigAll whether every send WR generates a completion, {@link SendFlags#SIGNALED} or not
 * @param sendOps the opcodes that will be posted through {@link WrSession} ({@code send_ops_flags}); empty
 *     for a QP posted to only with {@code postSend}. Creation fails with {@code EOPNOTSUPP} or
 *     {@code EINVAL} when the device cannot do all of them on this QP type.
 * @param threadDomain a thread domain, or null; with one, the QP's send queue is confined to one thread and takes
 *     no lock ({@link QueuePair}: threads)
 * @param maxTsoHeader the largest TSO header, bytes (UD and RAW_PACKET with TSO only)
 * @see "ibv_create_qp_ex(3)"
 * @see "ibv_wr_post(3)"
 */
public record QpInitAttributes(
        QpType type,
        CompletionQueue sendCq,
        CompletionQueue recvCq,
        SharedReceiveQueue srq,
        QpCapabilities cap,
        boolean sqSigAll,
        Set<WrOpcode> sendOps,
        ThreadDomain threadDomain,
        int maxTsoHeader) {

    /**
     * Checks the attributes and copies {@code sendOps}.
     *
     * @throws NullPointerException if {@code type} or {@code cap} is null, or a CQ is null on a type other than
     *     XRC_RECV
     * @throws IllegalArgumentException if {@code maxTsoHeader} is outside 0..65535
     */
    public QpInitAttributes {
        Objects.requireNonNull(type, "type");
        if (type != QpType.XRC_RECV) {
            Objects.requireNonNull(sendCq, "sendCq");
            Objects.requireNonNull(recvCq, "recvCq");
        }
        Objects.requireNonNull(cap, "cap");
        Objects.requireNonNull(sendOps, "sendOps");
        for (WrOpcode op : sendOps) {
            Objects.requireNonNull(op, "sendOps element");
        }
        sendOps = sendOps.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(sendOps));
        if (maxTsoHeader < 0 || maxTsoHeader > 0xffff) {
            throw new IllegalArgumentException("maxTsoHeader is 0..65535 bytes: " + maxTsoHeader);
        }
    }

    /**
     * {@return a builder for a QP of this type, with a 64-entry send and receive queue, 1 SGE each and no inline data}
     *
     * @param type the QP's transport
     */
    public static Builder builder(QpType type) {
        return new Builder(type);
    }

    /** Builds {@link QpInitAttributes}. */
    public static final class Builder {
        private final QpType type;
        private CompletionQueue sendCq;
        private CompletionQueue recvCq;
        private SharedReceiveQueue srq;
        private int maxSendWr = 64;
        private int maxRecvWr = 64;
        private int maxSendSge = 1;
        private int maxRecvSge = 1;
        private int maxInlineData;
        private boolean sqSigAll;
        private final Set<WrOpcode> sendOps = EnumSet.noneOf(WrOpcode.class);
        private ThreadDomain threadDomain;
        private int maxTsoHeader;

        private Builder(QpType type) {
            this.type = Objects.requireNonNull(type, "type");
        }

        /**
         * Uses one CQ for both send and receive completions.
         *
         * @param cq the CQ
         * @return this builder
         */
        public Builder cq(CompletionQueue cq) {
            this.sendCq = cq;
            this.recvCq = cq;
            return this;
        }

        /**
         * Sets the CQ of send completions ({@code send_cq}).
         *
         * @param cq the CQ
         * @return this builder
         */
        public Builder sendCq(CompletionQueue cq) {
            this.sendCq = cq;
            return this;
        }

        /**
         * Sets the CQ of receive completions ({@code recv_cq}).
         *
         * @param cq the CQ
         * @return this builder
         */
        public Builder recvCq(CompletionQueue cq) {
            this.recvCq = cq;
            return this;
        }

        /**
         * Sets the shared receive queue the QP receives from, instead of its own.
         *
         * @param srq the SRQ, or null for none
         * @return this builder
         */
        public Builder srq(SharedReceiveQueue srq) {
            this.srq = srq;
            return this;
        }

        /**
         * Sets the send queue's size ({@code cap.max_send_wr}).
         *
         * @param n outstanding send WRs
         * @return this builder
         */
        public Builder maxSendWr(int n) {
            this.maxSendWr = n;
            return this;
        }

        /**
         * Sets the receive queue's size ({@code cap.max_recv_wr}).
         *
         * @param n outstanding receive WRs
         * @return this builder
         */
        public Builder maxRecvWr(int n) {
            this.maxRecvWr = n;
            return this;
        }

        /**
         * Sets the SGEs per send WR ({@code cap.max_send_sge}).
         *
         * @param n SGEs
         * @return this builder
         */
        public Builder maxSendSge(int n) {
            this.maxSendSge = n;
            return this;
        }

        /**
         * Sets the SGEs per receive WR ({@code cap.max_recv_sge}).
         *
         * @param n SGEs
         * @return this builder
         */
        public Builder maxRecvSge(int n) {
            this.maxRecvSge = n;
            return this;
        }

        /**
         * Sets the inline data needed per WR ({@code cap.max_inline_data}).
         *
         * @param bytes bytes; the device may grant more
         * @return this builder
         */
        public Builder maxInlineData(int bytes) {
            this.maxInlineData = bytes;
            return this;
        }

        /**
         * Sets whether every send WR generates a completion ({@code sq_sig_all}).
         *
         * @param all true to signal every WR
         * @return this builder
         */
        public Builder sqSigAll(boolean all) {
            this.sqSigAll = all;
            return this;
        }

        /**
         * Adds opcodes to {@code send_ops_flags}: the WR-session builders the QP will use.
         *
         * @param ops the opcodes
         * @return this builder
         * @throws NullPointerException if an opcode is null
         */
        public Builder sendOps(WrOpcode... ops) {
            Objects.requireNonNull(ops, "sendOps");
            for (WrOpcode op : ops) {
                sendOps.add(Objects.requireNonNull(op, "sendOps element"));
            }
            return this;
        }

        /**
         * Adds opcodes to {@code send_ops_flags}: the WR-session builders the QP will use.
         *
         * @param ops the opcodes
         * @return this builder
         */
        public Builder sendOps(Set<WrOpcode> ops) {
            Objects.requireNonNull(ops, "sendOps");
            for (WrOpcode op : ops) {
                sendOps.add(Objects.requireNonNull(op, "sendOps element"));
            }
            return this;
        }

        /**
         * Sets the thread domain the QP belongs to: the QP's send queue is then confined to one thread, which
         * takes no lock ({@link QueuePair}: threads).
         *
         * @param td the thread domain, or null for none
         * @return this builder
         */
        public Builder threadDomain(ThreadDomain td) {
            this.threadDomain = td;
            return this;
        }

        /**
         * Sets the largest TSO header ({@code max_tso_header}).
         *
         * @param bytes 0..65535 bytes
         * @return this builder
         */
        public Builder maxTsoHeader(int bytes) {
            this.maxTsoHeader = bytes;
            return this;
        }

        /**
         * The attributes.
         *
         * @return the attributes, ready for {@link ProtectionDomain#createQp}
         * @throws NullPointerException if no CQ was given
         * @throws IllegalArgumentException if a size is negative
         */
        public QpInitAttributes build() {
            return new QpInitAttributes(type, sendCq, recvCq, srq,
                    new QpCapabilities(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData),
                    sqSigAll, sendOps, threadDomain, maxTsoHeader);
        }
    }
}
