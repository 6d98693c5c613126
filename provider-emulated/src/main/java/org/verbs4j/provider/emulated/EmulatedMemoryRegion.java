package org.verbs4j.provider.emulated;

import java.lang.foreign.MemorySegment;

import org.verbs4j.AccessFlags;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.emulated.internal.MemoryKey;
import org.verbs4j.spi.support.AbstractVerbsObject;

/**
 * A registered memory region. Its lkey and rkey are the same key-table entry; every access through them
 * is bounds- and access-checked against it and then made on the registered segment itself.
 */
final class EmulatedMemoryRegion extends AbstractVerbsObject implements MemoryRegion {
    final EmulatedContext context;
    final EmulatedProtectionDomain pd;
    final MemorySegment segment;
    final int access;
    final long address;
    final MemoryKey key;

    EmulatedMemoryRegion(EmulatedProtectionDomain pd, MemorySegment segment, int access) {
        super("MemoryRegion", pd.context, pd.context.lock);
        this.context = pd.context;
        this.pd = pd;
        this.segment = segment;
        this.access = access;
        this.address = (access & AccessFlags.ZERO_BASED) != 0 ? 0 : segment.address();
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
    public ProtectionDomain pd() {
        checkOpen();
        return pd;
    }

    @Override
    public int lkey() {
        checkOpen();
        return key.key;
    }

    @Override
    public int rkey() {
        checkOpen();
        return key.key;
    }

    @Override
    public long address() {
        checkOpen();
        return address;
    }

    @Override
    public long length() {
        checkOpen();
        return segment.byteSize();
    }

    @Override
    public MemorySegment segment() {
        checkOpen();
        return segment;
    }

    @Override
    public int access() {
        checkOpen();
        return access;
    }

    @Override
    protected int destroy() {
        pd.device().keys.release(key);
        pd.regions.remove(segment);
        return 0;
    }

    @Override
    public String toString() {
        return "EmulatedMemoryRegion[lkey=0x" + Integer.toHexString(key.key) + ", " + segment.byteSize() + " bytes, "
                + AccessFlags.toString(access) + "]";
    }
}
