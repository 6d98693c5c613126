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

/** librdmacm through FFM: the raw calls and memory primitives {@link LibRdmaCm} needs, nothing more. */
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
    protected int errno() {
        return Ibverbs.errno();
    }

    @Override
    protected long rdma_create_event_channel() {
        return Rdmacm.call(Rdmacm.rdma_create_event_channel$mh);
    }

    @Override
    protected void rdma_destroy_event_channel(long channel) {
        Rdmacm.call(Rdmacm.rdma_destroy_event_channel$mh, channel);
    }

    @Override
    protected int rdma_create_id(long channel, long idOut, long context, int portSpace) {
        return (int) Rdmacm.call(Rdmacm.rdma_create_id$mh, channel, idOut, context, portSpace);
    }

    @Override
    protected int rdma_destroy_id(long id) {
        return (int) Rdmacm.call(Rdmacm.rdma_destroy_id$mh, id);
    }

    @Override
    protected int rdma_bind_addr(long id, long sockaddr) {
        return (int) Rdmacm.call(Rdmacm.rdma_bind_addr$mh, id, sockaddr);
    }

    @Override
    protected int rdma_resolve_addr(long id, long src, long dst, int timeoutMs) {
        return (int) Rdmacm.call(Rdmacm.rdma_resolve_addr$mh, id, src, dst, timeoutMs);
    }

    @Override
    protected int rdma_resolve_route(long id, int timeoutMs) {
        return (int) Rdmacm.call(Rdmacm.rdma_resolve_route$mh, id, timeoutMs);
    }

    @Override
    protected int rdma_listen(long id, int backlog) {
        return (int) Rdmacm.call(Rdmacm.rdma_listen$mh, id, backlog);
    }

    @Override
    protected int rdma_connect(long id, long connParam) {
        return (int) Rdmacm.call(Rdmacm.rdma_connect$mh, id, connParam);
    }

    @Override
    protected int rdma_accept(long id, long connParam) {
        return (int) Rdmacm.call(Rdmacm.rdma_accept$mh, id, connParam);
    }

    @Override
    protected int rdma_reject(long id, long privateData, byte length) {
        return (int) Rdmacm.call(Rdmacm.rdma_reject$mh, id, privateData, length);
    }

    @Override
    protected int rdma_establish(long id) {
        return (int) Rdmacm.call(Rdmacm.rdma_establish$mh, id);
    }

    @Override
    protected int rdma_disconnect(long id) {
        return (int) Rdmacm.call(Rdmacm.rdma_disconnect$mh, id);
    }

    @Override
    protected int rdma_migrate_id(long id, long channel) {
        return (int) Rdmacm.call(Rdmacm.rdma_migrate_id$mh, id, channel);
    }

    @Override
    protected int rdma_set_option(long id, int level, int optname, long optval, long optlen) {
        return (int) Rdmacm.call(Rdmacm.rdma_set_option$mh, id, level, optname, optval, optlen);
    }

    @Override
    protected int rdma_join_multicast(long id, long addr, long context) {
        return (int) Rdmacm.call(Rdmacm.rdma_join_multicast$mh, id, addr, context);
    }

    @Override
    protected int rdma_join_multicast_ex(long id, long mcJoinAttr, long context) {
        return (int) Rdmacm.call(Rdmacm.rdma_join_multicast_ex$mh, id, mcJoinAttr, context);
    }

    @Override
    protected int rdma_leave_multicast(long id, long addr) {
        return (int) Rdmacm.call(Rdmacm.rdma_leave_multicast$mh, id, addr);
    }

    @Override
    protected int rdma_init_qp_attr(long id, long qpAttr, long mask) {
        return (int) Rdmacm.call(Rdmacm.rdma_init_qp_attr$mh, id, qpAttr, mask);
    }

    @Override
    protected int rdma_get_cm_event(long channel, long eventOut) {
        return (int) Rdmacm.call(Rdmacm.rdma_get_cm_event$mh, channel, eventOut);
    }

    @Override
    protected int rdma_ack_cm_event(long event) {
        return (int) Rdmacm.call(Rdmacm.rdma_ack_cm_event$mh, event);
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
