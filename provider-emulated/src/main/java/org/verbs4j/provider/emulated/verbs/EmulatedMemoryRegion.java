package org.verbs4j.provider.emulated.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.verbs4j.AccessFlags;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.emulated.engine.MemoryKey;
import org.verbs4j.spi.support.AbstractMemoryRegion;
import org.verbs4j.spi.support.RegionTable;

/**
 * A registered memory region. Its lkey and rkey are the same key-table entry; every access through them
 * is bounds- and access-checked against it and then made on the registered segment itself.
 */
public final class EmulatedMemoryRegion extends AbstractMemoryRegion {
    final EmulatedContext context;
    // Unchecked copies of what the object model holds, read by the engine, which checks isClosed() itself; a
    // re-registration sets them again under the context's lock.
    volatile EmulatedProtectionDomain pd;
    volatile MemorySegment segment;
    volatile int access;
    volatile long address;
    volatile MemoryKey key;
    /** The arena of a dma-buf region's mapping, closed after its deregistration; null for other regions. */
    private final Arena mapping;

    EmulatedMemoryRegion(EmulatedProtectionDomain pd, MemorySegment segment, int access) {
        super(pd.context, pd.context.lock, pd, pd.regions, segment, access, firstAddress(segment, access));
        this.context = pd.context;
        this.pd = pd;
        this.segment = segment;
        this.access = access;
        this.address = firstAddress(segment, access);
        this.key = newKey(pd, segment, address, access, "ibv_reg_mr");
        this.mapping = null;
        dependOn(pd);
        register();
    }

    /** {@code ibv_reg_dm_mr}: a zero-based region over {@code length} bytes of {@code dm} from {@code dmOffset}. */
    EmulatedMemoryRegion(EmulatedProtectionDomain pd, EmulatedDeviceMemory dm, long dmOffset, long length,
            int access) {
        super(pd.context, pd.context.lock, pd, dm, length, access, 0);
        this.context = pd.context;
        this.pd = pd;
        this.segment = dm.memory.asSlice(dmOffset, length);
        this.access = access;
        this.address = 0;
        this.key = newKey(pd, segment, 0, access, "ibv_reg_dm_mr");
        this.mapping = null;
        dependOn(pd);
        dependOnMemory();
        register();
    }

    /**
     * {@code ibv_reg_dmabuf_mr}: a region over a mapped dma-buf, named from {@code iova}; it closes {@code mapping}
     * after its deregistration.
     */
    EmulatedMemoryRegion(EmulatedProtectionDomain pd, MemorySegment memory, Arena mapping, int access, long iova) {
        super(pd.context, pd.context.lock, pd, null, memory.byteSize(), access, iova);
        this.context = pd.context;
        this.pd = pd;
        this.segment = memory;
        this.access = access;
        this.address = iova;
        this.key = newKey(pd, memory, iova, access, "ibv_reg_dmabuf_mr");
        this.mapping = mapping;
        dependOn(pd);
        register();
    }

    /** A valid key over {@code segment}, whose first byte a peer names {@code address}. */
    private MemoryKey newKey(EmulatedProtectionDomain pd, MemorySegment segment, long address, int access,
            String verb) {
        MemoryKey k = pd.device().keys.allocate(MemoryKey.KIND_MR, pd, this);
        if (k == null) {
            throw new VerbsException(verb, Errno.ENOMEM, "the key table is full");
        }
        synchronized (pd.device().keys) {
            k.segment = segment;
            k.segmentBase = address;
            k.start = address;
            k.length = segment.byteSize();
            k.access = access;
            k.valid = true;
        }
        return k;
    }

    @Override
    protected int lkeyValue() {
        return key.key;
    }

    @Override
    protected int rkeyValue() {
        return key.key;
    }

    /**
     * {@code ibv_rereg_mr}: a new key over the new memory, in the new PD, with the new access; the old key ends, so
     * WRs still naming it fail as after a deregistration.
     */
    @Override
    protected int rereg(int flags, ProtectionDomain pd, MemorySegment segment, int access) {
        EmulatedProtectionDomain to = (EmulatedProtectionDomain) pd;
        if ((access & AccessFlags.HUGETLB) != 0 || segment.byteSize() > to.device().attributes().maxMrSize()) {
            return Errno.EINVAL;
        }
        long at = firstAddress(segment, access);
        MemoryKey k;
        try {
            k = newKey(to, segment, at, access, "ibv_rereg_mr");
        } catch (VerbsException e) {
            return e.errno();
        }
        this.pd.device().keys.release(key);
        this.key = k;
        this.pd = to;
        this.segment = segment;
        this.access = access;
        this.address = at;
        return 0;
    }

    @Override
    protected RegionTable regionsOf(ProtectionDomain pd) {
        return ((EmulatedProtectionDomain) pd).regions;
    }

    /** Unmaps a dma-buf region's memory once its key has ended. */
    @Override
    protected void afterDestroy() {
        super.afterDestroy();
        if (mapping != null) {
            mapping.close();
        }
    }

    @Override
    protected int destroy() {
        pd.device().keys.release(key);
        return 0;
    }

    @Override
    public String toString() {
        return "EmulatedMemoryRegion[lkey=0x" + Integer.toHexString(key.key) + ", " + segment.byteSize() + " bytes"
                + (segment.isNative() ? ", " : " of device memory, ")
                + AccessFlags.toString(access) + "]";
    }
}
