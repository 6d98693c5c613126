package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.Errno;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_mw;
import org.verbs4j.spi.support.AbstractMemoryWindow;
import org.verbs4j.spi.support.AbstractVerbsObject;

/**
 * A memory window, {@code struct ibv_mw}, of either native provider, allocated and freed through
 * {@code ibv_context.ops}; the object model is {@link AbstractMemoryWindow}'s. Its current rkey is
 * {@code ibv_mw.rkey}, which the provider library updates at a type 1 bind and {@link #boundByWr} at a posted
 * one. {@link #keepsIndex} is checked before a bind because rxe accepts any new rkey (known-deviations.md
 * D-008).
 *
 * @see "ibv_alloc_mw(3)"
 */
public final class NativeMemoryWindow extends AbstractMemoryWindow {
    private final NativeContextSupport context;
    /** {@code ibv_context.ops.dealloc_mw}, or 0. */
    private final long deallocMw;
    private final long handle;

    /**
     * Wraps a window {@code ibv_alloc_mw} returned.
     *
     * @param <C> the provider's context
     * @param <P> the provider's protection domain
     * @param context the context it belongs to
     * @param pd the protection domain it was allocated in
     * @param mw the {@code struct ibv_mw *}, not 0
     * @param type its type
     */
    public <C extends AbstractVerbsObject & NativeContextSupport, P extends AbstractVerbsObject & ProtectionDomain>
            NativeMemoryWindow(C context, P pd, long mw, MwType type) {
        super(context, null, pd, type);
        this.context = context;
        this.deallocMw = context.op("dealloc_mw");
        this.handle = mw;
        context.track(NativeKind.MW, mw, this);
        dependOn(pd);
        register();
    }

    /** {@return the context it belongs to, for a sibling check} */
    public NativeContextSupport nativeContext() {
        return context;
    }

    /** {@return the {@code struct ibv_mw *}; the caller checks that the window is open} */
    public long handle() {
        return handle;
    }

    @Override
    protected int rkeyValue() {
        return context.binding().getInt(handle + ibv_mw.rkey$off);
    }

    /**
     * Records a type 1 bind by {@code ibv_bind_mw}: the window is now bound to {@code mr} (null: unbound), so
     * the region refuses to close with {@code EBUSY} while the window is bound to it.
     *
     * @param mr the region, or null
     */
    public void boundTo(NativeMemoryRegion mr) {
        bindRegion(mr);
    }

    /**
     * Records a bind that was posted (a BIND_MW WR or {@code ibv_wr_bind_mw}) with {@code rkey}: it becomes
     * {@code ibv_mw.rkey}, which providers update only for type 1 binds and librxe reads as the window's current
     * key at the next bind (without it a second type 2 bind fails), and the window is bound to the bind's
     * region, or to none for a bind of length 0.
     *
     * @param rkey the rkey the bind gives the window
     * @param info the bind's region (a {@link NativeMemoryRegion} of the same context), range and access
     */
    public void boundByWr(int rkey, MwBindInfo info) {
        NativeMemoryRegion mr = info.length() == 0 ? null : (NativeMemoryRegion) info.mr();
        synchronized (this) {
            // close() destroys under this monitor: the struct is live while the window is open.
            if (!isClosed()) {
                context.binding().putInt(handle + ibv_mw.rkey$off, rkey);
            }
        }
        bindRegion(mr);
    }

    @Override
    protected int destroy() {
        return deallocMw == 0 ? Errno.EOPNOTSUPP
                : NativeErrors.errno(context.binding().libibverbsOps().dealloc_mw(deallocMw, handle));
    }

    @Override
    protected void afterDestroy() {
        context.untrack(NativeKind.MW, handle, this);
    }
}
