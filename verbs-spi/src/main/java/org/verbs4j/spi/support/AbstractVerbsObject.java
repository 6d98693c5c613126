package org.verbs4j.spi.support;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.verbs4j.Errno;
import org.verbs4j.MemoryWindow;
import org.verbs4j.VerbsException;
import org.verbs4j.VerbsObject;

/**
 * The life of a verbs object, written once for every provider: the closed state, the count of live objects that
 * use it, and the owner (the context) that releases what is left when it closes. A provider extends it and only
 * binds: {@link #destroy()} calls its destroy verb, {@link #afterDestroy()} frees what the object held.
 *
 * <p>The rules it applies, so that no provider has to (they are {@link VerbsObject}'s):
 * <ul>
 *   <li>{@link #close()} may be called from any thread, and a second call does nothing.</li>
 *   <li>While objects that {@linkplain #dependOn depend on} this one are open, {@code close()} throws
 *       {@link VerbsException} {@code EBUSY} before the destroy verb runs, and the object stays open. A failed
 *       destroy verb throws {@link VerbsException} with its errno and leaves the object open too.</li>
 *   <li>An owner (an object made with no owner: the context) refuses no close: it closes every object made from
 *       it first, in {@link VerbsObjectKind}'s order of kinds (memory windows first) and the newest first within
 *       a kind, so that children always go before their parents, and only then runs its own destroy verb.</li>
 *   <li>After {@code close()}, {@link #checkOpen()}, the guard each method runs before it looks at its arguments
 *       or touches the device, throws {@link IllegalStateException} "this &lt;kind&gt; is closed".</li>
 *   <li>In-flight calls: the destroy verb runs under the object's monitor (or the lock the provider gave
 *       the constructor), so a method that holds that monitor around its native call finishes before
 *       the object is destroyed and, once it has the monitor, finds it closed. A QP's open WR session is ended
 *       first, outside every monitor: the calling thread's own session is aborted, another thread's is waited
 *       for, and no session can open again until the close is over (see {@link #wrSession()}).</li>
 *   <li>Calls through other objects: a call that hands this object's native address to the library while it
 *       holds none of this object's locks (a post naming an address handle, a window or a region, a creation
 *       naming its PD or CQ) brackets that native call with {@link #enterCall()} and {@link #exitCall()}. A close
 *       first refuses new calls, then waits for those under way, and only then checks its users and runs the
 *       destroy verb, so the library never reads a destroyed object's memory, whichever thread closes it.</li>
 * </ul>
 *
 * @see "ibv_dealloc_pd(3), ibv_destroy_qp(3), ibv_close_device(3)"
 */
public abstract class AbstractVerbsObject implements VerbsObject {
    private final String kind;
    /** The kind's destroy verb; null for a kind outside the API's objects. */
    private final VerbsObjectKind objectKind;
    /**
     * Where an owner's close takes this object: a window first, then a kind outside the API's objects, then the
     * API's kinds in {@link VerbsObjectKind}'s order.
     */
    private final int closeRank;
    private final AbstractVerbsObject owner;
    /** The objects made from this owner, oldest first; null unless this is an owner. Guarded by itself. */
    private final List<AbstractVerbsObject> owned;
    /** Whether this owner's close has started: no object may join it any more. Guarded by {@link #owned}. */
    private boolean sealed;
    /** The live objects that depend on this one. */
    private final AtomicInteger users = new AtomicInteger();
    /** The objects this one depends on, released after it is destroyed. Guarded by itself. */
    private final List<AbstractVerbsObject> uses = new ArrayList<>(2);
    /** Held around the destroy verb: this object's monitor unless the provider gave another lock. */
    private final Object closeLock;
    private volatile boolean closed;
    /** Set by a close before it waits for {@link #calls}: no call may enter from then on. */
    private volatile boolean closing;
    /** The native calls under way on other objects that read this one's memory: {@link #enterCall()}. */
    private final AtomicInteger calls = new AtomicInteger();

    /**
     * Makes an open object. Its constructor ends with {@link #register()}.
     *
     * @param kind what the object is, named as its API interface, for messages and its destroy verb:
     *     {@code "ProtectionDomain"}, {@code "QueuePair"}, ...
     * @param owner the object that releases this one when it closes (the context), or null if this object is
     *     an owner itself
     */
    protected AbstractVerbsObject(String kind, AbstractVerbsObject owner) {
        this(kind, owner, null);
    }

