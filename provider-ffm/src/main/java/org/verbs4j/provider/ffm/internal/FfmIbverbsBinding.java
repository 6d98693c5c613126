package org.verbs4j.provider.ffm.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
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

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle calloc$mh = LINKER.downcallHandle(
            LINKER.defaultLookup().find("calloc").orElseThrow(), FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle free$mh = LINKER.downcallHandle(
            LINKER.defaultLookup().find("free").orElseThrow(), FunctionDescriptor.ofVoid(JAVA_LONG));

    private FfmIbverbsBinding() {}

    private static MemorySegment at(long address) {
        return MemorySegment.ofAddress(address);
    }

    /** An address, or minus the errno of the call that returned NULL. */
    private static long created(MemorySegment object) {
        return object.address() != 0 ? object.address() : -Ibverbs.errnoOf(-1);
    }

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

    // ---- npd (issue 12): protection domain, completion queue, their memory and fields ----

    @Override
    public long getLong(long address) {
        return ALL.get(JAVA_LONG, address);
    }

    @Override
    public int getU16(long address) {
        return ALL.get(JAVA_SHORT, address) & 0xffff;
    }

    @Override
    public int getU8(long address) {
        return ALL.get(JAVA_BYTE, address) & 0xff;
    }

    @Override
    public void putByte(long address, int value) {
        ALL.set(JAVA_BYTE, address, (byte) value);
    }

    @Override
    public void putShort(long address, int value) {
        ALL.set(JAVA_SHORT, address, (short) value);
    }

    @Override
    public void putBytes(long address, byte[] bytes) {
        MemorySegment.copy(bytes, 0, ALL, JAVA_BYTE, address, bytes.length);
    }

    @Override
    public void getBytes(long address, byte[] bytes) {
        MemorySegment.copy(ALL, JAVA_BYTE, address, bytes, 0, bytes.length);
    }

    @Override
    public long allocate(long bytes) {
        long a;
        try {
            a = (long) calloc$mh.invokeExact(1L, Math.max(8L, bytes));
        } catch (Throwable t) {
            throw new AssertionError("calloc threw " + t, t);
        }
        if (a == 0) {
            throw new OutOfMemoryError("calloc of " + bytes + " bytes failed");
        }
        return a;
    }

    @Override
    public void free(long address) {
        try {
            free$mh.invokeExact(address);
        } catch (Throwable t) {
            throw new AssertionError("free threw " + t, t);
        }
    }

    @Override
    public long allocPd(long context) {
        return created(Ibverbs.ibv_alloc_pd(at(context)));
    }

    @Override
    public int deallocPd(long pd) {
        return Ibverbs.failure(Ibverbs.ibv_dealloc_pd(at(pd)));
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
}
