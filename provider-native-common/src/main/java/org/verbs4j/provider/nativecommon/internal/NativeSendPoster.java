package org.verbs4j.provider.nativecommon.internal;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.verbs4j.DeviceAttributesEx;
import org.verbs4j.Errno;
import org.verbs4j.MwBindInfo;
import org.verbs4j.PostSendException;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_mw_bind_info;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_sge;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_send_wr;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.spi.support.RegionTable;

/**
 * Posts send WRs ({@code ops.post_send}) from a native {@code ibv_send_wr} array and SGE array allocated once
 * per QP, up to 256 WRs. Each slot's {@code next} and {@code sg_list} are written at creation; a post of n WRs
 * ends the list at slot n - 1 for its call and links it again after. A WR is written at precomputed offsets,
 * only the fields its opcode reads, by {@link #write}, kept small enough to inline into the posting loop (RDMA
 * WRITE, RDMA READ and SEND on RC and UC); other opcodes and QP types are written by {@link #writeOther}.
 *
 * <p>The rules of {@code ibv_post_send(3)}: the call stops at the first WR that fails, reports its index, and
 * the WRs before it stay posted. The rules not every provider library checks are checked here, as that WR's
 * failure ({@code EINVAL}): an opcode outside the QP type's column of the seed table, unknown flags, IP_CSUM
 * without the device capability, more SGEs or inline bytes than the QP was granted, inline data outside the
 * PD's live regions (librxe copies it with memcpy), a closed or foreign address handle, window or region, a
 * type 2 bind that changes more than the key. A null WR or SGE entry throws before anything of the call is
 * posted. Not thread-safe: the QP posts under its send lock.
 *
 * <p>A {@link NativePreparedSends} posts with the same rules: it writes each changed slot with
 * {@link #write(long, long, SendWr)} and posts with {@link #call}.
 */
final class NativeSendPoster {
    private static final long WR_SIZE = ibv_send_wr.SIZEOF;
    private static final long SGE_SIZE = ibv_sge.SIZEOF;

    private final IbverbsBinding binding;
    private final NativeContextSupport context;
    private final RegionTable regions;
    private final long fn;
    /** Whether {@code post_send} is a critical downcall ({@link CriticalDataPath}). */
    private final boolean critical;
    private final QpType type;
    /** RC or UC: the {@code wr} union holds the RDMA fields, and there is no UD address or XRC SRQ number. */
    private final boolean connected;
    private final int capacity;
    private final int sgePerWr;
    private final int maxInlineData;
    private final long sgeStride;
    private final int sendFlagsAllowed;
    private final boolean flush;
    private final long wrs;
    private final long sges;
    private final long badWr;
    /**
     * The address handles, windows and regions the WRs being written name, and the regions their inline data
     * is copied from, held ({@code enterCall}) from their check until the library has read them in
     * {@code post_send}, so that a close on another thread waits for the call; released after every post.
     * Grown (rarely: inline WRs with many SGEs) when full.
     */
    private AbstractVerbsObject[] held;
    private int heldCount;

    /**
     * Allocates and links the array.
     *
     * @param context the QP's context
     * @param scratch the QP's scratch memory
     * @param regions the PD's live regions, for inline data
     * @param type the QP's type
     * @param cap the sizes the QP was granted
     */
    NativeSendPoster(NativeContextSupport context, NativeScratch scratch, RegionTable regions, QpType type,
                     QpCapabilities cap) {
        this.binding = context.binding();
        this.context = context;
        this.regions = regions;
        this.fn = context.contextOp(ContextStructs.ibv_context.ops$post_send$off);
        this.critical = context.criticalDataPath();
        this.type = type;
        this.connected = type == QpType.RC || type == QpType.UC;
        this.capacity = Math.max(1, Math.min(256, cap.maxSendWr()));
        this.sgePerWr = Math.max(1, cap.maxSendSge());
        this.maxInlineData = cap.maxInlineData();
        this.sgeStride = SGE_SIZE * sgePerWr;
        this.sendFlagsAllowed = context.ipCsum() ? SendFlags.ALL : SendFlags.ALL & ~SendFlags.IP_CSUM;
        // The kernel driver executes IBV_WR_FLUSH when it says so; a library that does not know the opcode
        // refuses the WR itself. No rdma-core version is asked.
        this.flush = (context.deviceCapFlagsEx() & DeviceAttributesEx.DEVICE_FLUSH) != 0;
        this.wrs = scratch.allocate(WR_SIZE * capacity);
        this.sges = scratch.allocate(sgeStride * capacity);
        this.badWr = scratch.allocate(8);
        this.held = new AbstractVerbsObject[2 * capacity];
        for (int i = 0; i < capacity; i++) {
            long at = wrs + i * WR_SIZE;
            binding.putLong(at + ibv_send_wr.next$off, i + 1 < capacity ? at + WR_SIZE : 0L);
            binding.putLong(at + ibv_send_wr.sg_list$off, sges + i * sgeStride);
        }
    }

