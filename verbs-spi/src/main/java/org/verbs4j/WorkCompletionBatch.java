package org.verbs4j;

/**
 * A reusable array of work completions that {@link CompletionQueue#poll} fills without allocating:
 * the {@code struct ibv_wc wc[num_entries]} of {@code ibv_poll_cq}.
 *
 * <p>Read entries {@code 0 .. size()-1} through the indexed accessors; they hold until the next poll
 * into this batch. A batch is not thread-safe: use one per polling thread.
 *
 * @see "ibv_poll_cq(3)"
 */
public final class WorkCompletionBatch {
    private final long[] wrId;
    private final int[] status;
    private final int[] opcode;
    private final int[] vendorErr;
    private final int[] byteLen;
    private final int[] immData;
    private final int[] qpNum;
    private final int[] srcQp;
    private final int[] wcFlags;
    private final int[] pkeyIndex;
    private final int[] slid;
    private final int[] sl;
    private final int[] dlidPathBits;
    private final long[] completionTs;
    private final long[] completionWallclockNs;
    private int size;

    /**
     * A batch of up to {@code capacity} completions.
     *
     * @param capacity the most completions one poll returns into it ({@code num_entries})
     * @throws IllegalArgumentException if capacity is not 1..65536
     */
    public WorkCompletionBatch(int capacity) {
        if (capacity < 1 || capacity > 65536) {
            throw new IllegalArgumentException("a batch holds 1..65536 completions, not " + capacity);
        }
        wrId = new long[capacity];
        status = new int[capacity];
        opcode = new int[capacity];
        vendorErr = new int[capacity];
        byteLen = new int[capacity];
        immData = new int[capacity];
        qpNum = new int[capacity];
        srcQp = new int[capacity];
        wcFlags = new int[capacity];
        pkeyIndex = new int[capacity];
        slid = new int[capacity];
        sl = new int[capacity];
        dlidPathBits = new int[capacity];
        completionTs = new long[capacity];
        completionWallclockNs = new long[capacity];
    }

    /** {@return the most completions one poll can return into this batch} */
    public int capacity() {
        return wrId.length;
    }

    /** {@return the completions the last poll returned} */
    public int size() {
        return size;
    }

