package org.verbs4j.provider.jnr;

import java.lang.foreign.MemorySegment;
import java.util.List;
import org.verbs4j.Errno;
import org.verbs4j.MwBindInfo;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_mw_bind_info;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_sge;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_send_wr;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.spi.support.RegionTable;
import org.verbs4j.provider.nativecommon.internal.NativeMemoryRegion;
import org.verbs4j.provider.nativecommon.internal.NativeMemoryWindow;
import org.verbs4j.provider.nativecommon.internal.NativeAddressHandle;

/**
 * A reused native {@code ibv_send_wr} array and its SGE pool. It grows to the largest post seen and is then
 * reused, so steady-state posts allocate nothing. Not thread-safe: its QP posts under a lock.
 */
final class SendWrArray {
    private final ContextResources resources;
    private final JnrContext context;
    private final boolean ud;
    private final NativeSlots wrs;
    private final NativeSlots sges;
    /** {@code struct ibv_send_wr *bad_wr}. */
    final long badWr;

    SendWrArray(JnrContext context, QpType type) {
        this.context = context;
        this.ud = type == QpType.UD;
        this.resources = context.resources;
        this.badWr = resources.allocate(8);
        this.wrs = new NativeSlots(resources, ibv_send_wr.SIZEOF);
        this.sges = new NativeSlots(resources, ibv_sge.SIZEOF);
    }

    /** The errno and reason of the WR {@link #prepare} refused. */
    int refusalErrno;
    String refusalDetail;

    /**
     * Checks and writes a list in one pass. Every WR is checked in Java terms first (null, closed or foreign
     * objects throw, and then nothing is posted); the WRs before the first one the verbs refuse are written to
     * the native array, linked, ready for {@code post_send}. With {@code canSend} false none is written. The
     * verbs rules of {@code ibv_post_send(3)} are checked here because not every provider library checks them:
     * an opcode outside the QP type's column of the seed table, unknown flags, IP_CSUM without the device
     * capability, more SGEs or inline bytes than the QP was granted, a UD WR without an address handle, inline
     * data outside the PD's live regions.
     *
     * @return the index of the first WR the verbs refuse ({@link #refusalErrno}, {@link #refusalDetail}), or
     *         {@code n}
     */
    int prepare(List<SendWr> list, int n, boolean canSend, QpType type, QpCapabilities cap, boolean ipCsum,
                RegionTable regions) {
        wrs.ensure(n);
        sges.ensure(n * Math.max(1, cap.maxSendSge()));
        int firstBad = canSend ? n : 0;
        int sgeAt = 0;
        binds = false;
        for (int i = 0; i < n; i++) {
            SendWr wr = java.util.Objects.requireNonNull(list.get(i), "wrs element");
            Arguments.sges(wr.sgList(), wr.numSge(), "sgList");
            check(wr, i);
            if (i < firstBad) {
                String why = invalid(wr, type, cap, ipCsum);
                if (why == null) {
                    // librxe copies inline data with memcpy inside ibv_post_send: never from a bad address.
                    why = Arguments.inlineData(wr, regions);
                }
                if (why != null) {
                    refusalErrno = wr.opcode() == WrOpcode.FLUSH ? Errno.EOPNOTSUPP : Errno.EINVAL;
                    refusalDetail = why;
                    firstBad = i;
                } else {
                    put(i, wr, sgeAt, i == n - 1);
                    sgeAt += wr.numSge();
                    binds |= wr.opcode() == WrOpcode.BIND_MW;
                }
            }
        }
        if (firstBad > 0 && firstBad < n) {
            NativeMemory.putAddress(wrs.address() + ibv_send_wr.SIZEOF * (firstBad - 1) + ibv_send_wr.next$off, 0);
        }
        return firstBad;
    }

    /** Whether the WRs {@link #prepare} wrote hold a BIND_MW. */
    boolean binds;

    /** {@return the address of the first WR {@link #prepare} wrote} */
    long address() {
        return wrs.address();
    }

