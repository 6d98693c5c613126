package org.verbs4j.spi.support;

import java.lang.foreign.MemorySegment;
import org.verbs4j.AddressHandle;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.WrOpcode;

/**
 * One work request of a WR session, complete and checked, as {@link AbstractWrSession} hands it to the provider's
 * {@link AbstractWrSession#emit emit}: the builder's opcode and arguments, the {@code wr_id} and {@code wr_flags}
 * it took, and what its setters gave. A session at once hands it to {@code emitBuilder}, {@code emitData} and
 * {@code emitAddress} as each call has passed its checks, filled that far. The session reuses one instance, so a
 * provider reads it inside those calls and keeps nothing of it.
 *
 * <p>Which getters mean something depends on the opcode, as in {@code ibv_wr_post(3)}: {@link #rkey()} and
 * {@link #remoteAddr()} for RDMA, atomics and flush; {@link #immData()} for the {@code _imm} builders (host byte
 * order: the provider converts to the wire's big-endian); {@link #invalidateRkey()} for {@code send_inv} and
 * {@code local_inv}; the compare/add and swap operands for atomics; the window and bind info for {@code bind_mw};
 * the UD address on a UD QP; the remote SRQ number on an XRC_SEND QP.
 *
 * @see "ibv_wr_post(3)"
 */
public final class PendingWr {
    /** No DATA setter was called (the opcode takes none, or FLUSH went without one). */
    public static final int DATA_NONE = 0;
    /** {@code setSge}: one SGE, in slot 0 of the SGE arrays. */
    public static final int DATA_SGE = 1;
    /** {@code setSgeList}: {@link #sgeCount()} SGEs. */
    public static final int DATA_SGE_LIST = 2;
    /** {@code setInlineData} or {@code setInlineDataList}: {@link #inlineLength()} bytes in {@link #inlineData()}. */
    public static final int DATA_INLINE = 3;

    WrOpcode opcode;
    long wrId;
    int wrFlags;
    int rkey;
    long remoteAddr;
    int immData;
    int invalidateRkey;
    long compareAdd;
    long swap;
    MemoryWindow mw;
    int bindRkey;
    MwBindInfo bindInfo;
    long flushLength;
    int flushType;
    int flushLevel;
    int tsoHeaderLength;
    int mss;
    AddressHandle ah;
    int remoteQpn;
    int remoteQkey;
    int remoteSrqn;
    int dataKind;
    int sgeCount;
    final int[] sgeLkey;
    final long[] sgeAddr;
    final int[] sgeLength;
    final MemorySegment inline;
    int inlineLength;
    MemorySegment tsoHeader;

    PendingWr(int maxSge, MemorySegment inline) {
        this.sgeLkey = new int[maxSge];
        this.sgeAddr = new long[maxSge];
        this.sgeLength = new int[maxSge];
        this.inline = inline;
    }

    /**
     * Starts the next WR. Only what every WR reads is reset; the opcode-specific fields are written by the builder
     * or setter that gives them meaning (a UD WR always has its address, a bind its window).
     */
    void reset(WrOpcode op, long id, int flags) {
        opcode = op;
        wrId = id;
        wrFlags = flags;
        dataKind = DATA_NONE;
    }

    /** Drops the references of the last batch, so closed objects can be collected. */
    void clear() {
        opcode = null;
        mw = null;
        bindInfo = null;
        ah = null;
    }

    /** {@return the builder's opcode} */
    public WrOpcode opcode() {
        return opcode;
    }

    /** {@return the {@code wr_id} the builder took} */
    public long wrId() {
        return wrId;
    }

    /**
     * {@return the {@code wr_flags} the builder took} These are {@link org.verbs4j.SendFlags}, with {@code INLINE} added when the
     * data is inline: some providers (librxe of rdma-core 44) mark a WQE inline only by that flag.
     */
    public int wrFlags() {
        return wrFlags;
    }

    /** {@return the remote key of an RDMA, atomic or flush WR (32 bits)} */
    public int rkey() {
        return rkey;
    }

    /** {@return the remote virtual address of an RDMA, atomic or flush WR} */
    public long remoteAddr() {
        return remoteAddr;
    }

    /** {@return the immediate data of {@code send_imm} and {@code rdma_write_imm}, in host byte order} */
    public int immData() {
        return immData;
    }

