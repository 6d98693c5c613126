package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.verbs4j.DataInOrder;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.WcStatus;
import org.verbs4j.WrOpcode;

/** {@code ibv_query_qp_data_in_order(3)}: the two query forms, the opcodes it describes, and WHOLE_MSG observed. */
public abstract class DataInOrderRules extends TckArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected DataInOrderRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    private static final int KNOWN_BITS = DataInOrder.WHOLE_MSG.bit() | DataInOrder.ALIGNED_128_BYTES.bit();

    private QueuePair rtsQp() {
        return tb.pair(QpType.RC).a();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = WrOpcode.class, names = {"RDMA_READ", "RDMA_WRITE", "SEND"})
    @DisplayName("required_ with flags 0 the answer is 1 exactly when RETURN_CAPS includes WHOLE_MSG, else 0 [ibv_query_qp_data_in_order(3) RETURN VALUE]")
    void required_flagsZeroMatchesWholeMsg(WrOpcode op) {
        QueuePair qp = rtsQp();
        int plain = qp.queryDataInOrder(op, 0);
        int caps = qp.queryDataInOrder(op, DataInOrder.RETURN_CAPS);
        assertTrue(plain == 0 || plain == 1, "flags 0 returns 0 or 1, not " + plain);
        assertEquals((caps & DataInOrder.WHOLE_MSG.bit()) != 0 ? 1 : 0, plain,
                "flags 0 must equal (RETURN_CAPS & WHOLE_MSG) != 0; RETURN_CAPS gave 0x" + Integer.toHexString(caps));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = WrOpcode.class, names = {"RDMA_READ", "RDMA_WRITE", "SEND"})
    @DisplayName("required_ RETURN_CAPS returns only WHOLE_MSG and ALIGNED_128_BYTES bits [ibv_query_qp_data_in_order(3) RETURN VALUE]")
    void required_returnCapsKnownBits(WrOpcode op) {
        int caps = rtsQp().queryDataInOrder(op, DataInOrder.RETURN_CAPS);
        assertEquals(0, caps & ~KNOWN_BITS, "unknown capability bits 0x" + Integer.toHexString(caps & ~KNOWN_BITS));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = WrOpcode.class, names = {"RDMA_READ", "RDMA_WRITE", "SEND"})
    @DisplayName("required_ an RC QP's answer is the one the device's capabilities give [Capabilities.dataInOrder]")
    void required_matchesCapabilities(WrOpcode op) {
        Set<DataInOrder> claimed = caps().dataInOrder().getOrDefault(op, Set.of());
        assertEquals(claimed, rtsQp().dataInOrder(op), "Capabilities.dataInOrder(" + op + ") vs the QP's answer");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = WrOpcode.class, names = {"RDMA_READ", "RDMA_WRITE", "SEND"})
    @DisplayName("required_ the answer describes the QP type, not its state: RESET and RTS agree [ibv_query_qp_data_in_order(3) DESCRIPTION]")
    void required_independentOfState(WrOpcode op) {
        QueuePair fresh = tb.qp(QpType.RC, tb.cq(8), null);
        assertEquals(fresh.queryDataInOrder(op, DataInOrder.RETURN_CAPS), rtsQp().queryDataInOrder(op, DataInOrder.RETURN_CAPS));
    }

    @Test
    @DisplayName("required_ opcodes other than RDMA READ, RDMA WRITE and SEND get 0 in both forms [ibv_query_qp_data_in_order(3) op, QueuePair#queryDataInOrder]")
    void required_otherOpcodesZero() {
        QueuePair qp = rtsQp();
        for (WrOpcode op : WrOpcode.values()) {
            if (op == WrOpcode.RDMA_READ || op == WrOpcode.RDMA_WRITE || op == WrOpcode.SEND) {
                continue;
            }
            assertEquals(0, qp.queryDataInOrder(op, 0), op + " with flags 0");
            assertEquals(0, qp.queryDataInOrder(op, DataInOrder.RETURN_CAPS), op + " with RETURN_CAPS");
        }
    }

    @Test
    @DisplayName("required_ unknown flag bits are refused with IllegalArgumentException [ibv_query_qp_data_in_order(3) flags]")
    void required_unknownFlags() {
        QueuePair qp = rtsQp();
        Expect.badInput("queryDataInOrder(flags 2)", () -> qp.queryDataInOrder(WrOpcode.SEND, 2));
        Expect.badInput("queryDataInOrder(flags -1)", () -> qp.queryDataInOrder(WrOpcode.SEND, -1));
    }

    @Test
    @DisplayName("required_ repeated queries give the same answer [ibv_query_qp_data_in_order(3)]")
    void required_stable() {
        QueuePair qp = rtsQp();
        for (WrOpcode op : new WrOpcode[] {WrOpcode.RDMA_READ, WrOpcode.RDMA_WRITE, WrOpcode.SEND}) {
            assertEquals(qp.queryDataInOrder(op, DataInOrder.RETURN_CAPS), qp.queryDataInOrder(op, DataInOrder.RETURN_CAPS));
        }
    }

    // ---------------------------------------------------------------- WHOLE_MSG observed

    private int observedSize() {
        return (int) Math.min(1 << 20, tb.portAttributes().maxMsgSz());
    }

    /**
     * Spins on the last byte of {@code seg} until it becomes {@code last}, then checks every earlier byte: with
     * WHOLE_MSG the data of one WQE is written in order, so the reader may poll data instead of the CQ.
     */
    private static void pollLastByteThenCheck(String what, MemorySegment seg, long size, byte last, int seed) {
        long deadline = System.nanoTime() + Completions.timeoutMs() * 1_000_000;
        while ((byte) BYTE.getVolatile(seg, size - 1) != last) {
            if (System.nanoTime() > deadline) {
                fail(what + ": the last byte never arrived");
            }
            Thread.onSpinWait();
        }
        VarHandle.acquireFence();
        Data.assertPattern(what + ": WHOLE_MSG claimed, but a byte before the last was not yet written when the last one was",
                seg, 0, size - 1, seed, 0);
    }

    private void assumeWholeMsg(QueuePair qp, WrOpcode op) {
        assumeTrue(qp.dataInOrder(op).contains(DataInOrder.WHOLE_MSG),
                () -> "capability: the QP does not claim WHOLE_MSG for " + op);
    }

    private static MemoryRegion source(Testbed where, int size, int seed, byte last) {
        MemoryRegion src = where.buffer(size);
        Data.fill(src, seed);
        src.segment().set(ValueLayout.JAVA_BYTE, size - 1, last);
        return src;
    }

    @Test
    @DisplayName("required_ where WHOLE_MSG is claimed for RDMA WRITE, a responder polling the last byte of a large WRITE sees every earlier byte [ibv_query_qp_data_in_order(3)]")
    void required_wholeMsgWrite() {
        QpPair p = tb.pair(QpType.RC);
        assumeWholeMsg(p.b(), WrOpcode.RDMA_WRITE);
        int size = observedSize();
        MemoryRegion src = source(tb, size, 41, (byte) 0x7F);
        MemoryRegion dst = p.remoteBuffer(size);
        p.a().postSend(p.wr(1, WrOpcode.RDMA_WRITE, src, 0, size).rdma(dst.address(), dst.rkey()));
        pollLastByteThenCheck("RDMA WRITE of " + size + " bytes", dst.segment(), size, (byte) 0x7F, 41);
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the large WRITE").status());
    }

    @Test
    @DisplayName("required_ where WHOLE_MSG is claimed for SEND, a receiver polling the last byte of a large SEND sees every earlier byte [ibv_query_qp_data_in_order(3)]")
    void required_wholeMsgSend() {
        QpPair p = tb.pair(QpType.RC);
        assumeWholeMsg(p.b(), WrOpcode.SEND);
        int size = observedSize();
        MemoryRegion src = source(tb, size, 42, (byte) 0x7E);
        MemoryRegion dst = p.remoteBuffer(size);
        p.recvB(1, dst, 0, size);
        p.a().postSend(p.wr(2, WrOpcode.SEND, src, 0, size));
        pollLastByteThenCheck("SEND of " + size + " bytes", dst.segment(), size, (byte) 0x7E, 42);
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the large SEND").status());
    }

    @Test
    @DisplayName("required_ where WHOLE_MSG is claimed for RDMA READ, the requester polling the last byte of a large READ sees every earlier byte [ibv_query_qp_data_in_order(3)]")
    void required_wholeMsgRead() {
        QpPair p = tb.pair(QpType.RC);
        assumeWholeMsg(p.a(), WrOpcode.RDMA_READ);
        int size = observedSize();
        MemoryRegion remote = source(p.remote(), size, 43, (byte) 0x7D);
        MemoryRegion local = tb.buffer(size);
        p.a().postSend(p.wr(3, WrOpcode.RDMA_READ, local, 0, size).rdma(remote.address(), remote.rkey()));
        pollLastByteThenCheck("RDMA READ of " + size + " bytes", local.segment(), size, (byte) 0x7D, 43);
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the large READ").status());
    }
}
