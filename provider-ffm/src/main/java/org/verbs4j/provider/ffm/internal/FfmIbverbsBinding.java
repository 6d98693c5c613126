package org.verbs4j.provider.ffm.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

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

    @Override
    public int getInt(long address) {
        return ALL.get(JAVA_INT, address);
    }

    @Override
    public void putInt(long address, int value) {
        ALL.set(JAVA_INT, address, value);
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

    // ---- nwr (issue 12): the WR session over the ibv_qp_ex function pointers ----
    // The static final handles of InlineOps, with its critical choices: builders and setters critical, wr_start,
    // wr_complete and wr_abort not. The ibv_qp_ex and the scratch memory are passed as plain addresses.

    @Override
    public long getLong(long address) {
        return ALL.get(JAVA_LONG_UNALIGNED, address);
    }

    @Override
    public void putLong(long address, long value) {
        ALL.set(JAVA_LONG_UNALIGNED, address, value);
    }

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
}
