package org.verbs4j.provider.emulated.verbs;

import java.lang.foreign.MemorySegment;

import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.spi.support.AbstractDeviceMemory;

/**
 * A buffer of the emulated device's own memory: words of a {@code long[]} on the Java heap, which the garbage
 * collector frees only when nothing (no region's key, no copy under way) reaches it, so no access through a stale
 * key can touch freed memory, and RDMA atomics find the 8-byte alignment they need. Its bytes count against the
 * device's {@link EmulatedDevice#MAX_DM_SIZE} until it is freed.
 */
final class EmulatedDeviceMemory extends AbstractDeviceMemory {
    private final EmulatedDevice device;
    /** The buffer's bytes, {@code length} of them. */
    final MemorySegment memory;

    private EmulatedDeviceMemory(EmulatedContext context, long length) {
        super(context, context.lock, context, length);
        this.device = context.device;
        this.memory = MemorySegment.ofArray(new long[(int) ((length + 7) / 8)]).asSlice(0, length);
        register();
    }

    /**
     * {@code ibv_alloc_dm}: takes {@code length} bytes of the device's memory.
     *
     * @param context the open context, its lock held
     * @param length the checked length, bytes
     * @return the buffer
     * @throws VerbsException {@code EINVAL} past {@code max_dm_size}, {@code ENOMEM} when the device's memory is
     *     taken
     */
    static EmulatedDeviceMemory alloc(EmulatedContext context, long length) {
        if (length > EmulatedDevice.MAX_DM_SIZE) {
            throw new VerbsException("ibv_alloc_dm", Errno.EINVAL, length + " bytes is more than max_dm_size, "
                    + EmulatedDevice.MAX_DM_SIZE);
        }
        if (!context.device.takeDeviceMemory(length)) {
            throw new VerbsException("ibv_alloc_dm", Errno.ENOMEM, "the device's " + EmulatedDevice.MAX_DM_SIZE
                    + " bytes of memory are taken by other buffers");
        }
        try {
            return new EmulatedDeviceMemory(context, length);
        } catch (RuntimeException | Error e) {
            context.device.returnDeviceMemory(length);
            throw e;
        }
    }

    @Override
    protected void toDevice(long dmOffset, MemorySegment source) {
        MemorySegment.copy(source, 0, memory, dmOffset, source.byteSize());
    }

    @Override
    protected void fromDevice(long dmOffset, MemorySegment destination) {
        MemorySegment.copy(memory, dmOffset, destination, 0, destination.byteSize());
    }

    @Override
    protected int destroy() {
        device.returnDeviceMemory(lengthValue());
        return 0;
    }
}
