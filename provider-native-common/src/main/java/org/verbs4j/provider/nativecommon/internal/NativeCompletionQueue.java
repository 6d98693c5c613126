package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.CompletionChannel;
import org.verbs4j.CqInitAttributes;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.WcFlags;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.verbs_context;
import org.verbs4j.provider.nativecommon.internal.CqStructs.ibv_cq;
import org.verbs4j.provider.nativecommon.internal.CqStructs.ibv_cq_ex;
import org.verbs4j.provider.nativecommon.internal.CqStructs.ibv_cq_init_attr_ex;
import org.verbs4j.provider.nativecommon.internal.CqStructs.ibv_modify_cq_attr;
import org.verbs4j.provider.nativecommon.internal.CqStructs.ibv_poll_cq_attr;
import org.verbs4j.provider.nativecommon.internal.CqStructs.ibv_wc;
import org.verbs4j.spi.support.AbstractCompletionQueue;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.CallHold;
import org.verbs4j.spi.support.CompletionFields;

/**
 * A completion queue of either native provider: an extended one, {@code struct ibv_cq_ex}, polled through its
 * {@code start_poll}, {@code next_poll}, {@code end_poll} and {@code read_*} function pointers where the provider
 * library creates one (in batches, or one completion per {@code start_poll} on librxe: {@link BatchPolling});
 * otherwise a plain {@code struct ibv_cq} polled through {@code ibv_context.ops.poll_cq} into a reused native
 * {@code ibv_wc} array. Both fill a {@link WorkCompletionBatch} with the same values: where {@code ibv_poll_cq(3)}
 * leaves a field undefined (every field but wr_id, status, qp_num and vendor_err of a failed completion; imm_data
 * without IBV_WC_WITH_IMM or IBV_WC_WITH_INV) both report 0, and immediate data arrives in network order and is
 * handed out in host order. The one difference is pkey_index, which {@code ibv_cq_ex} has no reader for: an
 * extended CQ reports 0.
 *
 * <p>A CQ created with timestamps ({@link CqInitAttributes#timestamps()}) is always extended, never plain: each
 * successful completion is stamped through {@code read_completion_ts} and {@code read_completion_wallclock_ns},
 * whichever were asked for; a failed one is not, as only wr_id, status, qp_num and vendor_err are valid for it.
 *
 * <p>An {@code ibv_cq_ex *} is an {@code ibv_cq *} ({@code ibv_cq_ex_to_cq} is a cast), so QP creation,
 * {@code ibv_req_notify_cq}, completion events, asynchronous events and {@code ibv_destroy_cq} take the same
 * address either way. Polling makes no allocation and reads the UD-only sender fields of receive-side
 * completions only ({@link CompletionFields#hasSource}).
 *
 * @see "ibv_create_cq(3)"
 * @see "ibv_create_cq_ex(3)"
 * @see "ibv_poll_cq(3)"
 */
public final class NativeCompletionQueue extends AbstractCompletionQueue {
    private static final System.Logger LOG = System.getLogger(NativeCompletionQueue.class.getName());
    /** {@code IBV_WC_SUCCESS}. */
    private static final int WC_SUCCESS = 0;
    /** The {@code ibv_wc} entries of a plain CQ's array; a larger batch is polled in chunks. */
    private static final int WC_ENTRIES = 64;
    /** The {@code ibv_cq_ex} function pointers {@link #pollInto} calls. */
    private static final long[] POLL_OPS = {ibv_cq_ex.start_poll$off, ibv_cq_ex.end_poll$off,
        ibv_cq_ex.read_opcode$off, ibv_cq_ex.read_vendor_err$off, ibv_cq_ex.read_byte_len$off,
        ibv_cq_ex.read_imm_data$off, ibv_cq_ex.read_qp_num$off, ibv_cq_ex.read_src_qp$off,
        ibv_cq_ex.read_wc_flags$off, ibv_cq_ex.read_slid$off, ibv_cq_ex.read_sl$off,
        ibv_cq_ex.read_dlid_path_bits$off};