    /**
     * Posts one WR.
     *
     * @param qp the {@code struct ibv_qp *}, live
     * @param ready whether the QP's state takes sends
     * @param wr the WR, not null
     * @throws PostSendException if the WR is refused here or by the library
     */
    void post(long qp, boolean ready, SendWr wr) {
        try {
            int err = ready ? write(0, wr) : Errno.EINVAL;
            if (err != 0) {
                throw new PostSendException(err, 0, reason(qp, ready, err, wr));
            }
            call(wrs, capacity, qp, 0, 1);
        } finally {
            releaseHolds();
        }
        if (wr.opcode() == WrOpcode.BIND_MW) {
            recordBind(wr);
        }
    }

    /**
     * Posts a list, in chunks of the array's size.
     *
     * @param qp the {@code struct ibv_qp *}, live
     * @param ready whether the QP's state takes sends, read once per post
     * @param list the WRs, none null
     * @throws PostSendException at the first WR refused here or by the library, with its index in the list
     */
    void post(long qp, boolean ready, List<SendWr> list) {
        int size = list.size();
        for (int base = 0; base < size; base += capacity) {
            int n = Math.min(capacity, size - base);
            int limit = n;
            int err = 0;
            boolean binds = false;
            PostSendException refused = null;
            try {
                for (int i = 0; i < n; i++) {
                    SendWr wr = list.get(base + i);
                    err = ready ? write(i, wr) : Errno.EINVAL;
                    if (err != 0) {
                        limit = i;
                        break;
                    }
                    binds |= wr.opcode() == WrOpcode.BIND_MW;
                }
                if (limit > 0) {
                    try {
                        call(wrs, capacity, qp, base, limit);
                    } catch (PostSendException e) {
                        refused = e;
                    }
                }
            } finally {
                releaseHolds();
            }
            // After the holds end: recording a bind takes the window's monitor, which a close of the window holds
            // while it waits for the calls that hold the window.
            if (binds) {
                recordBinds(list, base, refused != null ? refused.badWrIndex() - base : limit);
            }
            if (refused != null) {
                throw refused;
            }
            if (err != 0) {
                throw new PostSendException(err, base + limit, reason(qp, ready, err, list.get(base + limit)));
            }
        }
    }

    /** Holds an object a WR names until {@link #releaseHolds()}; false if it is closed or closing. */
    private boolean hold(AbstractVerbsObject o) {
        if (!o.enterCall()) {
            return false;
        }
        record(o);
        return true;
    }

    private void record(AbstractVerbsObject o) {
        if (heldCount == held.length) {
            held = Arrays.copyOf(held, 2 * held.length);
        }
        held[heldCount++] = o;
    }

    /**
     * The inline rules of an INLINE WR, holding the region of each SGE until the library has copied it
     * (librxe copies inline data with memcpy in {@code post_send}): false when the WR carries more bytes than
     * the QP was granted or an SGE lies outside the PD's open regions.
     */
    private boolean holdInline(SendWr wr) {
        Sge[] sges = wr.sgList();
        int num = wr.numSge();
        long bytes = 0;
        for (int k = 0; k < num; k++) {
            bytes += Integer.toUnsignedLong(sges[k].length());
        }
        if (bytes > maxInlineData) {
            return false;
        }
        for (int k = 0; k < num; k++) {
            long len = Integer.toUnsignedLong(sges[k].length());
            if (len > 0) {
                AbstractVerbsObject region = regions.hold(sges[k].addr(), len);
                if (region == null) {
                    return false;
                }
                record(region);
            }
        }
        return true;
    }

