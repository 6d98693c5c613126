package org.verbs4j.provider.ffm;

import org.verbs4j.provider.ffm.internal.FfmIbverbsBinding;
import org.verbs4j.provider.nativecommon.internal.NativeQpAttrs;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.util.concurrent.TimeUnit;
import org.verbs4j.QpAttributes;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.Rdmacm;
import org.verbs4j.provider.ffm.internal.Structs.ibv_qp_attr;
import org.verbs4j.provider.nativecommon.internal.LibRdmaCm;
import org.verbs4j.provider.ffm.internal.Poller;

/** librdmacm through FFM: its declared functions and the memory primitives {@link LibRdmaCm} needs. */
final class FfmRdmaCm extends LibRdmaCm {
    /** Why librdmacm cannot be used, or null when it loads; computed once. */
    static final Throwable UNAVAILABLE = probe();

    private static Throwable probe() {
        try {
            SymbolLookup.libraryLookup(SONAME, Arena.global());
            return null;
        } catch (IllegalArgumentException | IllegalCallerException e) {
            return e;
        }
    }

    /** librdmacm with every declared function bound; throws if it or a function is missing. */
    FfmRdmaCm() {
        super(Rdmacm.FUNCTIONS);
    }

    private static MemorySegment at(long address, long size) {
        return MemorySegment.ofAddress(address).reinterpret(size);
    }

    @Override
    protected long allocate(long bytes) {
        try {
            long a = (long) Rdmacm.malloc$mh.invokeExact(bytes);
            if (a == 0) {
                throw new OutOfMemoryError("malloc(" + bytes + ") for a librdmacm call");
            }
            return a;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    @Override
    protected void free(long address) {
        try {
            Rdmacm.free$mh.invokeExact(address);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    @Override
    protected void put(long address, byte[] bytes) {
        MemorySegment.copy(bytes, 0, at(address, bytes.length), JAVA_BYTE, 0, bytes.length);
    }

    @Override
    protected byte[] get(long address, int length) {
        return at(address, length).toArray(JAVA_BYTE);
    }

    @Override
    protected String ibv_get_device_name(long device) {
        return Ibverbs.ibv_get_device_name(MemorySegment.ofAddress(device)).reinterpret(256).getString(0);
    }

    @Override
    protected long qpAttrSize() {
        return ibv_qp_attr.LAYOUT.byteSize();
    }

    @Override
    protected QpAttributes readQpAttr(long qpAttr, int mask) {
        return NativeQpAttrs.readQpAttr(FfmIbverbsBinding.INSTANCE, qpAttr, mask);
    }

    @Override
    public boolean awaitReadable(int fd, long timeoutNanos) {
        return Poller.awaitReadable(fd, timeoutNanos, TimeUnit.NANOSECONDS, "rdma_get_cm_event");
    }

    @Override
    public String toString() {
        return "librdmacm through FFM";
    }
}
