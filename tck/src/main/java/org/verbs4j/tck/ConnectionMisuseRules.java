package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.ConnectionParameters;

/**
 * Misuse of the connection manager, whose objects stand on native memory: {@code rdma_ack_cm_event} frees a
 * {@code struct rdma_cm_event} and {@code rdma_destroy_id} a {@code struct rdma_cm_id}. An event's fields read
 * after its acknowledgement, an id's getters and operations after its close, from the owning thread and from
 * another, and a close racing a blocked wait, each give a defined result or {@link IllegalStateException},
 * never a crash. A provider without a connection manager skips the area, with that reason.
 */
public abstract class ConnectionMisuseRules extends CmArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected ConnectionMisuseRules(VerbsCompatibilityKit kit) {
        super(kit);
    }


    /** Every field of an event, read at once. */
    private record EventFields(CmEventType type, int status, CmId id, CmId listenId, byte[] privateData,
                               int responderResources, int initiatorDepth) {
        static EventFields of(CmEvent e) {
            return new EventFields(e.type(), e.status(), e.id(), e.listenId(), e.privateData(),
                    e.responderResources(), e.initiatorDepth());
        }

        void assertSameAs(EventFields then, String when) {
            assertEquals(then.type, type, when + ": type()");
            assertEquals(then.status, status, when + ": status()");
            assertSame(then.id, id, when + ": id()");
            assertSame(then.listenId, listenId, when + ": listenId()");
            assertArrayEquals(then.privateData, privateData, when + ": privateData()");
            assertEquals(then.responderResources, responderResources, when + ": responderResources()");
            assertEquals(then.initiatorDepth, initiatorDepth, when + ": initiatorDepth()");
        }
    }

    /** Runs a call on a new thread and waits for it; its exception is rethrown. */
    private static <T> T onAnotherThread(Callable<T> call) throws Exception {
        FutureTask<T> task = new FutureTask<>(call);
        Thread t = new Thread(task, "tck-cm-other-thread");
        t.setDaemon(true);
        t.start();
        try {
            return task.get(CmBench.EVENT_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            throw e;
        }
    }

    /**
     * Runs {@code call} on a thread of its own; the future holds what it threw, or an {@link AssertionError} naming
     * what it returned, since each call here must end only by throwing.
     */
    private static CompletableFuture<Throwable> ended(String thread, Callable<Object> call) {
        CompletableFuture<Throwable> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(new AssertionError(thread + " returned " + call.call() + " instead of throwing"));
            } catch (Throwable x) {
                f.complete(x);
            }
        }, thread);
        t.setDaemon(true);
        t.start();
        return f;
    }

    /** Takes the next event, which must be {@code type}, without acknowledging it. */
    private static CmEvent take(CmEventChannel channel, CmEventType type, String after) {
        CmEvent e = channel.getEvent(CmBench.EVENT_WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(e, "no event within " + CmBench.EVENT_WAIT_MS + " ms after " + after + "; expected " + type);
        if (e.type() != type) {
            e.close();
            assertEquals(type, e.type(), "the event after " + after + " (status " + e.status() + ")");
        }
        return e;
    }

    @Test
    @DisplayName("required_ every field of a CmEvent, private data included, reads the same after close() acknowledged it (rdma_ack_cm_event frees the native event), on the acknowledging thread and on another, and a second close() does nothing [rdma_ack_cm_event(3)]")
    void required_eventFieldsAfterAck() throws Exception {
        assumeCm();
        CmBench.Setup s = cm.setup();
        CmBench.End a = s.active();
        byte[] hello = text("read me after the ack");
        a.id().connect(ConnectionParameters.of(hello));
        CmEvent req = take(s.listenChannel(), CmEventType.CONNECT_REQUEST, "rdma_connect");
        EventFields request = EventFields.of(req);
        assertPrefix(hello, request.privateData(), "CONNECT_REQUEST's private data");
        req.close();
        assertTrue(req.isAcked(), "close() acknowledged the event");
        EventFields.of(req).assertSameAs(request, "CONNECT_REQUEST after its ack");
        onAnotherThread(() -> EventFields.of(req)).assertSameAs(request, "CONNECT_REQUEST after its ack, read on another thread");
        req.close();
        onAnotherThread(() -> {
            req.close();
            return null;
        });
        EventFields.of(req).assertSameAs(request, "CONNECT_REQUEST after two more close() calls");

        CmId child = cm.keep(req.id());
        cm.end(s.listenChannel(), child);
        byte[] welcome = text("and me too");
        child.accept(ConnectionParameters.of(welcome));
        CmEvent est = take(a.channel(), CmEventType.ESTABLISHED, "rdma_accept");
        EventFields established = EventFields.of(est);
        assertPrefix(welcome, established.privateData(), "the active side's ESTABLISHED private data");
        onAnotherThread(() -> {
            est.close();
            return null;
        });
        assertTrue(est.isAcked(), "close() on another thread acknowledged the event");
        EventFields.of(est).assertSameAs(established, "ESTABLISHED acknowledged on another thread");
        CmBench.expect(s.listenChannel(), CmEventType.ESTABLISHED, "rdma_accept (passive side)");

        // More events through the same channels: librdmacm's freed event memory is in use again.
        a.id().disconnect();
        CmBench.expect(s.listenChannel(), CmEventType.DISCONNECTED, "the active side's rdma_disconnect");
        child.disconnect();
        CmBench.expect(a.channel(), CmEventType.DISCONNECTED, "both rdma_disconnects");
        EventFields.of(req).assertSameAs(request, "CONNECT_REQUEST after later events");
        onAnotherThread(() -> EventFields.of(est)).assertSameAs(established, "ESTABLISHED after later events, on another thread");
    }

    @Test
    @DisplayName("required_ a REJECTED event reads the same after it is acknowledged and its id destroyed; the closed id it names refuses its getters with IllegalStateException [rdma_ack_cm_event(3), rdma_destroy_id(3)]")
    void required_eventOutlivesItsId() throws Exception {
        assumeCm();
        CmBench.Setup s = cm.setup();
        CmId active = s.active().id();
        active.connect(ConnectionParameters.defaults());
        CmId child = cm.keep(CmBench.expect(s.listenChannel(), CmEventType.CONNECT_REQUEST, "rdma_connect").id());
        byte[] no = text("not now");
        child.reject(no);
        CmEvent rej = take(s.active().channel(), CmEventType.REJECTED, "rdma_reject");
        EventFields rejected = EventFields.of(rej);
        assertPrefix(no, rejected.privateData(), "REJECTED's private data");
        active.destroyQp();
        rej.close();
        active.close();
        assertTrue(active.isClosed(), "the id closed once its QP was destroyed and its event acknowledged");
        EventFields.of(rej).assertSameAs(rejected, "REJECTED after its id was destroyed");
        onAnotherThread(() -> EventFields.of(rej)).assertSameAs(rejected, "REJECTED after its id was destroyed, on another thread");
        Expect.closed("localAddress() of the destroyed id an event names", () -> rej.id().localAddress());
    }

    /** Every call of a closed id but isClosed() and close(), each of which must throw IllegalStateException. */
    private void assertRefusesEverything(CmId id, String what, CmEventChannel otherChannel, CmBench.End end)
            throws UnknownHostException {
        InetSocketAddress somewhere = new InetSocketAddress(cm.address, 7471);
        Expect.closed(what + ": channel()", id::channel);
        Expect.closed(what + ": portSpace()", id::portSpace);
        Expect.closed(what + ": context()", id::context);
        Expect.closed(what + ": portNum()", id::portNum);
        Expect.closed(what + ": localAddress()", id::localAddress);
        Expect.closed(what + ": remoteAddress()", id::remoteAddress);
        Expect.closed(what + ": qp()", id::qp);
        Expect.closed(what + ": bindAddr", () -> id.bindAddr(new InetSocketAddress(cm.address, 0)));
        Expect.closed(what + ": resolveAddr", () -> id.resolveAddr(null, somewhere, 1000));
        Expect.closed(what + ": resolveRoute", () -> id.resolveRoute(1000));
        Expect.closed(what + ": listen", () -> id.listen(1));
        Expect.closed(what + ": createQp", () -> id.createQp(end.pd(), end.qp().initAttributes()));
        Expect.closed(what + ": destroyQp", id::destroyQp);
        Expect.closed(what + ": connect", () -> id.connect(ConnectionParameters.defaults()));
        Expect.closed(what + ": accept", () -> id.accept(ConnectionParameters.defaults()));
        Expect.closed(what + ": reject", () -> id.reject(new byte[0]));
        Expect.closed(what + ": disconnect", id::disconnect);
        Expect.closed(what + ": migrate", () -> id.migrate(otherChannel));
        Expect.closed(what + ": setTos", () -> id.setTos(0));
        Expect.closed(what + ": setReuseAddress", () -> id.setReuseAddress(true));
        Expect.closed(what + ": setAfOnly", () -> id.setAfOnly(true));
        Expect.closed(what + ": setAckTimeout", () -> id.setAckTimeout(14));
        InetAddress group = InetAddress.getByAddress(new byte[] {(byte) 239, (byte) 255, 3, 1});
        Expect.closed(what + ": joinMulticast", () -> id.joinMulticast(group));
        Expect.closed(what + ": leaveMulticast", () -> id.leaveMulticast(group));
        assertTrue(id.isClosed(), what + ": isClosed()");
        id.close();
    }

    @Test
    @DisplayName("required_ after close() every getter and operation of a CmId (new, resolved, listening, or connected) throws IllegalStateException, on the owning thread and on another, and a second close() does nothing [rdma_destroy_id(3)]")
    void required_closedIdRefusesEverything() throws Exception {
        assumeCm();
        CmBench.Connection c = cm.connect(text("x"), text("y"));
        CmEventChannel ch = cm.channel();
        CmEventChannel other = cm.channel();
        CmId fresh = cm.id(ch);
        CmId resolved = cm.resolved(ch, c.listener().localAddress().getPort());
        CmId listening = cm.listener(ch);
        CmId connected = c.a().id();
        connected.destroyQp();
        fresh.close();
        resolved.close();
        listening.close();
        connected.close();
        CmBench.expect(c.b().channel(), CmEventType.DISCONNECTED, "the peer's id was destroyed while connected");
        for (CmId id : List.of(fresh, resolved, listening, connected)) {
            String what = "a closed " + (id == fresh ? "new" : id == resolved ? "resolved" : id == listening
                    ? "listening" : "connected") + " id";
            assertRefusesEverything(id, what, other, c.b());
            onAnotherThread(() -> {
                assertRefusesEverything(id, what + " (on another thread)", other, c.b());
                return null;
            });
        }
    }

    @Test
    @DisplayName("required_ closing a channel while threads wait in getEvent() and getEvent(timeout) ends each wait with IllegalStateException; a close racing a polling getEvent gives only null or IllegalStateException [rdma_destroy_event_channel(3), rdma_get_cm_event(3)]")
    void required_closeRacesWithWaiters() throws Exception {
        assumeCm();
        CmEventChannel ch = cm.channel();
        List<CompletableFuture<Throwable>> waiters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            boolean forever = i % 2 == 0;
            waiters.add(ended("tck-cm-waiter", () -> forever ? ch.getEvent() : ch.getEvent(1, TimeUnit.HOURS)));
        }
        assertNull(ch.getEvent(100, TimeUnit.MILLISECONDS), "no event on a new channel");
        ch.close();
        for (CompletableFuture<Throwable> w : waiters) {
            Throwable t = w.get(CmBench.EVENT_WAIT_MS, TimeUnit.MILLISECONDS);
            assertTrue(t instanceof IllegalStateException, "a wait ended by close() ended with " + t);
        }
        for (int round = 0; round < 20; round++) {
            CmEventChannel racing = cm.channel();
            CompletableFuture<Throwable> poller = ended("tck-cm-poller", () -> {
                while (true) {
                    CmEvent e = racing.getEvent(1, TimeUnit.MILLISECONDS);
                    if (e != null) {
                        return e; // no id uses the channel: no event may come
                    }
                }
            });
            Thread.sleep(round % 5);
            racing.close();
            Throwable t = poller.get(CmBench.EVENT_WAIT_MS, TimeUnit.MILLISECONDS);
            assertTrue(t instanceof IllegalStateException, "round " + round + ": a getEvent racing close() ended with " + t);
        }
    }

    @Test
    @DisplayName("required_ a CmId's getters racing its close() on another thread return their value or throw IllegalStateException, nothing else [rdma_destroy_id(3)]")
    void required_gettersRaceClose() throws Exception {
        assumeCm();
        CmEventChannel ch = cm.channel();
        int port = cm.listener(ch).localAddress().getPort();
        for (int round = 0; round < 20; round++) {
            CmId id = cm.resolved(ch, port);
            CompletableFuture<Throwable> reader = ended("tck-cm-reader", () -> {
                while (true) {
                    if (id.localAddress() == null || id.remoteAddress() == null || id.context() == null
                            || id.portNum() < 1 || id.channel() != ch || id.qp() != null) {
                        return "a resolved id's getters changed before its close";
                    }
                }
            });
            Thread.sleep(round % 5);
            id.close();
            Throwable t = reader.get(CmBench.EVENT_WAIT_MS, TimeUnit.MILLISECONDS);
            assertTrue(t instanceof IllegalStateException, "round " + round + ": getters racing close() ended with " + t);
        }
    }
}