    private final NativeContextSupport context;
    private final IbverbsBinding binding;
    private final long handle;
    private final boolean extended;
    private final long pollCq;
    private final long reqNotifyCq;
    /** Whether poll_cq, start_poll, next_poll and end_poll are critical downcalls ({@link CriticalDataPath}). */
    private final boolean critical;
    // The ibv_cq_ex function pointers, read once (a driver sets them at creation); 0 for a plain CQ.
    private final long startPoll;
    private final long endPoll;
    /** {@code next_poll} where the context polls in batches ({@link BatchPolling}) and the driver sets it, else 0. */
    private final long nextPoll;
    private final long readOpcode;
    private final long readVendorErr;
    private final long readByteLen;
    private final long readImmData;
    private final long readQpNum;
    private final long readSrcQp;
    private final long readWcFlags;
    private final long readSlid;
    private final long readSl;
    private final long readDlidPathBits;
    /** {@code read_completion_ts} and {@code read_completion_wallclock_ns} where asked for, else 0. */
    private final long readCompletionTs;
    private final long readCompletionWallclockNs;
    /** The zeroed {@code ibv_poll_cq_attr} of every {@code start_poll} (extended), or the {@code ibv_wc} array. */
    private long scratch;

    private <C extends AbstractVerbsObject & NativeContextSupport> NativeCompletionQueue(C context, long cq,
            NativeCompletionChannel channel, boolean extended, long wcFlags) {
        super(context, null, channel, context.binding().getInt(cq + ibv_cq.cqe$off));
        this.context = context;
        this.binding = context.binding();
        this.handle = cq;
        this.extended = extended;
        context.track(NativeKind.CQ, cq, this);
        this.pollCq = context.contextOp(ibv_context.ops$poll_cq$off);
        this.reqNotifyCq = context.op("req_notify_cq");
        this.critical = context.criticalDataPath();
        this.startPoll = op(ibv_cq_ex.start_poll$off);
        this.endPoll = op(ibv_cq_ex.end_poll$off);
        this.nextPoll = context.batchPolling() ? op(ibv_cq_ex.next_poll$off) : 0;
        this.readOpcode = op(ibv_cq_ex.read_opcode$off);
        this.readVendorErr = op(ibv_cq_ex.read_vendor_err$off);
        this.readByteLen = op(ibv_cq_ex.read_byte_len$off);
        this.readImmData = op(ibv_cq_ex.read_imm_data$off);
        this.readQpNum = op(ibv_cq_ex.read_qp_num$off);
        this.readSrcQp = op(ibv_cq_ex.read_src_qp$off);
        this.readWcFlags = op(ibv_cq_ex.read_wc_flags$off);
        this.readSlid = op(ibv_cq_ex.read_slid$off);
        this.readSl = op(ibv_cq_ex.read_sl$off);
        this.readDlidPathBits = op(ibv_cq_ex.read_dlid_path_bits$off);
        this.readCompletionTs = (wcFlags & CqInitAttributes.WITH_COMPLETION_TIMESTAMP) != 0
                ? op(ibv_cq_ex.read_completion_ts$off) : 0;
        this.readCompletionWallclockNs = (wcFlags & CqInitAttributes.WITH_COMPLETION_TIMESTAMP_WALLCLOCK) != 0
                ? op(ibv_cq_ex.read_completion_wallclock_ns$off) : 0;
        this.scratch = context.allocate(extended ? ibv_poll_cq_attr.SIZEOF : ibv_wc.SIZEOF * WC_ENTRIES);
        if (channel != null) {
            dependOn(channel);
        }
        register();
    }

    private long op(long offset) {
        return extended ? binding.getLong(handle + offset) : 0;
    }

    /**
     * {@code ibv_create_cq_ex(3)} with {@code IBV_WC_STANDARD_FLAGS} where {@code tryExtended} and the device
     * offers it, else {@code ibv_create_cq(3)}.
     *
     * @param <C> the provider's context
     * @param context the open context
     * @param cqe the entries asked for, at least 1
     * @param channel the completion channel of the same context, or null
     * @param compVector the completion vector, 0 up to the context's {@code num_comp_vectors}
     * @param tryExtended whether to try {@code ibv_create_cq_ex} first
     * @return the new CQ
     * @throws IllegalArgumentException if {@code cqe}, {@code channel} or {@code compVector} is wrong
     * @throws VerbsException if the device refuses the CQ
     */
    public static <C extends AbstractVerbsObject & NativeContextSupport> NativeCompletionQueue create(C context,
            int cqe, CompletionChannel channel, int compVector, boolean tryExtended) {
        return create(context, new CqInitAttributes(cqe, channel, compVector, CqInitAttributes.STANDARD_FLAGS),
                tryExtended);
    }

