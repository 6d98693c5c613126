package org.verbs4j.provider.jnr.internal;

import java.util.concurrent.TimeUnit;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.nativecommon.internal.IbverbsBinding;
import org.verbs4j.provider.nativecommon.internal.PosixStructs;

/**
 * libibverbs through JNR-FFI as the shared native object model's {@link IbverbsBinding}: the calls of
 * {@link Ibverbs}, the inline function-pointer calls of {@link InlineVerbs}, and {@link NativeMemory}.
 */
public final class JnrIbverbsBinding implements IbverbsBinding {
    private static final long CQ_OUT = 0;
    private static final long CQ_CONTEXT_OUT = 8;

    private final NativeLibraries libs;

    /**
     * Binds the loaded libraries.
     *
     * @param libs libibverbs and libc
     */
    public JnrIbverbsBinding(NativeLibraries libs) {
        this.libs = libs;
    }

    /**
     * The errno of a verb that returned {@code rc}: libibverbs returns the errno itself from most int verbs, and
     * -1 with errno set from a few.
     *
     * @param libs the libraries whose last call set errno
     * @param rc what the verb returned, not 0
     * @return the errno; {@code EINVAL} if the verb failed without setting one
     */
    public static int errnoOf(NativeLibraries libs, int rc) {
        if (rc > 0) {
            return rc;
        }
        int e = libs.lastErrno();
        return e != 0 ? e : Errno.EINVAL;
    }

    /** An address, or minus the errno the call left in {@code errno}, {@code fallback} if it left none. */
    private static long created(long object, int errno, int fallback) {
        return object != 0 ? object : -(errno != 0 ? errno : fallback);
    }

    private int failure(int rc) {
        return rc == 0 ? 0 : errnoOf(libs, rc);
    }

    @Override
    public int getInt(long address) {
        return NativeMemory.getInt(address);
    }

    @Override
    public void putInt(long address, int value) {
        NativeMemory.putInt(address, value);
    }

    @Override
    public int deregMr(long mr) {
        return failure(libs.ibverbs().ibv_dereg_mr(mr));
    }

    @Override
    public int destroyAh(long ah) {
        return failure(libs.ibverbs().ibv_destroy_ah(ah));
    }

    @Override
    public int callDeallocOp(long fn, long object) {
        return failure(InlineVerbs.callP(fn, object));
    }

    @Override
    public int destroyCompChannel(long channel) {
        return failure(libs.ibverbs().ibv_destroy_comp_channel(channel));
    }

    @Override
    public boolean awaitReadable(int fd, long timeout, TimeUnit unit, String verb) {
        long pollfd = NativeMemory.allocate(PosixStructs.pollfd.SIZEOF);
        try {
            return Fds.awaitReadable(libs, pollfd, fd, timeout, unit);
        } finally {
            NativeMemory.free(pollfd);
        }
    }

    @Override
    public long getAndAckCqEvent(long channel) {
        long out = NativeMemory.allocate(CQ_CONTEXT_OUT + 8);
        try {
            if (libs.ibverbs().ibv_get_cq_event(channel, out + CQ_OUT, out + CQ_CONTEXT_OUT) != 0) {
                throw new VerbsException("ibv_get_cq_event", libs.lastErrno(), null);
            }
            long cq = NativeMemory.getAddress(out + CQ_OUT);
            libs.ibverbs().ibv_ack_cq_events(cq, 1);
            return cq;
        } finally {
            NativeMemory.free(out);
        }
    }

    // ---- npd (issue 12): protection domain, completion queue, their memory and fields ----

    /**
     * A binding for field access and memory only ({@code get*}, {@code put*}, {@link #allocate}, {@link #free}),
     * which need no library: for the static attribute copies that have no context at hand.
     */
    public static final JnrIbverbsBinding FIELDS = new JnrIbverbsBinding(null);

    @Override
    public long getLong(long address) {
        return NativeMemory.getLong(address);
    }

    @Override
    public int getU16(long address) {
        return NativeMemory.getU16(address);
    }

    @Override
    public int getU8(long address) {
        return NativeMemory.getU8(address);
    }