    /** Ends the holds of the last post; its caller calls it once the library has read the WRs. */
    void releaseHolds() {
        while (heldCount > 0) {
            AbstractVerbsObject o = held[--heldCount];
            held[heldCount] = null;
            o.exitCall();
        }
    }

    private static void recordBinds(List<SendWr> list, int base, int n) {
        for (int i = 0; i < n; i++) {
            recordBind(list.get(base + i));
        }
    }

    /** After a BIND_MW WR was posted: the window's rkey is the one it binds (see NativeMemoryWindow.boundByWr). */
    private static void recordBind(SendWr wr) {
        if (wr.opcode() == WrOpcode.BIND_MW && wr.bindMwWindow() instanceof NativeMemoryWindow mw) {
            mw.boundByWr(wr.bindMwRkey(), wr.bindMwInfo());
        }
    }

    /**
     * Why {@code wr} was refused with {@code err}, for the exception's message.
     *
     * @param qp the {@code struct ibv_qp *}
     * @param ready whether the QP's state took sends
     * @param err the errno
     * @param wr the WR refused
     * @return the reason
     */
    String reason(long qp, boolean ready, int err, SendWr wr) {
        if (!ready) {
            return "the QP is in " + NativeQueuePair.stateOf(binding.getInt(qp + QpStructs.ibv_qp.state$off))
                    + "; sends need RTS, SQD, SQE or ERR";
        }
        if (!wr.opcode().isValidFor(type)) {
            return wr.opcode() + " is not valid on a " + type + " QP";
        }
        if (wr.opcode() == WrOpcode.FLUSH && !flush) {
            return "FLUSH needs a device that executes it (IB_UVERBS_DEVICE_FLUSH_* in device_cap_flags_ex)";
        }
        if ((wr.sendFlags() & ~SendFlags.ALL) != 0) {
            return "unknown send flags " + SendFlags.toString(wr.sendFlags() & ~SendFlags.ALL);
        }
        if ((wr.sendFlags() & SendFlags.IP_CSUM) != 0 && (sendFlagsAllowed & SendFlags.IP_CSUM) == 0) {
            return "IP_CSUM needs a device with checksum offload";
        }
        if (wr.numSge() > sgePerWr) {
            return wr.numSge() + " SGEs, the QP takes " + sgePerWr;
        }
        String inline = inlineRefusal(wr);
        if (inline != null) {
            return inline;
        }
        return "WR " + wr + " cannot be posted (" + Errno.name(err) + ")";
    }

    /**
     * Posts the first {@code n} WRs of a linked array ({@code wrs}, {@code capacity} slots): slot {@code n - 1}
     * ends the list for the call and is linked to its successor again after it. The array is the QP's scratch
     * memory or a {@link NativePreparedSends}'s, and the bad-WR word the QP's: each is freed only after the
     * send lock the caller holds is released (the destroy verb and the array's release take it).
     *
     * @param wrs the array's first {@code struct ibv_send_wr}
     * @param capacity the array's slots
     * @param qp the {@code struct ibv_qp *}, live
     * @param base the index of slot 0 in the caller's numbering, for the exception
     * @param n the WRs to post, 1 to {@code capacity}
     * @throws PostSendException if the library refuses one, with {@code base} plus its slot
     */
    void call(long wrs, int capacity, long qp, int base, int n) {
        IbverbsBinding b = binding;
        long last = wrs + (n - 1) * WR_SIZE + ibv_send_wr.next$off;
        b.putLong(last, 0L);
        b.putLong(badWr, 0L);
        int rc;
        try {
            rc = critical ? b.postSendCritical(fn, qp, wrs, badWr) : b.postSend(fn, qp, wrs, badWr);
        } finally {
            if (n < capacity) {
                b.putLong(last, wrs + n * WR_SIZE);
            }
        }
        if (rc != 0) {
            long bad = b.getLong(badWr);
            int index = bad >= wrs && bad < wrs + capacity * WR_SIZE ? (int) ((bad - wrs) / WR_SIZE) : 0;
            throw new PostSendException(-NativeErrors.ofOp(rc), base + index, null);
        }
    }

