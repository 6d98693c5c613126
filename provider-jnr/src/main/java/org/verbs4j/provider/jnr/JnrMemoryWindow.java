package org.verbs4j.provider.jnr;

import org.verbs4j.MemoryWindow;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.provider.jnr.internal.IbvContext;
import org.verbs4j.provider.jnr.internal.IbvMw;
import org.verbs4j.provider.jnr.internal.InlineVerbs;
import org.verbs4j.provider.jnr.internal.NativeMemory;

/**
 * A memory window, {@code struct ibv_mw}, allocated and freed through {@code ibv_context.ops}. Its rkey is
 * read from the native struct, which the provider library updates at each bind.
 *
 * @see "ibv_alloc_mw(3)"
 */
final class JnrMemoryWindow extends JnrResource implements MemoryWindow {
    private final JnrProtectionDomain pd;
    private final MwType type;
    /** The region the last bind posted from this provider names, or null. */
    private JnrMemoryRegion bound;

    JnrMemoryWindow(JnrProtectionDomain pd, long mw, MwType type) {
        super(pd.context, mw, ContextResources.Kind.MW, "memory window");
        this.pd = pd;
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

    @Override
    public int rkey() {
        return NativeMemory.getInt(handle() + IbvMw.rkey$OFFSET);
    }

    /**
     * Records that the window is now bound to {@code mr} (null: unbound), so that the region refuses to
     * close with EBUSY while a window is bound to it, whatever the provider library would answer.
     */
    synchronized void boundTo(JnrMemoryRegion mr) {
        if (bound != null) {
            bound.release();
        }
        bound = mr;
        if (mr != null) {
            mr.retain();
        }
    }

    @Override
    int destroy() {
        return InlineVerbs.callP(context.op(IbvContext.ops$dealloc_mw$OFFSET), handle);
    }

    @Override
    String destroyVerb() {
        return "ibv_dealloc_mw";
    }

    @Override
    void afterDestroy() {
        boundTo(null);
        pd.release();
    }
}
