package org.verbs4j.provider.ffm;

import java.lang.foreign.MemorySegment;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.provider.ffm.internal.InlineOps;
import org.verbs4j.provider.ffm.internal.Structs.ibv_mw;

/** A memory window, {@code struct ibv_mw}, allocated and freed through the context ops. */
final class FfmMemoryWindow extends FfmObject implements MemoryWindow {
    final FfmProtectionDomain pd;
    final MemorySegment mw;
    private final MwType type;

    FfmMemoryWindow(FfmProtectionDomain pd, MemorySegment mw, MwType type) {
        super("MemoryWindow", pd.ctx);
        this.pd = pd;
        this.mw = mw.reinterpret(ibv_mw.LAYOUT.byteSize());
        this.type = type;
        pd.retain();
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public MwType type() {
        return type;
    }

    /** The provider keeps the current rkey in {@code ibv_mw.rkey} and updates it at each bind. */
    @Override
    public int rkey() {
        checkOpen();
        return (int) ibv_mw.rkey$vh.get(mw, 0L);
    }

    @Override
    String destroyVerb() {
        return "ibv_dealloc_mw";
    }

    @Override
    int destroyNative() {
        return InlineOps.dealloc(ctx.deallocMw, mw);
    }

    @Override
    void afterClose() {
        pd.release();
    }
}