    /**
     * As {@link #create(AbstractVerbsObject, int, CompletionChannel, int, boolean)}, with the {@code wc_flags} of
     * {@code attributes}: a CQ with timestamps is created by {@code ibv_create_cq_ex} or not at all.
     *
     * @param <C> the provider's context
     * @param context the open context
     * @param attributes the entries, channel, vector and {@code wc_flags}
     * @param tryExtended whether to try {@code ibv_create_cq_ex} first for a CQ without timestamps
     * @return the new CQ
     * @throws IllegalArgumentException if {@code cqe}, {@code channel} or {@code compVector} is wrong
     * @throws VerbsException if the device refuses the CQ; {@code EOPNOTSUPP} for timestamps when the library has
     *     no {@code create_cq_ex} or leaves a timestamp reader NULL
     */
    public static <C extends AbstractVerbsObject & NativeContextSupport> NativeCompletionQueue create(C context,
            CqInitAttributes attributes, boolean tryExtended) {
        context.checkOpen();
        int cqe = attributes.cqe();
        CompletionChannel channel = attributes.channel();
        int compVector = attributes.compVector();
        long wcFlags = attributes.timestamps() ? attributes.wcFlags() | CqInitAttributes.STANDARD_FLAGS
                : CqInitAttributes.STANDARD_FLAGS;
        if (cqe < 1) {
            throw new IllegalArgumentException("a CQ needs at least 1 entry, not " + cqe);
        }
        NativeCompletionChannel ch = null;
        if (channel != null) {
            if (!(channel instanceof NativeCompletionChannel c) || c.nativeContext() != context) {
                throw new IllegalArgumentException("the completion channel belongs to another context");
            }
            c.checkOpen();
            ch = c;
        }
        IbverbsBinding binding = context.binding();
        long ctx = context.contextHandle();
        int vectors = Math.max(binding.getInt(ctx + ibv_context.num_comp_vectors$off), 1);
        if (compVector < 0 || compVector >= vectors) {
            throw new IllegalArgumentException("compVector is 0.." + (vectors - 1) + ", not " + compVector);
        }
        long chHandle = ch == null ? 0 : ch.handle();
        NativeCompletionQueue q;
        try (CallHold hold = CallHold.on(context).and(ch, "the completion channel")) {
            long cq = tryExtended || attributes.timestamps() ? createEx(context, cqe, chHandle, compVector, wcFlags)
                    : 0;
            boolean extended = cq != 0;
            if (!extended) {
                cq = binding.createCq(ctx, cqe, chHandle, compVector);
                NativeErrors.check(cq, "ibv_create_cq", cqe + " entries");
            }
            q = new NativeCompletionQueue(context, cq, ch, extended, wcFlags);
        }
        LOG.log(System.Logger.Level.DEBUG, "{0}: {1} CQ 0x{2} with {3} entries", context.device().name(),
                q.isExtended() ? "extended (ibv_create_cq_ex)" : "plain (ibv_create_cq)",
                Long.toHexString(q.handle()), q.capacity());
        return q;
    }

