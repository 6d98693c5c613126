package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Errno;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_ex;
import org.verbs4j.spi.support.SendQueueLock;

/**
 * {@link NativeWrSession} over a recording binding (a proxy of {@link IbverbsBinding}, so it needs no change when
 * the interface grows): which function pointer of the {@code ibv_qp_ex} each builder and setter calls, with which
 * arguments and in which order, and that a batch that breaks a rule, or that the library refuses, is aborted
 * natively and never completed.
 */
class NativeWrSessionTest {
    private static final long QPX = 0x10_0000;
    private static final long START = 0xa1;
    private static final long COMPLETE = 0xa2;
    private static final long ABORT = 0xa3;
    private static final long RDMA_WRITE = 0xb1;
    private static final long SEND = 0xb2;
    private static final long RDMA_READ = 0xb3;
    private static final long SET_SGE = 0xc1;
    private static final long SET_INLINE = 0xc2;

    /** The recorded calls, one string each: the method's name and its arguments. */
    private final List<String> calls = new ArrayList<>();
    private final Map<Long, Long> memory = new HashMap<>();
    /** Every address the binding read with getLong. */
    private final Set<Long> reads = new HashSet<>();
    private int completeRc;
    private final Arena scratch = Arena.ofAuto();

    private final IbverbsBinding binding = (IbverbsBinding) Proxy.newProxyInstance(
            IbverbsBinding.class.getClassLoader(), new Class<?>[] {IbverbsBinding.class}, (p, m, args) -> {
                switch (m.getName()) {
                    case "getLong" -> {
                        reads.add((Long) args[0]);
                        return memory.getOrDefault((Long) args[0], 0L);
                    }
                    case "wrComplete", "wrCompleteCritical" -> {
                        calls.add(m.getName() + " " + Arrays.toString(args));
                        return completeRc;
                    }
                    default -> {
                        if (m.getReturnType() != void.class) {
                            throw new AssertionError("unexpected call: " + m.getName());
                        }
                        calls.add(m.getName() + " " + Arrays.toString(args));
                        return null;
                    }
                }
            });

