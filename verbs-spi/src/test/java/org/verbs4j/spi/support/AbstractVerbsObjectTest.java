package org.verbs4j.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Errno;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.VerbsException;

@DisplayName("AbstractVerbsObject: one lifecycle for every provider's verbs objects")
class AbstractVerbsObjectTest {
    /** The order destroy verbs ran in, across the objects of one test. */
    private final List<String> destroyed = Collections.synchronizedList(new ArrayList<>());

    /** A verbs object whose destroy verb records its name and returns {@link #errno}. */
    private class Obj extends AbstractVerbsObject {
        final String name;
        volatile int errno;
        int afterDestroy;

        Obj(String name, Obj owner) {
            this("Thing", name, owner);
        }

        Obj(String kind, String name, Obj owner) {
            super(kind, owner);
            this.name = name;
            if (name.startsWith("broken")) {
                throw new IllegalStateException("constructor failed");
            }
            if (owner != null) {
                register();
            }
        }

        @Override
        protected int destroy() {
            destroyed.add(name);
            return errno;
        }

        @Override
        protected String destroyVerb() {
            return "ibv_destroy_thing";
        }

        @Override
        protected void afterDestroy() {
            afterDestroy++;
        }

        void use(Obj parent) {
            dependOn(parent);
        }

        void unuse(Obj parent) {
            dropDependency(parent);
        }

        void call() {
            checkOpen();
        }
    }

    private final class Window extends Obj implements MemoryWindow {
        Window(String name, Obj owner) {
            super(name, owner);
        }

        @Override
        public ProtectionDomain pd() {
            return null;
        }

        @Override
        public MwType type() {
            return MwType.TYPE_1;
        }

        @Override
        public int rkey() {
            return 0;
        }
    }

    @Test
    @DisplayName("close() destroys once; a second close does nothing; every guarded call then throws IllegalStateException")
    void closeOnceThenRefuse() {
        Obj ctx = new Obj("ctx", null);
        Obj pd = new Obj("pd", ctx);
        pd.call();
        pd.close();
        assertTrue(pd.isClosed());
        pd.close();
        assertEquals(List.of("pd"), destroyed, "the destroy verb runs once");
        assertEquals(1, pd.afterDestroy);
        IllegalStateException e = assertThrows(IllegalStateException.class, pd::call);
        assertEquals("this Thing is closed", e.getMessage());
        assertEquals("Thing (closed)", pd.toString());
    }

    @Test
    @DisplayName("a parent with a live dependent refuses close with EBUSY before its destroy verb runs, and closes once the dependent is gone")
    void busyWhileUsed() {
        Obj ctx = new Obj("ctx", null);
        Obj pd = new Obj("pd", ctx);
        Obj mr = new Obj("mr", ctx);
        mr.use(pd);
        VerbsException e = assertThrows(VerbsException.class, pd::close);
        assertEquals(Errno.EBUSY, e.errno());
        assertEquals("ibv_destroy_thing", e.verb());
        assertFalse(pd.isClosed());
        assertEquals(List.of(), destroyed, "EBUSY is decided in Java, before the destroy verb");
        pd.call();
        mr.close();
        pd.close();
        assertEquals(List.of("mr", "pd"), destroyed);
    }

    @Test
    @DisplayName("dropDependency ends one use early; a second drop of the same parent changes nothing")
    void dropDependency() {
        Obj ctx = new Obj("ctx", null);
        Obj mr = new Obj("mr", ctx);
        Obj mw = new Obj("mw", ctx);
        mw.use(mr);
        mw.unuse(mr);
        mw.unuse(mr);
        mr.close();
        assertTrue(mr.isClosed());
        assertFalse(mw.isClosed());
    }

    @Test
    @DisplayName("a failed destroy verb throws its errno and leaves the object open and its parents held")
    void failedDestroyKeepsTheObject() {
        Obj ctx = new Obj("ctx", null);
        Obj pd = new Obj("pd", ctx);
        Obj qp = new Obj("qp", ctx);
        qp.use(pd);
        qp.errno = Errno.EINVAL;
        VerbsException e = assertThrows(VerbsException.class, qp::close);
        assertEquals(Errno.EINVAL, e.errno());
        assertFalse(qp.isClosed());
        assertEquals(0, qp.afterDestroy);
        assertThrows(VerbsException.class, pd::close, "the QP still holds the PD");
        qp.errno = 0;
        qp.close();
        pd.close();
        assertTrue(pd.isClosed());
    }