    /**
     * Writes WR {@code i} of the array; returns an errno when it cannot be posted, else 0. A field the opcode
     * does not read is left as it was.
     */
    private int write(int i, SendWr wr) {
        return write(wrs + i * WR_SIZE, this.sges + i * sgeStride, wr);
    }

    /**
     * Writes {@code wr} into the {@code struct ibv_send_wr} at {@code w}, whose {@code sg_list} is {@code sg}
     * (room for the QP's SGEs), with every check of {@code postSend}; returns an errno when it cannot be
     * posted, else 0. A field the opcode does not read is left as it was.
     *
     * @param w the WR's address
     * @param sg its SGE array's address
     * @param wr the WR, not null
     * @return 0, or the errno of the WR's refusal
     */
    int write(long w, long sg, SendWr wr) {
        Sge[] sges = wr.sgList();
        int num = wr.numSge();
        if (num > sgePerWr) {
            Arguments.sges(sges, num, "sgList");
            return Errno.EINVAL;
        }
        IbverbsBinding b = binding;
        writeSges(b, sg, sges, num);
        WrOpcode op = wr.opcode();
        int flags = wr.sendFlags();
        if (!op.isValidFor(type) || (flags & ~sendFlagsAllowed) != 0
                || (flags & SendFlags.INLINE) != 0 && !holdInline(wr)) {
            return Errno.EINVAL;
        }
        b.putLong(w + ibv_send_wr.wr_id$off, wr.wrId());
        b.putInt(w + ibv_send_wr.num_sge$off, num);
        b.putInt(w + ibv_send_wr.opcode$off, op.value());
        b.putInt(w + ibv_send_wr.send_flags$off, flags);
        if (connected && (op == WrOpcode.RDMA_WRITE || op == WrOpcode.RDMA_READ)) {
            b.putLong(w + ibv_send_wr.wr$rdma$remote_addr$off, wr.remoteAddr());
            b.putInt(w + ibv_send_wr.wr$rdma$rkey$off, wr.rkey());
            return 0;
        }
        return connected && op == WrOpcode.SEND ? 0 : writeOther(w, op, wr);
    }

    /**
     * Copies a gather list into {@code num} {@code struct ibv_sge}s at {@code sg}, checking each entry for null
     * as {@link Arguments#sges} does: the WR is written but not yet posted when that throws. Receives use it too.
     */
    static void writeSges(IbverbsBinding b, long sg, Sge[] sges, int num) {
        Objects.requireNonNull(sges, "sgList");
        for (int k = 0; k < num; k++) {
            Sge s = sges[k];
            if (s == null) {
                throw Arguments.nullEntry("sgList", k);
            }
            long o = sg + k * SGE_SIZE;
            b.putLong(o + ibv_sge.addr$off, s.addr());
            b.putInt(o + ibv_sge.length$off, s.length());
            b.putInt(o + ibv_sge.lkey$off, s.lkey());
        }
    }

    /** Why an INLINE WR cannot be posted: more bytes than granted, or data outside the PD's regions; or null. */
    private String inlineRefusal(SendWr wr) {
        if ((wr.sendFlags() & SendFlags.INLINE) == 0) {
            return null;
        }
        long bytes = 0;
        for (int k = 0; k < wr.numSge(); k++) {
            bytes += Integer.toUnsignedLong(wr.sgList()[k].length());
        }
        if (bytes > maxInlineData) {
            return bytes + " inline bytes, but the QP was granted max_inline_data " + maxInlineData;
        }
        return Arguments.inlineData(wr, regions);
    }

