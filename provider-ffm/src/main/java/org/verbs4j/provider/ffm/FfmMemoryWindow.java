package org.verbs4j.provider.ffm;

import java.lang.foreign.MemorySegment;
import org.verbs4j.MwType;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.InlineOps;
import org.verbs4j.provider.ffm.internal.Structs.ibv_mw;
import org.verbs4j.spi.support.AbstractMemoryWindow;

/**
 * A memory window, {@code struct ibv_mw}, allocated and freed through the context ops; the object model is
 * {@link AbstractMemoryWindow}'s. {@link #keepsIndex} is checked before a bind because rxe accepts any new rkey
 * (known-deviations.md D-008).
 */
final class FfmMemoryWindow extends AbstractMemoryWindow {
    final FfmContext ctx;
    final FfmProtectionDomain pd;
    final MemorySegment mw;

    FfmMemoryWindow(FfmProtectionDomain pd, MemorySegment mw, MwType type) {
        super(pd.ctx, null, pd, type);
        this.ctx = pd.ctx;
        this.pd = pd;
        this.mw = mw.reinterpret(ibv_mw.LAYOUT.byteSize());
        dependOn(pd);
        register();
    }

    /** The provider keeps the current rkey in {@code ibv_mw.rkey} and updates it at each bind. */
    @Override
    protected int rkeyValue() {
        return (int) ibv_mw.rkey$vh.get(mw, 0L);
    }

    /**
     * Records in {@code ibv_mw.rkey} the rkey a posted type 2 bind gives the window. Providers update the
     * field only for type 1 binds, and librxe reads it as the window's current key at the next bind, so
     * without this a second type 2 bind fails.
     */
    void boundWithRkey(int rkey) {
        if (!isClosed()) {
            ibv_mw.rkey$vh.set(mw, 0L, rkey);
        }
    }

    /**
     * Records the region a type 1 bind attached the window to (null for an unbind), so that the region
     * refuses to close with EBUSY while the window is bound, as {@code ibv_dereg_mr} would.
     */
    void boundTo(FfmMemoryRegion mr) {
        bindRegion(mr);
    }

    @Override
    protected int destroy() {
        return Ibverbs.failure(InlineOps.dealloc(ctx.deallocMw, mw));
    }
}
