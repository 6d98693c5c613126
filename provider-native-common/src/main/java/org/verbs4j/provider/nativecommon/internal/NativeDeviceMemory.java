package org.verbs4j.provider.nativecommon.internal;

import java.lang.foreign.MemorySegment;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_dm;
import org.verbs4j.spi.support.AbstractDeviceMemory;
import org.verbs4j.spi.support.AbstractVerbsObject;

/**
 * A buffer of device memory, {@code struct ibv_dm}, of either native provider. A copy goes through native memory
 * of its own, so that the caller's segment is read or written only by Java ({@code MemorySegment.copy}), whose
 * checks no concurrent arena close can defeat, and the device's copy op ({@code ibv_dm.memcpy_to_dm},
 * {@code memcpy_from_dm}, as the inline {@code ibv_memcpy_to_dm} calls it) reads or writes only that memory.
 *
 * @see "ibv_alloc_dm(3)"
 */
public final class NativeDeviceMemory extends AbstractDeviceMemory {
    /** The most bytes one device copy moves through the staging memory (a multiple of mlx5's 4-byte words). */
    private static final int CHUNK = 1 << 20;
    private final NativeContextSupport context;
    private final long handle;
    private final long memcpyToDm;
    private final long memcpyFromDm;
    /** {@code verbs_context.free_dm}, read once. */
    private final long freeDm;

    /**
     * Wraps a buffer {@code ibv_alloc_dm} returned.
     *
     * @param <C> the provider's context
     * @param context the context it was allocated on
     * @param dm the {@code struct ibv_dm *}, not 0
     * @param length its length, bytes
     */
    public <C extends AbstractVerbsObject & NativeContextSupport & Context> NativeDeviceMemory(C context, long dm,
            long length) {
        super(context, null, context, length);
        this.context = context;
        this.handle = dm;
        IbverbsBinding binding = context.binding();
        this.memcpyToDm = binding.getLong(dm + DeclaredOps.objectOp("ibv_dm", "memcpy_to_dm"));
        this.memcpyFromDm = binding.getLong(dm + DeclaredOps.objectOp("ibv_dm", "memcpy_from_dm"));
        this.freeDm = context.op("free_dm");
        context.track(NativeKind.DM, dm, this);
        register();
    }

    /** {@return the {@code struct ibv_dm *}; the caller checks that the buffer is open} */
    public long handle() {
        return handle;
    }

    @Override
    protected void toDevice(long dmOffset, MemorySegment source) {
        IbverbsBinding binding = context.binding();
        long length = source.byteSize();
        try (TempMemory temp = new TempMemory(binding)) {
            long staging = temp.allocate(Math.min(length, CHUNK));
            for (long done = 0; done < length; ) {
                int n = (int) Math.min(length - done, CHUNK);
                byte[] chunk = new byte[n];
                MemorySegment.copy(source, done, MemorySegment.ofArray(chunk), 0, n);
                binding.putBytes(staging, chunk);
                NativeErrors.check(binding.libibverbsOps().memcpy_to_dm(memcpyToDm, handle, dmOffset + done, staging,
                        n), "ibv_memcpy_to_dm", n + " bytes at offset " + (dmOffset + done));
                done += n;
            }
        }
    }

    @Override
    protected void fromDevice(long dmOffset, MemorySegment destination) {
        IbverbsBinding binding = context.binding();
        long length = destination.byteSize();
        try (TempMemory temp = new TempMemory(binding)) {
            long staging = temp.allocate(Math.min(length, CHUNK));
            byte[] bytes = new byte[(int) Math.min(length, CHUNK)];
            for (long done = 0; done < length; ) {
                int n = (int) Math.min(length - done, CHUNK);
                NativeErrors.check(binding.libibverbsOps().memcpy_from_dm(memcpyFromDm, staging, handle,
                        dmOffset + done, n), "ibv_memcpy_from_dm", n + " bytes at offset " + (dmOffset + done));
                byte[] chunk = n == bytes.length ? bytes : new byte[n];
                binding.getBytes(staging, chunk);
                MemorySegment.copy(MemorySegment.ofArray(chunk), 0, destination, done, n);
                done += n;
            }
        }
    }

    @Override
    protected int destroy() {
        return freeDm == 0 ? Errno.EOPNOTSUPP
                : NativeErrors.errno(context.binding().libibverbsOps().free_dm(freeDm, handle));
    }

    @Override
    protected void afterDestroy() {
        context.untrack(NativeKind.DM, handle, this);
    }
}