    /** {@return the rkey that {@code send_inv} or {@code local_inv} invalidates} */
    public int invalidateRkey() {
        return invalidateRkey;
    }

    /** {@return the compare operand of {@code atomic_cmp_swp}, or the addend of {@code atomic_fetch_add}} */
    public long compareAdd() {
        return compareAdd;
    }

    /** {@return the swap operand of {@code atomic_cmp_swp}, or the value of {@code atomic_write}} */
    public long swap() {
        return swap;
    }

    /** {@return the type 2 window of {@code bind_mw}: open, of this provider and context (checked)} */
    public MemoryWindow mw() {
        return mw;
    }

    /** {@return the rkey {@code bind_mw} gives the window} */
    public int bindRkey() {
        return bindRkey;
    }

    /** {@return the bind info of {@code bind_mw}; its region is open and of this provider and context (checked)} */
    public MwBindInfo bindInfo() {
        return bindInfo;
    }

    /** {@return the length of a flush, in bytes} */
    public long flushLength() {
        return flushLength;
    }

    /** {@return the flush type ({@link org.verbs4j.Flush} TYPE_ bits)} */
    public int flushType() {
        return flushType;
    }

    /** {@return the flush level ({@link org.verbs4j.Flush} LEVEL_ value)} */
    public int flushLevel() {
        return flushLevel;
    }

    /** {@return A copy of the {@code send_tso} header, made at the builder; read {@link #tsoHeaderLength()} bytes} */
    public MemorySegment tsoHeader() {
        return tsoHeader;
    }

    /** {@return the length of the TSO header, in bytes} */
    public int tsoHeaderLength() {
        return tsoHeaderLength;
    }

    /** {@return the maximum segment size of {@code send_tso}, in bytes (0 to 65535)} */
    public int mss() {
        return mss;
    }

    /** {@return the address handle of a UD WR: open, of this provider and context (checked); null on other QP types} */
    public AddressHandle ah() {
        return ah;
    }

    /** {@return the destination QPN of a UD WR (24 bits)} */
    public int remoteQpn() {
        return remoteQpn;
    }

    /** {@return the Q_Key of a UD WR (32 bits)} */
    public int remoteQkey() {
        return remoteQkey;
    }

    /** {@return the remote SRQ number of an XRC_SEND WR} */
    public int remoteSrqn() {
        return remoteSrqn;
    }

    /** {@return which DATA setter was called: {@link #DATA_NONE}, {@link #DATA_SGE}, {@link #DATA_SGE_LIST}, {@link #DATA_INLINE}} */
    public int dataKind() {
        return dataKind;
    }

    /** {@return the number of SGEs: 1 for {@code setSge}, at most the QP's {@code max_send_sge} for a list} */
    public int sgeCount() {
        return sgeCount;
    }

    /**
     * {@return the lkey of SGE {@code i}, {@code 0 <= i < sgeCount()}}
     * @param i the index, {@code 0 <= i < sgeCount()}
     */
    public int sgeLkey(int i) {
        return sgeLkey[i];
    }

    /**
     * {@return the local address of SGE {@code i}}
     * @param i the index, {@code 0 <= i < sgeCount()}
     */
    public long sgeAddr(int i) {
        return sgeAddr[i];
    }

    /**
     * {@return the length of SGE {@code i}, in bytes (unsigned 32 bits)}
     * @param i the index, {@code 0 <= i < sgeCount()}
     */
    public int sgeLength(int i) {
        return sgeLength[i];
    }

    /** {@return the sum of the SGE lengths, or the inline length, in bytes} */
    public long dataLength() {
        if (dataKind == DATA_INLINE) {
            return inlineLength;
        }
        long n = 0;
        for (int i = 0; i < sgeCount; i++) {
            n += Integer.toUnsignedLong(sgeLength[i]);
        }
        return n;
    }

    /**
     * {@return native scratch memory holding a copy of the inline data} The copy is made at the setter (so the caller may reuse its
     * buffers at once, as the man page allows); a list is concatenated. Read {@link #inlineLength()} bytes.
     */
    public MemorySegment inlineData() {
        return inline;
    }

    /** {@return the number of inline bytes, at most the QP's {@code max_inline_data}} */
    public int inlineLength() {
        return inlineLength;
    }
}