    /**
     * An extended CQ from {@code verbs_context.create_cq_ex}, or 0 when the device has no such op, refuses it as
     * unsupported ({@code EOPNOTSUPP}, {@code ENOSYS}, libibverbs's answer to {@code wc_flags} it does not know)
     * or with {@code EINVAL} (some drivers refuse unknown {@code wc_flags} so; when it was the entry count,
     * {@code ibv_create_cq} refuses it the same way), or leaves a poll op NULL, which would crash the JVM: the
     * caller then creates a plain CQ. A CQ with timestamps has no plain fallback: each of those cases is an
     * exception then.
     *
     * @throws VerbsException with any other errno ({@code ENOMEM}, ...), and for timestamps the errno of the
     *     refusal, or {@code EOPNOTSUPP} without the op or with a reader NULL
     */
    private static <C extends AbstractVerbsObject & NativeContextSupport> long createEx(C context, int cqe,
            long channel, int compVector, long wcFlags) {
        boolean timestamps = wcFlags != CqInitAttributes.STANDARD_FLAGS;
        long fn = context.op("create_cq_ex");
        if (fn == 0) {
            if (timestamps) {
                throw new VerbsException("ibv_create_cq_ex", Errno.EOPNOTSUPP,
                        "the library has no create_cq_ex, so no timestamps");
            }
            return 0;
        }
        IbverbsBinding binding = context.binding();
        long attr = binding.allocate(ibv_cq_init_attr_ex.SIZEOF);
        try {
            binding.putInt(attr + ibv_cq_init_attr_ex.cqe$off, cqe);
            putLong(binding, attr + ibv_cq_init_attr_ex.channel$off, channel);
            binding.putInt(attr + ibv_cq_init_attr_ex.comp_vector$off, compVector);
            putLong(binding, attr + ibv_cq_init_attr_ex.wc_flags$off, wcFlags);
            long cq = binding.libibverbsOps().create_cq_ex(fn, context.contextHandle(), attr);
            if (cq > 0) {
                if (hasPollOps(binding, cq, wcFlags)) {
                    return cq;
                }
                if (timestamps) {
                    binding.destroyCq(cq);
                    throw new VerbsException("ibv_create_cq_ex", Errno.EOPNOTSUPP,
                            "the library left a poll or timestamp reader NULL");
                }
                LOG.log(System.Logger.Level.DEBUG, "{0}: ibv_create_cq_ex left a poll op NULL; using ibv_create_cq",
                        context.device().name());
                binding.destroyCq(cq);
                return 0;
            }
            int errno = NativeErrors.errno(cq);
            if (!timestamps && (errno == Errno.EOPNOTSUPP || errno == Errno.ENOSYS || errno == Errno.EINVAL)) {
                LOG.log(System.Logger.Level.DEBUG, "{0}: ibv_create_cq_ex refused ({1}); using ibv_create_cq",
                        context.device().name(), Errno.name(errno));
                return 0;
            }
            throw NativeErrors.exception(cq, "ibv_create_cq_ex", cqe + " entries");
        } finally {
            binding.free(attr);
        }
    }

    /** A 64-bit field written as two 32-bit halves (x86-64 is little-endian); control path only. */
    private static void putLong(IbverbsBinding binding, long address, long value) {
        binding.putInt(address, (int) value);
        binding.putInt(address + 4, (int) (value >>> 32));
    }

    /** Whether a driver's {@code ibv_cq_ex} sets every function pointer {@link #pollInto} calls for these flags. */
    private static boolean hasPollOps(IbverbsBinding binding, long cqEx, long wcFlags) {
        for (long off : POLL_OPS) {
            if (binding.getLong(cqEx + off) == 0) {
                return false;
            }
        }
        return ((wcFlags & CqInitAttributes.WITH_COMPLETION_TIMESTAMP) == 0
                || binding.getLong(cqEx + ibv_cq_ex.read_completion_ts$off) != 0)
                && ((wcFlags & CqInitAttributes.WITH_COMPLETION_TIMESTAMP_WALLCLOCK) == 0
                || binding.getLong(cqEx + ibv_cq_ex.read_completion_wallclock_ns$off) != 0);
    }

    /** {@return the {@code struct ibv_cq *} (an {@code ibv_cq_ex *} when extended); the caller checks it is open} */
    public long handle() {
        return handle;
    }

    /** {@return the context it belongs to, for a sibling check} */
    public NativeContextSupport nativeContext() {
        return context;
    }

    /** {@return whether {@code ibv_create_cq_ex} created this CQ, so that it is polled with {@code ibv_start_poll}} */
    public boolean isExtended() {
        return extended;
    }

    /**
     * Every poll holds the CQ's monitor: the provider library holds the CQ's spinlock from {@code start_poll} to
     * {@code end_poll} while Java code runs in between, so a second poller must wait here, never spin in a
     * critical {@code start_poll} or {@code poll_cq} (see {@link CriticalDataPath}).
     */
    @Override
    protected synchronized int pollInto(WorkCompletionBatch batch) {
        checkOpen();
        return extended ? pollExtended(batch) : pollPlain(batch);
    }

    private int pollPlain(WorkCompletionBatch batch) {
        int want = batch.capacity();
        long wcs = scratch;
        int total = 0;
        while (total < want) {
            int n = Math.min(want - total, WC_ENTRIES);
            int got = critical ? binding.pollCqCritical(pollCq, handle, n, wcs)
                    : binding.pollCq(pollCq, handle, n, wcs);
            if (got < 0) {
                if (total > 0) {
                    // Throwing would lose the completions already consumed; a lasting error shows at the next poll.
                    break;
                }
                throw NativeErrors.exception(NativeErrors.ofPoll(got), "ibv_poll_cq", null);
            }
            for (int i = 0; i < got; i++) {
                addPlain(batch, wcs + ibv_wc.SIZEOF * i);
            }
            total += got;
            if (got < n) {
                break;
            }
        }
        return total;
    }