    /** The fields of the opcodes other than RDMA WRITE, RDMA READ and SEND, and of UD and XRC QPs. */
    private int writeOther(long w, WrOpcode op, SendWr wr) {
        IbverbsBinding b = binding;
        switch (op) {
            case SEND_WITH_IMM, RDMA_WRITE_WITH_IMM ->
                    b.putInt(w + ibv_send_wr.imm_data$off, Integer.reverseBytes(wr.immData()));
            case SEND_WITH_INV, LOCAL_INV -> b.putInt(w + ibv_send_wr.invalidate_rkey$off, wr.invalidateRkey());
            case FLUSH -> {
                if (!flush) {
                    return Errno.EOPNOTSUPP;
                }
            }
            default -> { }
        }
        if (type == QpType.UD) {
            if (!Arguments.remoteQpn(wr.remoteQpn()) || !(wr.ah() instanceof NativeAddressHandle ah)
                    || ah.nativeContext() != context || !hold(ah)) {
                return Errno.EINVAL;
            }
            b.putLong(w + ibv_send_wr.wr$ud$ah$off, ah.handle());
            b.putInt(w + ibv_send_wr.wr$ud$remote_qpn$off, wr.remoteQpn());
            b.putInt(w + ibv_send_wr.wr$ud$remote_qkey$off, wr.remoteQkey());
        } else if (op == WrOpcode.ATOMIC_CMP_AND_SWP || op == WrOpcode.ATOMIC_FETCH_AND_ADD) {
            b.putLong(w + ibv_send_wr.wr$atomic$remote_addr$off, wr.remoteAddr());
            b.putLong(w + ibv_send_wr.wr$atomic$compare_add$off, wr.compareAdd());
            b.putLong(w + ibv_send_wr.wr$atomic$swap$off, wr.swap());
            b.putInt(w + ibv_send_wr.wr$atomic$rkey$off, wr.rkey());
        } else {
            b.putLong(w + ibv_send_wr.wr$rdma$remote_addr$off, wr.remoteAddr());
            b.putInt(w + ibv_send_wr.wr$rdma$rkey$off, wr.rkey());
        }
        if (type == QpType.XRC_SEND) {
            b.putInt(w + ibv_send_wr.qp_type$xrc$remote_srqn$off, wr.remoteSrqn());
        }
        if (op == WrOpcode.BIND_MW) {
            return writeBind(w, wr);
        }
        if (op == WrOpcode.TSO) {
            MemorySegment hdr = wr.tsoHdr();
            if (!Arguments.tsoHeader(hdr)) {
                return Errno.EINVAL;
            }
            b.putLong(w + ibv_send_wr.tso$hdr$off, hdr.address());
            b.putShort(w + ibv_send_wr.tso$hdr_sz$off, (short) hdr.byteSize());
            b.putShort(w + ibv_send_wr.tso$mss$off, (short) wr.mss());
        }
        return 0;
    }

    private int writeBind(long w, SendWr wr) {
        MwBindInfo info = wr.bindMwInfo();
        if (!(wr.bindMwWindow() instanceof NativeMemoryWindow mw) || mw.nativeContext() != context
                || info == null || !(info.mr() instanceof NativeMemoryRegion mr) || mr.nativeContext() != context
                || !hold(mw) || !hold(mr)) {
            return Errno.EINVAL;
        }
        if (!mw.keepsIndex(wr.bindMwRkey())) {
            return Errno.EINVAL;
        }
        IbverbsBinding b = binding;
        b.putLong(w + ibv_send_wr.bind_mw$mw$off, mw.handle());
        b.putInt(w + ibv_send_wr.bind_mw$rkey$off, wr.bindMwRkey());
        long bi = w + ibv_send_wr.bind_mw$bind_info$off;
        b.putLong(bi + ibv_mw_bind_info.mr$off, mr.handle());
        b.putLong(bi + ibv_mw_bind_info.addr$off, info.addr());
        b.putLong(bi + ibv_mw_bind_info.length$off, info.length());
        b.putInt(bi + ibv_mw_bind_info.mw_access_flags$off, info.mwAccessFlags());
        return 0;
    }
}
