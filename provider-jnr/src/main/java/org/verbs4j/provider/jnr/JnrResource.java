package org.verbs4j.provider.jnr;

import java.util.concurrent.atomic.AtomicInteger;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.VerbsObject;
import org.verbs4j.provider.jnr.internal.ContextResources;

/**
 * What every verbs object of this provider shares: its native address, its closed state, and the count of
 * live objects that depend on it. A closed object refuses every call in Java, before anything reaches
 * native code.
 */
abstract class JnrResource implements VerbsObject {
    final JnrContext context;
    final long handle;
    private final ContextResources.Kind kind;
    private final String what;
    private final AtomicInteger dependents = new AtomicInteger();
    private volatile boolean closed;

    JnrResource(JnrContext context, long handle, ContextResources.Kind kind, String what) {
        this.context = context;
        this.handle = handle;
        this.kind = kind;
        this.what = what;
        if (context != null) {
            context.adopt(this, kind, handle);
        }
    }

    /** The native address; throws if this object or its context is closed. */
    final long handle() {
        checkOpen();
        return handle;
    }

    final void checkOpen() {
        if (closed) {
            throw new IllegalStateException(what + " is closed");
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

    /**
     * Marks the object closed without a native call, because its context is releasing everything. Taking
     * the object's lock first waits out a call in progress on it, so none runs on freed memory.
     */
    void markClosed() {
        synchronized (this) {
            closed = true;
        }
    }

    /** Destroys the native object; returns 0 or the errno. */
    abstract int destroy();

    /** The verb that destroys it, for errors. */
    abstract String destroyVerb();

    /** Releases what this object held on others after it was destroyed. */
    void afterDestroy() {}

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            int n = dependents.get();
            if (n > 0) {
                throw new VerbsException(destroyVerb(), Errno.EBUSY, n + " object(s) created from or using this "
                        + what + " are still open");
            }
            int rc = destroy();
            if (rc != 0) {
                throw new VerbsException(destroyVerb(), rc, null);
            }
            closed = true;
        }
        context.forget(this, kind, handle);
        afterDestroy();
    }

    /** The errno of a libibverbs call that returned {@code rc}: the value itself, or errno when it is -1. */
    static int errnoOf(int rc) {
        if (rc > 0) {
            return rc;
        }
        int e = JnrProvider.libraries().lastErrno();
        return e != 0 ? e : Errno.EINVAL;
    }

    @Override
    public String toString() {
        return what + "@0x" + Long.toHexString(handle) + (closed ? " (closed)" : "");
    }
}
