package org.verbs4j;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A send work request, {@code struct ibv_send_wr}, with every field of seed {@code ibv_post_send(3)}.
 * Mutable and reusable: build a list once, change the fields that vary, and post it again without
 * allocating. Fields the opcode does not use are ignored, as the C unions are.
 *
 * <table>
 * <caption>Fields by opcode</caption>
 * <tr><th>opcode</th><th>fields</th></tr>
 * <tr><td>SEND</td><td>sgList</td></tr>
 * <tr><td>SEND_WITH_IMM</td><td>sgList, immData</td></tr>
 * <tr><td>SEND_WITH_INV</td><td>sgList, invalidateRkey</td></tr>
 * <tr><td>RDMA_WRITE, RDMA_READ</td><td>sgList, rdma(remoteAddr, rkey)</td></tr>
 * <tr><td>RDMA_WRITE_WITH_IMM</td><td>sgList, rdma(remoteAddr, rkey), immData</td></tr>
 * <tr><td>ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD</td><td>one 8-byte SGE, atomic(remoteAddr, compareAdd, swap, rkey)</td></tr>
 * <tr><td>LOCAL_INV</td><td>invalidateRkey</td></tr>
 * <tr><td>BIND_MW</td><td>bindMw(mw, rkey, bindInfo)</td></tr>
 * <tr><td>TSO</td><td>sgList, tso(hdr, mss)</td></tr>
 * </table>
 * On UD QPs every WR also needs {@link #ud}; on XRC_SEND QPs, {@link #remoteSrqn}.
 *
 * @see "ibv_post_send(3)"
 */
public final class SendWr {
    private static final Sge[] NONE = new Sge[0];

    private long wrId;
    private Sge[] sgList = NONE;
    private int numSge;
    private WrOpcode opcode = WrOpcode.SEND;
    private int sendFlags;
    private int immData;
    private int invalidateRkey;
    private long remoteAddr;
    private int rkey;
    private long compareAdd;
    private long swap;
    private AddressHandle ah;
    private int remoteQpn;
    private int remoteQkey;
    private int remoteSrqn;
    private MemoryWindow bindMw;
    private int bindRkey;
    private MwBindInfo bindInfo;
    private MemorySegment tsoHdr;
    private int mss;

    /** A SEND with no SGEs, no flags and work request ID 0. */
    public SendWr() {}

    /**
     * Resets every field to its initial value (SEND, no SGEs, no flags).
     *
     * @return this
     */
    public SendWr clear() {
        wrId = 0;
        sgList = NONE;
        numSge = 0;
        opcode = WrOpcode.SEND;
        sendFlags = 0;
        immData = 0;
        invalidateRkey = 0;
        remoteAddr = 0;
        rkey = 0;
        compareAdd = 0;
        swap = 0;
        ah = null;
        remoteQpn = 0;
        remoteQkey = 0;
        remoteSrqn = 0;
        bindMw = null;
        bindRkey = 0;
        bindInfo = null;
        tsoHdr = null;
        mss = 0;
        return this;
    }

    /** {@return the 64-bit ID returned in the completion} */
    public long wrId() {
        return wrId;
    }

    /**
     * Sets the ID returned in the completion.
     *
     * @param wrId any 64-bit value
     * @return this
     */
    public SendWr wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** {@return the gather list; only the first {@link #numSge()} entries count} */
    public Sge[] sgList() {
        return sgList;
    }

    /** {@return how many entries of {@link #sgList()} are the gather list ({@code num_sge})} */
    public int numSge() {
        return numSge;
    }

    /**
     * Uses all of {@code sges} as the gather list (the array is kept, not copied).
     *
     * @param sges the gather list
     * @return this
     * @throws NullPointerException if {@code sges} is null
     */
    public SendWr sgList(Sge... sges) {
        return sgList(sges, sges.length);
    }

    /**
     * Uses the first {@code count} entries of {@code sges} (the array is kept, not copied).
     *
     * @param sges the array holding the gather list
     * @param count how many of its entries are the gather list ({@code num_sge})
     * @return this
     * @throws NullPointerException if {@code sges} is null
     * @throws IllegalArgumentException if {@code count} is negative or more than the array's length
     */
    public SendWr sgList(Sge[] sges, int count) {
        Objects.requireNonNull(sges, "sgList");
        if (count < 0 || count > sges.length) {
            throw new IllegalArgumentException("numSge " + count + " is outside the " + sges.length + "-entry list");
        }
        for (int i = 0; i < count; i++) {
            if (sges[i] == null) {
                throw new NullPointerException("sgList[" + i + "] is null");
            }
        }
        this.sgList = sges;
        this.numSge = count;
        return this;
    }

    /** {@return the operation} */
    public WrOpcode opcode() {
        return opcode;
    }

    /**
     * Sets the operation.
     *
     * @param opcode the operation; see the class table for the fields it uses
     * @return this
     * @throws NullPointerException if {@code opcode} is null
     */
    public SendWr opcode(WrOpcode opcode) {
        this.opcode = Objects.requireNonNull(opcode, "opcode");
        return this;
    }

    /** {@return the {@link SendFlags} bits} */
    public int sendFlags() {
        return sendFlags;
    }

    /**
     * Sets the send flags.
     *
     * @param flags {@link SendFlags} bits; the provider checks them when posting
     * @return this
     */
    public SendWr sendFlags(int flags) {
        this.sendFlags = flags;
        return this;
    }

    /** {@return the immediate data, 32 bits in host order; the provider sends it in network order} */
    public int immData() {
        return immData;
    }

    /**
     * Sets the immediate data of SEND_WITH_IMM and RDMA_WRITE_WITH_IMM.
     *
     * @param imm 32 bits in host order
     * @return this
     */
    public SendWr immData(int imm) {
        this.immData = imm;
        return this;
    }

    /** {@return the rkey to invalidate (SEND_WITH_INV at the responder, LOCAL_INV locally)} */
    public int invalidateRkey() {
        return invalidateRkey;
    }

    /**
     * Sets the rkey to invalidate (SEND_WITH_INV, LOCAL_INV).
     *
     * @param rkey the rkey
     * @return this
     */
    public SendWr invalidateRkey(int rkey) {
        this.invalidateRkey = rkey;
        return this;
    }

    /**
     * Sets {@code wr.rdma}: the remote buffer of an RDMA READ or WRITE.
     *
     * @param remoteAddr the remote buffer's address
     * @param rkey the remote region's or window's rkey
     * @return this
     */
    public SendWr rdma(long remoteAddr, int rkey) {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        return this;
    }

    /**
     * Sets {@code wr.atomic}: the remote 8-byte operand, the compare (CMP_AND_SWP) or add (FETCH_AND_ADD)
     * value, and the swap value.
     *
     * @param remoteAddr the remote operand's address, 8-byte aligned
     * @param compareAdd the value compared with (CMP_AND_SWP) or added to (FETCH_AND_ADD) the operand
     * @param swap the value swapped in when the compare matches (CMP_AND_SWP)
     * @param rkey the remote region's or window's rkey
     * @return this
     */
    public SendWr atomic(long remoteAddr, long compareAdd, long swap, int rkey) {
        this.remoteAddr = remoteAddr;
        this.compareAdd = compareAdd;
        this.swap = swap;
        this.rkey = rkey;
        return this;
    }

    /** {@return the remote address of an RDMA or atomic operation} */
    public long remoteAddr() {
        return remoteAddr;
    }

    /** {@return the remote key of an RDMA or atomic operation} */
    public int rkey() {
        return rkey;
    }

    /** {@return the compare (CMP_AND_SWP) or add (FETCH_AND_ADD) value} */
    public long compareAdd() {
        return compareAdd;
    }

    /** {@return the swap value (CMP_AND_SWP)} */
    public long swap() {
        return swap;
    }

    /**
     * Sets {@code wr.ud}: the destination of a UD message.
     *
     * @param ah the address handle of the remote port
     * @param remoteQpn the remote QP number, 24-bit; postSend refuses a UD WR whose QPN is 2^24 or more, or
     *     negative, with {@code EINVAL} (a QPN is the 24-bit DestQP of the BTH, IBA 9.2)
     * @param remoteQkey the remote QP's Q_Key
     * @return this
     */
    public SendWr ud(AddressHandle ah, int remoteQpn, int remoteQkey) {
        this.ah = ah;
        this.remoteQpn = remoteQpn;
        this.remoteQkey = remoteQkey;
        return this;
    }

    /** {@return the UD destination's address handle, or null} */
    public AddressHandle ah() {
        return ah;
    }

    /** {@return the UD destination's QP number} */
    public int remoteQpn() {
        return remoteQpn;
    }

    /** {@return the UD destination's Q_Key} */
    public int remoteQkey() {
        return remoteQkey;
    }

    /** {@return the remote SRQ number ({@code qp_type.xrc.remote_srqn}, XRC_SEND)} */
    public int remoteSrqn() {
        return remoteSrqn;
    }

    /**
     * Sets the remote SRQ number of an XRC_SEND QP.
     *
     * @param srqn the SRQ number, 24-bit
     * @return this
     */
    public SendWr remoteSrqn(int srqn) {
        this.remoteSrqn = srqn;
        return this;
    }

    /**
     * Sets {@code bind_mw}: the type 2 window, its new rkey and what it binds.
     *
     * @param mw the type 2 memory window
     * @param rkey the window's new rkey
     * @param bindInfo the region, range and access it binds
     * @return this
     */
    public SendWr bindMw(MemoryWindow mw, int rkey, MwBindInfo bindInfo) {
        this.bindMw = mw;
        this.bindRkey = rkey;
        this.bindInfo = bindInfo;
        return this;
    }

    /** {@return the window a BIND_MW binds, or null} */
    public MemoryWindow bindMwWindow() {
        return bindMw;
    }

    /** {@return the new rkey a BIND_MW gives the window} */
    public int bindMwRkey() {
        return bindRkey;
    }

    /** {@return what a BIND_MW binds, or null} */
    public MwBindInfo bindMwInfo() {
        return bindInfo;
    }

    /**
     * Sets {@code tso}: the header prefixed to each segment and the maximum segment size.
     *
     * @param hdr the header; its size is {@code hdr_sz}
     * @param mss the maximum segment size, bytes
     * @return this
     */
    public SendWr tso(MemorySegment hdr, int mss) {
        this.tsoHdr = hdr;
        this.mss = mss;
        return this;
    }

    /** {@return the TSO header, or null} */
    public MemorySegment tsoHdr() {
        return tsoHdr;
    }

    /** {@return the TSO maximum segment size, bytes} */
    public int mss() {
        return mss;
    }

    @Override
    public String toString() {
        return "SendWr[wrId=" + wrId + ", opcode=" + opcode + ", flags=" + SendFlags.toString(sendFlags) + ", numSge="
                + numSge + "]";
    }
}
