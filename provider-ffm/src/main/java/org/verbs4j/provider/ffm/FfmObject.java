package org.verbs4j.provider.ffm;

import java.util.concurrent.atomic.AtomicInteger;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.VerbsObject;
import org.verbs4j.provider.ffm.internal.Ibverbs;

/**
 * What every verbs object of this provider shares: the closed flag checked in Java before any native
 * call, the count of live objects that depend on it (so close fails with EBUSY before the destroy verb
 * runs), and its registration with the context, which destroys what is left when it closes.
 */
abstract class FfmObject implements VerbsObject {
    private final String kind;
    final FfmContext ctx;
    private final AtomicInteger dependents = new AtomicInteger();
    private volatile boolean closed;

    FfmObject(String kind, FfmContext ctx) {
        this.kind = kind;
        this.ctx = ctx;
    }

    /** Throws if closed; the guard every method runs before touching native memory. */
    final void checkOpen() {
        if (closed) {
            throw new IllegalStateException("this " + kind + " is closed");
        }
    }

    /** Throws unless {@code other} is open and was created from the same context. */
    final void checkSibling(FfmObject other, String what) {
        FfmContext home = ctx != null ? ctx : (FfmContext) this;
        if (other.ctx != home) {
            throw new IllegalArgumentException(what + " belongs to another context");
        }
        if (other.closed) {
            throw new IllegalArgumentException(what + " is closed");
        }
    }

    @Override
    public final boolean isClosed() {
        return closed;
    }

    final void retain() {
        dependents.incrementAndGet();
    }

    final void release() {
        dependents.decrementAndGet();
    }

    @Override
    public final void close() {
        holdForClose();
        try {
            closeHeld();
        } finally {
            releaseAfterClose();
        }
    }

    private void closeHeld() {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (ctx != null && ctx.isClosed()) {
                closed = true;
                return;
            }
            int n = dependents.get();
            if (n > 0) {
                throw new VerbsException(destroyVerb(), Errno.EBUSY,
                        "this " + kind + " is still used by " + n + " open object(s)");
            }
            int rc = destroyNative();
            if (rc != 0) {
                throw new VerbsException(destroyVerb(), Ibverbs.errnoOf(rc), null);
            }
            closed = true;
            afterClose();
        }
        // Outside this object's monitor: the context's close takes its own monitor, then each child's.
        if (ctx != null) {
            ctx.forget(this);
        }
    }

    /**
     * Called by the context's close, after the context destroyed the native object (or gave up on it):
     * marks the object closed without calling its destroy verb again.
     */
    final void closeByContext() {
        synchronized (this) {
            if (closed) {
                return;
            }
            destroyNative();
            closed = true;
            afterClose();
        }
    }

    /**
     * Called before {@link #close()} takes any monitor: waits until no other thread is inside a WR session of
     * what this object destroys, so the destroy verb never runs under a session call and no monitor is held while
     * waiting.
     */
    void holdForClose() {}

    /** Ends {@link #holdForClose()}, whether the close succeeded or not. */
    void releaseAfterClose() {}

    /** The destroy verb's name, for errors. */
    abstract String destroyVerb();

    /** Calls the destroy verb; 0 or an errno-bearing return value. */
    abstract int destroyNative();

    /** Releases what depended on the native object: parents' counts, scratch memory. */
    void afterClose() {}
}