    @Test
    @DisplayName("closing the owner closes the API's kinds in VerbsObjectKind's order, whatever their age")
    void ownerClosesInKindOrder() {
        Obj ctx = new Obj("Context", "ctx", null);
        Obj qp = new Obj("QueuePair", "qp", ctx);
        Obj cq = new Obj("CompletionQueue", "cq", ctx);
        Obj pd = new Obj("ProtectionDomain", "pd", ctx);
        Obj td = new Obj("ThreadDomain", "td", ctx);
        destroyed.clear();
        ctx.close();
        assertEquals(List.of("qp", "cq", "td", "pd", "ctx"), destroyed, "a CQ or PD made after a QP still outlives it");
        assertTrue(qp.isClosed() && cq.isClosed() && pd.isClosed() && td.isClosed());
    }

    @Test
    @DisplayName("closing the owner closes its objects, windows first, then the newest first, ignoring their errors, and refuses new ones")
    void ownerClosesChildrenBeforeParents() {
        Obj ctx = new Obj("ctx", null);
        Obj pd = new Obj("pd", ctx);
        Obj cq = new Obj("cq", ctx);
        Obj mw = new Window("mw", ctx);
        Obj qp = new Obj("qp", ctx);
        qp.use(pd);
        qp.use(cq);
        mw.use(pd);
        qp.errno = Errno.EIO;
        Obj gone = new Obj("gone", ctx);
        gone.close();
        destroyed.clear();
        ctx.close();
        assertEquals(List.of("mw", "qp", "cq", "pd", "ctx"), destroyed);
        for (Obj o : List.of(ctx, pd, cq, mw, qp)) {
            assertTrue(o.isClosed(), o.name);
            assertEquals(1, o.afterDestroy, o.name);
        }
        assertThrows(IllegalStateException.class, () -> new Obj("late", ctx));
        ctx.close();
        assertEquals(5, destroyed.size(), "a second close of the owner does nothing");
    }

    @Test
    @DisplayName("an object whose constructor failed before register() is not closed by its owner")
    void failedConstructionIsNotRecorded() {
        Obj ctx = new Obj("ctx", null);
        assertThrows(IllegalStateException.class, () -> new Obj("broken", ctx));
        ctx.close();
        assertEquals(List.of("ctx"), destroyed);
    }

    @Test
    @DisplayName("the destroy verb waits for a call that holds the object's monitor, and that call then sees the object open")
    void closeWaitsForInFlightCall() throws Exception {
        Obj ctx = new Obj("ctx", null);
        Obj cq = new Obj("cq", ctx);
        CountDownLatch inCall = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger seenDestroys = new AtomicInteger(-1);
        Thread caller = new Thread(() -> {
            synchronized (cq) {
                cq.call();
                inCall.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                seenDestroys.set(destroyed.size());
            }
        });
        caller.start();
        inCall.await();
        Thread closer = new Thread(cq::close);
        closer.start();
        while (closer.getState() != Thread.State.BLOCKED) {
            assertTrue(closer.isAlive(), "close() must wait for the monitor the call holds");
            Thread.onSpinWait();
        }
        assertFalse(cq.isClosed());
        release.countDown();
        caller.join();
        closer.join();
        assertEquals(0, seenDestroys.get(), "no destroy verb ran while the call held the object");
        assertTrue(cq.isClosed());
    }

    @Test
    @DisplayName("close() from many threads at once runs the destroy verb exactly once")
    void concurrentClose() throws Exception {
        Obj ctx = new Obj("ctx", null);
        Obj pd = new Obj("pd", ctx);
        int n = 8;
        CyclicBarrier start = new CyclicBarrier(n);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                pd.close();
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(List.of("pd"), destroyed);
        assertEquals(1, pd.afterDestroy);
    }

    @Test
    @DisplayName("markClosed() inside the destroy verb makes checkOpen() fail before the close returns")
    void markClosedFromDestroy() {
        Obj ctx = new Obj("ctx", null);
        List<Boolean> seen = new ArrayList<>();
        Obj qp = new Obj("qp", ctx) {
            @Override
            protected int destroy() {
                markClosed();
                seen.add(isClosed());
                return 0;
            }
        };
        qp.close();
        assertEquals(List.of(true), seen);
    }

