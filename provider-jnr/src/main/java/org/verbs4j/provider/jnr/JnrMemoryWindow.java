package org.verbs4j.provider.jnr;

import org.verbs4j.MemoryWindow;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.provider.jnr.internal.InlineVerbs;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_mw;

/**
 * A memory window, {@code struct ibv_mw}, allocated and freed through {@code ibv_context.ops}. Its rkey is
 * read from the native struct, which the provider library updates at each bind.
 *
 * @see "ibv_alloc_mw(3)"
 */
final class JnrMemoryWindow extends AbstractVerbsObject implements MemoryWindow {
    final JnrContext context;
    final long handle;
    private final JnrProtectionDomain pd;
    private final MwType type;
    /** The region the last bind posted from this provider names, or null. */
    private JnrMemoryRegion bound;
    /**
     * The rkey of the last type 2 bind posted, or 0 before any: rxe (rdma-core 44) leaves
     * {@code ibv_mw.rkey} unchanged for {@code ibv_wr_bind_mw} and BIND_MW WRs.
     */
    private volatile int type2Rkey;

    JnrMemoryWindow(JnrProtectionDomain pd, long mw, MwType type) {
        super("MemoryWindow", pd.context);
        this.context = pd.context;
        this.handle = mw;
        context.track(ContextResources.Kind.MW, mw, this);
        this.pd = pd;
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

    @Override
    public int rkey() {
        checkOpen();
        int native_ = NativeMemory.getInt(handle + ibv_mw.rkey$off);
        int posted = type2Rkey;
        return type == MwType.TYPE_2 && posted != 0 ? posted : native_;
    }

    /**
     * Records that the window is now bound to {@code mr} (null: unbound), so that the region refuses to
     * close with EBUSY while a window is bound to it, whatever the provider library would answer.
     */
    synchronized void boundTo(JnrMemoryRegion mr) {
        if (bound != null) {
            dropDependency(bound);
        }
        bound = mr;
        if (mr != null) {
            dependOn(mr);
        }
    }

    /** Records a type 2 bind that was posted with {@code rkey}. */
    void boundType2(int rkey, JnrMemoryRegion mr) {
        type2Rkey = rkey;
        boundTo(mr);
    }

    /**
     * Whether {@code rkey} keeps this window's index: a type 2 bind may change only the low 8 bits, the
     * key (IBA 10.6.7.2.1).
     */
    boolean keepsIndex(int rkey) {
        return (rkey & ~0xff) == (rkey() & ~0xff);
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
