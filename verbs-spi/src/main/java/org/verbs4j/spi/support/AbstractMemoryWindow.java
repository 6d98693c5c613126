package org.verbs4j.spi.support;

import java.util.Objects;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;

/**
 * A memory window, written once for every provider: its protection domain and type, the getters that refuse a
 * closed window, the type 2 rkey rule, and the region a bind attached it to. A provider extends it and only
 * binds: it allocates the window ({@code ibv_alloc_mw}), gives its current rkey ({@link #rkeyValue()}), and
 * frees it in {@link #destroy()}.
 *
 * <p>The rules it applies, besides {@link AbstractVerbsObject}'s:
 * <ul>
 *   <li>Every getter throws {@link IllegalStateException} once the window is closed.</li>
 *   <li>While a bind has attached the window to a region ({@link #bindRegion}), the window depends on that
 *       region: the region's close throws {@link org.verbs4j.VerbsException} {@code EBUSY}, as
 *       {@code ibv_dereg_mr} does for a region with bound windows, whatever the provider library answers.</li>
 *   <li>A type 2 bind may change only the low 8 bits of the rkey, its key ({@link #keepsIndex}; IBA
 *       10.6.7.2.1).</li>
 * </ul>
 *
 * @see "ibv_alloc_mw(3), ibv_bind_mw(3), ibv_dealloc_mw(3)"
 */
public abstract class AbstractMemoryWindow extends AbstractVerbsObject implements MemoryWindow {
    private final ProtectionDomain pd;
    private final MwType type;
    /** The region the last bind attached the window to, or null. Guarded by this window's monitor. */
    private AbstractMemoryRegion boundRegion;

    /**
     * Makes an open window. The subclass's constructor ends with {@code dependOn(pd)} and {@link #register()}.
     *
     * @param owner the context, which frees the window when it closes
     * @param closeLock the lock the close holds around {@code ibv_dealloc_mw}; null for the window's monitor
     * @param pd the protection domain the window was allocated in
     * @param type the window's type
     * @throws NullPointerException if {@code pd} or {@code type} is null
     */
    protected AbstractMemoryWindow(AbstractVerbsObject owner, Object closeLock, ProtectionDomain pd, MwType type) {
        super("MemoryWindow", owner, closeLock);
        this.pd = Objects.requireNonNull(pd, "pd");
        this.type = Objects.requireNonNull(type, "type");
    }

    // ---- what a provider binds

    /** {@return the window's current rkey (changed by each bind), read without a state check} */
    protected abstract int rkeyValue();

    // ---- the object model

    @Override
    public final ProtectionDomain pd() {
        checkOpen();
        return pd;
    }

    @Override
    public final MwType type() {
        checkOpen();
        return type;
    }

    @Override
    public final int rkey() {
        checkOpen();
        return rkeyValue();
    }

    /**
     * Whether {@code rkey} keeps this window's index: a type 2 bind may change only the low 8 bits, the key
     * (IBA 10.6.7.2.1).
     *
     * @param rkey the rkey a bind asks for
     * @return whether its upper 24 bits are the window's current rkey's
     * @throws IllegalStateException if the window is closed
     */
    public final boolean keepsIndex(int rkey) {
        return (rkey & ~0xff) == (rkey() & ~0xff);
    }

    /**
     * Records that a bind attached the window to {@code mr} (null: an unbind, or a bind of length 0), so that
     * the region refuses to close with {@code EBUSY} while the window is bound to it. The dependency on the
     * region it was bound to before is dropped.
     *
     * @param mr the region now bound, or null
     */
    protected final synchronized void bindRegion(AbstractMemoryRegion mr) {
        if (boundRegion != null) {
            dropDependency(boundRegion);
        }
        boundRegion = mr;
        if (mr != null) {
            dependOn(mr);
        }
    }
}
