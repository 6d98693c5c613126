package org.verbs4j.provider.jnr;

import static org.verbs4j.provider.jnr.JnrProvider.errnoOf;

import java.lang.foreign.MemorySegment;
import org.verbs4j.MemoryRegion;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_mr;

/**
 * A registered memory region, {@code struct ibv_mr}.
 *
 * @see "ibv_reg_mr(3)"
 */
final class JnrMemoryRegion extends AbstractVerbsObject implements MemoryRegion {
    final JnrContext context;
    final long handle;
    private final JnrProtectionDomain pd;
    private final MemorySegment segment;
    private final int access;
    private final int lkey;
    private final int rkey;

    JnrMemoryRegion(JnrProtectionDomain pd, long mr, MemorySegment segment, int access) {
        super("MemoryRegion", pd.context);
        this.context = pd.context;
        this.handle = mr;
        context.track(ContextResources.Kind.MR, mr, this);
        this.pd = pd;
        this.segment = segment;
        this.access = access;
        this.lkey = NativeMemory.getInt(mr + ibv_mr.lkey$off);
        this.rkey = NativeMemory.getInt(mr + ibv_mr.rkey$off);
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
        return lkey;
    }

    @Override
    public int rkey() {
        checkOpen();
        return rkey;
    }

    @Override
    public long address() {
        checkOpen();
        return segment.address();
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
        int rc = context.libs.ibverbs().ibv_dereg_mr(handle);
        return rc == 0 ? 0 : errnoOf(rc);
    }

    @Override
    protected void afterDestroy() {
        context.untrack(ContextResources.Kind.MR, handle, this);
        pd.regions.remove(segment);
    }
}
