package org.verbs4j.provider.jnr;

import org.verbs4j.provider.jnr.internal.JnrIbverbsBinding;
import org.verbs4j.provider.nativecommon.internal.NativeQpAttrs;
import java.util.concurrent.TimeUnit;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;
import org.verbs4j.QpAttributes;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_attr;
import org.verbs4j.provider.jnr.internal.NativeLibraries;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.jnr.internal.Rdmacm;
import org.verbs4j.provider.nativecommon.internal.LibRdmaCm;
import org.verbs4j.provider.jnr.internal.Fds;

/** librdmacm through JNR-FFI: the raw calls and memory primitives {@link LibRdmaCm} needs, nothing more. */
final class JnrRdmaCm extends LibRdmaCm {
    private final NativeLibraries libs;
    private final JnrIbverbsBinding binding;
    private final Rdmacm rdmacm;
    private final Runtime runtime;
    /** 8 bytes for one {@code struct pollfd} per waiting thread. */
    private final ThreadLocal<Long> pollfd = ThreadLocal.withInitial(() -> NativeMemory.allocate(8));

    private JnrRdmaCm(NativeLibraries libs, Rdmacm rdmacm) {
        this.libs = libs;
        this.binding = new JnrIbverbsBinding(libs);
        this.rdmacm = rdmacm;
        this.runtime = Runtime.getRuntime(rdmacm);
    }

    /**
     * Loads librdmacm with every symbol bound.
     *
     * @throws UnsatisfiedLinkError if it or a symbol is missing
     */
    static JnrRdmaCm load(NativeLibraries libs) {
        return new JnrRdmaCm(libs, LibraryLoader.create(Rdmacm.class).failImmediately().load(SONAME));
    }

    @Override
    protected long allocate(long bytes) {
        return NativeMemory.allocate(bytes);
    }

    @Override
    protected void free(long address) {
        NativeMemory.free(address);
    }

    @Override
    protected void put(long address, byte[] bytes) {
        NativeMemory.putBytes(address, bytes, 0, bytes.length);
    }

    @Override
    protected byte[] get(long address, int length) {
        byte[] b = new byte[length];
        NativeMemory.getBytes(address, b, 0, length);
        return b;
    }

    @Override
    protected int errno() {
        return runtime.getLastError();
    }

    @Override
    protected long rdma_create_event_channel() {
        return rdmacm.rdma_create_event_channel();
    }

    @Override
    protected void rdma_destroy_event_channel(long channel) {
        rdmacm.rdma_destroy_event_channel(channel);
    }

    @Override
    protected int rdma_create_id(long channel, long idOut, long context, int portSpace) {
        return rdmacm.rdma_create_id(channel, idOut, context, portSpace);
    }

    @Override
    protected int rdma_destroy_id(long id) {
        return rdmacm.rdma_destroy_id(id);
    }

    @Override
    protected int rdma_bind_addr(long id, long sockaddr) {
        return rdmacm.rdma_bind_addr(id, sockaddr);
    }

    @Override
    protected int rdma_resolve_addr(long id, long src, long dst, int timeoutMs) {
        return rdmacm.rdma_resolve_addr(id, src, dst, timeoutMs);
    }

    @Override
    protected int rdma_resolve_route(long id, int timeoutMs) {
        return rdmacm.rdma_resolve_route(id, timeoutMs);
    }

    @Override
    protected int rdma_listen(long id, int backlog) {
        return rdmacm.rdma_listen(id, backlog);
    }

    @Override
    protected int rdma_connect(long id, long connParam) {
        return rdmacm.rdma_connect(id, connParam);
    }

    @Override
    protected int rdma_accept(long id, long connParam) {
        return rdmacm.rdma_accept(id, connParam);
    }

    @Override
    protected int rdma_reject(long id, long privateData, byte length) {
        return rdmacm.rdma_reject(id, privateData, length);
    }

    @Override
    protected int rdma_establish(long id) {
        return rdmacm.rdma_establish(id);
    }

    @Override
    protected int rdma_disconnect(long id) {
        return rdmacm.rdma_disconnect(id);
    }

    @Override
    protected int rdma_migrate_id(long id, long channel) {
        return rdmacm.rdma_migrate_id(id, channel);
    }

    @Override
    protected int rdma_set_option(long id, int level, int optname, long optval, long optlen) {
        return rdmacm.rdma_set_option(id, level, optname, optval, optlen);
    }

    @Override
    protected int rdma_join_multicast(long id, long addr, long context) {
        return rdmacm.rdma_join_multicast(id, addr, context);
    }

    @Override
    protected int rdma_join_multicast_ex(long id, long mcJoinAttr, long context) {
        return rdmacm.rdma_join_multicast_ex(id, mcJoinAttr, context);
    }

    @Override
    protected int rdma_leave_multicast(long id, long addr) {
        return rdmacm.rdma_leave_multicast(id, addr);
    }

    @Override
    protected int rdma_init_qp_attr(long id, long qpAttr, long mask) {
        return rdmacm.rdma_init_qp_attr(id, qpAttr, mask);
    }

    @Override
    protected int rdma_get_cm_event(long channel, long eventOut) {
        return rdmacm.rdma_get_cm_event(channel, eventOut);
    }

    @Override
    protected int rdma_ack_cm_event(long event) {
        return rdmacm.rdma_ack_cm_event(event);
    }

    @Override
    protected String ibv_get_device_name(long device) {
        return NativeMemory.getString(libs.ibverbs().ibv_get_device_name(device));
    }

    @Override
    protected long qpAttrSize() {
        return ibv_qp_attr.SIZEOF;
    }

    @Override
    protected QpAttributes readQpAttr(long qpAttr, int mask) {
        return NativeQpAttrs.readQpAttr(binding, qpAttr, mask);
    }

    @Override
    public boolean awaitReadable(int fd, long timeoutNanos) {
        return Fds.awaitReadable(libs, pollfd.get(), fd, timeoutNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public String toString() {
        return "librdmacm through JNR-FFI";
    }
}
