package org.verbs4j.provider.ffm.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import org.verbs4j.provider.nativecommon.internal.IbverbsBinding;
import org.verbs4j.provider.nativecommon.internal.LibIbverbs;
import org.verbs4j.provider.nativecommon.internal.LibIbverbsOps;

/**
 * libibverbs through FFM as the shared native object model's {@link IbverbsBinding}. The control path comes from
 * the exported functions declared once in {@link LibIbverbs} and bound here by {@link FfmDeclaredLibrary} (their
 * {@code CoreVerbs} are written once, in provider-native-common), the control-path context ops declared once in
 * {@link LibIbverbsOps} and bound here the same way (their {@code ContextOps} methods are written once too) and
 * {@link FfmCLibrary} (libc); this class holds what is written by hand for speed: fields by address and the data
 * path ({@code post_send}, {@code post_recv}, {@code poll_cq}, the {@code ibv_qp_ex} WR session and the
 * {@code ibv_cq_ex} poll ops), each one downcall of a {@code static final} handle of {@link InlineOps} with no
 * allocation, critical where {@code CriticalDataPath} allows it.
 */
public final class FfmIbverbsBinding implements IbverbsBinding, FfmCLibrary {
    /** The one instance: the downcalls are static. */
    public static final FfmIbverbsBinding INSTANCE = new FfmIbverbsBinding();
    /** All of native memory, for the fields the object model reads and writes by address. */
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private FfmIbverbsBinding() {}

    /** The declared functions, bound on first use (after {@link IbverbsLibrary#load()}). */
    private static final class Declared {
        static final SymbolLookup LIBRARY = SymbolLookup.libraryLookup(IbverbsLibrary.SONAME, Arena.global());
        static final LibIbverbs LIBIBVERBS = FfmDeclaredLibrary.bind(LibIbverbs.class, LIBRARY,
                IbverbsLibrary.SONAME);
        static final LibIbverbsOps OPS = FfmDeclaredLibrary.bind(LibIbverbsOps.class, LIBRARY,
                IbverbsLibrary.SONAME);
    }

    @Override
    public LibIbverbs libibverbs() {
        return Declared.LIBIBVERBS;
    }

    @Override
    public LibIbverbsOps libibverbsOps() {
        return Declared.OPS;
    }

    private static MemorySegment at(long address) {
        return MemorySegment.ofAddress(address);
    }

    // ---- fields by address (NativeMemoryAccess): no native call

    @Override
    public int getInt(long address) {
        return ALL.get(JAVA_INT_UNALIGNED, address);
    }

    @Override
    public void putInt(long address, int value) {
        ALL.set(JAVA_INT_UNALIGNED, address, value);
    }

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
    public int getU16(long address) {
        return ALL.get(JAVA_SHORT_UNALIGNED, address) & 0xffff;
    }

    @Override
    public int getU8(long address) {
        return ALL.get(JAVA_BYTE, address) & 0xff;
    }

    @Override
    public void getBytes(long address, byte[] into) {
        MemorySegment.copy(ALL, JAVA_BYTE, address, into, 0, into.length);
    }

    @Override
    public void putBytes(long address, byte[] from) {
        MemorySegment.copy(from, 0, ALL, JAVA_BYTE, address, from.length);
    }

    // ---- data path: ibv_context.ops (ContextOps); the raw result, as NativeErrors#ofOp and #ofPoll read it

    @Override
    public int postSend(long fn, long qp, long wr, long badWr) {
        return InlineOps.call_ppp(MemorySegment.ofAddress(fn), qp, wr, badWr);
    }

    @Override
    public int postRecv(long fn, long queue, long wr, long badWr) {
        return InlineOps.call_ppp(MemorySegment.ofAddress(fn), queue, wr, badWr);
    }

    @Override
    public int pollCq(long fn, long cq, int entries, long wc) {
        return InlineOps.poll_cq(at(fn), at(cq), entries, at(wc));
    }

    // ---- data path: the ibv_qp_ex WR session (QpExOps); builders and setters critical, wr_start, wr_complete and
    // wr_abort not, the ibv_qp_ex and the scratch memory passed as plain addresses

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

    // ---- data path: the ibv_cq_ex poll ops (CqExOps)

    @Override
    public int startPoll(long fn, long cq, long attr) {
        try {
            return (int) InlineOps.start_poll$mh.invokeExact(at(fn), cq, attr);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }

    @Override
    public int nextPoll(long fn, long cq) {
        try {
            return (int) InlineOps.next_poll$mh.invokeExact(at(fn), cq);
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
    public long readU64(long fn, long cq) {
        try {
            return (long) InlineOps.read_u64$mh.invokeExact(at(fn), cq);
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

    // ---- the data path as critical calls, where CriticalDataPath allows it

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
    public int nextPollCritical(long fn, long cq) {
        try {
            return (int) InlineOps.int_critical$mh.invokeExact(at(fn), cq);
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
            return (int) InlineOps.int_critical$mh.invokeExact(at(fn), qpx);
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }
}