    private static <T> T stub(Class<T> type, Object state) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, args) ->
                switch (m.getName()) {
                    case "state" -> state;
                    case "type" -> QpType.RC;
                    case "isClosed" -> false;
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == args[0];
                    default -> throw new UnsupportedOperationException(m.getName());
                }));
    }

    private NativeWrSession session(WrOpcode... ops) {
        return session(null, false, ops);
    }

    /** A session over {@code sendLock} (null: the session's own lock), open in this thread. */
    private NativeWrSession session(SendQueueLock sendLock, boolean critical, WrOpcode... ops) {
        memory.put(QPX + ibv_qp_ex.wr_start$off, START);
        memory.put(QPX + ibv_qp_ex.wr_complete$off, COMPLETE);
        memory.put(QPX + ibv_qp_ex.wr_abort$off, ABORT);
        memory.put(QPX + ibv_qp_ex.wr_rdma_write$off, RDMA_WRITE);
        memory.put(QPX + ibv_qp_ex.wr_send$off, SEND);
        memory.putIfAbsent(QPX + ibv_qp_ex.wr_rdma_read$off, RDMA_READ);
        memory.put(QPX + ibv_qp_ex.wr_set_sge$off, SET_SGE);
        memory.put(QPX + ibv_qp_ex.wr_set_inline_data$off, SET_INLINE);
        CompletionQueue cq = stub(CompletionQueue.class, null);
        QpInitAttributes init = QpInitAttributes.builder(QpType.RC).cq(cq).maxInlineData(64).sendOps(ops).build();
        long bytes = NativeWrSession.scratchBytes(init);
        long at = scratch.allocate(bytes, 8).address();
        QueuePair qp = stub(QueuePair.class, QpState.RTS);
        NativeWrSession s = sendLock == null ? new NativeWrSession(qp, binding, QPX, init, false, at, bytes)
                : new NativeWrSession(qp, binding, QPX, init, false, at, bytes, sendLock, critical);
        s.qpSide().open();
        return s;
    }

    private static String call(String name, Object... args) {
        return name + " " + Arrays.toString(args);
    }

    @Test
    @DisplayName("Over the QP's send lock on a critical data path: the open session holds the lock, so no other "
            + "thread's post_send meets the library's send-queue lock, and wr_start/wr_complete are critical calls")
    void sharedSendLockAndCriticalCalls() throws InterruptedException {
        SendQueueLock sendLock = new SendQueueLock();
        NativeWrSession s = session(sendLock, true, WrOpcode.RDMA_WRITE);
        assertTrue(sendLock.isHeldByCurrentThread(), "the open session holds the QP's send lock");
        AtomicBoolean other = new AtomicBoolean(true);
        Thread t = new Thread(() -> other.set(sendLock.tryLock()));
        t.start();
        t.join();
        assertFalse(other.get(), "another thread took the send lock while the session was open");
        s.rdmaWrite(0x55, 0x9000L);
        s.setSge(3, 0x2000L, 64);
        s.complete();
        assertFalse(sendLock.isLocked(), "complete() releases the send lock");
        assertEquals(call("wrStartCritical", START, QPX), calls.get(0), calls.toString());
        assertEquals(call("wrCompleteCritical", COMPLETE, QPX), calls.get(calls.size() - 1), calls.toString());

        calls.clear();
        s.qpSide().open();
        s.abort();
        assertEquals(List.of(call("wrStartCritical", START, QPX), call("wrCall", ABORT, QPX)), calls,
                "wr_abort stays an ordinary call");
        assertFalse(sendLock.isLocked(), "abort() releases the send lock");
    }

    @Test
    @DisplayName("RDMA WRITE with an SGE and an inline SEND: wr_id, wr_flags, builder, setter, then wr_complete")
    void batchReachesTheLibraryInOrder() {
        NativeWrSession s = session(WrOpcode.RDMA_WRITE, WrOpcode.SEND);
        s.wrId(7);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(0x55, 0x9000L);
        s.setSge(3, 0x2000L, 64);
        s.wrId(8);
        s.wrFlags(0);
        s.send();
        try (Arena a = Arena.ofConfined()) {
            s.setInlineData(a.allocate(16));
        }
        s.complete();

        assertEquals(call("wrCall", START, QPX), calls.get(0), calls.toString());
        assertEquals(List.of(
                call("putLong", QPX + ibv_qp_ex.wr_id$off, 7L),
                call("putInt", QPX + ibv_qp_ex.wr_flags$off, SendFlags.SIGNALED),
                call("wrRdma", RDMA_WRITE, QPX, 0x55, 0x9000L),
                call("wrSetSge", SET_SGE, QPX, 3, 0x2000L, 64),
                call("putLong", QPX + ibv_qp_ex.wr_id$off, 8L),
                call("putInt", QPX + ibv_qp_ex.wr_flags$off, SendFlags.INLINE),
                call("wrBuild", SEND, QPX)), calls.subList(1, 8), calls.toString());
        assertTrue(calls.get(8).startsWith("wrSetInlineData [" + SET_INLINE + ", " + QPX + ", "), calls.toString());
        assertTrue(calls.get(8).endsWith(", 16]"), calls.toString());
        assertEquals(List.of(call("wrComplete", COMPLETE, QPX)), calls.subList(9, calls.size()), calls.toString());
    }

    @Test
    @DisplayName("On a user-space data path each builder and setter reaches the library at once, and inline data "
            + "keeps the caller's wr_flags")
    void atOnceFlow() {
        NativeWrSession s = session(new SendQueueLock(), true, WrOpcode.RDMA_WRITE, WrOpcode.SEND);
        s.wrId(7);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(0x55, 0x9000L);
        assertEquals(List.of(
                call("wrStartCritical", START, QPX),
                call("putLong", QPX + ibv_qp_ex.wr_id$off, 7L),
                call("putInt", QPX + ibv_qp_ex.wr_flags$off, SendFlags.SIGNALED),
                call("wrRdma", RDMA_WRITE, QPX, 0x55, 0x9000L)), calls, "the builder is called at once");
        s.setSge(3, 0x2000L, 64);
        assertEquals(call("wrSetSge", SET_SGE, QPX, 3, 0x2000L, 64), calls.get(calls.size() - 1),
                "the setter is called at once");
        s.wrId(8);
        s.wrFlags(0);
        s.send();
        assertEquals(List.of(
                call("putLong", QPX + ibv_qp_ex.wr_id$off, 8L),
                call("putInt", QPX + ibv_qp_ex.wr_flags$off, 0),
                call("wrBuild", SEND, QPX)), calls.subList(5, 8), calls.toString());
        try (Arena a = Arena.ofConfined()) {
            s.setInlineData(a.allocate(16));
        }
        assertTrue(calls.get(8).startsWith("wrSetInlineData [" + SET_INLINE + ", " + QPX + ", "), calls.toString());
        s.complete();
        assertEquals(List.of(call("wrCompleteCritical", COMPLETE, QPX)), calls.subList(9, calls.size()),
                calls.toString());
    }

    @Test
    @DisplayName("On a user-space data path a WR without its DATA setter fails the batch at the next builder: no "
            + "later builder is called, and the native batch is aborted")
    void atOnceMissingSetterAborts() {
        NativeWrSession s = session(new SendQueueLock(), true, WrOpcode.RDMA_WRITE);
        s.rdmaWrite(1, 0x1000L);
        s.setSge(1, 0x2000L, 8);
        s.rdmaWrite(2, 0x1000L);
        s.rdmaWrite(3, 0x1000L);
        s.setSge(1, 0x2000L, 8);
        VerbsException e = assertThrows(VerbsException.class, s::complete);
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("WR 1"), e.getMessage());
        assertEquals(2, calls.stream().filter(c -> c.startsWith("wrRdma")).count(), calls.toString());
        assertEquals(1, calls.stream().filter(c -> c.startsWith("wrSetSge")).count(), calls.toString());
        assertEquals(call("wrCall", ABORT, QPX), calls.get(calls.size() - 1), calls.toString());
        assertTrue(calls.stream().noneMatch(c -> c.startsWith("wrComplete")), calls.toString());
    }

    @Test
    @DisplayName("a WR that breaks a rule: the native batch is aborted, never completed")
    void brokenBatchIsAborted() {
        NativeWrSession s = session(WrOpcode.RDMA_WRITE);
        s.rdmaWrite(1, 0x1000L);
        s.setSge(1, 0x2000L, 8);
        s.rdmaWrite(1, 0x1000L);
        VerbsException e = assertThrows(VerbsException.class, s::complete);
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals(call("wrCall", ABORT, QPX), calls.get(calls.size() - 1), calls.toString());
        assertTrue(calls.stream().noneMatch(c -> c.startsWith("wrComplete")), calls.toString());
    }

    @Test
    @DisplayName("a requested builder the library left NULL fails the batch with EINVAL and is never called")
    void nullBuilderFailsTheBatch() {
        memory.put(QPX + ibv_qp_ex.wr_rdma_read$off, 0L);
        NativeWrSession s = session(WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ);
        s.rdmaRead(1, 0x1000L);
        s.setSge(1, 0x2000L, 8);
        VerbsException e = assertThrows(VerbsException.class, s::complete);
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("RDMA_READ"), e.getMessage());
        assertEquals(List.of(call("wrCall", START, QPX), call("wrCall", ABORT, QPX)), calls);
    }

    @Test
    @DisplayName("wr_complete's errno is thrown positive, whatever sign the library gave it")
    void completeErrnoIsPositive() {
        completeRc = -Errno.ENOMEM;
        NativeWrSession s = session(WrOpcode.SEND);
        s.send();
        s.setSge(1, 0x2000L, 8);
        VerbsException e = assertThrows(VerbsException.class, s::complete);
        assertEquals(Errno.ENOMEM, e.errno());
    }

    @Test
    @DisplayName("wr_complete's -1, which says no errno (the ops capture none), is thrown as EIO, not EPERM")
    void completeMinusOneIsUnknown() {
        completeRc = -1;
        NativeWrSession s = session(WrOpcode.SEND);
        s.send();
        s.setSge(1, 0x2000L, 8);
        VerbsException e = assertThrows(VerbsException.class, s::complete);
        assertEquals(NativeErrors.UNKNOWN, e.errno());
        assertEquals(Errno.EIO, e.errno());
    }

    @Test
    @DisplayName("another thread's builder throws and reaches nothing native")
    void otherThreadReachesNothing() throws InterruptedException {
        NativeWrSession s = session(WrOpcode.RDMA_WRITE);
        int before = calls.size();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                s.rdmaWrite(1, 0x1000L);
                s.setSge(1, 0x2000L, 8);
                s.complete();
            } catch (Throwable x) {
                thrown.set(x);
            }
        });
        t.start();
        t.join();
        assertTrue(thrown.get() instanceof IllegalStateException, String.valueOf(thrown.get()));
        assertEquals(before, calls.size(), calls.toString());
        s.abort();
    }

    @Test
    @DisplayName("scratch memory too small for the QP's SGE list, unaligned or missing is refused at creation")
    void scratchIsChecked() {
        CompletionQueue cq = stub(CompletionQueue.class, null);
        QpInitAttributes init = QpInitAttributes.builder(QpType.RC).cq(cq).maxSendSge(4).sendOps(WrOpcode.SEND)
                .build();
        QueuePair qp = stub(QueuePair.class, QpState.RTS);
        long need = NativeWrSession.scratchBytes(init);
        assertThrows(IllegalArgumentException.class, () -> new NativeWrSession(qp, binding, QPX, init, false,
                scratch.allocate(need - 1, 8).address(), need - 1));
        assertThrows(IllegalArgumentException.class, () -> new NativeWrSession(qp, binding, QPX, init, false,
                scratch.allocate(need + 8, 8).address() + 4, need));
        assertThrows(IllegalArgumentException.class, () -> new NativeWrSession(qp, binding, QPX, init, false,
                0, need));
    }

    @Test
    @DisplayName("missingBuilder names the first requested pointer that is NULL, wr_flush included")
    void missingBuilder() {
        session(WrOpcode.SEND);
        assertNull(NativeWrSession.missingBuilder(binding, QPX, Set.of(WrOpcode.SEND, WrOpcode.RDMA_WRITE)));
        assertEquals("wr_flush", NativeWrSession.missingBuilder(binding, QPX, Set.of(WrOpcode.FLUSH)));
        assertEquals("wr_atomic_cmp_and_swp",
                NativeWrSession.missingBuilder(binding, QPX, Set.of(WrOpcode.ATOMIC_CMP_AND_SWP)));
        assertEquals("ibv_qp_ex", NativeWrSession.missingBuilder(binding, 0, Set.of(WrOpcode.SEND)));
        memory.put(QPX + ibv_qp_ex.wr_complete$off, 0L);
        assertEquals("wr_start/wr_complete/wr_abort",
                NativeWrSession.missingBuilder(binding, QPX, Set.of(WrOpcode.SEND)));
    }

    @Test
    @DisplayName("missingAddressSetter names wr_set_ud_addr of a UD QP and wr_set_xrc_srqn of an XRC_SEND QP when NULL, nothing for RC")
    void missingAddressSetter() {
        assertEquals("wr_set_ud_addr", NativeWrSession.missingAddressSetter(binding, QPX, QpType.UD));
        assertEquals("wr_set_xrc_srqn", NativeWrSession.missingAddressSetter(binding, QPX, QpType.XRC_SEND));
        assertNull(NativeWrSession.missingAddressSetter(binding, QPX, QpType.RC));
        memory.put(QPX + ibv_qp_ex.wr_set_ud_addr$off, 0xa1L);
        memory.put(QPX + ibv_qp_ex.wr_set_xrc_srqn$off, 0xa2L);
        assertNull(NativeWrSession.missingAddressSetter(binding, QPX, QpType.UD));
        assertNull(NativeWrSession.missingAddressSetter(binding, QPX, QpType.XRC_SEND));
    }

    @Test
    @DisplayName("the words of wr_atomic_write and wr_flush are read only for a QP granted their opcode: no version")
    void newerBuildersReadOnlyWhenGranted() {
        // rdma-core 43's ibv_qp_ex ends before wr_atomic_write and 44's before wr_flush: a QP not granted them
        // must not read past the struct, and a QP granted them was granted by a library whose struct has them.
        session(WrOpcode.SEND);
        assertFalse(reads.contains(QPX + ibv_qp_ex.wr_atomic_write$off), "wr_atomic_write read without the opcode");
        assertFalse(reads.contains(QPX + ibv_qp_ex.wr_flush$off), "wr_flush read without the opcode");
        reads.clear();
        memory.put(QPX + ibv_qp_ex.wr_atomic_write$off, 0xd1L);
        memory.put(QPX + ibv_qp_ex.wr_flush$off, 0xd2L);
        session(WrOpcode.ATOMIC_WRITE, WrOpcode.FLUSH);
        assertTrue(reads.contains(QPX + ibv_qp_ex.wr_atomic_write$off));
        assertTrue(reads.contains(QPX + ibv_qp_ex.wr_flush$off));
    }
}
