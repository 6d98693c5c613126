package org.verbs4j.provider.nativecommon.internal;

import java.lang.foreign.MemorySegment;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_mr;
import org.verbs4j.spi.support.AbstractMemoryRegion;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.RegionTable;

/**
 * A registered region, {@code struct ibv_mr}, of either native provider. Its keys are read once, at
 * registration; the object model is {@link AbstractMemoryRegion}'s.
 *
 * @see "ibv_reg_mr(3)"
 */
public final class NativeMemoryRegion extends AbstractMemoryRegion {
    private final NativeContextSupport context;
    private final long handle;
    // read again after a re-registration, under the close lock
    private volatile int lkey;
    private volatile int rkey;

    /**
     * Wraps a region {@code ibv_reg_mr} returned; the domain adds the segment to {@code regions} after.
     *
     * @param <C> the provider's context
     * @param <P> the provider's protection domain
     * @param context the context it belongs to
     * @param pd the protection domain it was registered in
     * @param regions the domain's table of live registered memory
     * @param mr the {@code struct ibv_mr *}, not 0
     * @param segment the registered memory
     * @param access the {@link org.verbs4j.AccessFlags} bits it was registered with
     */
    public <C extends AbstractVerbsObject & NativeContextSupport, P extends AbstractVerbsObject & ProtectionDomain>
            NativeMemoryRegion(C context, P pd, RegionTable regions, long mr, MemorySegment segment, int access) {
        super(context, null, pd, regions, segment, access, firstAddress(segment, access));
        this.context = context;
        this.handle = mr;
        context.track(NativeKind.MR, mr, this);
        readKeys();
        dependOn(pd);
        register();
    }

    /**
     * Wraps a region with no host memory, in no region table: one {@code ibv_reg_dm_mr} returned (zero-based,
     * over device memory) or one {@code ibv_reg_dmabuf_mr} returned (from its iova).
     *
     * @param <C> the provider's context
     * @param <P> the provider's protection domain
     * @param context the context it belongs to
     * @param pd the protection domain it was registered in
     * @param dm the device memory it lies in, or null for a dma-buf
     * @param mr the {@code struct ibv_mr *}, not 0
     * @param length its length, bytes
     * @param access the {@link org.verbs4j.AccessFlags} bits it was registered with
     * @param address its first address as a peer names it: 0, or the dma-buf region's iova
     */
    public <C extends AbstractVerbsObject & NativeContextSupport, P extends AbstractVerbsObject & ProtectionDomain>
            NativeMemoryRegion(C context, P pd, NativeDeviceMemory dm, long mr, long length, int access,
            long address) {
        super(context, null, pd, dm, length, access, address);
        this.context = context;
        this.handle = mr;
        context.track(NativeKind.MR, mr, this);
        readKeys();
        dependOn(pd);
        dependOnMemory();
        register();
    }

    /** {@return the context it belongs to, for a sibling check} */
    public NativeContextSupport nativeContext() {
        return context;
    }

    /** {@return the {@code struct ibv_mr *}; the caller checks that the region is open} */
    public long handle() {
        return handle;
    }

    @Override
    protected int lkeyValue() {
        return lkey;
    }

    @Override
    protected int rkeyValue() {
        return rkey;
    }

    /** {@code ibv_rereg_mr(3)}, the keys read again from {@code struct ibv_mr} after it succeeds. */
    @Override
    protected int rereg(int flags, ProtectionDomain pd, MemorySegment segment, int access) {
        NativeProtectionDomain to = (NativeProtectionDomain) pd;
        IbverbsBinding binding = context.binding();
        int errno = NativeErrors.errno(binding.libibverbs().ibv_rereg_mr(handle, flags, to.handle(), segment.address(),
                segment.byteSize(), access));
        if (errno == 0) {
            readKeys();
        }
        return errno;
    }

    /** Reads the keys the registration or re-registration wrote into {@code struct ibv_mr}. */
    private void readKeys() {
        lkey = context.binding().getInt(handle + ibv_mr.lkey$off);
        rkey = context.binding().getInt(handle + ibv_mr.rkey$off);
    }

    @Override
    protected RegionTable regionsOf(ProtectionDomain pd) {
        return ((NativeProtectionDomain) pd).regions();
    }

    /** {@return the segment's address: {@code ibv_rereg_mr} passes it as the region's I/O virtual address} */
    @Override
    protected long addressOf(MemorySegment segment, int access) {
        return segment.address();
    }

    @Override
    protected int destroy() {
        return NativeErrors.errno(context.binding().deregMr(handle));
    }

    @Override
    protected void afterDestroy() {
        context.untrack(NativeKind.MR, handle, this);
        super.afterDestroy();
    }
}
