package org.verbs4j.provider.ffm.internal;

// Over 500 lines on purpose: it implements IbverbsBinding whole, one short method per downcall; splitting it would
// split one interface's implementation.

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.nativecommon.internal.IbverbsBinding;

/**
 * libibverbs through FFM as the shared native object model's {@link IbverbsBinding}: each call turns its
 * addresses into segments and calls the downcall of {@link Ibverbs} or {@link InlineOps}.
 */
public final class FfmIbverbsBinding implements IbverbsBinding {
    /** The one instance: the downcalls are static. */
    public static final FfmIbverbsBinding INSTANCE = new FfmIbverbsBinding();
    /** All of native memory, for the fields the object model reads and writes by address. */
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private FfmIbverbsBinding() {}

    private static MemorySegment at(long address) {
        return MemorySegment.ofAddress(address);
    }

    @Override
    public int getInt(long address) {
        return ALL.get(JAVA_INT_UNALIGNED, address);
    }

    @Override
    public void putInt(long address, int value) {
        ALL.set(JAVA_INT_UNALIGNED, address, value);
    }

    @Override
    public int deregMr(long mr) {
        return Ibverbs.failure(Ibverbs.ibv_dereg_mr(MemorySegment.ofAddress(mr)));
    }

    @Override
    public int destroyAh(long ah) {
        return Ibverbs.failure(Ibverbs.ibv_destroy_ah(MemorySegment.ofAddress(ah)));
    }

    @Override
    public int callDeallocOp(long fn, long object) {
        return Ibverbs.failure(InlineOps.dealloc(MemorySegment.ofAddress(fn), MemorySegment.ofAddress(object)));
    }

    @Override
    public int destroyCompChannel(long channel) {
        return Ibverbs.failure(Ibverbs.ibv_destroy_comp_channel(MemorySegment.ofAddress(channel)));
    }

    @Override
    public boolean awaitReadable(int fd, long timeout, TimeUnit unit, String verb) {
        return Poller.awaitReadable(fd, timeout, unit, verb);
    }

