package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.AccessFlags;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcFlags;
import org.verbs4j.WcStatus;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.emulated.FaultyWire.Fault;
import org.verbs4j.provider.emulated.verbs.EmulatedQueuePair;
import org.verbs4j.provider.emulated.wire.WireTransport;
import org.verbs4j.provider.emulated.wire.codec.Opcode;

/**
 * The wire conformance suite (issue 27): for every RC opcode, every packet position of its request and of its
 * answer (FIRST, MIDDLE, LAST, ONLY, ACK, NAK, each READ response, ATOMIC_ACKNOWLEDGE) and each fault of the
 * {@link FaultyWire} harness (drop, duplicate, reorder, delay past the ACK timeout), at depth 1 and at
 * {@value #DEPTH} WRs in flight ({@code max_rd_atomic} and the send queue depth): every WR completes exactly once,
 * in order, with its bytes and atomic results, and so does every receive. A progress watchdog fails a case whose
 * requester shows no completion for longer than its retry budget, timeout x (retry_cnt + 1); the packets sent are
 * bounded by twice the clean count (go-back-N resends at most what is in flight), and the worst ratio is printed.
 */
@Tag("wire")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WireConformanceTest {
    /** ACK timeout code 15: 4.096 us x 2^15, about 134 ms (x 8 tries, about 1.1 s: a budget a loaded 2-core build survives). */
    static final int TIMEOUT = 15;
    static final int RETRY = 7;
    static final int DEPTH = 16;
    /** Three packets at MTU 1024: FIRST, MIDDLE, LAST. */
    static final int MULTI = 2500;
    static final int SMALL = 100;
    static final int SLOT = 4096;
    static final long READ_DEST = 256 * 1024;
    static final long ATOMIC_AT = 512 * 1024;
    static final long ATOMIC_RESULT = 600 * 1024;

    enum Op { SEND, SEND_IMM, SEND_INV, WRITE, WRITE_IMM, READ, CMP_SWP, FETCH_ADD }

    private WireLink link;
    private double worstRatio;
    private long timerRetries;
    private String worstCase = "";

    @BeforeAll
    void open() {
        link = new WireLink(1 << 20);
    }

    @AfterAll
    void close() {
        System.out.printf("wire conformance: at most %.2f x the clean packet count (%s); %d timer retransmissions%n",
                worstRatio, worstCase, timerRetries);
        link.close();
    }

    /** The positions of each opcode: a message size and the packet (BTH opcode, or NAK) the fault hits. */
    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Op op : Op.values()) {
            for (int[] position : positions(op)) {
                for (Fault f : new Fault[] {Fault.DROP, Fault.DUPLICATE, Fault.REORDER, Fault.DELAY}) {
                    for (int depth : new int[] {1, DEPTH}) {
                        out.add(Arguments.of(QpType.RC, op, position[0], position[1], f, depth));
                    }
                    // XRC: the same protocol under the XRC prefix, with an XRCETH on every request; one opcode of
                    // each kind (a SEND into the SRQ, a WRITE, a READ, an atomic), a full window.
                    if (op == Op.SEND || op == Op.WRITE || op == Op.READ || op == Op.FETCH_ADD) {
                        int target = position[1] == FaultyWire.NAK ? FaultyWire.NAK : Opcode.XRC | position[1];
                        out.add(Arguments.of(QpType.XRC_SEND, op, position[0], target, f, DEPTH));
                    }
                }
            }
        }
        return out.stream();
    }

    private static int[][] positions(Op op) {
        return switch (op) {
            case SEND -> new int[][] {{MULTI, Opcode.SEND_FIRST}, {MULTI, Opcode.SEND_MIDDLE}, {MULTI, Opcode.SEND_LAST},
                {SMALL, Opcode.SEND_ONLY}, {MULTI, Opcode.ACKNOWLEDGE}, {MULTI, FaultyWire.NAK}};
            case SEND_IMM -> new int[][] {{MULTI, Opcode.SEND_FIRST}, {MULTI, Opcode.SEND_MIDDLE},
                {MULTI, Opcode.SEND_LAST_WITH_IMMEDIATE}, {SMALL, Opcode.SEND_ONLY_WITH_IMMEDIATE},
                {SMALL, Opcode.ACKNOWLEDGE}};
            case SEND_INV -> new int[][] {{MULTI, Opcode.SEND_FIRST}, {MULTI, Opcode.SEND_MIDDLE},
                {MULTI, Opcode.SEND_LAST_WITH_INVALIDATE}, {SMALL, Opcode.SEND_ONLY_WITH_INVALIDATE},
                {SMALL, Opcode.ACKNOWLEDGE}};
            case WRITE -> new int[][] {{MULTI, Opcode.RDMA_WRITE_FIRST}, {MULTI, Opcode.RDMA_WRITE_MIDDLE},
                {MULTI, Opcode.RDMA_WRITE_LAST}, {SMALL, Opcode.RDMA_WRITE_ONLY}, {MULTI, Opcode.ACKNOWLEDGE},
                {MULTI, FaultyWire.NAK}};
            case WRITE_IMM -> new int[][] {{MULTI, Opcode.RDMA_WRITE_FIRST}, {MULTI, Opcode.RDMA_WRITE_MIDDLE},
                {MULTI, Opcode.RDMA_WRITE_LAST_WITH_IMMEDIATE}, {SMALL, Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE},
                {SMALL, Opcode.ACKNOWLEDGE}};
            case READ -> new int[][] {{MULTI, Opcode.RDMA_READ_REQUEST}, {MULTI, Opcode.RDMA_READ_RESPONSE_FIRST},
                {MULTI, Opcode.RDMA_READ_RESPONSE_MIDDLE}, {MULTI, Opcode.RDMA_READ_RESPONSE_LAST},
                {SMALL, Opcode.RDMA_READ_RESPONSE_ONLY}};
            case CMP_SWP -> new int[][] {{8, Opcode.COMPARE_SWAP}, {8, Opcode.ATOMIC_ACKNOWLEDGE}};
            case FETCH_ADD -> new int[][] {{8, Opcode.FETCH_ADD}, {8, Opcode.ATOMIC_ACKNOWLEDGE}};
        };
    }

    /** Packets of one message: its requests and, at most, its answers. */
    private static int cleanPackets(Op op, int size) {
        int p = (size + WireLink.MTU - 1) / WireLink.MTU;
        return switch (op) {
            case READ -> 1 + p;
            case CMP_SWP, FETCH_ADD -> 2;
            default -> 2 * p;
        };
    }

    @ParameterizedTest(name = "{0} {1} {2} B, {4} of packet {3}, depth {5}")
    @MethodSource("cases")
    void everyWrCompletesOnceInOrderWithItsBytes(QpType type, Op op, int size, int target, Fault fault, int depth) {
        FaultyWire wire = link.newWire();
        boolean xrc = type == QpType.XRC_SEND;
        WireLink.Xrc x = xrc ? link.xrc(TIMEOUT, RETRY, depth, depth) : null;
        QueuePair[] q = xrc ? new QueuePair[] {x.send(), x.recv()} : link.rc(TIMEOUT, RETRY, depth, depth);
        long timeoutMs = WireLink.timeoutMs(TIMEOUT);
        int bare = target == FaultyWire.NAK ? target : Opcode.operation(target);
        int nth = depth == 1 || bare == Opcode.ACKNOWLEDGE || bare == FaultyWire.NAK
                || bare == Opcode.ATOMIC_ACKNOWLEDGE ? 1 : depth / 2;
        if (target == FaultyWire.NAK) {
            // A lost FIRST makes the responder NAK the MIDDLE that follows it.
            wire.on((xrc ? Opcode.XRC : Opcode.RC) | (op == Op.WRITE ? Opcode.RDMA_WRITE_FIRST : Opcode.SEND_FIRST), 1,
                    Fault.DROP);
        }
        wire.on(new FaultyWire.Rule(target, nth, -1, fault, fault == Fault.DELAY ? 2 * timeoutMs + 5 : 0));
        List<MemoryWindow> windows = new ArrayList<>();
        try {
            Random r = new Random(op.ordinal() * 1000L + target * 10L + fault.ordinal() + depth);
            byte[] data = new byte[depth * SLOT];
            r.nextBytes(data);
            MemorySegment.copy(MemorySegment.ofArray(data), 0, link.bufA, 0, data.length);
            MemorySegment.copy(MemorySegment.ofArray(data), 0, link.bufB, 0, data.length);
            for (int i = 0; i < depth; i++) {
                link.bufB.set(ValueLayout.JAVA_BYTE, (long) i * SLOT, (byte) (data[i * SLOT] ^ 0xff));
                link.bufB.set(ValueLayout.JAVA_LONG, ATOMIC_AT + 8L * i, 1000L * i);
            }
            int[] invalidate = new int[depth];
            boolean receives = op == Op.SEND || op == Op.SEND_IMM || op == Op.SEND_INV || op == Op.WRITE_IMM;
            for (int i = 0; receives && i < depth; i++) {
                RecvWr recv = new RecvWr(i, Sge.of(link.mrB, 128 * 1024 + (long) i * SLOT, SLOT));
                if (xrc) {
                    x.srq().postRecv(recv);
                } else {
                    q[1].postRecv(recv);
                }
            }
            if (op == Op.SEND_INV) {
                for (int i = 0; i < depth; i++) {
                    MemoryWindow mw = link.pdB.allocMw(MwType.TYPE_2);
                    windows.add(mw);
                    int rkey = (mw.rkey() & ~0xff) | ((mw.rkey() + 1) & 0xff);
                    q[1].postSend(new SendWr().wrId(1000 + i).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                            .bindMw(mw, rkey, new MwBindInfo(link.mrB, link.mrB.address(), 64, AccessFlags.REMOTE_READ)));
                    invalidate[i] = rkey;
                }
                List<WireLink.Completion> bound = link.await(link.cqB, depth, 5_000);
                assertEquals(depth, bound.size(), "window binds");
                bound.forEach(c -> assertEquals(WcStatus.SUCCESS, c.status()));
            }
            int before = wire.sentTotal();
            for (int i = 0; i < depth; i++) {
                SendWr w = wr(op, i, size, invalidate[i]);
                q[0].postSend(xrc ? w.remoteSrqn(x.srq().srqNum()) : w);
            }
            List<WireLink.Completion> got = watch(q[0], depth, timeoutMs);
            for (int i = 0; i < depth; i++) {
                WireLink.Completion c = got.get(i);
                assertEquals(i, c.wrId(), "completions in order");
                assertEquals(WcStatus.SUCCESS, c.status(), "WR " + i);
            }
            if (receives) {
                List<WireLink.Completion> in = link.await(link.cqB, depth, 5_000);
                assertEquals(depth, in.size(), "receives completed");
                for (int i = 0; i < depth; i++) {
                    WireLink.Completion c = in.get(i);
                    assertEquals(i, c.wrId(), "receives in order");
                    assertEquals(WcStatus.SUCCESS, c.status());
                    assertEquals(op == Op.WRITE_IMM ? size : size, c.byteLen());
                    if (op == Op.SEND_IMM || op == Op.WRITE_IMM) {
                        assertEquals(0x1000 + i, c.imm());
                    }
                    if (op == Op.SEND_INV) {
                        assertTrue((c.flags() & WcFlags.WITH_INV) != 0);
                        assertEquals(invalidate[i], c.imm());
                    }
                }
            }
            for (int i = 0; i < depth; i++) {
                long at = (long) i * SLOT;
                switch (op) {
                    case SEND, SEND_IMM, SEND_INV -> same(link.bufA, at, link.bufB, 128 * 1024 + at, size);
                    case WRITE, WRITE_IMM -> same(link.bufA, at, link.bufB, at, size);
                    case READ -> same(link.bufB, at, link.bufA, READ_DEST + at, size);
                    case CMP_SWP -> {
                        assertEquals(1000L * i, link.bufA.get(ValueLayout.JAVA_LONG, ATOMIC_RESULT + 8L * i));
                        assertEquals(7L + i, link.bufB.get(ValueLayout.JAVA_LONG, ATOMIC_AT + 8L * i), "swapped once");
                    }
                    case FETCH_ADD -> {
                        assertEquals(1000L * i, link.bufA.get(ValueLayout.JAVA_LONG, ATOMIC_RESULT + 8L * i));
                        assertEquals(1000L * i + 1 + i, link.bufB.get(ValueLayout.JAVA_LONG, ATOMIC_AT + 8L * i),
                                "added once");
                    }
                    default -> throw new AssertionError(op);
                }
            }
            // Exactly once: nothing more arrives on either side once the harness has nothing left to deliver.
            sleep(fault == Fault.DELAY ? 2 * timeoutMs + 20 : FaultyWire.REORDER_FLUSH_MS + 10);
            assertEquals(List.of(), link.await(link.cqA, 1, 0), "a WR completed twice");
            assertEquals(List.of(), link.await(link.cqB, 1, 0), "a receive completed twice");
            assertTrue(wire.faulted(target) >= 1 || target == FaultyWire.NAK && depth == 1 && fault != Fault.DROP,
                    "the fault hit its packet");
            int clean = depth * cleanPackets(op, size);
            int sent = wire.sentTotal() - before;
            long[] retries = ((WireTransport) ((EmulatedQueuePair) q[0]).transport()).retransmissions();
            // One fault starts at most two retransmissions by answers: the NAK of its gap and, seen on the loaded
            // build machine, one more NAK when a packet of the first sending reaches the responder after the
            // retry's first packet. A host that stalls the receive thread past the timeout adds timer retries. Each
            // resends at most what is in flight.
            assertTrue(retries[1] <= 2, retries[1] + " retransmissions started by answers for one fault: " + wire);
            assertTrue(sent <= clean * (1 + retries[0] + retries[1]) + 4, sent + " packets for " + clean + " clean, "
                    + retries[0] + " timer and " + retries[1] + " answer retransmissions: " + wire);
            synchronized (this) {
                double ratio = (double) sent / clean;
                timerRetries += retries[0];
                if (ratio > worstRatio) {
                    worstRatio = ratio;
                    worstCase = type + " " + op + " " + size + " B, " + fault + " of " + target + ", depth " + depth;
                }
            }
            assertEquals(QpState.RTS, q[0].state());
            assertEquals(xrc ? QpState.RTR : QpState.RTS, q[1].state());
        } finally {
            if (xrc) {
                x.close();
            } else {
                q[0].close();
                q[1].close();
            }
            windows.forEach(MemoryWindow::close);
        }
    }

    private SendWr wr(Op op, int i, int size, int invalidate) {
        long at = (long) i * SLOT;
        SendWr w = new SendWr().wrId(i).sendFlags(SendFlags.SIGNALED);
        return switch (op) {
            case SEND -> w.opcode(WrOpcode.SEND).sgList(Sge.of(link.mrA, at, size));
            case SEND_IMM -> w.opcode(WrOpcode.SEND_WITH_IMM).immData(0x1000 + i).sgList(Sge.of(link.mrA, at, size));
            case SEND_INV -> w.opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(invalidate)
                    .sgList(Sge.of(link.mrA, at, size));
            case WRITE -> w.opcode(WrOpcode.RDMA_WRITE).rdma(link.mrB.address() + at, link.mrB.rkey())
                    .sgList(Sge.of(link.mrA, at, size));
            case WRITE_IMM -> w.opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(0x1000 + i)
                    .rdma(link.mrB.address() + at, link.mrB.rkey()).sgList(Sge.of(link.mrA, at, size));
            case READ -> w.opcode(WrOpcode.RDMA_READ).rdma(link.mrB.address() + at, link.mrB.rkey())
                    .sgList(Sge.of(link.mrA, READ_DEST + at, size));
            case CMP_SWP -> w.opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                    .atomic(link.mrB.address() + ATOMIC_AT + 8L * i, 1000L * i, 7L + i, link.mrB.rkey())
                    .sgList(Sge.of(link.mrA, ATOMIC_RESULT + 8L * i, 8));
            case FETCH_ADD -> w.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                    .atomic(link.mrB.address() + ATOMIC_AT + 8L * i, 1 + i, 0, link.mrB.rkey())
                    .sgList(Sge.of(link.mrA, ATOMIC_RESULT + 8L * i, 8));
        };
    }

    /**
     * Polls the requester's CQ for {@code n} completions under the progress watchdog: a QP in RTS with WRs
     * outstanding must complete one within its retry budget, timeout x (retry_cnt + 1), plus scheduling slack.
     */
    private List<WireLink.Completion> watch(QueuePair qp, int n, long timeoutMs) {
        long budgetMs = timeoutMs * (RETRY + 1) + 2_000;
        List<WireLink.Completion> got = new ArrayList<>();
        long last = System.nanoTime();
        while (got.size() < n) {
            List<WireLink.Completion> more = link.await(link.cqA, n - got.size(), 5);
            if (!more.isEmpty()) {
                got.addAll(more);
                last = System.nanoTime();
            } else if ((System.nanoTime() - last) / 1_000_000 > budgetMs) {
                fail("watchdog: " + qp.state() + " with " + (n - got.size()) + " WRs outstanding and no completion for "
                        + budgetMs + " ms");
            }
        }
        return got;
    }

    private static void same(MemorySegment a, long aOff, MemorySegment b, long bOff, int len) {
        assertEquals(-1, a.asSlice(aOff, len).mismatch(b.asSlice(bOff, len)), "bytes differ");
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