    private void addPlain(WorkCompletionBatch batch, long wc) {
        long wrId = binding.getLong(wc + ibv_wc.wr_id$off);
        int status = binding.getInt(wc + ibv_wc.status$off);
        int qpNum = binding.getInt(wc + ibv_wc.qp_num$off);
        int vendorErr = binding.getInt(wc + ibv_wc.vendor_err$off);
        if (status != WC_SUCCESS) {
            addFailed(batch, wrId, status, vendorErr, qpNum);
            return;
        }
        int flags = binding.getInt(wc + ibv_wc.wc_flags$off);
        int imm = (flags & (WcFlags.WITH_IMM | WcFlags.WITH_INV)) != 0 ? binding.getInt(wc + ibv_wc.imm_data$off) : 0;
        int opcode = binding.getInt(wc + ibv_wc.opcode$off);
        int byteLen = binding.getInt(wc + ibv_wc.byte_len$off);
        if (!CompletionFields.hasSource(opcode)) {
            batch.add(wrId, status, opcode, vendorErr, byteLen, hostOrderImm(imm, flags), qpNum, 0, flags, 0, 0, 0,
                    0);
            return;
        }
        batch.add(wrId, status, opcode, vendorErr, byteLen, hostOrderImm(imm, flags), qpNum,
                binding.getInt(wc + ibv_wc.src_qp$off), flags, binding.getU16(wc + ibv_wc.pkey_index$off),
                binding.getU16(wc + ibv_wc.slid$off), binding.getU8(wc + ibv_wc.sl$off),
                binding.getU8(wc + ibv_wc.dlid_path_bits$off));
    }

    /**
     * The batch of {@code ibv_create_cq_ex(3)}: one {@code start_poll}, then {@code next_poll} after each
     * completion read until the batch is full or {@code next_poll} answers an error ({@code ENOENT}: no further
     * completion), then one {@code end_poll}. As the man page says, {@code end_poll} is not called after a failed
     * {@code start_poll} and is called after a failed {@code next_poll}; a {@code start_poll} error other than
     * {@code ENOENT} is thrown, while a {@code next_poll} error ends the batch with the completions read (at least
     * the one of {@code start_poll}); a lasting error shows at the next poll's {@code start_poll}.
     *
     * <p>Where the context does not poll in batches ({@link BatchPolling}: librxe) or the driver leaves
     * {@code next_poll} NULL, {@code next_poll} is never called and each completion has its own
     * {@code start_poll}/{@code end_poll} pair, which is correct everywhere.
     */
    private int pollExtended(WorkCompletionBatch batch) {
        int want = batch.capacity();
        long cq = handle;
        int n = 0;
        while (n < want) {
            int rc = critical ? binding.startPollCritical(startPoll, cq, scratch)
                    : binding.startPoll(startPoll, cq, scratch);
            if (rc == Errno.ENOENT) {
                // Empty: ibv_create_cq_ex(3) says end_poll is not called after a failed start_poll.
                break;
            }
            if (rc != 0) {
                if (n > 0) {
                    break;
                }
                throw NativeErrors.exception(NativeErrors.ofOp(rc), "ibv_start_poll", null);
            }
            try {
                addCurrent(batch, cq);
                n++;
                if (nextPoll != 0) {
                    n += readBatch(batch, cq, want - n);
                    break;
                }
            } finally {
                if (critical) {
                    binding.endPollCritical(endPoll, cq);
                } else {
                    binding.endPoll(endPoll, cq);
                }
            }
        }
        return n;
    }

    /** Up to {@code room} more completions of the batch {@code start_poll} opened, each made current by next_poll. */
    private int readBatch(WorkCompletionBatch batch, long cq, int room) {
        int n = 0;
        while (n < room) {
            int rc = critical ? binding.nextPollCritical(nextPoll, cq) : binding.nextPoll(nextPoll, cq);
            if (rc != 0) {
                // ENOENT: no further completion; another errno ends the batch the same way (end_poll follows).
                break;
            }
            addCurrent(batch, cq);
            n++;
        }
        return n;
    }