    @Override
    public long getAndAckCqEvent(long channel) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cqOut = a.allocate(ADDRESS);
            MemorySegment ctxOut = a.allocate(ADDRESS);
            int rc = Ibverbs.ibv_get_cq_event(MemorySegment.ofAddress(channel), cqOut, ctxOut);
            if (rc != 0) {
                throw new VerbsException("ibv_get_cq_event", Ibverbs.errnoOf(rc), null);
            }
            MemorySegment cq = cqOut.get(ADDRESS, 0);
            Ibverbs.ibv_ack_cq_events(cq, 1);
            return cq.address();
        }
    }

    // ---- nqp: queue pairs and shared receive queues

    @Override
    public long getLong(long address) {
        return ALL.get(JAVA_LONG_UNALIGNED, address);
    }

    @Override
    public void putLong(long address, long value) {
        ALL.set(JAVA_LONG_UNALIGNED, address, value);
    }

    @Override
    public short getShort(long address) {
        return ALL.get(JAVA_SHORT_UNALIGNED, address);
    }

    @Override
    public void putShort(long address, short value) {
        ALL.set(JAVA_SHORT_UNALIGNED, address, value);
    }

    @Override
    public byte getByte(long address) {
        return ALL.get(JAVA_BYTE, address);
    }

    @Override
    public void putByte(long address, byte value) {
        ALL.set(JAVA_BYTE, address, value);
    }

    @Override
    public void getBytes(long address, byte[] into) {
        MemorySegment.copy(ALL, JAVA_BYTE, address, into, 0, into.length);
    }

    @Override
    public void putBytes(long address, byte[] from) {
        MemorySegment.copy(from, 0, ALL, JAVA_BYTE, address, from.length);
    }

    @Override
    public long allocate(long bytes) {
        long address = Ibverbs.calloc(bytes);
        if (address == 0) {
            throw new OutOfMemoryError("calloc of " + bytes + " bytes failed");
        }
        return address;
    }

    @Override
    public void free(long address) {
        Ibverbs.free(address);
    }

    @Override
    public int postSend(long fn, long qp, long wr, long badWr) {
        return InlineOps.call_ppp(MemorySegment.ofAddress(fn), qp, wr, badWr);
    }

    @Override
    public int postRecv(long fn, long queue, long wr, long badWr) {
        return InlineOps.call_ppp(MemorySegment.ofAddress(fn), queue, wr, badWr);
    }

    @Override
    public int bindMw(long fn, long qp, long mw, long bind) {
        return InlineOps.call_ppp(MemorySegment.ofAddress(fn), qp, mw, bind);
    }

    private static long created(MemorySegment object) {
        return object.address() != 0 ? object.address() : -Ibverbs.errnoOf(-1);
    }

    @Override
    public long createQp(long pd, long initAttr) {
        return created(Ibverbs.ibv_create_qp(MemorySegment.ofAddress(pd), MemorySegment.ofAddress(initAttr)));
    }

    @Override
    public long callCreateOp(long fn, long context, long attr) {
        return created(InlineOps.create(MemorySegment.ofAddress(fn), MemorySegment.ofAddress(context),
                MemorySegment.ofAddress(attr)));
    }

    @Override
    public long qpToQpEx(long qp) {
        return created(Ibverbs.ibv_qp_to_qp_ex(MemorySegment.ofAddress(qp)));
    }

    @Override
    public int modifyQp(long qp, long attr, int mask) {
        return Ibverbs.failure(Ibverbs.ibv_modify_qp(MemorySegment.ofAddress(qp), MemorySegment.ofAddress(attr), mask));
    }

    @Override
    public int queryQp(long qp, long attr, int mask, long initAttr) {
        return Ibverbs.failure(Ibverbs.ibv_query_qp(MemorySegment.ofAddress(qp), MemorySegment.ofAddress(attr), mask,
                MemorySegment.ofAddress(initAttr)));
    }

    @Override
    public int destroyQp(long qp) {
        return Ibverbs.failure(Ibverbs.ibv_destroy_qp(MemorySegment.ofAddress(qp)));
    }

    @Override
    public int deallocPd(long pd) {
        return Ibverbs.failure(Ibverbs.ibv_dealloc_pd(MemorySegment.ofAddress(pd)));
    }

    @Override
    public int queryDataInOrder(long qp, int op, int flags) {
        return Ibverbs.ibv_query_qp_data_in_order(MemorySegment.ofAddress(qp), op, flags);
    }

    @Override
    public long createSrq(long pd, long initAttr) {
        return created(Ibverbs.ibv_create_srq(MemorySegment.ofAddress(pd), MemorySegment.ofAddress(initAttr)));
    }

    @Override
    public int modifySrq(long srq, long attr, int mask) {
        return Ibverbs.failure(Ibverbs.ibv_modify_srq(MemorySegment.ofAddress(srq), MemorySegment.ofAddress(attr),
                mask));
    }

    @Override
    public int querySrq(long srq, long attr) {
        return Ibverbs.failure(Ibverbs.ibv_query_srq(MemorySegment.ofAddress(srq), MemorySegment.ofAddress(attr)));
    }

    @Override
    public int destroySrq(long srq) {
        return Ibverbs.failure(Ibverbs.ibv_destroy_srq(MemorySegment.ofAddress(srq)));
    }

    @Override
    public int callSrqNumOp(long fn, long srq, long out) {
        return InlineOps.get_srq_num(MemorySegment.ofAddress(fn), srq, out);
    }

    // ---- nwr (issue 12): the WR session over the ibv_qp_ex function pointers ----
    // The static final handles of InlineOps, with its critical choices: builders and setters critical, wr_start,
    // wr_complete and wr_abort not. The ibv_qp_ex and the scratch memory are passed as plain addresses.

    @Override
    public void wrCall(long fn, long qpx) {
        try {
            InlineOps.wr_void$mh.invokeExact(MemorySegment.ofAddress(fn), qpx);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public int wrComplete(long fn, long qpx) {
        try {
            return (int) InlineOps.wr_complete$mh.invokeExact(MemorySegment.ofAddress(fn), qpx);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void wrBuild(long fn, long qpx) {
        try {
            InlineOps.wr_builder_void$mh.invokeExact(MemorySegment.ofAddress(fn), qpx);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void wrU32(long fn, long qpx, int value) {
        try {
            InlineOps.wr_u32$mh.invokeExact(MemorySegment.ofAddress(fn), qpx, value);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void wrRdma(long fn, long qpx, int rkey, long remoteAddr) {
        try {
            InlineOps.wr_rdma$mh.invokeExact(MemorySegment.ofAddress(fn), qpx, rkey, remoteAddr);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void wrRdmaWriteImm(long fn, long qpx, int rkey, long remoteAddr, int immDataBe) {
        try {
            InlineOps.wr_rdma_write_imm$mh.invokeExact(MemorySegment.ofAddress(fn), qpx, rkey, remoteAddr, immDataBe);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void wrAtomicCmpSwp(long fn, long qpx, int rkey, long remoteAddr, long compare, long swap) {
        try {
            InlineOps.wr_atomic_cmp_swp$mh.invokeExact(MemorySegment.ofAddress(fn), qpx, rkey, remoteAddr, compare,
                    swap);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void wrAtomicFetchAdd(long fn, long qpx, int rkey, long remoteAddr, long add) {
        try {
            InlineOps.wr_atomic_fetch_add$mh.invokeExact(MemorySegment.ofAddress(fn), qpx, rkey, remoteAddr, add);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void wrAtomicWrite(long fn, long qpx, int rkey, long remoteAddr, long operand) {
        try {
            InlineOps.wr_atomic_write$mh.invokeExact(MemorySegment.ofAddress(fn), qpx, rkey, remoteAddr, operand);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void wrBindMw(long fn, long qpx, long mw, int rkey, long bindInfo) {
        try {
            InlineOps.wr_bind_mw$mh.invokeExact(MemorySegment.ofAddress(fn), qpx, mw, rkey, bindInfo);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void wrSendTso(long fn, long qpx, long hdr, int hdrSize, int mss) {
        try {
            InlineOps.wr_send_tso$mh.invokeExact(MemorySegment.ofAddress(fn), qpx, hdr, (short) hdrSize, (short) mss);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void wrFlush(long fn, long qpx, int rkey, long remoteAddr, long length, int type, int level) {
        try {
            InlineOps.wr_flush$mh.invokeExact(MemorySegment.ofAddress(fn), qpx, rkey, remoteAddr, length, (byte) type,
                    (byte) level);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void wrSetUdAddr(long fn, long qpx, long ah, int remoteQpn, int remoteQkey) {
        try {
            InlineOps.wr_set_ud_addr$mh.invokeExact(MemorySegment.ofAddress(fn), qpx, ah, remoteQpn, remoteQkey);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void wrSetSge(long fn, long qpx, int lkey, long addr, int length) {
        try {
            InlineOps.wr_set_sge$mh.invokeExact(MemorySegment.ofAddress(fn), qpx, lkey, addr, length);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void wrSetList(long fn, long qpx, long count, long list) {
        try {
            InlineOps.wr_set_list$mh.invokeExact(MemorySegment.ofAddress(fn), qpx, count, list);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void wrSetInlineData(long fn, long qpx, long addr, long length) {
        try {
            InlineOps.wr_set_inline_data$mh.invokeExact(MemorySegment.ofAddress(fn), qpx, addr, length);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }
    // ---- end of nwr's block ----

    // ---- npd (issue 12): protection domain, completion queue, their memory and fields ----

    @Override
    public int getU16(long address) {
        return ALL.get(JAVA_SHORT_UNALIGNED, address) & 0xffff;
    }

    @Override
    public int getU8(long address) {
        return ALL.get(JAVA_BYTE, address) & 0xff;
    }

    @Override
    public long allocPd(long context) {
        return created(Ibverbs.ibv_alloc_pd(at(context)));
    }

    @Override
    public long regMr(long pd, long address, long length, long iova, int access) {
        return created(Ibverbs.ibv_reg_mr_iova2(at(pd), at(address), length, iova, access));
    }

    @Override
    public long allocMw(long fn, long pd, int type) {
        return created(InlineOps.alloc_mw(at(fn), at(pd), type));
    }

    @Override
    public long createAh(long pd, long attr) {
        return created(Ibverbs.ibv_create_ah(at(pd), at(attr)));
    }

    @Override
    public long createCq(long context, int cqe, long channel, int compVector) {
        return created(Ibverbs.ibv_create_cq(at(context), cqe, MemorySegment.NULL, at(channel), compVector));
    }

    @Override
    public long createCqEx(long fn, long context, long attr) {
        return created(InlineOps.create(at(fn), at(context), at(attr)));
    }

    @Override
    public int destroyCq(long cq) {
        return Ibverbs.failure(Ibverbs.ibv_destroy_cq(at(cq)));
    }

    @Override
    public int pollCq(long fn, long cq, int entries, long wc) {
        return InlineOps.poll_cq(at(fn), at(cq), entries, at(wc));
    }

    @Override
    public int reqNotifyCq(long fn, long cq, int solicitedOnly) {
        return InlineOps.req_notify_cq(at(fn), at(cq), solicitedOnly);
    }

    @Override
    public int startPoll(long fn, long cq, long attr) {
        try {
            return (int) InlineOps.start_poll$mh.invokeExact(at(fn), cq, attr);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void endPoll(long fn, long cq) {
        try {
            InlineOps.end_poll$mh.invokeExact(at(fn), cq);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public int readU32(long fn, long cq) {
        try {
            return (int) InlineOps.read_u32$mh.invokeExact(at(fn), cq);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public int readU8(long fn, long cq) {
        try {
            return (byte) InlineOps.read_u8$mh.invokeExact(at(fn), cq) & 0xff;
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public int queryDevice(long context, long attr) {
        return Ibverbs.failure(Ibverbs.ibv_query_device(at(context), at(attr)));
    }

    @Override
    public int queryDeviceEx(long fn, long context, long attr, long size) {
        return Ibverbs.failure(InlineOps.query_device_ex(at(fn), at(context), MemorySegment.NULL, at(attr), size));
    }

    @Override
    public int queryPort(long fn, long context, int port, long attr, long size) {
        int rc = fn != 0 ? InlineOps.query_port(at(fn), at(context), (byte) port, at(attr), size)
                : Ibverbs.ibv_query_port(at(context), (byte) port, at(attr));
        return Ibverbs.failure(rc);
    }

    @Override
    public int queryGid(long context, int port, int index, long gid) {
        return Ibverbs.failure(Ibverbs.ibv_query_gid(at(context), (byte) port, index, at(gid)));
    }

    // ---- end of npd's block ----

    // ---- nctx: the context and the device

    @Override
    public long openDevice(String name) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment num = a.allocate(JAVA_INT);
            MemorySegment list = Ibverbs.ibv_get_device_list(num);
            if (list.address() == 0) {
                return -Ibverbs.errnoOf(-1);
            }
            try {
                int n = num.get(JAVA_INT, 0);
                MemorySegment devices = list.reinterpret(8L * n);
                for (int i = 0; i < n; i++) {
                    MemorySegment dev = devices.getAtIndex(ADDRESS, i);
                    if (name.equals(Ibverbs.ibv_get_device_name(dev).reinterpret(64).getString(0))) {
                        return created(Ibverbs.ibv_open_device(dev));
                    }
                }
                return -org.verbs4j.Errno.ENODEV;
            } finally {
                Ibverbs.ibv_free_device_list(list);
            }
        }
    }

    @Override
    public int closeDevice(long context) {
        return Ibverbs.failure(Ibverbs.ibv_close_device(at(context)));
    }

    @Override
    public long createCompChannel(long context) {
        return created(Ibverbs.ibv_create_comp_channel(at(context)));
    }

    @Override
    public int getAsyncEvent(long context, long event) {
        return Ibverbs.failure(Ibverbs.ibv_get_async_event(at(context), at(event)));
    }

    @Override
    public void ackAsyncEvent(long event) {
        Ibverbs.ibv_ack_async_event(at(event));
    }

    // ---- sess (issue 14): the data path as critical calls, where CriticalDataPath allows it ----

    @Override
    public boolean hasCriticalCalls() {
        return true;
    }

    @Override
    public String libraryOf(long fn) {
        return Ibverbs.dladdrFile(fn);
    }

    @Override
    public int postSendCritical(long fn, long qp, long wr, long badWr) {
        return InlineOps.call_ppp_critical(at(fn), qp, wr, badWr);
    }

    @Override
    public int postRecvCritical(long fn, long queue, long wr, long badWr) {
        return InlineOps.call_ppp_critical(at(fn), queue, wr, badWr);
    }

    @Override
    public int pollCqCritical(long fn, long cq, int entries, long wc) {
        try {
            return (int) InlineOps.poll_cq_critical$mh.invokeExact(at(fn), cq, entries, wc);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public int startPollCritical(long fn, long cq, long attr) {
        try {
            return (int) InlineOps.start_poll_critical$mh.invokeExact(at(fn), cq, attr);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void endPollCritical(long fn, long cq) {
        try {
            InlineOps.void_critical$mh.invokeExact(at(fn), cq);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public void wrStartCritical(long fn, long qpx) {
        try {
            InlineOps.void_critical$mh.invokeExact(at(fn), qpx);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public int wrCompleteCritical(long fn, long qpx) {
        try {
            return (int) InlineOps.wr_complete_critical$mh.invokeExact(at(fn), qpx);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }
}
