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

    public SendWr() {}

    /** Resets every field to its initial value (SEND, no SGEs, no flags). */
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

    public SendWr wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** {@return the gather list; only the first {@link #numSge()} entries count} */
    public Sge[] sgList() {
        return sgList;
    }

    public int numSge() {
        return numSge;
    }

    /** Uses all of {@code sges} as the gather list (the array is kept, not copied). */
    public SendWr sgList(Sge... sges) {
        return sgList(sges, sges.length);
    }

    /** Uses the first {@code count} entries of {@code sges} (the array is kept, not copied). */
    public SendWr sgList(Sge[] sges, int count) {
        Objects.requireNonNull(sges, "sgList");
        if (count < 0 || count > sges.length) {
            throw new IllegalArgumentException("numSge " + count + " is outside the " + sges.length + "-entry list");
        }
        this.sgList = sges;
        this.numSge = count;
        return this;
    }

    public WrOpcode opcode() {
        return opcode;
    }

    public SendWr opcode(WrOpcode opcode) {
        this.opcode = Objects.requireNonNull(opcode, "opcode");
        return this;
    }

    /** {@link SendFlags} bits. */
    public int sendFlags() {
        return sendFlags;
    }

    public SendWr sendFlags(int flags) {
        this.sendFlags = flags;
        return this;
    }

    /** Immediate data, 32 bits in host order; the provider sends it in network order. */
    public int immData() {
        return immData;
    }

    public SendWr immData(int imm) {
        this.immData = imm;
        return this;
    }

    /** {@return the rkey to invalidate (SEND_WITH_INV at the responder, LOCAL_INV locally)} */
    public int invalidateRkey() {
        return invalidateRkey;
    }

    public SendWr invalidateRkey(int rkey) {
        this.invalidateRkey = rkey;
        return this;
    }

    /** Sets {@code wr.rdma}: the remote buffer of an RDMA READ or WRITE. */
    public SendWr rdma(long remoteAddr, int rkey) {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        return this;
    }

    /**
     * Sets {@code wr.atomic}: the remote 8-byte operand, the compare (CMP_AND_SWP) or add (FETCH_AND_ADD)
     * value, and the swap value.
     */
    public SendWr atomic(long remoteAddr, long compareAdd, long swap, int rkey) {
        this.remoteAddr = remoteAddr;
        this.compareAdd = compareAdd;
        this.swap = swap;
        this.rkey = rkey;
        return this;
    }

    public long remoteAddr() {
        return remoteAddr;
    }

    public int rkey() {
        return rkey;
    }

    public long compareAdd() {
        return compareAdd;
    }

    public long swap() {
        return swap;
    }

    /** Sets {@code wr.ud}: the destination of a UD message. */
    public SendWr ud(AddressHandle ah, int remoteQpn, int remoteQkey) {
        this.ah = ah;
        this.remoteQpn = remoteQpn;
        this.remoteQkey = remoteQkey;
        return this;
    }

    public AddressHandle ah() {
        return ah;
    }

    public int remoteQpn() {
        return remoteQpn;
    }

    public int remoteQkey() {
        return remoteQkey;
    }

    /** {@return the remote SRQ number ({@code qp_type.xrc.remote_srqn}, XRC_SEND)} */
    public int remoteSrqn() {
        return remoteSrqn;
    }

    public SendWr remoteSrqn(int srqn) {
        this.remoteSrqn = srqn;
        return this;
    }

    /** Sets {@code bind_mw}: the type 2 window, its new rkey and what it binds. */
    public SendWr bindMw(MemoryWindow mw, int rkey, MwBindInfo bindInfo) {
        this.bindMw = mw;
        this.bindRkey = rkey;
        this.bindInfo = bindInfo;
        return this;
    }

    public MemoryWindow bindMwWindow() {
        return bindMw;
    }

    public int bindMwRkey() {
        return bindRkey;
    }

    public MwBindInfo bindMwInfo() {
        return bindInfo;
    }

    /** Sets {@code tso}: the header prefixed to each segment ({@code hdr_sz} is its size) and the MSS, bytes. */
    public SendWr tso(MemorySegment hdr, int mss) {
        this.tsoHdr = hdr;
        this.mss = mss;
        return this;
    }

    public MemorySegment tsoHdr() {
        return tsoHdr;
    }

    public int mss() {
        return mss;
    }

    @Override
    public String toString() {
        return "SendWr[wrId=" + wrId + ", opcode=" + opcode + ", flags=" + SendFlags.toString(sendFlags) + ", numSge="
                + numSge + "]";
    }
}