    private static String invalid(SendWr wr, QpType type, QpCapabilities cap, boolean ipCsum) {
        WrOpcode op = wr.opcode();
        if (op == WrOpcode.FLUSH) {
            return "FLUSH needs rdma-core 45 or later";
        }
        if (!op.isValidFor(type)) {
            return op + " is not valid on " + type + " QPs (ibv_post_send(3) table)";
        }
        int flags = wr.sendFlags();
        if ((flags & ~SendFlags.ALL) != 0) {
            return "unknown send flags " + SendFlags.toString(flags & ~SendFlags.ALL);
        }
        if ((flags & SendFlags.IP_CSUM) != 0 && !ipCsum) {
            return "IP_CSUM without the device's checksum offload capability";
        }
        if (wr.numSge() > cap.maxSendSge()) {
            return wr.numSge() + " SGEs, but the QP was granted max_send_sge " + cap.maxSendSge();
        }
        if ((flags & SendFlags.INLINE) != 0) {
            long bytes = 0;
            for (int k = 0; k < wr.numSge(); k++) {
                bytes += Integer.toUnsignedLong(wr.sgList()[k].length());
            }
            if (bytes > cap.maxInlineData()) {
                return bytes + " inline bytes, but the QP was granted max_inline_data " + cap.maxInlineData();
            }
        }
        if (op == WrOpcode.BIND_MW && !((NativeMemoryWindow) wr.bindMwWindow()).keepsIndex(wr.bindMwRkey())) {
            return "a type 2 bind may change only the low 8 bits (the key) of the window's rkey";
        }
        if (type == QpType.UD && wr.ah() == null) {
            return "a UD WR needs an address handle (wr.ud)";
        }
        return null;
    }

    private void check(SendWr wr, int i) {
        if (wr.ah() != null) {
            if (!(wr.ah() instanceof NativeAddressHandle ah) || ah.nativeContext() != context) {
                throw new IllegalArgumentException("WR #" + i + ": the address handle belongs to another context");
            }
            ah.checkOpen();
        }
        if (wr.opcode() == WrOpcode.BIND_MW) {
            if (!(wr.bindMwWindow() instanceof NativeMemoryWindow mw) || mw.nativeContext() != context) {
                throw new IllegalArgumentException("WR #" + i + ": BIND_MW needs a memory window of this context");
            }
            mw.checkOpen();
            MwBindInfo info = wr.bindMwInfo();
            if (info == null || !(info.mr() instanceof NativeMemoryRegion mr) || mr.nativeContext() != context) {
                throw new IllegalArgumentException("WR #" + i + ": BIND_MW needs bind info with a region of this context");
            }
            mr.checkOpen();
        }
        if (wr.opcode() == WrOpcode.TSO && wr.tsoHdr() != null && !wr.tsoHdr().isNative()) {
            throw new IllegalArgumentException("WR #" + i + ": the TSO header must be native memory");
        }
        if (wr.opcode() == WrOpcode.TSO && wr.tsoHdr() != null && !wr.tsoHdr().scope().isAlive()) {
            throw new IllegalStateException("WR #" + i + ": the TSO header's arena is closed");
        }
    }

    /** {@return the index of the WR {@code post_send} refused, read from {@code bad_wr}} */
    int badIndex() {
        long bad = NativeMemory.getAddress(badWr);
        return bad == 0 ? 0 : (int) ((bad - wrs.address()) / ibv_send_wr.SIZEOF);
    }

