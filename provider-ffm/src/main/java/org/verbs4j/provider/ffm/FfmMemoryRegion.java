package org.verbs4j.provider.ffm;

import java.lang.foreign.MemorySegment;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.Structs.ibv_mr;
import org.verbs4j.spi.support.AbstractMemoryRegion;

/**
 * A registered region, {@code struct ibv_mr}. Its keys are read once, at registration; the object model is
 * {@link AbstractMemoryRegion}'s.
 */
final class FfmMemoryRegion extends AbstractMemoryRegion {
    final FfmContext ctx;
    final MemorySegment mr;
    private final int lkey;
    private final int rkey;

    FfmMemoryRegion(FfmProtectionDomain pd, MemorySegment mr, MemorySegment segment, int access) {
        super(pd.ctx, null, pd, pd.regions, segment, access, segment.address());
        this.ctx = pd.ctx;
        this.mr = mr.reinterpret(ibv_mr.LAYOUT.byteSize());
        this.lkey = (int) ibv_mr.lkey$vh.get(this.mr, 0L);
        this.rkey = (int) ibv_mr.rkey$vh.get(this.mr, 0L);
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
        return Ibverbs.failure(Ibverbs.ibv_dereg_mr(mr));
    }
}
