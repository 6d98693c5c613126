package org.verbs4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@DisplayName("API value types keep the verbs.h values and reject bad input")
class ApiValuesTest {

    @Test
    @DisplayName("the WR opcode x QP type table is the one of ibv_post_send(3) and ibv_wr_post(3)")
    void opcodeTable() {
        // Rows of the seed table, written out here independently of WrOpcode's own definition.
        assertEquals(EnumSet.of(QpType.UD, QpType.UC, QpType.RC, QpType.XRC_SEND, QpType.RAW_PACKET), WrOpcode.SEND.qpTypes());
        assertEquals(EnumSet.of(QpType.UD, QpType.UC, QpType.RC, QpType.XRC_SEND), WrOpcode.SEND_WITH_IMM.qpTypes());
        for (WrOpcode op : Set.of(WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.LOCAL_INV,
                WrOpcode.BIND_MW, WrOpcode.SEND_WITH_INV)) {
            assertEquals(EnumSet.of(QpType.UC, QpType.RC, QpType.XRC_SEND), op.qpTypes(), op.name());
        }
        for (WrOpcode op : Set.of(WrOpcode.RDMA_READ, WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD,
                WrOpcode.ATOMIC_WRITE, WrOpcode.FLUSH)) {
            assertEquals(EnumSet.of(QpType.RC, QpType.XRC_SEND), op.qpTypes(), op.name());
        }
        assertEquals(EnumSet.of(QpType.UD, QpType.RAW_PACKET), WrOpcode.TSO.qpTypes());
    }

    @Test
    @DisplayName("opcodes and send_ops_flags bits carry the verbs.h values")
    void opcodeValues() {
        assertEquals(0, WrOpcode.RDMA_WRITE.value());
        assertEquals(10, WrOpcode.TSO.value());
        assertEquals(14, WrOpcode.FLUSH.value());
        assertEquals(15, WrOpcode.ATOMIC_WRITE.value());
        assertEquals(1 << 12, WrOpcode.ATOMIC_WRITE.sendOpsFlag());
        assertEquals((1 << 0) | (1 << 1), WrOpcode.sendOpsFlags(EnumSet.of(WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM)));
        assertEquals(WrOpcode.SEND_WITH_INV, WrOpcode.of(9));
        assertThrows(IllegalArgumentException.class, () -> WrOpcode.of(12));
    }

    @ParameterizedTest
    @EnumSource(WrOpcode.class)
    @DisplayName("inline data is allowed only for SEND and RDMA WRITE opcodes")
    void inlineOnlyForSendAndWrite(WrOpcode op) {
        boolean sendOrWrite = op.name().startsWith("SEND") || op.name().startsWith("RDMA_WRITE");
        assertEquals(sendOrWrite, op.allowsInline(), op.name());
    }

    @Test
    @DisplayName("completion status and opcode values match ibv_wc_status and ibv_wc_opcode")
    void wcValues() {
        assertEquals(5, WcStatus.WR_FLUSH_ERR.value());
        assertEquals(10, WcStatus.REM_ACCESS_ERR.value());
        assertEquals(13, WcStatus.RNR_RETRY_EXC_ERR.value());
        assertEquals(WcStatus.TM_RNDV_INCOMPLETE, WcStatus.of(23));
        assertEquals(128, WcOpcode.RECV.value());
        assertTrue(WcOpcode.RECV_RDMA_WITH_IMM.isReceive());
        assertFalse(WcOpcode.RDMA_READ.isReceive());
        assertEquals(WcOpcode.COMP_SWAP, WcOpcode.forSend(WrOpcode.ATOMIC_CMP_AND_SWP));
        assertThrows(IllegalArgumentException.class, () -> WcOpcode.of(10));
        assertThrows(IllegalArgumentException.class, () -> WcStatus.of(-1));
    }

    @Test
    @DisplayName("a GID round-trips through bytes and the ibv_devinfo text form")
    void gidRoundTrip() {
        Gid g = Gid.parse("fe80::202:c9ff:fe00:1");
        assertEquals("fe80:0000:0000:0000:0202:c9ff:fe00:0001", g.toString());
        assertEquals(g, Gid.of(g.toBytes()));
        assertEquals("0000:0000:0000:0000:0000:ffff:c000:0201", Gid.ofIpv4(new byte[] {(byte) 192, 0, 2, 1}).toString());
        assertThrows(IllegalArgumentException.class, () -> Gid.of(new byte[15]));
        assertThrows(IllegalArgumentException.class, () -> Gid.parse("not a gid"));
    }

