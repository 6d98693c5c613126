package org.verbs4j.spi.support;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.verbs4j.Context;
import org.verbs4j.DeviceMemory;

/**
 * A buffer of device memory, written once for every provider: its length, the range and liveness checks of a copy,
 * and the hold that makes a concurrent {@link #close()} wait for a copy under way. A provider extends it and only
 * binds: it copies a checked range ({@link #toDevice}, {@link #fromDevice}) and frees the buffer in
 * {@link #destroy()}. A region registered on the buffer depends on it, so the buffer refuses to close with
 * {@code EBUSY} while the region is open.
 *
 * <p>A subclass's constructor ends, as every {@link AbstractVerbsObject}'s does, with {@link #register()}.
 *
 * @see "ibv_alloc_dm(3)"
 */
public abstract class AbstractDeviceMemory extends AbstractVerbsObject implements DeviceMemory {
    private final Context context;
    private final long length;

    /**
     * Makes an open buffer.
     *
     * @param owner the provider's context object, which frees the buffer when it closes
     * @param closeLock the lock the close holds around {@code ibv_free_dm}; null for the buffer's monitor
     * @param context the context it was allocated on, as {@link #context()} answers it
     * @param length its length, bytes
     */
    protected AbstractDeviceMemory(AbstractVerbsObject owner, Object closeLock, Context context, long length) {
        super("DeviceMemory", owner, closeLock);
        this.context = context;
        this.length = length;
    }

    /**
     * Copies {@code source} into the buffer at {@code dmOffset}; the range is checked, the source alive, and the
     * buffer held open.
     *
     * @param dmOffset where the copy starts, bytes
     * @param source the bytes, {@code source.byteSize()} of them fitting the buffer
     */
    protected abstract void toDevice(long dmOffset, MemorySegment source);

    /**
     * Copies {@code destination.byteSize()} bytes of the buffer from {@code dmOffset} into {@code destination};
     * the range is checked, the destination alive and writable, and the buffer held open.
     *
     * @param dmOffset where the copy starts, bytes
     * @param destination where the bytes go
     */
    protected abstract void fromDevice(long dmOffset, MemorySegment destination);

    @Override
    public final Context context() {
        checkOpen();
        return context;
    }

    @Override
    public final long length() {
        checkOpen();
        return length;
    }

    @Override
    public final void copyToDm(long dmOffset, MemorySegment source) {
        checkOpen();
        Objects.requireNonNull(source, "source");
        Arguments.dmRange("copyToDm", dmOffset, source.byteSize(), length);
        alive(source, "source");
        try (CallHold hold = CallHold.on(this)) {
            toDevice(dmOffset, source);
        }
    }

    @Override
    public final void copyFromDm(long dmOffset, MemorySegment destination) {
        checkOpen();
        Objects.requireNonNull(destination, "destination");
        Arguments.dmRange("copyFromDm", dmOffset, destination.byteSize(), length);
        if (destination.isReadOnly()) {
            throw new IllegalArgumentException("destination: the segment is read-only");
        }
        alive(destination, "destination");
        try (CallHold hold = CallHold.on(this)) {
            fromDevice(dmOffset, destination);
        }
    }

    private static void alive(MemorySegment segment, String what) {
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException(what + ": its arena is closed");
        }
    }

    /** {@return the buffer's length, bytes, without a state check} */
    protected final long lengthValue() {
        return length;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + length + " bytes" + (isClosed() ? ", freed" : "") + "]";
    }
}
