package org.verbs4j.provider.emulated.engine;

import java.lang.foreign.MemorySegment;

/**
 * One preallocated send-queue slot: a WR as the engine executes it. Posting fills the fields in place,
 * so the data path allocates nothing. Fields an opcode does not use keep stale values and are ignored.
 */
public final class SendWqe {
    // IBV_WR_* values.
    public static final int OP_RDMA_WRITE = 0;
    public static final int OP_RDMA_WRITE_WITH_IMM = 1;
    public static final int OP_SEND = 2;
    public static final int OP_SEND_WITH_IMM = 3;
    public static final int OP_RDMA_READ = 4;
    public static final int OP_CMP_SWP = 5;
    public static final int OP_FETCH_ADD = 6;
    public static final int OP_LOCAL_INV = 7;
    public static final int OP_BIND_MW = 8;
    public static final int OP_SEND_WITH_INV = 9;
    public static final int OP_FLUSH = 14;
    public static final int OP_ATOMIC_WRITE = 15;

    public long wrId;
    /** The {@code IBV_WR_*} value. */
    public int opcode;
    /** {@code SendFlags} bits. */
    public int flags;
    /** Whether a successful completion is reported (SIGNALED, or the QP signals all). */
    public boolean signaled;
    public int immData;
    public int invalidateRkey;
    public int rkey;
    public long remoteAddr;
    public long compareAdd;
    public long swap;
    /** Gather list. */
    public int numSge;
    public final long[] sgeAddr;
    public final int[] sgeLength;
    public final int[] sgeLkey;
    /** Resolved at execution: the registered segment and offset of each SGE. */
    public final MemorySegment[] sgeSegment;
    public final long[] sgeOffset;
    /** Whether the data is in {@link #inline} rather than the gather list. */
    public boolean isInline;
    /** This slot's inline buffer (capacity max_inline_data); {@link #inlineLength} bytes are used. */
    public final MemorySegment inline;
    public int inlineLength;
    /** The message length, bytes. */
    public long length;
    /** UD destination. */
    public Object ah;
    public int remoteQpn;
    public int remoteQkey;
    /** XRC_SEND: the number of the SRQ the message is for, the XRCETH's XRCSRQ. */
    public int remoteSrqn;
    /** Memory window bind: the window, its new rkey, and the bind. */
    public Object mw;
    public int bindRkey;
    public Object bindMr;
    public long bindAddr;
    public long bindLength;
    public int bindAccess;
    /** FLUSH type and level. */
    public int flushType;
    public int flushLevel;
    /** Resolved by the responder from the rkey: the segment and offset of the remote address. */
    public MemorySegment remoteSegment;
    public long remoteOffset;
    /** How many RNR NAKs this WQE has met. */
    public int rnrCount;

    public SendWqe(int maxSge, MemorySegment inline) {
        int n = Math.max(1, maxSge);
        sgeAddr = new long[n];
        sgeLength = new int[n];
        sgeLkey = new int[n];
        sgeSegment = new MemorySegment[n];
        sgeOffset = new long[n];
        this.inline = inline;
    }

    /** Clears what a new WR must not inherit. */
    public void reset(long wrId, int opcode, int flags, boolean signaled) {
        this.wrId = wrId;
        this.opcode = opcode;
        this.flags = flags;
        this.signaled = signaled;
        numSge = 0;
        isInline = false;
        inlineLength = 0;
        length = 0;
        ah = null;
        mw = null;
        bindMr = null;
        remoteSegment = null;
        rnrCount = 0;
    }
}
