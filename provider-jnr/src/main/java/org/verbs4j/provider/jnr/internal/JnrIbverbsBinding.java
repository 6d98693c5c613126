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

    // ---- nqp: queue pairs and shared receive queues

    @Override
    public long getLong(long address) {
        return NativeMemory.getLong(address);
    }

    @Override
    public void putLong(long address, long value) {
        NativeMemory.putLong(address, value);
    }

    @Override
    public short getShort(long address) {
        return (short) NativeMemory.getU16(address);
    }

    @Override
    public void putShort(long address, short value) {
        NativeMemory.putShort(address, value);
    }

    @Override
    public byte getByte(long address) {
        return NativeMemory.getByte(address);
    }

    @Override
    public void putByte(long address, byte value) {
        NativeMemory.putByte(address, value);
    }

    @Override
    public void getBytes(long address, byte[] into) {
        NativeMemory.getBytes(address, into, 0, into.length);
    }

    @Override
    public void putBytes(long address, byte[] from) {
        NativeMemory.putBytes(address, from, 0, from.length);
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
    public int postSend(long fn, long qp, long wr, long badWr) {
        return InlineVerbs.callPPP(fn, qp, wr, badWr);
    }

    @Override
    public int postRecv(long fn, long queue, long wr, long badWr) {
        return InlineVerbs.callPPP(fn, queue, wr, badWr);
    }

    @Override
    public int bindMw(long fn, long qp, long mw, long bind) {
        return InlineVerbs.callPPP(fn, qp, mw, bind);
    }

    /** A made object's address, or the errno its exported verb left negated. */
    private long created(long object) {
        return created(object, object == 0 ? libs.lastErrno() : 0, Errno.EINVAL);
    }

    /** An address, or minus the errno the call left in {@code errno}, {@code fallback} if it left none. */
    private static long created(long object, int errno, int fallback) {
        return object != 0 ? object : -(errno != 0 ? errno : fallback);
    }

    @Override
    public long createQp(long pd, long initAttr) {
        return created(libs.ibverbs().ibv_create_qp(pd, initAttr));
    }

    @Override
    public long callCreateOp(long fn, long context, long attr) {
        long object = InlineVerbs.createPP(fn, context, attr);
        if (object != 0) {
            return object;
        }
        int e = InlineVerbs.lastErrno();
        return -(e != 0 ? e : Errno.EINVAL);
    }

    @Override
    public long qpToQpEx(long qp) {
        return created(libs.ibverbs().ibv_qp_to_qp_ex(qp));
    }

    @Override
    public int modifyQp(long qp, long attr, int mask) {
        return failure(libs.ibverbs().ibv_modify_qp(qp, attr, mask));
    }

    @Override
    public int queryQp(long qp, long attr, int mask, long initAttr) {
        return failure(libs.ibverbs().ibv_query_qp(qp, attr, mask, initAttr));
    }

    @Override
    public int destroyQp(long qp) {
        return failure(libs.ibverbs().ibv_destroy_qp(qp));
    }

    @Override
    public int deallocPd(long pd) {
        return failure(libs.ibverbs().ibv_dealloc_pd(pd));
    }

    @Override
    public int queryDataInOrder(long qp, int op, int flags) {
        return libs.ibverbs().ibv_query_qp_data_in_order(qp, op, flags);
    }

    @Override
    public long createSrq(long pd, long initAttr) {
        return created(libs.ibverbs().ibv_create_srq(pd, initAttr));
    }

    @Override
    public int modifySrq(long srq, long attr, int mask) {
        return failure(libs.ibverbs().ibv_modify_srq(srq, attr, mask));
    }

    @Override
    public int querySrq(long srq, long attr) {
        return failure(libs.ibverbs().ibv_query_srq(srq, attr));
    }

    @Override
    public int destroySrq(long srq) {
        return failure(libs.ibverbs().ibv_destroy_srq(srq));
    }

    @Override
    public int callSrqNumOp(long fn, long srq, long out) {
        return InlineVerbs.callPP(fn, srq, out);
    }

    // ---- nwr (issue 12): the WR session over the ibv_qp_ex function pointers, through InlineVerbs ----

    @Override
    public void wrCall(long fn, long qpx) {
        InlineVerbs.wrP(fn, qpx);
    }

    @Override
    public int wrComplete(long fn, long qpx) {
        return InlineVerbs.callP(fn, qpx);
    }

    @Override
    public void wrBuild(long fn, long qpx) {
        InlineVerbs.wrP(fn, qpx);
    }

    @Override
    public void wrU32(long fn, long qpx, int value) {
        InlineVerbs.wrU32(fn, qpx, value);
    }

    @Override
    public void wrRdma(long fn, long qpx, int rkey, long remoteAddr) {
        InlineVerbs.wrU32U64(fn, qpx, rkey, remoteAddr);
    }

    @Override
    public void wrRdmaWriteImm(long fn, long qpx, int rkey, long remoteAddr, int immDataBe) {
        InlineVerbs.wrU32U64U32(fn, qpx, rkey, remoteAddr, immDataBe);
    }

    @Override
    public void wrAtomicCmpSwp(long fn, long qpx, int rkey, long remoteAddr, long compare, long swap) {
        InlineVerbs.wrU32U64U64U64(fn, qpx, rkey, remoteAddr, compare, swap);
    }

    @Override
    public void wrAtomicFetchAdd(long fn, long qpx, int rkey, long remoteAddr, long add) {
        InlineVerbs.wrU32U64U64(fn, qpx, rkey, remoteAddr, add);
    }

    @Override
    public void wrAtomicWrite(long fn, long qpx, int rkey, long remoteAddr, long operand) {
        InlineVerbs.wrU32U64P(fn, qpx, rkey, remoteAddr, operand);
    }

    @Override
    public void wrBindMw(long fn, long qpx, long mw, int rkey, long bindInfo) {
        InlineVerbs.wrPU32P(fn, qpx, mw, rkey, bindInfo);
    }

    @Override
    public void wrSendTso(long fn, long qpx, long hdr, int hdrSize, int mss) {
        InlineVerbs.wrPU16U16(fn, qpx, hdr, hdrSize, mss);
    }

    @Override
    public void wrFlush(long fn, long qpx, int rkey, long remoteAddr, long length, int type, int level) {
        InlineVerbs.wrU32U64U64U8U8(fn, qpx, rkey, remoteAddr, length, type, level);
    }

    @Override
    public void wrSetUdAddr(long fn, long qpx, long ah, int remoteQpn, int remoteQkey) {
        InlineVerbs.wrPU32U32(fn, qpx, ah, remoteQpn, remoteQkey);
    }

    @Override
    public void wrSetSge(long fn, long qpx, int lkey, long addr, int length) {
        InlineVerbs.wrU32U64U32(fn, qpx, lkey, addr, length);
    }

    @Override
    public void wrSetList(long fn, long qpx, long count, long list) {
        InlineVerbs.wrLP(fn, qpx, count, list);
    }

    @Override
    public void wrSetInlineData(long fn, long qpx, long addr, long length) {
        InlineVerbs.wrPL(fn, qpx, addr, length);
    }
    // ---- end of nwr's block ----

    // ---- npd (issue 12): protection domain, completion queue, their memory and fields ----

    /**
     * A binding for field access and memory only ({@code get*}, {@code put*}, {@link #allocate}, {@link #free}),
     * which need no library: for the static attribute copies that have no context at hand.
     */
    public static final JnrIbverbsBinding FIELDS = new JnrIbverbsBinding(null);

    @Override
    public int getU16(long address) {
        return NativeMemory.getU16(address);
    }

    @Override
    public int getU8(long address) {
        return NativeMemory.getU8(address);
    }

    @Override
    public long allocPd(long context) {
        long pd = libs.ibverbs().ibv_alloc_pd(context);
        return created(pd, pd == 0 ? libs.lastErrno() : 0, Errno.EINVAL);
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

    // ---- nctx: the context and the device

    @Override
    public long openDevice(String name) {
        Ibverbs ib = libs.ibverbs();
        long num = NativeMemory.allocate(4);
        try {
            long list = ib.ibv_get_device_list(num);
            if (list == 0) {
                return -(libs.lastErrno() != 0 ? libs.lastErrno() : Errno.ENODEV);
            }
            try {
                int n = NativeMemory.getInt(num);
                for (int i = 0; i < n; i++) {
                    long dev = NativeMemory.getAddress(list + 8L * i);
                    if (name.equals(NativeMemory.getString(ib.ibv_get_device_name(dev)))) {
                        return created(ib.ibv_open_device(dev));
                    }
                }
                return -Errno.ENODEV;
            } finally {
                ib.ibv_free_device_list(list);
            }
        } finally {
            NativeMemory.free(num);
        }
    }

    @Override
    public int closeDevice(long context) {
        return failure(libs.ibverbs().ibv_close_device(context));
    }

    @Override
    public long createCompChannel(long context) {
        return created(libs.ibverbs().ibv_create_comp_channel(context));
    }

    @Override
    public int getAsyncEvent(long context, long event) {
        return failure(libs.ibverbs().ibv_get_async_event(context, event));
    }

    @Override
    public void ackAsyncEvent(long event) {
        libs.ibverbs().ibv_ack_async_event(event);
    }
}
