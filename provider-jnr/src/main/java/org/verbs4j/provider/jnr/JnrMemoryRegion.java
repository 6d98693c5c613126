package org.verbs4j.provider.jnr;

import static org.verbs4j.provider.jnr.JnrProvider.errnoOf;

import java.lang.foreign.MemorySegment;
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_mr;
import org.verbs4j.spi.support.AbstractMemoryRegion;

/**
 * A registered memory region, {@code struct ibv_mr}. Its keys are read once, at registration; the object
 * model is {@link AbstractMemoryRegion}'s.
 *
 * @see "ibv_reg_mr(3)"
 */
final class JnrMemoryRegion extends AbstractMemoryRegion {
    final JnrContext context;
    final long handle;
    private final int lkey;
    private final int rkey;

    JnrMemoryRegion(JnrProtectionDomain pd, long mr, MemorySegment segment, int access) {
        super(pd.context, null, pd, pd.regions, segment, access, segment.address());
        this.context = pd.context;
        this.handle = mr;
        context.track(ContextResources.Kind.MR, mr, this);
        this.lkey = NativeMemory.getInt(mr + ibv_mr.lkey$off);
        this.rkey = NativeMemory.getInt(mr + ibv_mr.rkey$off);
        dependOn(pd);
        register();
    }

    @Override
    protected int lkeyValue() {
        return lkey;
    }

    @Override
    protected int rkeyValue() {
        return rkey;
    }

    @Override
    protected int destroy() {
        int rc = context.libs.ibverbs().ibv_dereg_mr(handle);
        return rc == 0 ? 0 : errnoOf(rc);
    }

    @Override
    protected void afterDestroy() {
        context.untrack(ContextResources.Kind.MR, handle, this);
        super.afterDestroy();
    }
}
