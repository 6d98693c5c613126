package org.verbs4j.spi.support;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The one thread that may use the send queue of a QP created with a thread domain, as {@link
 * java.lang.foreign.Arena#ofConfined()} confines a segment: the first thread that posts to the QP (or opens its WR
 * session, posts a {@link org.verbs4j.PreparedSends}, binds a type 1 window, or closes the QP) becomes its owner,
 * and every other thread gets {@link WrongThreadException} while the owner is alive. Once the owner has terminated,
 * the next thread takes the QP over.
 *
 * <p>Why: {@code ibv_alloc_td(3)} lets the application promise that one thread at a time uses the objects of a
 * thread domain, so the provider library takes no lock. A Java library cannot take that promise on trust (a close
 * racing a post would hand the library freed memory), but it can enforce it for free: the owner's check is one
 * plain read of a field the owner wrote itself, with no atomic instruction, where a shared send queue's lock costs
 * a compare-and-set per post. The claim is a compare-and-set, made once. A thread that compares the field with
 * itself reads either its own write or a value that is not itself, so the plain read is exact for the owner. A
 * take-over is safe because a thread's termination happens-before another thread sees it end ({@link
 * Thread#isAlive()}, JLS 17.4.4): a dead owner is inside no call.
 */
public final class ThreadConfinement {
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(ThreadConfinement.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final int CLAIM_ATTEMPTS = 3;

    private final String what;
    /** The owner, or null before the first use. Set only by compare-and-set; read plainly by the owner. */
    private Thread owner;

    /**
     * Creates a confinement with no owner yet.
     *
     * @param what the confined object, for messages: {@code "this QueuePair (created with a thread domain)"}
     */
    public ThreadConfinement(String what) {
        this.what = what;
    }

    /** {@return the confinement of a QP created with a thread domain, with no owner yet} */
    public static ThreadConfinement forQueuePair() {
        return new ThreadConfinement("this QueuePair (created with a thread domain)");
    }

    /**
     * Makes the calling thread the owner if there is none or the owner has terminated; does nothing for the
     * owner.
     *
     * @throws WrongThreadException if another thread owns it and is alive
     */
    public void check() {
        Thread me = Thread.currentThread();
        if (owner != me) {
            claim(me);
        }
    }

    /** {@return whether the calling thread is the owner}: no claim is made. */
    public boolean isOwnedByCurrentThread() {
        return owner == Thread.currentThread();
    }

    /**
     * For a close: claims the object as {@link #check()} does, and returns the owner before, to give back with
     * {@link #restore} if the close does not happen.
     *
     * @return the owner before the claim: null, a terminated thread, or the calling thread
     * @throws WrongThreadException if another thread owns it and is alive
     */
    public Thread claimForClose() {
        Thread before = (Thread) OWNER.getVolatile(this);
        check();
        return before;
    }

    /**
     * Undoes {@link #claimForClose()} when the close failed or did not need the object: the object has no owner
     * again if it had none (or a terminated one) before. Called by the thread that claimed it.
     *
     * @param before what {@link #claimForClose()} returned
     */
    public void restore(Thread before) {
        Thread me = Thread.currentThread();
        if (before != me) {
            OWNER.compareAndSet(this, me, (Thread) null);
        }
    }

    /**
     * The slow path. Each failed compare-and-set means another thread claimed or gave back the object meanwhile;
     * after {@value #CLAIM_ATTEMPTS} of them the caller loses.
     */
    private void claim(Thread me) {
        Thread current = null;
        for (int attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
            current = (Thread) OWNER.getVolatile(this);
            if (current == me) {
                return;
            }
            if (current != null && current.isAlive()) {
                break;
            }
            if (OWNER.compareAndSet(this, current, me)) {
                return;
            }
        }
        throw new WrongThreadException(what + " is confined to thread \""
                + (current == null ? "(another, claiming it now)" : current.getName())
                + "\", which is alive; it cannot be used from thread \"" + me.getName() + "\"");
    }
}