    /**
     * Adds the completion {@code start_poll} made current. Only wr_id, status, qp_num and vendor_err are valid
     * for a failed completion, so only their readers are called then; vendor_err is read only then.
     */
    private void addCurrent(WorkCompletionBatch batch, long cq) {
        long wrId = binding.getLong(cq + ibv_cq_ex.wr_id$off);
        int status = binding.getInt(cq + ibv_cq_ex.status$off);
        int qpNum = binding.readU32(readQpNum, cq);
        if (status != WC_SUCCESS) {
            addFailed(batch, wrId, status, binding.readU32(readVendorErr, cq), qpNum);
            return;
        }
        int flags = binding.readU32(readWcFlags, cq);
        // read_imm_data gives imm_data as ibv_wc holds it, and the invalidated rkey with IBV_WC_WITH_INV.
        int imm = (flags & (WcFlags.WITH_IMM | WcFlags.WITH_INV)) != 0 ? binding.readU32(readImmData, cq) : 0;
        int opcode = binding.readU32(readOpcode, cq);
        int byteLen = binding.readU32(readByteLen, cq);
        if (!CompletionFields.hasSource(opcode)) {
            batch.add(wrId, status, opcode, 0, byteLen, hostOrderImm(imm, flags), qpNum, 0, flags, 0, 0, 0, 0);
        } else {
            batch.add(wrId, status, opcode, 0, byteLen, hostOrderImm(imm, flags), qpNum,
                    binding.readU32(readSrcQp, cq), flags, 0, binding.readU32(readSlid, cq) & 0xffff,
                    binding.readU8(readSl, cq), binding.readU8(readDlidPathBits, cq));
        }
        if (readCompletionTs != 0 || readCompletionWallclockNs != 0) {
            batch.stamp(readCompletionTs != 0 ? binding.readU64(readCompletionTs, cq) : 0,
                    readCompletionWallclockNs != 0 ? binding.readU64(readCompletionWallclockNs, cq) : 0);
        }
    }

    /** A failed completion: the fields {@code ibv_poll_cq(3)} defines for it, 0 for the others. */
    private static void addFailed(WorkCompletionBatch batch, long wrId, int status, int vendorErr, int qpNum) {
        batch.add(wrId, status, 0, vendorErr, 0, 0, qpNum, 0, 0, 0, 0, 0, 0);
    }

    /** imm_data arrives in network order; an invalidated rkey shares the field in host order. */
    private static int hostOrderImm(int imm, int flags) {
        return (flags & WcFlags.WITH_IMM) != 0 ? Integer.reverseBytes(imm) : imm;
    }

    @Override
    protected void moderate(int cqCount, int cqPeriodMicros) {
        try (TempMemory temp = new TempMemory(binding); CallHold hold = CallHold.on(this)) {
            long attr = temp.allocate(ibv_modify_cq_attr.SIZEOF);
            binding.putInt(attr + ibv_modify_cq_attr.attr_mask$off, ibv_modify_cq_attr.IBV_CQ_ATTR_MODERATE);
            binding.putShort(attr + ibv_modify_cq_attr.moderate$cq_count$off, (short) cqCount);
            binding.putShort(attr + ibv_modify_cq_attr.moderate$cq_period$off, (short) cqPeriodMicros);
            NativeErrors.check(binding.libibverbsOps().modify_cq(context.op("modify_cq"), handle, attr),
                    "ibv_modify_cq", "cq_count " + cqCount + ", cq_period " + cqPeriodMicros + " us");
        }
    }

    @Override
    protected void arm(boolean solicitedOnly) {
        NativeErrors.check(binding.libibverbsOps().req_notify_cq(reqNotifyCq, handle, solicitedOnly ? 1 : 0),
                "ibv_req_notify_cq", null);
    }

    /**
     * Under the CQ's monitor, as {@link #pollInto}: the provider library swaps its queue (rxe unmaps and maps it
     * again), so no poll of ours runs beside it, and a concurrent close waits.
     */
    @Override
    protected synchronized int resizeTo(int cqe) {
        checkOpen();
        NativeErrors.check(binding.resizeCq(handle, cqe), "ibv_resize_cq", cqe + " entries");
        return binding.getInt(handle + ibv_cq.cqe$off);
    }

    @Override
    protected int destroy() {
        return NativeErrors.errno(binding.destroyCq(handle));
    }

    @Override
    protected synchronized void afterDestroy() {
        context.untrack(NativeKind.CQ, handle, this);
        if (scratch != 0) {
            context.free(scratch);
            scratch = 0;
        }
    }
}