    @Override
    public void putByte(long address, int value) {
        NativeMemory.putByte(address, value);
    }

    @Override
    public void putShort(long address, int value) {
        NativeMemory.putShort(address, value);
    }

    @Override
    public void putBytes(long address, byte[] bytes) {
        NativeMemory.putBytes(address, bytes, 0, bytes.length);
    }

    @Override
    public void getBytes(long address, byte[] bytes) {
        NativeMemory.getBytes(address, bytes, 0, bytes.length);
    }

    @Override
    public long allocate(long bytes) {
        return NativeMemory.allocate(bytes);
    }

    @Override
    public void free(long address) {
        NativeMemory.free(address);
    }

    @Override
    public long allocPd(long context) {
        long pd = libs.ibverbs().ibv_alloc_pd(context);
        return created(pd, pd == 0 ? libs.lastErrno() : 0, Errno.EINVAL);
    }

    @Override
    public int deallocPd(long pd) {
        return failure(libs.ibverbs().ibv_dealloc_pd(pd));
    }

    @Override
    public long regMr(long pd, long address, long length, long iova, int access) {
        long mr = libs.ibverbs().ibv_reg_mr_iova2(pd, address, length, iova, access);
        return created(mr, mr == 0 ? libs.lastErrno() : 0, Errno.EINVAL);
    }

    @Override
    public long allocMw(long fn, long pd, int type) {
        long mw = InlineVerbs.allocMw(fn, pd, type);
        return created(mw, mw == 0 ? InlineVerbs.lastErrno() : 0, Errno.EOPNOTSUPP);
    }

    @Override
    public long createAh(long pd, long attr) {
        long ah = libs.ibverbs().ibv_create_ah(pd, attr);
        return created(ah, ah == 0 ? libs.lastErrno() : 0, Errno.EINVAL);
    }

    @Override
    public long createCq(long context, int cqe, long channel, int compVector) {
        long cq = libs.ibverbs().ibv_create_cq(context, cqe, 0, channel, compVector);
        return created(cq, cq == 0 ? libs.lastErrno() : 0, Errno.EINVAL);
    }

    @Override
    public long createCqEx(long fn, long context, long attr) {
        long cq = InlineVerbs.createPP(fn, context, attr);
        return created(cq, cq == 0 ? InlineVerbs.lastErrno() : 0, Errno.EOPNOTSUPP);
    }

    @Override
    public int destroyCq(long cq) {
        return failure(libs.ibverbs().ibv_destroy_cq(cq));
    }

    @Override
    public int pollCq(long fn, long cq, int entries, long wc) {
        return InlineVerbs.pollCq(fn, cq, entries, wc);
    }

    @Override
    public int reqNotifyCq(long fn, long cq, int solicitedOnly) {
        return InlineVerbs.reqNotifyCq(fn, cq, solicitedOnly);
    }

    @Override
    public int startPoll(long fn, long cq, long attr) {
        return InlineVerbs.startPoll(fn, cq, attr);
    }

    @Override
    public void endPoll(long fn, long cq) {
        InlineVerbs.endPoll(fn, cq);
    }

    @Override
    public int readU32(long fn, long cq) {
        return InlineVerbs.readU32(fn, cq);
    }

    @Override
    public int readU8(long fn, long cq) {
        return InlineVerbs.readU8(fn, cq);
    }

    @Override
    public int queryDevice(long context, long attr) {
        return failure(libs.ibverbs().ibv_query_device(context, attr));
    }

    @Override
    public int queryDeviceEx(long fn, long context, long attr, long size) {
        return failure(InlineVerbs.queryDeviceEx(fn, context, attr, size));
    }

    @Override
    public int queryPort(long fn, long context, int port, long attr, long size) {
        return failure(fn != 0 ? InlineVerbs.queryPort(fn, context, port, attr, size)
                : libs.ibverbs().ibv_query_port(context, port, attr));
    }

    @Override
    public int queryGid(long context, int port, int index, long gid) {
        return failure(libs.ibverbs().ibv_query_gid(context, port, index, gid));
    }

    // ---- end of npd's block ----
}
