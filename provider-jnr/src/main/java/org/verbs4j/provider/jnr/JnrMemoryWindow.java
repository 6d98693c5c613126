package org.verbs4j.provider.jnr;

import org.verbs4j.MwType;
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.provider.jnr.internal.InlineVerbs;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_mw;
import org.verbs4j.spi.support.AbstractMemoryWindow;

/**
 * A memory window, {@code struct ibv_mw}, allocated and freed through {@code ibv_context.ops}. Its rkey is
 * read from the native struct, which the provider library updates at each bind; the object model is
 * {@link AbstractMemoryWindow}'s.
 *
 * @see "ibv_alloc_mw(3)"
 */
final class JnrMemoryWindow extends AbstractMemoryWindow {
    final JnrContext context;
    final long handle;
    private final MwType type;
    /**
     * The rkey of the last type 2 bind posted, or 0 before any: rxe (rdma-core 44) leaves
     * {@code ibv_mw.rkey} unchanged for {@code ibv_wr_bind_mw} and BIND_MW WRs.
     */
    private volatile int type2Rkey;

    JnrMemoryWindow(JnrProtectionDomain pd, long mw, MwType type) {
        super(pd.context, null, pd, type);
        this.context = pd.context;
        this.handle = mw;
        context.track(ContextResources.Kind.MW, mw, this);
        this.type = type;
        dependOn(pd);
        register();
    }

    @Override
    protected int rkeyValue() {
        int native_ = NativeMemory.getInt(handle + ibv_mw.rkey$off);
        int posted = type2Rkey;
        return type == MwType.TYPE_2 && posted != 0 ? posted : native_;
    }

    /**
     * Records that the window is now bound to {@code mr} (null: unbound), so that the region refuses to
     * close with EBUSY while a window is bound to it, whatever the provider library would answer.
     */
    void boundTo(JnrMemoryRegion mr) {
        bindRegion(mr);
    }

    /** Records a type 2 bind that was posted with {@code rkey}. */
    void boundType2(int rkey, JnrMemoryRegion mr) {
        type2Rkey = rkey;
        boundTo(mr);
    }

    @Override
    protected int destroy() {
        return InlineVerbs.callP(context.op(ibv_context.ops$dealloc_mw$off), handle);
    }

    @Override
    protected void afterDestroy() {
        context.untrack(ContextResources.Kind.MW, handle, this);
    }
}
