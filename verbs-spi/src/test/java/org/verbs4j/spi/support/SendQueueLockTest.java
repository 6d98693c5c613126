package org.verbs4j.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@DisplayName("SendQueueLock: the send queue's lock, a compare-and-set to take and a release store to give back")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SendQueueLockTest {
    private final SendQueueLock lock = new SendQueueLock();

    @Test
    @DisplayName("four threads incrementing a plain counter under it lose no increment")
    void mutualExclusion() throws Exception {
        int threads = 4;
        int rounds = 200_000;
        long[] counter = new long[1];
        // A read, a pause and a write: a second thread inside the section at the same time loses an increment.
        Runnable work = () -> {
            for (int i = 0; i < rounds; i++) {
                lock.lock();
                try {
                    long v = counter[0];
                    if ((i & 1023) == 0) {
                        Thread.onSpinWait();
                        Thread.yield();
                    }
                    counter[0] = v + 1;
                } finally {
                    lock.unlock();
                }
            }
        };
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            started.add(Thread.ofPlatform().start(work));
        }
        for (Thread t : started) {
            t.join();
        }
        assertEquals((long) threads * rounds, counter[0]);
    }

    @Test
    @DisplayName("it is reentrant: the holder takes it again and must give it back as often before another thread gets it")
    void reentrant() throws Exception {
        lock.lock();
        lock.lock();
        assertTrue(lock.isHeldByCurrentThread());
        lock.unlock();
        assertTrue(lock.isHeldByCurrentThread(), "one unlock of two takes must leave it held");
        assertFalse(takenBy(lock, 200), "another thread took the lock while it was still held once");
        lock.unlock();
        assertFalse(lock.isHeldByCurrentThread());
        assertTrue(takenBy(lock, 10_000), "another thread could not take the lock once it was given back");
    }

    @Test
    @DisplayName("unlock() from a thread that does not hold it throws IllegalMonitorStateException and changes nothing")
    void unlockByOtherThread() throws Exception {
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        lock.lock();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                lock.unlock();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        t.join();
        assertTrue(thrown.get() instanceof IllegalMonitorStateException, "got " + thrown.get());
        assertTrue(lock.isHeldByCurrentThread());
        assertFalse(takenBy(lock, 200), "a refused unlock gave the lock away");
        lock.unlock();
    }

    @Test
    @DisplayName("a thread parked on it takes it when it is given back, and keeps an interrupt it got while waiting")
    void waiterWakesAndKeepsInterrupt() throws Exception {
        lock.lock();
        CountDownLatch waiting = new CountDownLatch(1);
        AtomicBoolean got = new AtomicBoolean();
        AtomicBoolean interruptedAfter = new AtomicBoolean();
        Thread w = Thread.ofPlatform().start(() -> {
            waiting.countDown();
            lock.lock();
            got.set(true);
            interruptedAfter.set(Thread.currentThread().isInterrupted());
            lock.unlock();
        });
        waiting.await();
        Thread.sleep(100); // past the spins: the waiter is parked
        w.interrupt();
        Thread.sleep(50);
        assertFalse(got.get(), "an interrupt must not end the wait");
        lock.unlock();
        w.join(10_000);
        assertTrue(got.get(), "the waiter did not take the lock after it was given back");
        assertTrue(interruptedAfter.get(), "the waiter lost the interrupt it got while waiting");
    }

    /** Whether another thread takes and gives back the lock within {@code millis}. */
    @Test
    @DisplayName("lockUnlessHeld() takes a free lock once; the holder gets false and no second hold; another thread "
            + "waits until it is given back")
    void lockUnlessHeld() throws Exception {
        assertTrue(lock.lockUnlessHeld(), "a free lock");
        assertTrue(lock.isHeldByCurrentThread());
        assertFalse(lock.lockUnlessHeld(), "the holder asks again");
        lock.unlock();
        assertFalse(lock.isLocked(), "one unlock gives the lock back: the second call took no hold");
        assertTrue(lock.lockUnlessHeld(), "free again");
        CountDownLatch taken = new CountDownLatch(1);
        AtomicBoolean result = new AtomicBoolean();
        Thread t = Thread.ofPlatform().daemon().start(() -> {
            result.set(lock.lockUnlessHeld());
            taken.countDown();
            lock.unlock();
        });
        assertFalse(taken.await(200, TimeUnit.MILLISECONDS), "another thread took it while it was held");
        lock.unlock();
        assertTrue(taken.await(10, TimeUnit.SECONDS), "the waiter got it once it was given back");
        t.join();
        assertTrue(result.get(), "the waiter's lockUnlessHeld() took it");
        assertFalse(lock.isLocked());
    }

    private static boolean takenBy(SendQueueLock lock, long millis) throws InterruptedException {
        CountDownLatch taken = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().daemon().start(() -> {
            lock.lock();
            taken.countDown();
            lock.unlock();
        });
        boolean ok = taken.await(millis, TimeUnit.MILLISECONDS);
        if (!ok) {
            // Leave it waiting: the test gives the lock back later, and the thread ends then.
            return false;
        }
        t.join();
        return true;
    }
}
