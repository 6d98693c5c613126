package org.verbs4j.provider.ffm;

import java.lang.foreign.MemorySegment;
import org.verbs4j.MemoryRegion;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.Structs.ibv_mr;
import org.verbs4j.spi.support.AbstractVerbsObject;

/** A registered region, {@code struct ibv_mr}. Its keys are read once, at registration. */
final class FfmMemoryRegion extends AbstractVerbsObject implements MemoryRegion {
    final FfmContext ctx;
    private final FfmProtectionDomain pd;
    final MemorySegment mr;
    private final MemorySegment segment;
    private final int access;
    private final int lkey;
    private final int rkey;

    FfmMemoryRegion(FfmProtectionDomain pd, MemorySegment mr, MemorySegment segment, int access) {
        super("MemoryRegion", pd.ctx);
        this.ctx = pd.ctx;
        this.pd = pd;
        this.mr = mr.reinterpret(ibv_mr.LAYOUT.byteSize());
        this.segment = segment;
        this.access = access;
        this.lkey = (int) ibv_mr.lkey$vh.get(this.mr, 0L);
        this.rkey = (int) ibv_mr.rkey$vh.get(this.mr, 0L);
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
        return Ibverbs.failure(Ibverbs.ibv_dereg_mr(mr));
    }

    @Override
    protected void afterDestroy() {
        pd.regions.remove(segment);
    }
}