    private void put(int i, SendWr wr, int sgeAt, boolean last) {
        long w = wrs.address() + ibv_send_wr.SIZEOF * i;
        long s = sges.address() + ibv_sge.SIZEOF * sgeAt;
        NativeMemory.putLong(w + ibv_send_wr.wr_id$off, wr.wrId());
        NativeMemory.putAddress(w + ibv_send_wr.next$off, last ? 0 : w + ibv_send_wr.SIZEOF);
        NativeMemory.putAddress(w + ibv_send_wr.sg_list$off, wr.numSge() == 0 ? 0 : s);
        NativeMemory.putInt(w + ibv_send_wr.num_sge$off, wr.numSge());
        NativeMemory.putInt(w + ibv_send_wr.opcode$off, wr.opcode().value());
        NativeMemory.putInt(w + ibv_send_wr.send_flags$off, wr.sendFlags());
        Sge[] sg = wr.sgList();
        for (int k = 0; k < wr.numSge(); k++) {
            RecvWrArray.putSge(s + ibv_sge.SIZEOF * k, sg[k]);
        }
        switch (wr.opcode()) {
            case SEND_WITH_IMM -> NativeMemory.putInt(w + ibv_send_wr.imm_data$off, Integer.reverseBytes(wr.immData()));
            case RDMA_WRITE_WITH_IMM -> {
                NativeMemory.putInt(w + ibv_send_wr.imm_data$off, Integer.reverseBytes(wr.immData()));
                rdma(w, wr);
            }
            case SEND_WITH_INV, LOCAL_INV -> NativeMemory.putInt(w + ibv_send_wr.invalidate_rkey$off, wr.invalidateRkey());
            case RDMA_WRITE, RDMA_READ -> rdma(w, wr);
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> {
                NativeMemory.putLong(w + ibv_send_wr.wr$atomic$remote_addr$off, wr.remoteAddr());
                NativeMemory.putLong(w + ibv_send_wr.wr$atomic$compare_add$off, wr.compareAdd());
                NativeMemory.putLong(w + ibv_send_wr.wr$atomic$swap$off, wr.swap());
                NativeMemory.putInt(w + ibv_send_wr.wr$atomic$rkey$off, wr.rkey());
            }
            case BIND_MW -> {
                MwBindInfo info = wr.bindMwInfo();
                NativeMemory.putAddress(w + ibv_send_wr.bind_mw$mw$off, ((NativeMemoryWindow) wr.bindMwWindow()).handle());
                NativeMemory.putInt(w + ibv_send_wr.bind_mw$rkey$off, wr.bindMwRkey());
                putBindInfo(w + ibv_send_wr.bind_mw$bind_info$off, info);
            }
            case TSO -> {
                // The slot is reused without clearing: a WR without a header must not see the last one's.
                MemorySegment hdr = wr.tsoHdr();
                NativeMemory.putAddress(w + ibv_send_wr.tso$hdr$off, hdr == null ? 0 : hdr.address());
                NativeMemory.putShort(w + ibv_send_wr.tso$hdr_sz$off, hdr == null ? 0 : (int) hdr.byteSize());
                NativeMemory.putShort(w + ibv_send_wr.tso$mss$off, wr.mss());
            }
            default -> {
            }
        }
        if (ud && wr.ah() != null) {
            NativeMemory.putAddress(w + ibv_send_wr.wr$ud$ah$off, ((NativeAddressHandle) wr.ah()).handle());
            NativeMemory.putInt(w + ibv_send_wr.wr$ud$remote_qpn$off, wr.remoteQpn());
            NativeMemory.putInt(w + ibv_send_wr.wr$ud$remote_qkey$off, wr.remoteQkey());
        }
        if (wr.remoteSrqn() != 0) {
            NativeMemory.putInt(w + ibv_send_wr.qp_type$xrc$remote_srqn$off, wr.remoteSrqn());
        }
    }

    private static void rdma(long w, SendWr wr) {
        NativeMemory.putLong(w + ibv_send_wr.wr$rdma$remote_addr$off, wr.remoteAddr());
        NativeMemory.putInt(w + ibv_send_wr.wr$rdma$rkey$off, wr.rkey());
    }

    void free() {
        wrs.free();
        sges.free();
        resources.free(badWr);
    }

    /** Writes a {@code struct ibv_mw_bind_info} at {@code at}. */
    static void putBindInfo(long at, MwBindInfo info) {
        NativeMemory.putAddress(at + ibv_mw_bind_info.mr$off, ((NativeMemoryRegion) info.mr()).handle());
        NativeMemory.putLong(at + ibv_mw_bind_info.addr$off, info.addr());
        NativeMemory.putLong(at + ibv_mw_bind_info.length$off, info.length());
        NativeMemory.putInt(at + ibv_mw_bind_info.mw_access_flags$off, info.mwAccessFlags());
    }
}
