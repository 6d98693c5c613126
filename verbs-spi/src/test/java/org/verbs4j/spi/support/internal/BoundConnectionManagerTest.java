package org.verbs4j.spi.support.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.CmPortSpace;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Errno;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpState;
import org.verbs4j.TestOnlyProvider;
import org.verbs4j.VerbsException;
import org.verbs4j.spi.VerbsProvider;

/**
 * The rules {@link BoundConnectionManager} adds to a native connection manager, over a scripted binding: the
 * test queues the events "the kernel" reports and records the native calls made.
 */
class BoundConnectionManagerTest {
    /** A binding whose channels' events the test queues, recording each native call. */
    static final class ScriptedBinding implements CmBinding {
        final Map<Long, Deque<RawEvent>> queues = new HashMap<>();
        final Map<Long, InetSocketAddress> bound = new HashMap<>();
        final List<String> calls = new ArrayList<>();
        private long next = 100;

        void queue(long channel, long event, long id, long listenId, CmEventType type, byte[] data) {
            queues.get(channel).add(new RawEvent(event, id, listenId, type.value(), 0, data, 1, 1, 0, null));
        }

        @Override
        public long createEventChannel() {
            long ch = next++;
            queues.put(ch, new ArrayDeque<>());
            return ch;
        }

        @Override
        public int fd(long channel) {
            return (int) channel;
        }

        @Override
        public void destroyEventChannel(long channel) {
            calls.add("rdma_destroy_event_channel " + channel);
        }

        @Override
        public long createId(long channel, int portSpace) {
            return next++;
        }

        @Override
        public void destroyId(long id) {
            calls.add("rdma_destroy_id " + id);
        }

        @Override
        public void bindAddr(long id, InetSocketAddress address) {
            bound.put(id, address);
        }

        @Override
        public void resolveAddr(long id, InetSocketAddress src, InetSocketAddress dst, int timeoutMs) {
            calls.add("rdma_resolve_addr " + id);
        }

        @Override
        public void resolveRoute(long id, int timeoutMs) {
            calls.add("rdma_resolve_route " + id);
        }

        @Override
        public void listen(long id, int backlog) {
            calls.add("rdma_listen " + id);
        }

        @Override
        public void connect(long id, ConnectionParameters p, int qpNum, boolean srq) {
            calls.add("rdma_connect " + id);
        }

        @Override
        public void accept(long id, ConnectionParameters p, int qpNum, boolean srq) {
            calls.add("rdma_accept " + id);
        }

        @Override
        public void reject(long id, byte[] privateData) {
            calls.add("rdma_reject " + id + " " + privateData.length);
        }

        @Override
        public void establish(long id) {
            calls.add("rdma_establish " + id);
        }

        @Override
        public void disconnect(long id) {
            calls.add("rdma_disconnect " + id);
        }

        @Override
        public void migrate(long id, long channel) {
            calls.add("rdma_migrate_id " + id + " " + channel);
        }

        @Override
        public void setOption(long id, int optname, int value) {
            calls.add("rdma_set_option " + id + " " + optname + " " + value);
        }

        @Override
        public void joinMulticast(long id, InetAddress group, long context, int joinFlags) {
            calls.add("rdma_join_multicast " + id + " " + group.getHostAddress());
        }

        @Override
        public void leaveMulticast(long id, InetAddress group) {
            calls.add("rdma_leave_multicast " + id + " " + group.getHostAddress());
        }

        @Override
        public QpAttributes initQpAttr(long id, QpState state) {
            throw new UnsupportedOperationException("no QP in these tests");
        }

        @Override
        public String deviceName(long id) {
            return null;
        }

        @Override
        public int portNum(long id) {
            return 0;
        }

        @Override
        public InetSocketAddress localAddress(long id) {
            return bound.get(id);
        }

        @Override
        public InetSocketAddress remoteAddress(long id) {
            return null;
        }

        @Override
        public boolean awaitReadable(int fd, long timeoutNanos) {
            return !queues.get((long) fd).isEmpty();
        }

        @Override
        public RawEvent getEvent(long channel) {
            return queues.get(channel).poll();
        }

        @Override
        public void ackEvent(long event) {
            calls.add("rdma_ack_cm_event " + event);
        }
    }

    /** A provider with no devices: the ids here are never bound to one. */
    private static final VerbsProvider NO_DEVICES = new TestOnlyProvider();

    private final ScriptedBinding binding = new ScriptedBinding();
    private final BoundConnectionManager cm = new BoundConnectionManager(binding, NO_DEVICES);

    private long handle(CmEventChannel ch) {
        return ((BoundCmEventChannel) ch).handle;
    }

    private static long handle(CmId id) {
        return ((BoundCmId) id).handle;
    }

    private CmId listener(CmEventChannel ch) {
        CmId l = cm.createId(ch, CmPortSpace.TCP);
        l.bindAddr(new InetSocketAddress(7471));
        l.listen(1);
        return l;
    }