    @Test
    @DisplayName("sibling() accepts an open object of the same owner and refuses another owner's, a foreign type and a closed one")
    void sibling() {
        Obj ctx = new Obj("ctx", null);
        Obj other = new Obj("other", null);
        Obj pd = new Obj("pd", ctx);
        Obj cq = new Obj("cq", ctx);
        assertSame(cq, pd.sibling(cq, Obj.class, "the CQ"));
        assertSame(cq, ctx.sibling(cq, Obj.class, "the CQ"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> pd.sibling(new Obj("x", other), Obj.class, "the CQ"));
        assertEquals("the CQ belongs to another context or provider", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pd.sibling("not a verbs object", Obj.class, "the CQ"));
        assertThrows(IllegalArgumentException.class, () -> pd.sibling(cq, Window.class, "the window"));
        cq.close();
        e = assertThrows(IllegalArgumentException.class, () -> pd.sibling(cq, Obj.class, "the CQ"));
        assertEquals("the CQ is closed", e.getMessage());
        assertTrue(AbstractVerbsObject.sameContext(pd, cq));
        assertFalse(AbstractVerbsObject.sameContext(pd, other));
    }

    @Test
    @DisplayName("a close waits for a call under way on another thread before its destroy verb, and refuses new calls")
    void closeWaitsForCallsUnderWay() throws Exception {
        Obj ctx = new Obj("ctx", null);
        Obj ah = new Obj("ah", ctx);
        assertTrue(ah.enterCall(), "an open object is held");
        Thread closer = new Thread(ah::close, "closer");
        closer.start();
        awaitClosing(ah);
        assertTrue(closer.isAlive(), "close() must wait for the call under way");
        assertFalse(destroyed.contains("ah"), "the destroy verb ran under a call");
        assertFalse(ah.isClosed());
        ah.exitCall();
        closer.join(5_000);
        assertFalse(closer.isAlive(), "close() ends once the call ended");
        assertEquals(List.of("ah"), destroyed);
        assertTrue(ah.isClosed());
        assertFalse(ah.enterCall(), "a closed object is not held");
    }

    @Test
    @DisplayName("a close that fails leaves the object open to calls again; a creation under way that counts as a user makes it EBUSY")
    void aFailedCloseReopensCalls() throws Exception {
        Obj ctx = new Obj("ctx", null);
        Obj pd = new Obj("pd", ctx);
        pd.errno = Errno.EIO;
        assertThrows(VerbsException.class, pd::close);
        assertTrue(pd.enterCall(), "after a failed destroy verb the object takes calls again");
        // A creation holds the PD, and records its use of it before it lets go: the waiting close then refuses.
        pd.errno = 0;
        AtomicReference<Throwable> closed = new AtomicReference<>();
        Thread closer = new Thread(() -> closed.set(catching(pd::close)), "closer");
        closer.start();
        awaitClosing(pd);
        Obj qp = new Obj("qp", ctx);
        qp.use(pd);
        pd.exitCall();
        closer.join(5_000);
        assertFalse(closer.isAlive());
        assertTrue(closed.get() instanceof VerbsException v && v.errno() == Errno.EBUSY, "close: " + closed.get());
        assertFalse(pd.isClosed(), "EBUSY: the QP made under the hold uses the PD");
        qp.close();
        pd.close();
        assertTrue(pd.isClosed());
    }

    @Test
    @DisplayName("the owner's close waits for a call under way on one of its objects")
    void ownerCloseWaitsForCalls() throws Exception {
        Obj ctx = new Obj("ctx", null);
        Obj ah = new Obj("ah", ctx);
        assertTrue(ah.enterCall());
        Thread closer = new Thread(ctx::close, "closer");
        closer.start();
        closer.join(200);
        assertTrue(closer.isAlive(), "the context's close must wait for the call on its address handle");
        assertFalse(destroyed.contains("ah"));
        ah.exitCall();
        closer.join(5_000);
        assertFalse(closer.isAlive());
        assertEquals(List.of("ah", "ctx"), destroyed);
    }

    @Test
    @DisplayName("CallHold: holds the receiver and its arguments, names the closed one, and releases them all")
    void callHoldNamesTheClosedObject() {
        Obj ctx = new Obj("ctx", null);
        Obj pd = new Obj("pd", ctx);
        Obj cq = new Obj("cq", ctx);
        cq.close();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CallHold.on(pd).and(null, "the SRQ").and(cq, "the send CQ"));
        assertEquals("the send CQ is closed", e.getMessage());
        pd.close(); // not held any more: the failed hold released it
        assertTrue(pd.isClosed());
        IllegalStateException s = assertThrows(IllegalStateException.class, () -> CallHold.on(pd));
        assertEquals("this Thing is closed", s.getMessage());
    }

    /** Waits until a close on another thread has begun: the object takes no call any more. */
    private static void awaitClosing(Obj o) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (o.enterCall()) {
            o.exitCall();
            assertTrue(System.nanoTime() < deadline, "the close never began");
            Thread.sleep(1);
        }
    }

    private static Throwable catching(Runnable r) {
        try {
            r.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }
}
