package org.verbs4j.spi.support;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The lock of one QP's send queue: {@code postSend}, a WR session from {@code startWr()} to {@code complete()} or
 * {@code abort()}, a type 1 {@code bindMw} and the destroy verb hold it, so that no two of them overlap and none
 * runs on freed memory. Reentrant, not fair, and made for the case of the data path: one thread posting to its
 * own QP, taking and releasing the lock once per post.
 *
 * <p>What it costs. Taking a free lock is one compare-and-set, as with {@link
 * java.util.concurrent.locks.ReentrantLock}. Releasing it is a plain release store: no fence, where {@code
 * ReentrantLock.unlock()} writes its state with a volatile store (a full fence on x86). On the null libibverbs
 * the fence was about a sixth of a one-WR {@code postSend} (benchmarks/reports/bindings-cost-cut.md).
 *
 * <p>The price is paid only under contention. A thread that finds the lock taken spins a little, then registers
 * as a waiter and parks; the releasing thread unparks every registered waiter, and one of them takes the lock.
 * Without the fence, a release can miss a waiter that registered at that very moment, so a waiter never parks
 * for longer than {@value #MAX_PARK_NANOS} ns at a time before it looks again: a missed wake-up delays it by at
 * most that much, and it is never lost. Interrupts do not end the wait; a thread interrupted while waiting has
 * its interrupt status set again once it holds the lock, as {@code ReentrantLock.lock()} does.
 *
 * <p>The memory effects are those of a lock: everything a thread did before {@link #unlock()} is visible to the
 * next thread once its {@link #lock()} returns (the release store and the compare-and-set's acquire).
 *
 * <p><b>Confined.</b> The lock of a QP created with a thread domain ({@link #SendQueueLock(ThreadConfinement)})
 * is taken by one thread only, the QP's {@link ThreadConfinement owner}: {@link #lock()} checks the thread (one
 * plain read) and counts, with no atomic instruction, and throws {@link WrongThreadException} in any other thread
 * while the owner lives. No thread ever waits for it.
 */
public final class SendQueueLock {
    /** The longest a waiter parks before it looks at the lock again, in nanoseconds. */
    static final long MAX_PARK_NANOS = 1_000_000L;
    private static final int SPINS = 64;
    private static final VarHandle STATE;
    private static final VarHandle WAITERS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(SendQueueLock.class, "state", int.class);
            WAITERS = l.findVarHandle(SendQueueLock.class, "waiters", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** 0: free; 1: held. Taken by compare-and-set, given back by a release store. */
    private volatile int state;
    /** The threads registered in {@link #waitForLock}; changed atomically, read without a fence by {@link #unlock()}. */
    @SuppressWarnings("unused") // through WAITERS
    private volatile int waiters;
    /**
     * The holder. Written only by the holder, so a thread that compares it with itself reads either its own write
     * or a value that is not itself: {@link #isHeldByCurrentThread()} needs no ordering.
     */
    private Thread owner;
    /** How many times the holder took the lock again ({@link #lock()} while holding it). */
    private int reentries;
    /** The waiting threads, for {@link #unlock()} to unpark; touched only under contention. */
    private final ConcurrentLinkedQueue<Thread> parked = new ConcurrentLinkedQueue<>();
    /** The QP's owner thread, for a confined lock; null for a lock threads share. */
    private final ThreadConfinement confinement;
    /** A confined lock: the thread that counted {@link #holds}, and how many times it holds the lock. */
    private Thread holder;
    private int holds;

    /** Creates a free lock that threads share. */
    public SendQueueLock() {
        this(null);
    }

    /**
     * Creates a free lock, confined to the owner thread of {@code confinement} if it is not null.
     *
     * @param confinement the QP's owner thread, or null for a lock that threads share
     */
    public SendQueueLock(ThreadConfinement confinement) {
        this.confinement = confinement;
    }

    /** {@return the confinement of a confined lock, or null} */
    public ThreadConfinement confinement() {
        return confinement;
    }

    /**
     * Takes the lock, waiting for it if another thread holds it; takes it again if this thread holds it.
     *
     * @throws WrongThreadException if the lock is confined to another thread, which is alive
     */
    public void lock() {
        if (confinement != null) {
            lockConfined(false);
        } else if (!tryLock()) {
            waitForLock(Thread.currentThread());
        }
    }

    /**
     * Takes the lock for one call that must not run inside this thread's own hold of it, waiting if another thread
     * holds it. A QP's posting verbs take it this way: the one hold that spans calls is an open WR session's, so a
     * post that finds its own thread holding the lock is a post inside that thread's session, which the caller
     * refuses. The check costs nothing on the fast path: a free lock is taken by the same compare-and-set as
     * {@link #lock()} (a confined lock by the same plain reads), and only a failed one asks who holds it.
     *
     * @return true if the lock is now held for this call; false, without taking it again, if this thread held it
     * @throws WrongThreadException if the lock is confined to another thread, which is alive
     */
    public boolean lockUnlessHeld() {
        if (confinement != null) {
            return lockConfined(true);
        }
        if (STATE.compareAndSet(this, 0, 1)) {
            owner = Thread.currentThread();
            return true;
        }
        Thread me = Thread.currentThread();
        if (owner == me) {
            return false;
        }
        waitForLock(me);
        return true;
    }

    /**
     * The confined lock: the owner counts its holds; a thread taking over from a dead owner starts from none.
     *
     * @param unlessHeld take no second hold: return false if this thread holds the lock
     * @return whether this call took a hold
     */
    private boolean lockConfined(boolean unlessHeld) {
        confinement.check();
        Thread me = Thread.currentThread();
        if (holder != me) {
            holder = me;
            holds = 0;
        } else if (unlessHeld && holds > 0) {
            return false;
        }
        holds++;
        return true;
    }

    /**
     * Takes the lock if it is free or this thread holds it, without waiting.
     *
     * @return whether this thread now holds it
     * @throws WrongThreadException if the lock is confined to another thread, which is alive
     */
    public boolean tryLock() {
        if (confinement != null) {
            return lockConfined(false);
        }
        Thread me = Thread.currentThread();
        if (STATE.compareAndSet(this, 0, 1)) {
            owner = me;
            return true;
        }
        if (owner == me) {
            reentries++;
            return true;
        }
        return false;
    }

    /**
     * Gives the lock back (once, if it was taken again).
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold it
     */
    public void unlock() {
        if (confinement != null) {
            if (holder != Thread.currentThread() || holds == 0) {
                throw new IllegalMonitorStateException("the send queue lock is not held by this thread");
            }
            holds--;
            return;
        }
        if (owner != Thread.currentThread()) {
            throw new IllegalMonitorStateException("the send queue lock is not held by this thread");
        }
        if (reentries > 0) {
            reentries--;
            return;
        }
        owner = null;
        STATE.setRelease(this, 0);
        if ((int) WAITERS.getOpaque(this) != 0) {
            for (Thread t : parked) {
                LockSupport.unpark(t);
            }
        }
    }

    /** {@return whether the calling thread holds the lock} */
    public boolean isHeldByCurrentThread() {
        if (confinement != null) {
            return holder == Thread.currentThread() && holds > 0;
        }
        return owner == Thread.currentThread();
    }

    /** {@return whether some thread holds the lock}: a snapshot, for tests and monitoring. */
    public boolean isLocked() {
        return confinement != null ? holds > 0 : state != 0;
    }

    /** The contended path: spins, then parks (at most {@value #MAX_PARK_NANOS} ns at a time) until it takes it. */
    private void waitForLock(Thread me) {
        for (int i = 0; i < SPINS; i++) {
            Thread.onSpinWait();
            if ((int) STATE.getOpaque(this) == 0 && STATE.compareAndSet(this, 0, 1)) {
                owner = me;
                return;
            }
        }
        boolean interrupted = false;
        parked.add(me);
        WAITERS.getAndAdd(this, 1);
        try {
            long park = 1_000L;
            while (!STATE.compareAndSet(this, 0, 1)) {
                LockSupport.parkNanos(this, park);
                park = Math.min(2 * park, MAX_PARK_NANOS);
                if (Thread.interrupted()) {
                    interrupted = true;
                }
            }
        } finally {
            WAITERS.getAndAdd(this, -1);
            parked.remove(me);
        }
        owner = me;
        if (interrupted) {
            me.interrupt();
        }
    }
}