    @Test
    @DisplayName("a connect request gets a new id on the listener's channel; neither closes before the event is acknowledged")
    void connectRequest() {
        CmEventChannel ch = cm.createEventChannel();
        CmId listener = listener(ch);
        binding.queue(handle(ch), 900, 555, handle(listener), CmEventType.CONNECT_REQUEST, new byte[] {7});
        CmEvent req = ch.getEvent(1, TimeUnit.SECONDS);
        assertEquals(CmEventType.CONNECT_REQUEST, req.type());
        assertSame(listener, req.listenId());
        CmId child = req.id();
        assertEquals(555, handle(child));
        assertSame(ch, child.channel());
        assertEquals(7, req.privateData()[0]);
        VerbsException busy = assertThrows(VerbsException.class, child::close);
        assertEquals(Errno.EBUSY, busy.errno());
        assertEquals(Errno.EBUSY, assertThrows(VerbsException.class, listener::close).errno(),
                "librdmacm's rdma_destroy_id would block on the listener's unacknowledged request");
        req.close();
        req.close();
        assertTrue(req.isAcked());
        assertEquals(1, binding.calls.stream().filter(c -> c.equals("rdma_ack_cm_event 900")).count(),
                "acknowledged once");
        child.reject(new byte[] {1, 2});
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> child.reject(new byte[0])).errno(),
                "a request is answered once");
        child.close();
        assertTrue(binding.calls.contains("rdma_destroy_id 555"));
        assertThrows(IllegalStateException.class, () -> child.accept(ConnectionParameters.defaults()));
    }

    @Test
    @DisplayName("a channel with an id refuses close with EBUSY before any native call; closed, it refuses waits")
    void channelCloseOrder() {
        CmEventChannel ch = cm.createEventChannel();
        CmId id = cm.createId(ch, CmPortSpace.TCP);
        assertEquals(Errno.EBUSY, assertThrows(VerbsException.class, ch::close).errno());
        assertFalse(ch.isClosed());
        assertTrue(binding.calls.isEmpty(), "no native destroy: " + binding.calls);
        id.close();
        ch.close();
        ch.close();
        assertEquals(List.of("rdma_destroy_id " + handle(id), "rdma_destroy_event_channel " + handle(ch)),
                binding.calls);
        assertThrows(IllegalStateException.class, () -> ch.getEvent(0, TimeUnit.SECONDS));
    }

    @Test
    @DisplayName("disconnect needs ESTABLISHED and is refused the second time, as rdma_disconnect(3) is not")
    void disconnectOnce() {
        CmEventChannel ch = cm.createEventChannel();
        CmId listener = listener(ch);
        binding.queue(handle(ch), 901, 556, handle(listener), CmEventType.CONNECT_REQUEST, new byte[0]);
        CmId child;
        try (CmEvent req = ch.getEvent()) {
            child = req.id();
        }
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, child::disconnect).errno(), "not connected");
        binding.queue(handle(ch), 902, 556, 0, CmEventType.ESTABLISHED, new byte[0]);
        ch.getEvent(1, TimeUnit.SECONDS).close();
        child.disconnect();
        assertTrue(binding.calls.contains("rdma_disconnect 556"));
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, child::disconnect).errno(), "twice");
    }

    @Test
    @DisplayName("getEvent: null when nothing is queued, IllegalArgumentException for a negative wait; an event of an unknown id is acknowledged and skipped")
    void waits() {
        CmEventChannel ch = cm.createEventChannel();
        assertNull(ch.getEvent(0, TimeUnit.MILLISECONDS));
        assertNull(ch.getEvent(20, TimeUnit.MILLISECONDS));
        assertThrows(IllegalArgumentException.class, () -> ch.getEvent(-1, TimeUnit.MILLISECONDS));
        binding.queue(handle(ch), 903, 4242, 0, CmEventType.DISCONNECTED, new byte[0]);
        assertNull(ch.getEvent(0, TimeUnit.MILLISECONDS));
        assertTrue(binding.calls.contains("rdma_ack_cm_event 903"));
    }

    @Test
    @DisplayName("an id takes RC (RDMA_PS_TCP) or UD (RDMA_PS_UDP), must be bound to listen, and has no context before a device")
    void idRules() {
        CmEventChannel ch = cm.createEventChannel();
        assertEquals(Errno.EOPNOTSUPP, assertThrows(VerbsException.class,
                () -> cm.createId(ch, CmPortSpace.IPOIB)).errno());
        CmId id = cm.createId(ch, CmPortSpace.TCP);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> id.listen(1)).errno());
        assertNull(id.context());
        assertEquals(0, id.portNum());
        assertThrows(IllegalArgumentException.class, () -> cm.createId(new BoundConnectionManager(binding,
                NO_DEVICES).createEventChannel(), CmPortSpace.TCP), "another manager's channel");
    }
}
