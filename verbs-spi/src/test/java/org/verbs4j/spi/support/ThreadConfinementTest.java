package org.verbs4j.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@DisplayName("ThreadConfinement and the confined SendQueueLock: a thread-domain QP's one thread")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ThreadConfinementTest {
    private final ThreadConfinement confinement = ThreadConfinement.forQueuePair();
    private final SendQueueLock lock = new SendQueueLock(confinement);

    /** Runs {@code body} in a new thread and waits for it to end; returns what it threw, or null. */
    private static Throwable inThread(Runnable body) throws InterruptedException {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        t.start();
        t.join();
        return thrown.get();
    }

    @Test
    @DisplayName("the first thread to lock it owns it; another live thread gets WrongThreadException naming both")
    void firstUserOwns() throws Exception {
        lock.lock();
        lock.unlock();
        // A second confinement, owned by a thread that stays alive while the test thread tries it.
        ThreadConfinement other = ThreadConfinement.forQueuePair();
        CountDownLatch done = new CountDownLatch(1);
        CountDownLatch claimed = new CountDownLatch(1);
        Thread owner = new Thread(() -> {
            try {
                other.check();
                claimed.countDown();
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "owner-thread");
        owner.start();
        claimed.await();
        try {
            WrongThreadException e = assertThrows(WrongThreadException.class, other::check);
            assertTrue(e.getMessage().contains("\"owner-thread\"") && e.getMessage().contains(
                    "\"" + Thread.currentThread().getName() + "\""), e.getMessage());
        } finally {
            done.countDown();
            owner.join();
        }
        Throwable second = inThread(lock::lock);
        assertTrue(second instanceof WrongThreadException, "another thread, while the owner lives: " + second);
        assertTrue(confinement.isOwnedByCurrentThread());
    }

    @Test
    @DisplayName("the owner takes it again (reentrant) and holds it until the last unlock; unlock without a hold throws")
    void reentrantCount() {
        assertFalse(lock.isLocked());
        lock.lock();
        assertTrue(lock.tryLock());
        assertTrue(lock.isHeldByCurrentThread());
        lock.unlock();
        assertTrue(lock.isHeldByCurrentThread(), "held once more");
        lock.unlock();
        assertFalse(lock.isHeldByCurrentThread());
        assertFalse(lock.isLocked());
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
    }

    @Test
    @DisplayName("lockUnlessHeld() on a confined lock: the owner takes it once and gets false while it holds it; "
            + "another live thread gets WrongThreadException")
    void lockUnlessHeld() throws Exception {
        assertTrue(lock.lockUnlessHeld(), "the first user takes it");
        assertFalse(lock.lockUnlessHeld(), "the owner asks again while holding it");
        lock.unlock();
        assertFalse(lock.isLocked(), "one unlock gives it back: the second call took no hold");
        assertTrue(lock.lockUnlessHeld(), "the owner again, not holding it");
        lock.unlock();
        Throwable other = inThread(lock::lockUnlessHeld);
        assertTrue(other instanceof WrongThreadException, "another thread, while the owner lives: " + other);
    }

    @Test
    @DisplayName("once the owner has ended, the next thread takes it over, with none of the dead owner's holds")
    void takeOverFromDeadOwner() throws Exception {
        // The owner dies holding the lock (a session left open).
        assertNull(inThread(lock::lock));
        lock.lock();
        assertTrue(lock.isHeldByCurrentThread());
        lock.unlock();
        assertFalse(lock.isLocked(), "the dead owner's hold is not counted for the new one");
    }

    @Test
    @DisplayName("claimForClose and restore: a close that does not happen gives an unowned QP back unowned")
    void claimAndRestore() throws Exception {
        Thread before = confinement.claimForClose();
        assertNull(before);
        assertTrue(confinement.isOwnedByCurrentThread());
        confinement.restore(before);
        assertFalse(confinement.isOwnedByCurrentThread());
        assertNull(inThread(confinement::check), "another thread may claim it again");

        ThreadConfinement mine = ThreadConfinement.forQueuePair();
        mine.check();
        Thread again = mine.claimForClose();
        assertSame(Thread.currentThread(), again);
        mine.restore(again);
        assertTrue(mine.isOwnedByCurrentThread(), "the owner's own claim is kept");
        assertEquals(WrongThreadException.class, inThread(mine::check).getClass());
    }
}