    private int check(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("completion " + i + " of " + size);
        }
        return i;
    }

    /**
     * Completion {@code i}'s work request ID.
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return the ID of the work request it completes ({@code wr_id})
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     */
    public long wrId(int i) {
        return wrId[check(i)];
    }

    /**
     * Completion {@code i}'s status.
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return the status; the fields below are valid only on success
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     */
    public WcStatus status(int i) {
        return WcStatus.of(status[check(i)]);
    }

    /**
     * Completion {@code i}'s operation.
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return the operation ({@code opcode}); defined only on success
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     * @see "ibv_poll_cq(3) ibv_wc_read_opcode"
     */
    public WcOpcode opcode(int i) {
        return WcOpcode.of(opcode[check(i)]);
    }

    /**
     * Completion {@code i}'s vendor error.
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return the vendor's error code, meaningful only on failure
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     * @see "ibv_poll_cq(3) ibv_wc_read_vendor_err"
     */
    public int vendorErr(int i) {
        return vendorErr[check(i)];
    }

    /**
     * Completion {@code i}'s length.
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return the bytes transferred ({@code byte_len}): received, read, or 8 for atomics
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     * @see "ibv_poll_cq(3) ibv_wc_read_byte_len"
     */
    public int byteLen(int i) {
        return byteLen[check(i)];
    }

    /**
     * Completion {@code i}'s immediate data or invalidated rkey.
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return the immediate data in host order, or the invalidated rkey; see {@link #wcFlags(int)}
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     * @see "ibv_poll_cq(3) ibv_wc_read_imm_data ibv_wc_read_invalidated_rkey"
     */
    public int immData(int i) {
        return immData[check(i)];
    }

    /**
     * Completion {@code i}'s local QP.
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return the number of the local QP the WR was posted to
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     * @see "ibv_poll_cq(3) ibv_wc_read_qp_num"
     */
    public int qpNum(int i) {
        return qpNum[check(i)];
    }

    /**
     * Completion {@code i}'s source QP (UD).
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return the remote QP number of a UD receive
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     * @see "ibv_poll_cq(3) ibv_wc_read_src_qp"
     */
    public int srcQp(int i) {
        return srcQp[check(i)];
    }

    /**
     * Completion {@code i}'s flags.
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return its {@link WcFlags} bits
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     * @see "ibv_poll_cq(3) ibv_wc_read_wc_flags"
     */
    public int wcFlags(int i) {
        return wcFlags[check(i)];
    }

    /**
     * Completion {@code i}'s P_Key index.
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return the P_Key index of a GSI QP's receive
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     */
    public int pkeyIndex(int i) {
        return pkeyIndex[check(i)];
    }

    /**
     * Completion {@code i}'s source LID (UD).
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return the source LID of a UD receive
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     * @see "ibv_poll_cq(3) ibv_wc_read_slid"
     */
    public int slid(int i) {
        return slid[check(i)];
    }

    /**
     * Completion {@code i}'s service level (UD).
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return the service level of a UD receive
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     * @see "ibv_poll_cq(3) ibv_wc_read_sl"
     */
    public int sl(int i) {
        return sl[check(i)];
    }

    /**
     * Completion {@code i}'s DLID path bits (UD).
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return the destination LID path bits of a UD receive
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     * @see "ibv_poll_cq(3) ibv_wc_read_dlid_path_bits"
     */
    public int dlidPathBits(int i) {
        return dlidPathBits[check(i)];
    }

    /**
     * Completion {@code i}'s timestamp: the device's raw clock when it wrote the completion, in ticks of
     * {@link DeviceAttributesEx#hcaCoreClock()} kHz, of which the bits of
     * {@link DeviceAttributesEx#completionTimestampMask()} count. Comparable with {@link Context#queryRawClock()}.
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return the timestamp; 0 unless the CQ was created {@link CqInitAttributes#WITH_COMPLETION_TIMESTAMP}, and 0
     *     for a failed completion, whose only defined fields are wr_id, status, qp_num and vendor_err
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     * @see "ibv_create_cq_ex(3) ibv_wc_read_completion_ts"
     */
    public long completionTimestamp(int i) {
        return completionTs[check(i)];
    }

    /**
     * Completion {@code i}'s timestamp as wall-clock time.
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return nanoseconds since the epoch (1970-01-01T00:00Z) when the device wrote the completion; 0 unless the
     *     CQ was created {@link CqInitAttributes#WITH_COMPLETION_TIMESTAMP_WALLCLOCK}, and 0 for a failed completion
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     * @see "ibv_create_cq_ex(3) ibv_wc_read_completion_wallclock_ns"
     */
    public long completionWallclockNs(int i) {
        return completionWallclockNs[check(i)];
    }

    /**
     * Completion {@code i} as a value (allocates).
     *
     * @param i the completion's index, 0 to {@link #size()} - 1
     * @return a new value holding every field
     * @throws IndexOutOfBoundsException if {@code i} is negative or not below {@link #size()}
     */
    public WorkCompletion get(int i) {
        check(i);
        return new WorkCompletion(wrId[i], WcStatus.of(status[i]), WcOpcode.of(opcode[i]), vendorErr[i], byteLen[i],
                immData[i], qpNum[i], srcQp[i], wcFlags[i], pkeyIndex[i], slid[i], sl[i], dlidPathBits[i],
                completionTs[i], completionWallclockNs[i]);
    }

    // ---- provider side ----

    /**
     * Provider side: empties the batch before a poll fills it. Applications do not call this.
     */
    public void clear() {
        size = 0;
    }

    /**
     * Provider side: appends one completion with {@code ibv_wc}'s raw values. Applications do not
     * call this.
     *
     * @param wrId {@code wr_id}
     * @param status {@code status}, an {@code IBV_WC_*} status value
     * @param opcode {@code opcode}, an {@code IBV_WC_*} opcode value
     * @param vendorErr {@code vendor_err}
     * @param byteLen {@code byte_len}
     * @param immData {@code imm_data} in host order, or {@code invalidated_rkey}
     * @param qpNum {@code qp_num}
     * @param srcQp {@code src_qp}
     * @param wcFlags {@code wc_flags}
     * @param pkeyIndex {@code pkey_index}
     * @param slid {@code slid}
     * @param sl {@code sl}
     * @param dlidPathBits {@code dlid_path_bits}
     * @return false, adding nothing, when the batch is full
     */
    public boolean add(long wrId, int status, int opcode, int vendorErr, int byteLen, int immData, int qpNum,
                       int srcQp, int wcFlags, int pkeyIndex, int slid, int sl, int dlidPathBits) {
        int i = size;
        if (i == this.wrId.length) {
            return false;
        }
        this.wrId[i] = wrId;
        this.status[i] = status;
        this.opcode[i] = opcode;
        this.vendorErr[i] = vendorErr;
        this.byteLen[i] = byteLen;
        this.immData[i] = immData;
        this.qpNum[i] = qpNum;
        this.srcQp[i] = srcQp;
        this.wcFlags[i] = wcFlags;
        this.pkeyIndex[i] = pkeyIndex;
        this.slid[i] = slid;
        this.sl[i] = sl;
        this.dlidPathBits[i] = dlidPathBits;
        this.completionTs[i] = 0;
        this.completionWallclockNs[i] = 0;
        size = i + 1;
        return true;
    }

    /**
     * Provider side: gives the completion {@link #add} appended last its timestamps. Applications do not call
     * this.
     *
     * @param completionTs the device's raw clock when it wrote the completion, 0 for none
     * @param completionWallclockNs that time as nanoseconds since the epoch, 0 for none
     * @throws IllegalStateException if the batch is empty
     */
    public void stamp(long completionTs, long completionWallclockNs) {
        if (size == 0) {
            throw new IllegalStateException("no completion to stamp");
        }
        this.completionTs[size - 1] = completionTs;
        this.completionWallclockNs[size - 1] = completionWallclockNs;
    }
}
