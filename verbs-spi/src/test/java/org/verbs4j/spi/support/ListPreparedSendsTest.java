package org.verbs4j.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Errno;
import org.verbs4j.PostSendException;
import org.verbs4j.PreparedSends;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.WrOpcode;

@DisplayName("ListPreparedSends: the shared PreparedSends posts its slots as a postSend list")
class ListPreparedSendsTest {
    /** What each postSend of the fake QP was given: per WR, "wrId/opcode/flags/numSge/addr+len+lkey/raddr/rkey". */
    private final List<List<String>> posts = new ArrayList<>();
    private PostSendException refuse;

    private QueuePair qp(QpType type, int maxSendSge) {
        CompletionQueue cq = (CompletionQueue) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {CompletionQueue.class}, (proxy, m, args) -> {
                    throw new UnsupportedOperationException(m.getName());
                });
        QpInitAttributes init = QpInitAttributes.builder(type).cq(cq).maxSendSge(maxSendSge).build();
        return (QueuePair) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {QueuePair.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "type" -> type;
                    case "initAttributes" -> init;
                    case "postSend" -> {
                        @SuppressWarnings("unchecked")
                        List<SendWr> list = (List<SendWr>) args[0];
                        List<String> seen = new ArrayList<>();
                        for (SendWr w : list) {
                            String sge = w.numSge() == 0 ? "-" : w.sgList()[0].addr() + "+" + w.sgList()[0].length()
                                    + "+" + w.sgList()[0].lkey();
                            seen.add(w.wrId() + "/" + w.opcode() + "/" + w.sendFlags() + "/" + w.numSge() + "/" + sge
                                    + "/" + w.remoteAddr() + "/" + w.rkey());
                        }
                        posts.add(seen);
                        if (refuse != null) {
                            throw refuse;
                        }
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    @Test
    @DisplayName("a post hands the first n slots, as set, to postSend; the slots keep their values for the next post")
    void postsTheFirstNSlots() {
        PreparedSends a = new ListPreparedSends(qp(QpType.RC, 2), 3);
        assertEquals(3, a.capacity());
        assertEquals(2, a.maxSge());
        for (int i = 0; i < 3; i++) {
            a.opcode(i, WrOpcode.RDMA_WRITE).wrId(i, 10 + i).sendFlags(i, SendFlags.SIGNALED)
                    .sge(i, 0, 0x1000 + i, 64, 7).numSge(i, 1).rdma(i, 0x2000 + i, 9);
        }
        a.post(2);
        assertEquals(List.of(List.of("10/RDMA_WRITE/2/1/4096+64+7/8192/9", "11/RDMA_WRITE/2/1/4097+64+7/8193/9")),
                posts);
        a.wrId(0, 20).sendFlags(0, 0);
        a.post(1);
        assertEquals(List.of("20/RDMA_WRITE/0/1/4096+64+7/8192/9"), posts.get(1));
    }

    @Test
    @DisplayName("set copies a WR into a slot and keeps none of its objects")
    void setCopiesAWr() {
        PreparedSends a = new ListPreparedSends(qp(QpType.RC, 1), 1);
        SendWr wr = new SendWr().wrId(5).opcode(WrOpcode.SEND_WITH_IMM).immData(3)
                .sgList(new org.verbs4j.Sge(0x10, 8, 1));
        a.set(0, wr);
        wr.wrId(6).sgList()[0].addr(0x20);
        a.post(1);
        assertEquals(List.of("5/SEND_WITH_IMM/0/1/16+8+1/0/0"), posts.getFirst());
        assertThrows(IllegalArgumentException.class, () -> a.set(0, new SendWr().sgList(new org.verbs4j.Sge(),
                new org.verbs4j.Sge())), "two SGEs in a one-SGE slot");
    }

    @Test
    @DisplayName("postSend's PostSendException reaches the caller with the slot's index")
    void refusalPassesThrough() {
        PreparedSends a = new ListPreparedSends(qp(QpType.RC, 1), 2);
        refuse = new PostSendException(Errno.EINVAL, 1, "test");
        assertSame(refuse, assertThrows(PostSendException.class, () -> a.post(2)));
    }

    @Test
    @DisplayName("bad arguments throw at the setter, before anything is posted")
    void badArguments() {
        assertThrows(IllegalArgumentException.class, () -> new ListPreparedSends(qp(QpType.RC, 1), 0));
        assertThrows(IllegalArgumentException.class,
                () -> new ListPreparedSends(qp(QpType.RC, 1), AbstractPreparedSends.MAX_CAPACITY + 1));
        PreparedSends a = new ListPreparedSends(qp(QpType.UD, 0), 2);
        assertEquals(1, a.maxSge(), "at least one SGE of room");
        assertThrows(IndexOutOfBoundsException.class, () -> a.wrId(2, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> a.sge(0, 1, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> a.numSge(0, 2));
        assertThrows(IllegalArgumentException.class, () -> a.opcode(0, WrOpcode.BIND_MW));
        assertThrows(IllegalArgumentException.class, () -> a.opcode(0, WrOpcode.TSO));
        assertThrows(NullPointerException.class, () -> a.opcode(0, null));
        assertThrows(IllegalArgumentException.class, () -> a.post(0));
        assertThrows(IllegalArgumentException.class, () -> a.post(3));
        assertTrue(posts.isEmpty());
    }

    @Test
    @DisplayName("another thread may not set or post, but may close; after close every call throws")
    void ownerAndClose() throws InterruptedException {
        PreparedSends a = new ListPreparedSends(qp(QpType.RC, 1), 1);
        AtomicReference<Throwable> set = new AtomicReference<>();
        AtomicReference<Throwable> post = new AtomicReference<>();
        Thread t = new Thread(() -> {
            set.set(assertThrows(IllegalStateException.class, () -> a.wrId(0, 1)));
            post.set(assertThrows(IllegalStateException.class, () -> a.post(1)));
        });
        t.start();
        t.join();
        assertTrue(set.get() != null && post.get() != null);
        assertFalse(a.isClosed());
        a.close();
        a.close();
        assertTrue(a.isClosed());
        assertThrows(IllegalStateException.class, () -> a.wrId(0, 1));
        assertThrows(IllegalStateException.class, () -> a.post(1));
        assertTrue(posts.isEmpty());
    }
}
