package org.verbs4j.provider.emulated.verbs;

import java.lang.foreign.MemorySegment;

import org.verbs4j.AccessFlags;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.emulated.engine.MemoryKey;
import org.verbs4j.spi.support.AbstractMemoryRegion;

/**
 * A registered memory region. Its lkey and rkey are the same key-table entry; every access through them
 * is bounds- and access-checked against it and then made on the registered segment itself.
 */
public final class EmulatedMemoryRegion extends AbstractMemoryRegion {
    final EmulatedContext context;
    // Unchecked copies of what the object model holds, read by the engine, which checks isClosed() itself.
    final EmulatedProtectionDomain pd;
    final MemorySegment segment;
    final int access;
    final long address;
    final MemoryKey key;

    EmulatedMemoryRegion(EmulatedProtectionDomain pd, MemorySegment segment, int access) {
        super(pd.context, pd.context.lock, pd, pd.regions, segment, access, zeroBasedOr(segment, access));
        this.context = pd.context;
        this.pd = pd;
        this.segment = segment;
        this.access = access;
        this.address = zeroBasedOr(segment, access);
        MemoryKey k = pd.device().keys.allocate(MemoryKey.KIND_MR, pd, this);
        if (k == null) {
            throw new VerbsException("ibv_reg_mr", Errno.ENOMEM, "the key table is full");
        }
        synchronized (pd.device().keys) {
            k.segment = segment;
            k.segmentBase = address;
            k.start = address;
            k.length = segment.byteSize();
            k.access = access;
            k.valid = true;
        }
        this.key = k;
        dependOn(pd);
        register();
    }

    @Override
    protected int lkeyValue() {
        return key.key;
    }

    @Override
    protected int rkeyValue() {
        return key.key;
    }

    @Override
    protected int destroy() {
        pd.device().keys.release(key);
        return 0;
    }

    /** {@return 0 for a zero-based region, else the segment's address} */
    private static long zeroBasedOr(MemorySegment segment, int access) {
        return (access & AccessFlags.ZERO_BASED) != 0 ? 0 : segment.address();
    }

    @Override
    public String toString() {
        return "EmulatedMemoryRegion[lkey=0x" + Integer.toHexString(key.key) + ", " + segment.byteSize() + " bytes, "
                + AccessFlags.toString(access) + "]";
    }
}
