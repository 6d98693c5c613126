package org.verbs4j.provider.ffm;

import java.lang.foreign.MemorySegment;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.InlineOps;
import org.verbs4j.provider.ffm.internal.Structs.ibv_mw;
import org.verbs4j.spi.support.AbstractVerbsObject;

/** A memory window, {@code struct ibv_mw}, allocated and freed through the context ops. */
final class FfmMemoryWindow extends AbstractVerbsObject implements MemoryWindow {
    final FfmContext ctx;
    final FfmProtectionDomain pd;
    final MemorySegment mw;
    private final MwType type;
    private FfmMemoryRegion boundMr;

    FfmMemoryWindow(FfmProtectionDomain pd, MemorySegment mw, MwType type) {
        super("MemoryWindow", pd.ctx);
        this.ctx = pd.ctx;
        this.pd = pd;
        this.mw = mw.reinterpret(ibv_mw.LAYOUT.byteSize());
        this.type = type;
        dependOn(pd);
        register();
    }

    @Override
    public ProtectionDomain pd() {
        checkOpen();
        return pd;
    }

    @Override
    public MwType type() {
        checkOpen();
        return type;
    }

    /** The provider keeps the current rkey in {@code ibv_mw.rkey} and updates it at each bind. */
    @Override
    public int rkey() {
        checkOpen();
        return (int) ibv_mw.rkey$vh.get(mw, 0L);
    }

    /**
     * Whether {@code rkey} keeps this window's index: a type 2 bind may change only the low 8 bits, the key
     * (IBA 10.6.7.2.1). Checked here because rxe accepts any new rkey (known-deviations.md D-008).
     */
    boolean keepsIndex(int rkey) {
        return (rkey & ~0xff) == (rkey() & ~0xff);
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
    synchronized void boundTo(FfmMemoryRegion mr) {
        if (boundMr != null) {
            dropDependency(boundMr);
        }
        boundMr = mr;
        if (mr != null) {
            dependOn(mr);
        }
    }

    @Override
    protected int destroy() {
        return Ibverbs.failure(InlineOps.dealloc(ctx.deallocMw, mw));
    }
}
