package org.verbs4j.provider.jnr;

import org.verbs4j.provider.jnr.internal.JnrIbverbsBinding;
import org.verbs4j.provider.nativecommon.internal.NativeQpAttrs;
import java.util.concurrent.TimeUnit;
import org.verbs4j.QpAttributes;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_attr;
import org.verbs4j.provider.jnr.internal.NativeLibraries;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.jnr.internal.Rdmacm;
import org.verbs4j.provider.nativecommon.internal.LibRdmaCm;
import org.verbs4j.provider.jnr.internal.Fds;

/** librdmacm through JNR-FFI: its declared functions and the memory primitives {@link LibRdmaCm} needs. */
final class JnrRdmaCm extends LibRdmaCm {
    private final NativeLibraries libs;
    private final JnrIbverbsBinding binding;
    /** 8 bytes for one {@code struct pollfd} per waiting thread. */
    private final ThreadLocal<Long> pollfd = ThreadLocal.withInitial(() -> NativeMemory.allocate(8));

    private JnrRdmaCm(NativeLibraries libs) {
        super(Rdmacm.bind());
        this.libs = libs;
        this.binding = new JnrIbverbsBinding(libs);
    }

    /**
     * Loads librdmacm with every declared function bound.
     *
     * @throws UnsatisfiedLinkError if it or a function is missing
     */
    static JnrRdmaCm load(NativeLibraries libs) {
        return new JnrRdmaCm(libs);
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