    @Test
    @DisplayName("QP attribute setters record exactly their ibv_qp_attr_mask bits")
    void qpAttrMask() {
        QpAttributes init = QpAttributes.toInit(1, 0, AccessFlags.REMOTE_WRITE);
        assertEquals(QpAttrMask.STATE | QpAttrMask.PORT | QpAttrMask.PKEY_INDEX | QpAttrMask.ACCESS_FLAGS, init.mask());
        QpAttributes rts = QpAttributes.toRts(0x123456, 14, 7, 7, 1);
        assertEquals(QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT
                | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC, rts.mask());
        assertEquals("STATE|SQ_PSN", QpAttrMask.toString(QpAttributes.toRtsUnreliable(1).mask()));
        assertThrows(IllegalArgumentException.class, () -> new QpAttributes().sqPsn(1 << 24));
        assertThrows(IllegalArgumentException.class, () -> new QpAttributes().rnrRetry(8));
        assertThrows(IllegalArgumentException.class, () -> new QpAttributes().port(0));
    }

    @Test
    @DisplayName("access flags follow ibv_reg_mr(3): remote write or atomic needs local write")
    void accessFlags() {
        assertEquals(AccessFlags.REMOTE_READ, AccessFlags.validate(AccessFlags.REMOTE_READ));
        assertThrows(IllegalArgumentException.class, () -> AccessFlags.validate(AccessFlags.REMOTE_WRITE));
        assertThrows(IllegalArgumentException.class, () -> AccessFlags.validate(AccessFlags.REMOTE_ATOMIC));
        assertThrows(IllegalArgumentException.class, () -> AccessFlags.validate(1 << 15));
        assertEquals("LOCAL_WRITE|REMOTE_WRITE", AccessFlags.toString(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE));
    }

    @Test
    @DisplayName("a completion batch holds what was added, refuses more than its capacity and resets on clear")
    void batch() {
        WorkCompletionBatch b = new WorkCompletionBatch(2);
        assertTrue(b.add(7, WcStatus.SUCCESS.value(), WcOpcode.RECV.value(), 0, 64, 0x1234, 5, 6,
                WcFlags.WITH_IMM, 0, 0, 0, 0));
        assertTrue(b.add(8, WcStatus.WR_FLUSH_ERR.value(), 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0));
        assertFalse(b.add(9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        assertEquals(2, b.size());
        assertEquals(WcOpcode.RECV, b.opcode(0));
        assertEquals(0x1234, b.get(0).immData());
        assertTrue(b.get(0).hasImm());
        assertEquals(WcStatus.WR_FLUSH_ERR, b.status(1));
        assertThrows(IndexOutOfBoundsException.class, () -> b.wrId(2));
        b.clear();
        assertEquals(0, b.size());
        assertThrows(IndexOutOfBoundsException.class, () -> b.wrId(0));
        assertThrows(IllegalArgumentException.class, () -> new WorkCompletionBatch(0));
    }

    @Test
    @DisplayName("QP init attributes need CQs and refuse negative sizes")
    void qpInitAttributes() {
        assertThrows(NullPointerException.class, () -> QpInitAttributes.builder(QpType.RC).build());
        assertThrows(IllegalArgumentException.class, () -> new QpCapabilities(-1, 1, 1, 1, 0));
    }

    @Test
    @DisplayName("an SGE list length outside the array is refused")
    void sgeList() {
        Sge[] sges = {new Sge(0x1000, 64, 1)};
        assertThrows(IllegalArgumentException.class, () -> new SendWr().sgList(sges, 2));
        assertThrows(IllegalArgumentException.class, () -> new RecvWr().sgList(sges, -1));
        assertEquals(1, new SendWr().sgList(sges).numSge());
    }

    @Test
    @DisplayName("data-in-order capability bits round-trip")
    void dataInOrderBits() {
        assertEquals(EnumSet.allOf(DataInOrder.class), DataInOrder.fromBits(3));
        assertEquals(1, DataInOrder.toBits(EnumSet.of(DataInOrder.WHOLE_MSG)));
        assertEquals(Set.of(), DataInOrder.fromBits(0));
    }

    @Test
    @DisplayName("errno names are the Linux ones, and a VerbsException carries number, name and verb")
    void errno() {
        VerbsException e = new VerbsException("ibv_modify_qp", Errno.EINVAL, "missing PATH_MTU");
        assertEquals(22, e.errno());
        assertEquals("EINVAL", e.errnoName());
        assertEquals("ibv_modify_qp failed: EINVAL (missing PATH_MTU)", e.getMessage());
        assertEquals("errno 200", Errno.name(200));
        PostSendException p = new PostSendException(Errno.ENOMEM, 3, null);
        assertEquals(3, p.badWrIndex());
        assertEquals("ENOMEM", p.errnoName());
    }
}
