package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.Context;
import org.verbs4j.spi.support.AbstractVerbsObject;

/**
 * What every native object of the shared model repeats: the context that owns it, its native address, and its
 * entry in the context's table of live objects from creation until its destroy verb succeeded. Objects whose
 * lifecycle base is another shared class ({@link NativeMemoryRegion} and {@link NativeMemoryWindow} extend the
 * shared MR and MW bases, {@link NativeCompletionQueue} the shared CQ base) hold the same three things themselves.
 */
public abstract class NativeObject extends AbstractVerbsObject {
    private final NativeContextSupport context;
    private final NativeKind kind;
    /**
     * Its native address. A field the subclasses read directly, not only through {@link #handle()}: the post
     * paths of {@link NativeQueuePair} and {@link NativeSharedReceiveQueue} pass it to every call.
     */
    protected final long handle;

    /**
     * Records the object with its context; the subclass calls {@link #register()} once it is built.
     *
     * @param <C> the provider's context
     * @param name the API's name of the kind, for messages ({@code "ProtectionDomain"})
     * @param context the context that owns it
     * @param kind its kind in the context's table
     * @param handle its native address, not 0
     */
    protected <C extends AbstractVerbsObject & NativeContextSupport> NativeObject(String name, C context,
            NativeKind kind, long handle) {
        super(name, context);
        this.context = context;
        this.kind = kind;
        this.handle = handle;
        context.track(kind, handle, this);
    }

    /** {@return the context it belongs to, for a sibling check} */
    public final NativeContextSupport nativeContext() {
        return context;
    }

    /** {@return its native address; the caller checks that the object is open} */
    public final long handle() {
        return handle;
    }

    /**
     * The context it belongs to.
     *
     * @return the context
     * @throws IllegalStateException if the object is closed
     */
    public Context context() {
        checkOpen();
        return context;
    }

    /** {@return the binding every call of the object goes through} */
    protected final IbverbsBinding binding() {
        return context.binding();
    }

    /**
     * Forgets the object in its context's table: after its destroy verb, or when its constructor fails after this
     * base recorded it (the caller then destroys the native object itself).
     */
    protected final void forget() {
        context.untrack(kind, handle, this);
    }

    /** Forgets the object in its context's table; a subclass that overrides this calls it. */
    @Override
    protected void afterDestroy() {
        forget();
    }
}
