package org.verbs4j;

/**
 * What {@link Context#createCq(CqInitAttributes)} creates, {@code struct ibv_cq_init_attr_ex}: the entries, the
 * completion channel and vector, and the fields its completions carry ({@code wc_flags}).
 *
 * <p>Every CQ of this API carries the standard fields ({@link #STANDARD_FLAGS}: byte_len, imm_data, qp_num,
 * src_qp, slid, sl, dlid_path_bits) whatever {@code wcFlags} says; the flags that matter are the ones beyond them,
 * {@link #WITH_COMPLETION_TIMESTAMP} and {@link #WITH_COMPLETION_TIMESTAMP_WALLCLOCK}, which a device offers only
 * where {@link DeviceAttributesEx#completionTimestampMask()} is not 0.
 *
 * @param cqe the entries asked for, at least 1 (the device may round up)
 * @param channel the completion channel of the same context for its events, or null
 * @param compVector the completion vector, 0 up to the context's number of vectors
 * @param wcFlags {@code IBV_WC_EX_WITH_*} bits: the standard ones, {@link #WITH_COMPLETION_TIMESTAMP} and
 *     {@link #WITH_COMPLETION_TIMESTAMP_WALLCLOCK}
 * @see "ibv_create_cq_ex(3)"
 */
public record CqInitAttributes(int cqe, CompletionChannel channel, int compVector, long wcFlags) {
    /** {@code IBV_WC_STANDARD_FLAGS}: byte_len, imm_data, qp_num, src_qp, slid, sl and dlid_path_bits (0x7f). */
    public static final long STANDARD_FLAGS = 0x7f;
    /**
     * {@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP}: each completion carries the device's raw clock when it was
     * written, {@link WorkCompletionBatch#completionTimestamp}.
     */
    public static final long WITH_COMPLETION_TIMESTAMP = 1 << 7;
    /**
     * {@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK}: each completion carries that time as wall-clock
     * nanoseconds, {@link WorkCompletionBatch#completionWallclockNs}.
     */
    public static final long WITH_COMPLETION_TIMESTAMP_WALLCLOCK = 1 << 11;
    /** The {@code wc_flags} this API reads. */
    public static final long SUPPORTED_FLAGS = STANDARD_FLAGS | WITH_COMPLETION_TIMESTAMP
            | WITH_COMPLETION_TIMESTAMP_WALLCLOCK;

    /**
     * Checks the flags; the entries, channel and vector are the device's to check when the CQ is created.
     *
     * @throws IllegalArgumentException if {@code wcFlags} has a bit beyond {@link #SUPPORTED_FLAGS}: CVLAN, flow
     *     tag and tag-matching fields have no reader here, and higher bits no meaning
     */
    public CqInitAttributes {
        if ((wcFlags & ~SUPPORTED_FLAGS) != 0) {
            throw new IllegalArgumentException("wc_flags 0x" + Long.toHexString(wcFlags & ~SUPPORTED_FLAGS)
                    + " not supported: a CQ carries the standard fields (0x7f), COMPLETION_TIMESTAMP (0x80) and"
                    + " COMPLETION_TIMESTAMP_WALLCLOCK (0x800)");
        }
    }

    /**
     * A CQ of {@code cqe} entries, without a channel, on vector 0, whose completions carry these fields.
     *
     * @param cqe the entries asked for, at least 1
     * @param wcFlags {@code IBV_WC_EX_WITH_*} bits
     * @return the attributes
     * @throws IllegalArgumentException if {@code wcFlags} has a bit beyond {@link #SUPPORTED_FLAGS}
     */
    public static CqInitAttributes of(int cqe, long wcFlags) {
        return new CqInitAttributes(cqe, null, 0, wcFlags);
    }

    /** {@return whether the completions carry a timestamp of either kind} */
    public boolean timestamps() {
        return (wcFlags & (WITH_COMPLETION_TIMESTAMP | WITH_COMPLETION_TIMESTAMP_WALLCLOCK)) != 0;
    }
}
