package org.verbs4j.provider.emulated;

import java.util.Comparator;
import java.util.PriorityQueue;

import org.verbs4j.provider.emulated.wire.WireClock;

/**
 * A {@link WireClock} that stands still until the test moves it: {@link #advance} runs the tasks that fall due, in
 * time order, in the test's thread. The wire device's receive thread reads it while it takes an answer, so it is
 * thread-safe; a task runs outside its lock, since a task takes the QP's lock and the receive thread may hold that
 * lock while it reads the clock.
 */
final class ManualWireClock implements WireClock {
    private record Task(long at, long seq, Runnable run) {}

    private final PriorityQueue<Task> due =
            new PriorityQueue<>(Comparator.comparingLong(Task::at).thenComparingLong(Task::seq));
    private long now = 1_000_000_000L;
    /** Tasks scheduled so far. */
    private long seq;

    @Override
    public synchronized long nanoTime() {
        return now;
    }

    @Override
    public synchronized void schedule(Runnable task, long micros) {
        due.add(new Task(now + micros * 1000, seq++, task));
    }

    /** {@return the tasks scheduled so far} */
    synchronized long scheduled() {
        return seq;
    }

    /** {@return the tasks scheduled and not run yet} */
    synchronized int pending() {
        return due.size();
    }

    /** Moves the clock on by {@code nanos}, running each task that falls due on the way, at its time. */
    void advance(long nanos) {
        long end;
        synchronized (this) {
            end = now + nanos;
        }
        while (true) {
            Task t;
            synchronized (this) {
                t = due.peek();
                if (t == null || t.at() > end) {
                    now = end;
                    return;
                }
                due.poll();
                now = t.at();
            }
            t.run().run();
        }
    }
}