    /**
     * Makes an open object whose close holds {@code closeLock} instead of the object's monitor: for a provider
     * that serialises the creation and destruction of its objects with one lock (per device, say). Its
     * constructor ends with {@link #register()}.
     *
     * @param kind what the object is, named as its API interface, for messages and its destroy verb:
     *     {@code "ProtectionDomain"}, {@code "QueuePair"}, ...
     * @param owner the object that releases this one when it closes (the context), or null if this object is
     *     an owner itself
     * @param closeLock the lock {@link #close()} and the owner's close hold around the destroy verb; null for this
     *     object's monitor
     */
    protected AbstractVerbsObject(String kind, AbstractVerbsObject owner, Object closeLock) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.objectKind = VerbsObjectKind.ofInterface(kind);
        this.closeRank = objectKind != null ? 2 * objectKind.ordinal() : this instanceof MemoryWindow ? 0 : 1;
        this.owner = owner;
        this.owned = owner == null ? new ArrayList<>() : null;
        this.closeLock = closeLock != null ? closeLock : this;
    }

    // ---- what a provider binds

    /**
     * Calls the destroy verb. Runs once the object has no users, under the close lock; when the owner
     * closes it, its result is ignored.
     *
     * @return 0, or the errno the verb failed with
     */
    protected abstract int destroy();

    /**
     * {@return the destroy verb's name, for errors} By default the verb of the kind given to the constructor:
     * {@code ibv_close_device} for a {@code "Context"}, {@code ibv_dealloc_pd} for a {@code "ProtectionDomain"},
     * and so on for every {@link VerbsObject} of the API, as {@link VerbsObjectKind} lists them; an object of
     * another kind overrides it.
     */
    protected String destroyVerb() {
        return objectKind != null ? objectKind.destroyVerb() : kind + ".close()";
    }

    /**
     * Frees what the object held besides its native object (scratch memory, table entries), after the destroy
     * verb and under the close lock. The counts it held on the objects it {@linkplain #dependOn depends on}
     * are released by this class.
     */
    protected void afterDestroy() {}

    /**
     * {@return the QP's WR session, or null} A QueuePair returns its session, so that closing the QP (or its
     * owner) ends the session first and keeps it shut until the close is over.
     */
    protected AbstractWrSession wrSession() {
        return null;
    }

    /**
     * {@return the owner thread of a QP created with a thread domain, or null} Closing such a QP, or its owner,
     * claims it first ({@link ThreadConfinement#claimForClose()}): from a thread other than the QP's live owner
     * the close throws {@link WrongThreadException} before anything is changed.
     */
    protected ThreadConfinement confinement() {
        return null;
    }

    /**
     * Called first by {@link #close()}, before anything is held; throws to refuse the close. By default it refuses
     * nothing.
     */
    protected void beforeClose() {}

    // ---- what a provider calls

    /**
     * Records this object with its owner, which closes it when the owner closes. The last statement of the
     * constructor of an object that has an owner: an object whose constructor failed is never recorded.
     *
     * @throws IllegalStateException if the owner is closed or closing
     */
    protected final void register() {
        owner.adopt(this);
    }

    /**
     * The guard every method runs first. Public so that a provider's object can check another one it is about to
     * use; it changes nothing.
     *
     * @throws IllegalStateException if the object is closed
     */
    public final void checkOpen() {
        if (closed) {
            throw new IllegalStateException("this " + kind + " is closed");
        }
    }

    /**
     * Marks the object closed from inside {@link #destroy()}, once the destroy verb has succeeded: for a provider
     * whose calls guard the native object with locks of their own (a QP's posting locks, say) and that holds them
     * around the verb, so that a call that waited for such a lock finds the object closed through
     * {@link #checkOpen()} when it gets it.
     */
    protected final void markClosed() {
        closed = true;
    }

    /**
     * Checks an object passed as an argument.
     *
     * @param other the argument
     * @param what its name in the message: {@code "the SRQ"}
     * @throws IllegalArgumentException if it was made from another owner (context), or is closed
     */
    protected final void checkSibling(AbstractVerbsObject other, String what) {
        sibling(other, AbstractVerbsObject.class, what);
    }

    /**
     * Checks an object passed as an argument and returns it as the provider's type. Public so that a provider
     * can check the arguments of a creation before the new object exists; it changes nothing.
     *
     * @param <T> the provider's class for it
     * @param arg the argument
     * @param type the provider's class for it
     * @param what its name in the message: {@code "the SRQ"}
     * @return {@code arg}
     * @throws IllegalArgumentException if it is not of {@code type} (another provider's object), was made from
     *     another owner (context), or is closed
     */
    public final <T extends AbstractVerbsObject> T sibling(Object arg, Class<T> type, String what) {
        if (!type.isInstance(arg) || ((AbstractVerbsObject) arg).owner != home()) {
            throw new IllegalArgumentException(what + " belongs to another context or provider");
        }
        if (((AbstractVerbsObject) arg).closed) {
            throw new IllegalArgumentException(what + " is closed");
        }
        return type.cast(arg);
    }

    /**
     * Records that this object uses {@code parent}, which then refuses to close (EBUSY) until this object is
     * destroyed or {@linkplain #dropDependency drops} it.
     *
     * @param parent the object used
     */
    protected final void dependOn(AbstractVerbsObject parent) {
        parent.users.incrementAndGet();
        synchronized (uses) {
            uses.add(parent);
        }
        if (parent instanceof AbstractMemoryRegion r && this instanceof AbstractMemoryWindow w) {
            r.boundWindow(w, true);
        }
    }

    /**
     * Ends one {@link #dependOn} of {@code parent} before this object is destroyed (a window bound to another
     * region, say).
     *
     * @param parent the object no longer used
     */
    protected final void dropDependency(AbstractVerbsObject parent) {
        boolean stillUsed;
        synchronized (uses) {
            if (!uses.remove(parent)) {
                return;
            }
            stillUsed = uses.contains(parent);
        }
        parent.users.decrementAndGet();
        if (!stillUsed && parent instanceof AbstractMemoryRegion r && this instanceof AbstractMemoryWindow w) {
            r.boundWindow(w, false);
        }
    }

    /** Whether {@code a} and {@code b} are objects of this class made from the same owner (context). */
    static boolean sameContext(Object a, Object b) {
        return a instanceof AbstractVerbsObject x && b instanceof AbstractVerbsObject y && x.home() == y.home();
    }

    private AbstractVerbsObject home() {
        return owner != null ? owner : this;
    }

    /** {@return the lock {@link #close()} holds around the destroy verb, for a verb that changes the object in place} */
    protected final Object closeLock() {
        return closeLock;
    }

    @Override
    public final boolean isClosed() {
        return closed;
    }

    /**
     * Destroys the object (see the class comment for the rules).
     *
     * @throws VerbsException {@code EBUSY} if objects that depend on it are open, or the destroy verb's errno
     */
    @Override
    public final void close() {
        beforeClose();
        List<Claim> claims = claimConfined();
        List<AbstractWrSession> held;
        try {
            held = holdSessions();
        } catch (RuntimeException | Error e) {
            restore(claims);
            throw e;
        }
        RuntimeException failure = null;
        try {
            synchronized (closeLock) {
                if (closed) {
                    return;
                }
                closing = true;
                try {
                    // A creation under way that names this object counts as a user once it is done.
                    awaitCalls();
                    int n = users.get();
                    if (n > 0) {
                        throw new VerbsException(destroyVerb(), Errno.EBUSY,
                                "this " + kind + " is still used by " + n + " open object(s)");
                    }
                    if (owned != null) {
                        failure = closeOwned();
                    }
                    int errno = destroy();
                    if (errno != 0) {
                        throw new VerbsException(destroyVerb(), errno, null);
                    }
                    closed = true;
                } finally {
                    if (!closed) {
                        closing = false;
                    }
                }
                released();
            }
            // Outside the monitor: the owner's close takes its own lock, then each object's.
            if (owner != null) {
                owner.forget(this);
            }
        } finally {
            for (AbstractWrSession s : held) {
                s.control().unlockAfterDestroy();
            }
            if (!closed) {
                restore(claims);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** {@return what a close destroys: this object and, for an owner, a snapshot of the objects made from it} */
    private List<AbstractVerbsObject> closeTargets() {
        List<AbstractVerbsObject> objects = new ArrayList<>();
        objects.add(this);
        if (owned != null) {
            synchronized (owned) {
                objects.addAll(owned);
            }
        }
        return objects;
    }

    /** A confinement claimed by a close, and its owner before. */
    private record Claim(ThreadConfinement confinement, Thread before) {}

    /**
     * Claims the confined QPs the close would destroy, this object or, for an owner, the open ones made from it;
     * throws {@link WrongThreadException} (having given back what it claimed) if one belongs to another live
     * thread.
     */
    private List<Claim> claimConfined() {
        List<Claim> claims = new ArrayList<>();
        try {
            for (AbstractVerbsObject o : closeTargets()) {
                ThreadConfinement c = o.confinement();
                if (c != null && !o.closed) {
                    claims.add(new Claim(c, c.claimForClose()));
                }
            }
        } catch (RuntimeException | Error e) {
            restore(claims);
            throw e;
        }
        return claims;
    }

    private static void restore(List<Claim> claims) {
        for (Claim c : claims) {
            c.confinement().restore(c.before());
        }
    }

    /**
     * Ends and shuts the WR sessions the close would destroy, this object's and, for an owner, every QP's made
     * from it; on a failure, reopens those already shut.
     */
    private List<AbstractWrSession> holdSessions() {
        List<AbstractWrSession> held = new ArrayList<>();
        try {
            for (AbstractVerbsObject o : closeTargets()) {
                AbstractWrSession s = o.wrSession();
                if (s != null) {
                    s.control().lockForDestroy();
                    held.add(s);
                }
            }
        } catch (RuntimeException | Error e) {
            held.forEach(s -> s.control().unlockAfterDestroy());
            throw e;
        }
        return held;
    }

    /**
     * An owner's close, under its lock: closes every object made from it, children before parents. An exception
     * of one object's release does not stop the others'; the first is returned, to be thrown once the owner is
     * closed.
     */
    private RuntimeException closeOwned() {
        List<AbstractVerbsObject> live;
        synchronized (owned) {
            sealed = true;
            live = new ArrayList<>(owned);
            owned.clear();
        }
        // In the kinds' close order (VerbsObjectKind: windows first, every kind before the kinds it uses), a kind
        // outside the API's objects after the windows and before the rest, the newest first within a kind (the
        // sort is stable).
        Collections.reverse(live);
        live.sort(Comparator.comparingInt(o -> o.closeRank));
        RuntimeException failure = null;
        for (AbstractVerbsObject o : live) {
            try {
                o.closeByOwner();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                }
            }
        }
        return failure;
    }

    /** Closes this object for its closing owner: no EBUSY check, and the destroy verb's result is ignored. */
    private void closeByOwner() {
        synchronized (closeLock) {
            if (closed) {
                return;
            }
            closing = true;
            awaitCalls();
            closed = true;
            destroy();
            released();
        }
    }

    /**
     * Holds the object for one native call made through another object that reads this one's memory: a post
     * that names this address handle, window or region, or a creation that names this PD, CQ or SRQ. The caller
     * checks the result, makes the call only if it is true, and then calls {@link #exitCall()} exactly once
     * (in a {@code finally}). Between the two, {@link #close()} from any thread, and the owner's close, wait
     * before the destroy verb. Lock-free: an increment and a volatile read.
     *
     * @return true if the object is open and now held; false if it is closed or closing, and then not held
     */
    public final boolean enterCall() {
        calls.incrementAndGet();
        if (closing || closed) {
            calls.decrementAndGet();
            return false;
        }
        return true;
    }

    /** {@return what the object is, as its constructor named it: for messages} */
    final String kind() {
        return kind;
    }

    /** Ends one successful {@link #enterCall()}. */
    public final void exitCall() {
        calls.decrementAndGet();
    }

    /**
     * Waits, under the close lock with {@link #closing} set, until the calls that entered before it end. They
     * are single native calls (a post, a create), so the wait is short; no new call can enter.
     */
    private void awaitCalls() {
        for (int spins = 0; calls.get() != 0; spins++) {
            if (spins < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    /** After the destroy verb: the provider's frees, then the counts held on other objects. */
    private void released() {
        afterDestroy();
        List<AbstractVerbsObject> parents;
        synchronized (uses) {
            parents = new ArrayList<>(uses);
            uses.clear();
        }
        for (AbstractVerbsObject p : parents) {
            p.users.decrementAndGet();
        }
    }

    @Override
    public String toString() {
        return kind + (closed ? " (closed)" : "");
    }

    private void adopt(AbstractVerbsObject child) {
        synchronized (owned) {
            if (sealed || closed) {
                throw new IllegalStateException("this " + kind + " is closed");
            }
            owned.add(child);
        }
    }

    private void forget(AbstractVerbsObject child) {
        synchronized (owned) {
            owned.remove(child);
        }
    }
}
