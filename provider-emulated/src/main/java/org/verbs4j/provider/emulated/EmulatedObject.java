package org.verbs4j.provider.emulated;

import java.util.concurrent.atomic.AtomicInteger;

import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.VerbsObject;

/**
 * What every emulated verbs object shares: the closed flag, the count of live objects that depend on
 * it (EBUSY on close), and its registration with the context that releases it on close.
 */
abstract class EmulatedObject implements VerbsObject {
    final EmulatedContext context;
    /** Live objects that use this one; close() fails with EBUSY while above 0. */
    final AtomicInteger users = new AtomicInteger();
    private volatile boolean closed;

    EmulatedObject(EmulatedContext context) {
        this.context = context;
    }

    /** The verb that destroys this object, for error messages. */
    abstract String destroyVerb();

    /** Releases the object's resources and its hold on its parents. Called once. */
    abstract void destroy();

    @Override
    public final boolean isClosed() {
        return closed;
    }

    final void checkOpen() {
        if (closed) {
            throw new IllegalStateException(getClass().getSimpleName() + " is closed");
        }
    }

    @Override
    public void close() {
        synchronized (context.lock) {
            if (closed) {
                return;
            }
            int n = users.get();
            if (n > 0) {
                throw new VerbsException(destroyVerb(), Errno.EBUSY,
                        getClass().getSimpleName() + " still has " + n + " live dependent object(s)");
            }
            closed = true;
            destroy();
            context.forget(this);
        }
    }

    /** Closes the object without the EBUSY check, as closing the device does. Holds the context lock. */
    final void forceClose() {
        if (!closed) {
            closed = true;
            destroy();
        }
    }
}
