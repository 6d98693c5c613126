package org.verbs4j.tck;

// Over 500 lines on purpose: one TCK area (tck/README.md lists one class per area): the RC/UC/UD transport rules
// are each a short method here, so a vendor finds the area's rules in one file.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.LinkLayer;
import org.verbs4j.MemoryRegion;
import org.verbs4j.PostRecvException;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.WcFlags;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;

/** The transports as the verbs spec and rxe define them: RC, UC, UD, atomics, RNR, zero-length messages, SRQ. */
public abstract class TransportRules extends TckArea {
    // Over 600 lines: one TCK area (one @Nested class, one report section).
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected TransportRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    // ---------------------------------------------------------------- RC

    @Test
    @DisplayName("required_ RC SEND delivers the payload to the posted receive with opcode RECV and byte_len [IBA 9.4.3, ibv_poll_cq(3)]")
    void required_rcSendRecv() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(1000);
        MemoryRegion dst = p.remoteBuffer(1000);
        Data.fill(src, 51);
        p.recvB(42, dst, 0, 1000);
        WorkCompletion s = p.send(43, src, 0, 777);
        assertEquals(WcStatus.SUCCESS, s.status());
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the receive");
        assertEquals(WcStatus.SUCCESS, r.status());
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(42, r.wrId());
        assertEquals(777, r.byteLen());
        assertTrue(!r.hasImm(), "a plain SEND carries no immediate data");
        Data.assertPattern("received payload", dst.segment(), 0, 777, 51, 0);
        Data.assertFilled("beyond the payload", dst.segment(), 777, 223, (byte) 0);
    }

    @Test
    @DisplayName("required_ a receive with several SGEs scatters the message across them in order [ibv_post_recv(3) sg_list]")
    void required_recvScatter() {
        assumeTrue(caps().maxRecvSge() >= 2, "capability: fewer than 2 receive SGEs");
        QpPair p = tb.pair(QpType.RC, b -> b.maxRecvSge(2));
        MemoryRegion src = tb.buffer(300);
        Data.fill(src, 52);
        MemoryRegion dst = p.remoteBuffer(400);
        p.b().postRecv(new RecvWr().wrId(1).sgList(Sge.of(dst, 200, 100), Sge.of(dst, 0, 200)));
        p.send(2, src, 0, 300);
        assertEquals(300, Completions.awaitOne(p.cqB(), "the scattered receive").byteLen());
        Data.assertPattern("first SGE", dst.segment(), 200, 100, 52, 0);
        Data.assertPattern("second SGE", dst.segment(), 0, 200, 52, 100);
    }

    @Test
    @DisplayName("required_ RC messages longer than the path MTU arrive whole [IBA 9.7.1: segmentation into MTU packets]")
    void required_rcMultiPacket() {
        QpPair p = tb.pair(QpType.RC);
        int size = tb.mtu().bytes() * 5 + 3;
        MemoryRegion src = tb.buffer(size);
        MemoryRegion dst = p.remoteBuffer(size);
        Data.fill(src, 53);
        p.recvB(1, dst, 0, size);
        assertEquals(WcStatus.SUCCESS, p.send(2, src, 0, size).status());
        assertEquals(size, Completions.awaitOne(p.cqB(), "the multi-packet receive").byteLen());
        Data.assertPattern("multi-packet payload", dst.segment(), 0, size, 53, 0);
    }

    @Test
    @DisplayName("required_ an RDMA WRITE consumes no receive: the posted receive is left for the next SEND [IBA 9.4.4]")
    void required_writeConsumesNoReceive() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion buf = tb.buffer(256);
        MemoryRegion rbuf = p.remoteBuffer(256);
        p.recvB(7, rbuf, 128, 128);
        assertEquals(WcStatus.SUCCESS, p.write(1, buf, 64, rbuf.address() + 64, rbuf.rkey()).status());
        Completions.assertNone(p.cqB(), "an RDMA WRITE");
        p.send(2, buf, 0, 8);
        assertEquals(7, Completions.awaitOne(p.cqB(), "the SEND after the WRITE").wrId());
    }

    @Test
    @DisplayName("required_ an RDMA WRITE of 1 MiB lands byte for byte [IBA 9.4.4]")
    void required_largeWrite() {
        QpPair p = tb.pair(QpType.RC);
        int size = (int) Math.min(1 << 20, tb.portAttributes().maxMsgSz());
        MemoryRegion src = tb.buffer(size);
        MemoryRegion dst = p.remoteBuffer(size);
        Data.fill(src, 54);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, size, dst.address(), dst.rkey()).status());
        Data.assertSame("1 MiB WRITE", src.segment(), dst.segment(), size);
    }

    @Test
    @DisplayName("required_ an RDMA READ scatters the remote bytes into several local SGEs [IBA 9.4.5, ibv_post_send(3) sg_list]")
    void required_readScatter() {
        assumeTrue(caps().maxSendSge() >= 2, "capability: fewer than 2 send SGEs");
        QpPair p = tb.pair(QpType.RC, b -> b.maxSendSge(2));
        MemoryRegion remote = p.remoteBuffer(200);
        Data.fill(remote, 55);
        MemoryRegion local = tb.buffer(400);
        WorkCompletion wc = p.postA(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(local, 300, 50), Sge.of(local, 0, 150)).rdma(remote.address(), remote.rkey()));
        assertEquals(WcStatus.SUCCESS, wc.status());
        Data.assertPattern("first SGE", local.segment(), 300, 50, 55, 0);
        Data.assertPattern("second SGE", local.segment(), 0, 150, 55, 50);
    }

    @ParameterizedTest(name = "imm 0x{0}")
    @ValueSource(ints = {0, 0x01020304, -1, 0x80000000})
    @DisplayName("required_ immediate data arrives unchanged, in host order, with IBV_WC_WITH_IMM [ibv_post_send(3) imm_data, ibv_poll_cq(3)]")
    void required_immediateRoundTrip(int imm) {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion buf = tb.buffer(64);
        p.recvB(1, p.remoteBuffer(32), 0, 32);
        p.postA(p.wr(2, WrOpcode.SEND_WITH_IMM, buf, 32, 4).immData(imm));
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the SEND_WITH_IMM receive");
        assertTrue((r.wcFlags() & WcFlags.WITH_IMM) != 0, "IBV_WC_WITH_IMM");
        assertEquals(imm, r.immData());
    }

    @Test
    @DisplayName("required_ RDMA WRITE with immediate writes and completes a receive with RECV_RDMA_WITH_IMM [IBA 9.4.4, ibv_poll_cq(3)]")
    void required_writeWithImm() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(100);
        Data.fill(src, 56);
        MemoryRegion dst = p.remoteBuffer(100);
        MemoryRegion none = p.remoteBuffer(8);
        p.recvB(5, none, 0, 8);
        p.postA(p.wr(6, WrOpcode.RDMA_WRITE_WITH_IMM, src, 0, 100).rdma(dst.address(), dst.rkey()).immData(0x31415926));
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the receive of WRITE_WITH_IMM");
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
        assertEquals(5, r.wrId());
        assertEquals(0x31415926, r.immData());
        Data.assertPattern("written data", dst.segment(), 0, 100, 56, 0);
        Data.assertFilled("the receive buffer is not written by WRITE_WITH_IMM", none.segment(), 0, 8, (byte) 0);
    }

    @Test
    @DisplayName("required_ RC delivers SENDs in order: each receive holds the message posted in that order [IBA 9.5: RC is reliable and in order]")
    void required_rcInOrder() {
        QpPair p = tb.pair(QpType.RC);
        int n = 30;
        MemoryRegion src = tb.buffer(8L * n);
        MemoryRegion dst = p.remoteBuffer(8L * n);
        for (int i = 0; i < n; i++) {
            Data.u64(src.segment(), 8L * i, 0xABC000L + i);
            p.recvB(i, dst, 8L * i, 8);
        }
        for (int i = 0; i < n; i++) {
            p.a().postSend(p.wr(i, WrOpcode.SEND, src, 8L * i, 8));
        }
        List<WorkCompletion> r = Completions.await(p.cqB(), n, n + " receives");
        for (int i = 0; i < n; i++) {
            assertEquals(i, r.get(i).wrId(), "receive " + i);
            assertEquals(0xABC000L + i, Data.u64(dst.segment(), 8L * i), "message " + i);
        }
        Completions.await(p.cqA(), n, n + " sends");
    }

    // ---------------------------------------------------------------- zero length

    @Test
    @DisplayName("required_ a zero-length RDMA WRITE completes successfully and writes nothing [ibv_post_send(3) num_sge 0]")
    void required_zeroLengthWrite() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion dst = p.remoteBuffer(16);
        WorkCompletion wc = p.postA(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .rdma(dst.address(), dst.rkey()));
        assertEquals(WcStatus.SUCCESS, wc.status());
        Data.assertFilled("zero-length WRITE target", dst.segment(), 0, 16, (byte) 0);
    }

    @Test
    @DisplayName("required_ a zero-length RDMA WRITE with immediate delivers the immediate with byte_len 0 [IBA 9.4.4]")
    void required_zeroLengthWriteImm() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion buf = p.remoteBuffer(16);
        p.recvB(1, buf, 0, 16);
        p.postA(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).sendFlags(SendFlags.SIGNALED)
                .rdma(buf.address(), buf.rkey()).immData(99));
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the zero-length WRITE_WITH_IMM receive");
        assertEquals(99, r.immData());
        assertEquals(0, r.byteLen());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = WrOpcode.class, names = {"RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "RDMA_READ"})
    @DisplayName("required_ a zero-length RDMA operation needs no valid rkey or address: with rkey 0 and address 0 it completes successfully [ibv_post_send(3) num_sge 0; rxe check_rkey: a zero-byte operation need not set an address or rkey]")
    void required_zeroLengthRdmaNeedsNoRkey(WrOpcode op) {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion rbuf = p.remoteBuffer(64);
        if (op == WrOpcode.RDMA_WRITE_WITH_IMM) {
            p.recvB(7, rbuf, 0, 64);
        }
        SendWr wr = new SendWr().wrId(8).opcode(op).sendFlags(SendFlags.SIGNALED).rdma(0, 0);
        if (op == WrOpcode.RDMA_WRITE_WITH_IMM) {
            wr.immData(0x0C0FFEE0);
        }
        WorkCompletion s = p.postA(wr);
        assertEquals(WcStatus.SUCCESS, s.status(), "a zero-length " + op + " with rkey 0 at address 0");
        if (op == WrOpcode.RDMA_WRITE_WITH_IMM) {
            WorkCompletion r = Completions.awaitOne(p.cqB(), "the receive of the zero-length WRITE with immediate");
            assertEquals(WcStatus.SUCCESS, r.status());
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
            assertEquals(0x0C0FFEE0, r.immData());
        }
        assertEquals(QpState.RTS, p.b().query().state(), "the responder after a zero-length " + op);
    }

    @Test
    @DisplayName("required_ a QP in SQD still receives: a SEND to it lands in its receive [IBA 10.3.1: SQD drains the send queue only, the receive queue works as in RTS]")
    void required_sqdStillReceives() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 24);
        MemoryRegion dst = p.remoteBuffer(64);
        p.b().modify(QpAttributes.toState(QpState.SQD));
        p.recvB(1, dst, 0, 64);
        assertEquals(WcStatus.SUCCESS, p.send(2, src, 0, 32).status(), "a SEND to a QP in SQD");
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the receive of the QP in SQD");
        assertEquals(WcStatus.SUCCESS, r.status());
        assertEquals(32, r.byteLen());
        Data.assertPattern("the SEND's data at the QP in SQD", dst.segment(), 0, 32, 24, 0);
    }

    @Test
    @DisplayName("required_ a WR posted while the QP is in SQD is not executed until the QP is back in RTS, and then it runs before the WRs posted after it [IBA 10.3.1: SQD processes no new send WRs; ibv_modify_qp(3)]")
    void required_sqdHoldsNewWrs() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 26);
        MemoryRegion dst = p.remoteBuffer(64);
        p.a().modify(QpAttributes.toState(QpState.SQD));
        long deadline = System.nanoTime() + Completions.timeoutMs() * 1_000_000;
        while (p.a().query().state() != QpState.SQD && System.nanoTime() < deadline) {
            Thread.yield();
        }
        p.a().postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(src, 0, 32)).rdma(dst.address(), dst.rkey()));
        Completions.assertNone(p.cqA(), "a WR posted in SQD");
        Data.assertFilled("the target of the WRITE posted in SQD", dst.segment(), 0, 64, (byte) 0);
        p.a().modify(QpAttributes.toState(QpState.RTS));
        p.a().postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(src, 32, 32)).rdma(dst.address() + 32, dst.rkey()));
        List<WorkCompletion> wcs = Completions.await(p.cqA(), 2, "the WRITEs after the return to RTS");
        assertEquals(1, wcs.get(0).wrId(), "the WR posted in SQD completes first");
        assertEquals(2, wcs.get(1).wrId());
        assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
        assertEquals(WcStatus.SUCCESS, wcs.get(1).status());
        Data.assertPattern("both WRITEs", dst.segment(), 0, 64, 26, 0);
    }

    @Test
    @DisplayName("required_ UC has no NAK: an RDMA WRITE with a bad rkey completes SUCCESS at the sender, writes nothing, and the responder stays in RTS and takes the next SEND [IBA 9.8.2: UC has no NAK, a responder error drops the message; rxe drops it]")
    void required_ucBadRkeyDropped() {
        assumeQp(QpType.UC);
        QpPair p = tb.pair(QpType.UC);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 25);
        MemoryRegion dst = tb.buffer(64);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, 64, dst.address(), 0x0BADBAD0).status(),
                "UC has no acknowledgement: the sender cannot see the bad rkey");
        MemoryRegion rbuf = p.remoteBuffer(64);
        p.recvB(2, rbuf, 0, 64);
        assertEquals(WcStatus.SUCCESS, p.send(3, src, 0, 16).status());
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the SEND after the dropped WRITE");
        assertEquals(WcStatus.SUCCESS, r.status());
        assertEquals(2, r.wrId());
        Data.assertFilled("the region the bad rkey aimed at", dst.segment(), 0, 64, (byte) 0);
        assertEquals(QpState.RTS, p.b().query().state(), "the UC responder after a dropped WRITE");
    }

    @Test
    @DisplayName("required_ UC: a SEND longer than the receive buffer is never delivered: the receive is dropped or completes with LOC_LEN_ERR, no byte lands past the buffer, the sender completes SUCCESS and the responder stays in RTS [IBA 9.8.2, ibv_poll_cq(3) IBV_WC_LOC_LEN_ERR; rxe completes the receive with LOC_QP_OP_ERR, D-002]")
    void required_ucTooLongNotDelivered() {
        assumeQp(QpType.UC);
        QpPair p = tb.pair(QpType.UC);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(128);
        p.recvB(1, dst, 0, 16);
        assertEquals(WcStatus.SUCCESS, p.send(2, src, 0, 64).status(), "UC has no acknowledgement");
        for (WorkCompletion r : Completions.collect(p.cqB(), Completions.QUIET_MS)) {
            assertEquals(WcStatus.LOC_LEN_ERR, r.status(), "a receive too short for the UC message");
        }
        Data.assertFilled("the bytes past the 16-byte receive", dst.segment(), 16, 112, (byte) 0);
        assertEquals(QpState.RTS, p.b().query().state(), "UC: a dropped message leaves the responder in RTS");
    }

    @Test
    @DisplayName("required_ a zero-length RDMA READ completes successfully [ibv_post_send(3) num_sge 0]")
    void required_zeroLengthRead() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion remote = p.remoteBuffer(16);
        WorkCompletion wc = p.postA(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .rdma(remote.address(), remote.rkey()));
        assertEquals(WcStatus.SUCCESS, wc.status());
    }

    @Test
    @DisplayName("required_ a zero-length SEND with immediate on UD delivers byte_len 40 (the GRH only) [IBA 11.4.1.1]")
    void required_zeroLengthUd() {
        assumeQp(QpType.UD);
        QpPair p = tb.pair(QpType.UD);
        MemoryRegion buf = p.remoteBuffer(64);
        p.recvB(1, buf, 0, 64);
        p.postA(p.address(new SendWr().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).sendFlags(SendFlags.SIGNALED).immData(5)));
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the zero-length UD receive");
        assertEquals(40, r.byteLen());
        assertEquals(5, r.immData());
    }

    // ---------------------------------------------------------------- UC

    @Test
    @DisplayName("required_ UC SEND, RDMA WRITE and WRITE with immediate deliver their data [IBA 9.8.2, ibv_post_send(3) table]")
    void required_ucData() {
        assumeQp(QpType.UC);
        QpPair p = tb.pair(QpType.UC);
        MemoryRegion src = tb.buffer(128);
        Data.fill(src, 57);
        MemoryRegion dst = p.remoteBuffer(512);
        p.recvB(1, dst, 0, 128);
        p.recvB(2, dst, 128, 8);
        assertEquals(WcStatus.SUCCESS, p.send(3, src, 0, 128).status());
        assertEquals(WcStatus.SUCCESS, p.write(4, src, 128, dst.address() + 256, dst.rkey()).status());
        assertEquals(WcStatus.SUCCESS, p.postA(p.wr(5, WrOpcode.RDMA_WRITE_WITH_IMM, src, 0, 64)
                .rdma(dst.address() + 384, dst.rkey()).immData(8)).status());
        List<WorkCompletion> r = Completions.await(p.cqB(), 2, "UC receives");
        assertEquals(WcOpcode.RECV, r.get(0).opcode());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.get(1).opcode());
        assertEquals(8, r.get(1).immData());
        Data.assertPattern("UC SEND", dst.segment(), 0, 128, 57, 0);
        Data.assertPattern("UC WRITE", dst.segment(), 256, 128, 57, 0);
        Data.assertPattern("UC WRITE_WITH_IMM", dst.segment(), 384, 64, 57, 0);
    }

    @Test
    @DisplayName("required_ UC has no acknowledgements: a SEND with no receive posted completes SUCCESS at the sender and is dropped, and the QPs keep working [IBA 9.8.2]")
    void required_ucNoReceiveDropped() {
        assumeQp(QpType.UC);
        QpPair p = tb.pair(QpType.UC);
        MemoryRegion buf = tb.buffer(64);
        assertEquals(WcStatus.SUCCESS, p.send(1, buf, 0, 8).status(), "an unreliable SEND completes without an ACK");
        Completions.assertNone(p.cqB(), "the message had no receive");
        p.recvB(2, p.remoteBuffer(64), 32, 16);
        p.send(3, buf, 0, 8);
        assertEquals(2, Completions.awaitOne(p.cqB(), "the next message").wrId());
        assertEquals(QpState.RTS, p.a().query().state());
    }

    // ---------------------------------------------------------------- UD

    @Test
    @DisplayName("required_ a UD receive starts with a 40-byte GRH, sets IBV_WC_GRH, counts it in byte_len and names the source QP and the source LID, the sending port's (0 on RoCE) [IBA 11.4.1.1, ibv_poll_cq(3)]")
    void required_udGrh() {
        assumeQp(QpType.UD);
        QpPair p = tb.pair(QpType.UD);
        MemoryRegion src = tb.buffer(100);
        Data.fill(src, 58);
        MemoryRegion dst = p.remoteBuffer(140);
        p.recvB(1, dst, 0, 140);
        assertEquals(WcStatus.SUCCESS, p.send(2, src, 0, 100).status());
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the UD receive");
        assertEquals(140, r.byteLen(), "40 bytes of GRH + 100 of payload");
        assertTrue((r.wcFlags() & WcFlags.GRH) != 0, "IBV_WC_GRH");
        assertEquals(p.a().qpNum(), r.srcQp(), "src_qp of a UD receive");
        assertEquals(tb.context().queryPort(tb.port()).lid(), r.slid(), "slid of a UD receive: the sending port's LID");
        Data.assertPattern("UD payload after the GRH", dst.segment(), 40, 100, 58, 0);
    }

    @Test
    @DisplayName("required_ a UD message with the wrong Q_Key is dropped at the receiver while the sender completes SUCCESS [IBA 10.2.4: Q_Key check]")
    void required_udQkeyChecked() {
        assumeQp(QpType.UD);
        QpPair p = tb.pair(QpType.UD);
        MemoryRegion buf = tb.buffer(128);
        p.recvB(1, p.remoteBuffer(128), 0, 128);
        WorkCompletion s = p.postA(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(buf, 100, 8)).ud(p.ah(), p.b().qpNum(), Testbed.QKEY + 1));
        assertEquals(WcStatus.SUCCESS, s.status());
        Completions.assertNone(p.cqB(), "a UD message with a wrong Q_Key");
        p.send(3, buf, 100, 8);
        assertEquals(1, Completions.awaitOne(p.cqB(), "the message with the right Q_Key").wrId());
    }

    @Test
    @DisplayName("required_ a UD message reaching a QP still in INIT is dropped, and once that QP is in RTR the next one lands in the same receive [IBA 10.3.1: only RTR and later states process incoming messages; rxe drops requests below RTR]")
    void required_udDroppedBeforeRtr() {
        assumeQp(QpType.UD);
        Testbed far = tb.peer();
        CompletionQueue cqA = tb.cq(16);
        CompletionQueue cqB = far.cq(16);
        QueuePair a = tb.qp(QpType.UD, cqA, null);
        QueuePair b = far.qp(QpType.UD, cqB, null);
        tb.bringUp(a, 0, 7);
        far.toInit(b);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 21);
        MemoryRegion dst = far.buffer(128);
        b.postRecv(new RecvWr(1, Sge.of(dst, 0, 128)));
        AddressHandle ah = tb.pd().createAh(tb.avTo(far));
        a.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(src, 0, 32)).ud(ah, b.qpNum(), Testbed.QKEY));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(cqA, "the UD send to a QP in INIT").status());
        Completions.assertNone(cqB, "a UD message to a QP in INIT");
        far.toRtr(b, 0);
        a.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(src, 32, 32)).ud(ah, b.qpNum(), Testbed.QKEY));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(cqA, "the UD send to the QP in RTR").status());
        WorkCompletion r = Completions.awaitOne(cqB, "the UD message to the QP in RTR");
        assertEquals(WcStatus.SUCCESS, r.status());
        assertEquals(1, r.wrId());
        assertEquals(40 + 32, r.byteLen(), "40 bytes of GRH + the second message's 32");
        Data.assertPattern("the second message after the GRH", dst.segment(), 40, 32, 21, 32);
    }

    @Test
    @DisplayName("required_ a UD message longer than the receive buffer after its 40-byte GRH is never delivered: the receive is dropped or completes with LOC_LEN_ERR, and no byte lands past the buffer [ibv_poll_cq(3) IBV_WC_LOC_LEN_ERR; rxe completes the receive with LOC_QP_OP_ERR, D-002]")
    void required_udTooLongForReceiveNotDelivered() {
        assumeQp(QpType.UD);
        QpPair p = tb.pair(QpType.UD);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 22);
        MemoryRegion dst = p.remoteBuffer(256);
        p.recvB(1, dst, 0, 40 + 16);
        assertEquals(WcStatus.SUCCESS, p.send(2, src, 0, 64).status(), "UD has no acknowledgement");
        List<WorkCompletion> seen = Completions.collect(p.cqB(), Completions.QUIET_MS);
        for (WorkCompletion r : seen) {
            assertEquals(WcStatus.LOC_LEN_ERR, r.status(), "a receive too short for the UD message");
        }
        Data.assertFilled("the bytes past the 56-byte receive", dst.segment(), 56, 200, (byte) 0);
    }

    @Test
    @DisplayName("required_ a UD message that finds no receive posted is dropped, and a receive posted afterwards gets only the next message [IBA: UD has no RNR NAK, the message is silently dropped; rxe drops it]")
    void required_udWithoutReceiveDropped() {
        assumeQp(QpType.UD);
        QpPair p = tb.pair(QpType.UD);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 23);
        MemoryRegion dst = p.remoteBuffer(128);
        // One receive is posted and used first: the message that finds none must not land in it again.
        MemoryRegion first = p.remoteBuffer(128);
        p.recvB(9, first, 0, 128);
        assertEquals(WcStatus.SUCCESS, p.send(8, src, 0, 16).status());
        assertEquals(9, Completions.awaitOne(p.cqB(), "the first UD receive").wrId());
        first.segment().fill((byte) 0);
        assertEquals(WcStatus.SUCCESS, p.send(2, src, 0, 16).status(), "UD has no acknowledgement");
        Completions.assertNone(p.cqB(), "a UD message with no receive posted");
        Data.assertFilled("the receive buffer used before", first.segment(), 0, 128, (byte) 0);
        p.recvB(1, dst, 0, 128);
        assertEquals(WcStatus.SUCCESS, p.send(3, src, 16, 24).status());
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the UD message sent after the receive was posted");
        assertEquals(WcStatus.SUCCESS, r.status());
        assertEquals(40 + 24, r.byteLen(), "the second message, not the dropped one");
        Data.assertPattern("the second message after the GRH", dst.segment(), 40, 24, 23, 16);
    }

    @Test
    @DisplayName("required_ UD SEND_WITH_IMM delivers the immediate with IBV_WC_WITH_IMM and IBV_WC_GRH, and a plain UD SEND carries no immediate [ibv_post_send(3) imm_data, ibv_poll_cq(3) wc_flags]")
    void required_udImmediateFlags() {
        assumeOp(QpType.UD, WrOpcode.SEND_WITH_IMM);
        QpPair p = tb.pair(QpType.UD);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(256);
        p.recvB(1, dst, 0, 128);
        p.recvB(2, dst, 128, 128);
        assertEquals(WcStatus.SUCCESS, p.postA(p.wr(3, WrOpcode.SEND_WITH_IMM, src, 0, 8).immData(0x5eedf00d)).status());
        assertEquals(WcStatus.SUCCESS, p.send(4, src, 8, 8).status());
        List<WorkCompletion> r = Completions.await(p.cqB(), 2, "the two UD receives");
        assertEquals(1, r.get(0).wrId());
        assertEquals(0x5eedf00d, r.get(0).immData(), "the immediate of the UD SEND_WITH_IMM");
        assertEquals(WcFlags.GRH | WcFlags.WITH_IMM, r.get(0).wcFlags() & (WcFlags.GRH | WcFlags.WITH_IMM),
                "IBV_WC_GRH and IBV_WC_WITH_IMM on the SEND_WITH_IMM's receive");
        assertEquals(2, r.get(1).wrId());
        assertEquals(WcFlags.GRH, r.get(1).wcFlags() & (WcFlags.GRH | WcFlags.WITH_IMM),
                "a plain UD SEND's receive has IBV_WC_GRH and no IBV_WC_WITH_IMM");
    }

    @Test
    @DisplayName("required_ postRecv with a list posts every receive WR of it, in order: three SENDs land in them one by one [ibv_post_recv(3)]")
    void required_postRecvList() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(192);
        p.b().postRecv(List.of(new RecvWr(1, Sge.of(dst, 0, 64)), new RecvWr(2, Sge.of(dst, 64, 64)),
                new RecvWr(3, Sge.of(dst, 128, 64))));
        for (int i = 0; i < 3; i++) {
            src.segment().fill((byte) (i + 1));
            assertEquals(WcStatus.SUCCESS, p.send(10 + i, src, 0, 64).status());
        }
        List<WorkCompletion> r = Completions.await(p.cqB(), 3, "the three receives of the list");
        for (int i = 0; i < 3; i++) {
            assertEquals(i + 1, r.get(i).wrId(), "receive " + i + " of the list");
            Data.assertFilled("receive " + i + "'s buffer", dst.segment(), 64L * i, 64, (byte) (i + 1));
        }
    }

    @Test
    @DisplayName("required_ a message is scattered over the receive WR's SGEs in order, each filled before the next; on UD the 40-byte GRH fills the first SGEs the same way [ibv_post_recv(3) sg_list, IBA 11.4.1.1]")
    void required_scatterOverReceiveSges() {
        assumeTrue(tb.deviceAttributes().maxSge() >= 4, "capability: fewer than 4 SGEs per receive WR");
        for (QpType type : List.of(QpType.RC, QpType.UD)) {
            if (!caps().supports(type)) {
                continue;
            }
            QpPair p = tb.pair(type, b -> b.maxRecvSge(4));
            MemoryRegion src = tb.buffer(128);
            Data.fill(src, 27);
            MemoryRegion dst = p.remoteBuffer(512);
            int grh = type == QpType.UD ? 40 : 0;
            // SGE lengths 24, 23, 1 and 300, spread over the buffer with gaps that must stay untouched.
            int[] len = {24, 23, 1, 300};
            long[] at = {0, 64, 128, 192};
            Sge[] sges = new Sge[4];
            for (int i = 0; i < 4; i++) {
                sges[i] = Sge.of(dst, at[i], len[i]);
            }
            p.b().postRecv(new RecvWr().wrId(1).sgList(sges));
            // A second receive of 4 SGEs waits behind it: the message must land in the first one's buffers only.
            MemoryRegion other = p.remoteBuffer(256);
            p.b().postRecv(new RecvWr().wrId(5).sgList(Sge.of(other, 0, 64), Sge.of(other, 64, 64),
                    Sge.of(other, 128, 64), Sge.of(other, 192, 64)));
            assertEquals(WcStatus.SUCCESS, p.send(2, src, 0, 100).status(), type + " SEND of 100 bytes");
            WorkCompletion r = Completions.awaitOne(p.cqB(), "the " + type + " receive over 4 SGEs");
            assertEquals(WcStatus.SUCCESS, r.status());
            assertEquals(grh + 100, r.byteLen(), type + " byte_len");
            byte[] message = new byte[grh + 100];
            for (int i = 0; i < 100; i++) {
                message[grh + i] = Data.pattern(27, i);
            }
            int k = 0;
            for (int i = 0; i < 4; i++) {
                for (int j = 0; j < len[i]; j++, k++) {
                    byte got = dst.segment().get(ValueLayout.JAVA_BYTE, at[i] + j);
                    if (k >= message.length) {
                        assertEquals(0, got, type + ": SGE " + i + " byte " + j + " lies past the message");
                    } else if (k >= grh) {
                        assertEquals(message[k], got, type + ": message byte " + (k - grh) + " in SGE " + i + " at " + j);
                    }
                }
            }
            Data.assertFilled(type + ": the gap after SGE 0", dst.segment(), 24, 40, (byte) 0);
            Data.assertFilled(type + ": the gap after SGE 1", dst.segment(), 64 + 23, 128 - 64 - 23, (byte) 0);
            Data.assertFilled(type + ": the gap after SGE 2", dst.segment(), 129, 63, (byte) 0);
            Data.assertFilled(type + ": the second receive's buffers", other.segment(), 0, 256, (byte) 0);
        }
    }

    @Test
    @DisplayName("required_ each receive WR scatters into its own SGEs: six receives of four SGEs each (each receive in a region of its own), posted together, take six SENDs one by one, each message spread over its own receive's four buffers [ibv_post_recv(3) sg_list, num_sge]")
    void required_eachReceiveScattersIntoItsOwnSges() {
        assumeTrue(tb.deviceAttributes().maxSge() >= 4, "capability: fewer than 4 SGEs per receive WR");
        QpPair p = tb.pair(QpType.RC, b -> b.maxRecvSge(4).maxRecvWr(8));
        int n = 6;
        MemoryRegion src = tb.buffer(100L * n);
        // Every receive's four SGEs in a region of its own (so each receive has its own lkey): 20, 30, 40 and
        // 64 bytes, 64 bytes apart.
        MemoryRegion[] dst = new MemoryRegion[n];
        int[] len = {20, 30, 40, 64};
        for (int r = 0; r < n; r++) {
            Data.fill(src.segment().asSlice(100L * r, 100), 40 + r);
            dst[r] = p.remoteBuffer(256);
            Sge[] sges = new Sge[4];
            for (int i = 0; i < 4; i++) {
                sges[i] = Sge.of(dst[r], 64L * i, len[i]);
            }
            p.b().postRecv(new RecvWr().wrId(10 + r).sgList(sges));
        }
        for (int r = 0; r < n; r++) {
            assertEquals(WcStatus.SUCCESS, p.send(r, src, 100L * r, 100).status(), "SEND " + r);
            WorkCompletion wc = Completions.awaitOne(p.cqB(), "receive " + r);
            assertEquals(10 + r, wc.wrId(), "the receives are used in the order they were posted");
            assertEquals(100, wc.byteLen());
        }
        for (int r = 0; r < n; r++) {
            int k = 0;
            for (int i = 0; i < 4; i++) {
                long at = 64L * i;
                int used = Math.min(len[i], 100 - k);
                Data.assertPattern("receive " + r + ", SGE " + i, dst[r].segment(), at, used, 40 + r, k);
                Data.assertFilled("receive " + r + ": the rest of SGE " + i + "'s block", dst[r].segment(), at + used,
                        64 - used, (byte) 0);
                k += used;
            }
        }
    }

    @Test
    @DisplayName("required_ with 64 live UD QPs, a datagram reaches exactly the QP its destination QPN names, also after every other QP was destroyed [ibv_create_qp(3) qp_num, ibv_post_send(3) remote_qpn]")
    void required_udReachesTheNamedQpAmongMany() {
        assumeQp(QpType.UD);
        int n = 64;
        Testbed far = tb.peer();
        CompletionQueue cqA = tb.cq(2 * n + 8);
        CompletionQueue recvCq = far.cq(2 * n + 8);
        QueuePair a = tb.qp(QpType.UD, cqA, b -> b.maxSendWr(n + 4));
        tb.bringUp(a, 0, 7);
        List<QueuePair> qps = new java.util.ArrayList<>();
        MemoryRegion src = tb.buffer(n);
        MemoryRegion dst = far.buffer(64L * n);
        for (int i = 0; i < n; i++) {
            src.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i + 1));
            QueuePair q = far.qp(QpType.UD, recvCq, null);
            far.bringUp(q, 0, 7);
            qps.add(q);
        }
        AddressHandle ah = tb.pd().createAh(tb.avTo(far));
        for (int round = 0; round < 2; round++) {
            List<Integer> live = new java.util.ArrayList<>();
            for (int i = round; i < n; i += round + 1) {
                live.add(i);
                qps.get(i).postRecv(new RecvWr(i, Sge.of(dst, 64L * i, 64)));
            }
            for (int i : live) {
                a.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .sgList(Sge.of(src, i, 1)).ud(ah, qps.get(i).qpNum(), Testbed.QKEY));
            }
            Completions.await(cqA, live.size(), "the UD sends of round " + round);
            for (WorkCompletion r : Completions.await(recvCq, live.size(), "the UD receives of round " + round)) {
                int i = (int) r.wrId();
                assertEquals(WcStatus.SUCCESS, r.status());
                assertEquals(qps.get(i).qpNum(), r.qpNum(), "the receive of QP " + i + " names it");
                assertEquals((byte) (i + 1), dst.segment().get(ValueLayout.JAVA_BYTE, 64L * i + 40),
                        "QP " + i + " got the datagram addressed to its QPN");
            }
            if (round == 0) {
                // Destroy every even QP; the odd ones must still be found by their QPN.
                for (int i = 0; i < n; i += 2) {
                    qps.get(i).close();
                }
                dst.segment().fill((byte) 0);
            }
        }
    }

    @Test
    @DisplayName("required_ a 200,003-byte RDMA WRITE and SEND land exactly: every byte in place and none past the message, though the source region holds more data after it [ibv_post_send(3) sg_list]")
    void required_largeMessageExact() {
        int len = 200_003;
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(262_144);
        Data.fill(src, 28);
        MemoryRegion dst = p.remoteBuffer(262_144);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, len, dst.address(), dst.rkey()).status());
        Data.assertPattern("the large WRITE", dst.segment(), 0, len, 28, 0);
        Data.assertFilled("the bytes past the large WRITE", dst.segment(), len, 262_144 - len, (byte) 0);
        MemoryRegion rbuf = p.remoteBuffer(262_144);
        p.recvB(2, rbuf, 0, 262_144);
        assertEquals(WcStatus.SUCCESS, p.send(3, src, 0, len).status());
        assertEquals(len, Completions.awaitOne(p.cqB(), "the large SEND's receive").byteLen());
        Data.assertPattern("the large SEND", rbuf.segment(), 0, len, 28, 0);
        Data.assertFilled("the bytes past the large SEND", rbuf.segment(), len, 262_144 - len, (byte) 0);
    }

    @Test
    @DisplayName("required_ a message over several SGEs of unequal lengths (100, 5,000, 3 and 7,000 bytes), many path MTUs long, lands exactly: gathered by an RDMA WRITE and a SEND, and scattered into the local SGEs of an RDMA READ, every byte in place and none past its SGE [ibv_post_send(3) sg_list, num_sge; IBA 9.5: a message is split into MTU-sized packets]")
    void required_multiSgeMessageOverManyPackets() {
        assumeTrue(tb.deviceAttributes().maxSge() >= 4, "capability: fewer than 4 SGEs per WR");
        QpPair p = tb.pair(QpType.RC, b -> b.maxSendSge(4).maxRecvSge(4));
        int[] len = {100, 5000, 3, 7000};
        int total = 12_103;
        // The local SGEs sit 8,192 bytes apart, so that every SGE has untouched bytes after it.
        MemoryRegion local = tb.buffer(8192L * 4);
        Sge[] sges = new Sge[4];
        for (int i = 0; i < 4; i++) {
            sges[i] = Sge.of(local, 8192L * i, len[i]);
        }
        Data.fill(local, 29);
        MemoryRegion dst = p.remoteBuffer(16_384);
        assertEquals(WcStatus.SUCCESS, p.postA(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE)
                .sendFlags(SendFlags.SIGNALED).sgList(sges).rdma(dst.address(), dst.rkey())).status(), "the WRITE");
        MemoryRegion rbuf = p.remoteBuffer(16_384);
        p.recvB(2, rbuf, 0, 16_384);
        assertEquals(WcStatus.SUCCESS, p.postA(new SendWr().wrId(3).opcode(WrOpcode.SEND)
                .sendFlags(SendFlags.SIGNALED).sgList(sges)).status(), "the SEND");
        assertEquals(total, Completions.awaitOne(p.cqB(), "the SEND's receive").byteLen());
        long at = 0;
        for (int i = 0; i < 4; i++) {
            Data.assertPattern("the WRITE's bytes from SGE " + i, dst.segment(), at, len[i], 29, 8192L * i);
            Data.assertPattern("the SEND's bytes from SGE " + i, rbuf.segment(), at, len[i], 29, 8192L * i);
            at += len[i];
        }
        Data.assertFilled("past the WRITE", dst.segment(), total, 16_384 - total, (byte) 0);
        Data.assertFilled("past the SEND", rbuf.segment(), total, 16_384 - total, (byte) 0);
        // The READ brings the WRITE's target back into the four SGEs of a cleared local buffer.
        local.segment().fill((byte) 0);
        assertEquals(WcStatus.SUCCESS, p.postA(new SendWr().wrId(4).opcode(WrOpcode.RDMA_READ)
                .sendFlags(SendFlags.SIGNALED).sgList(sges).rdma(dst.address(), dst.rkey())).status(), "the READ");
        for (int i = 0; i < 4; i++) {
            Data.assertPattern("the READ's bytes into SGE " + i, local.segment(), 8192L * i, len[i], 29, 8192L * i);
            Data.assertFilled("past the READ's SGE " + i, local.segment(), 8192L * i + len[i], 8192 - len[i], (byte) 0);
        }
    }

    @Test
    @DisplayName("required_ a UD datagram addressed to the number of an RC QP is dropped: the RC QP's receive stays posted and the QP stays in RTS [IBA: the transport of the BTH opcode must match the QP's; rxe drops it]")
    void required_udToRcQpDropped() {
        assumeQp(QpType.UD);
        QpPair ud = tb.pair(QpType.UD);
        QpPair rc = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = rc.remoteBuffer(128);
        rc.recvB(1, dst, 0, 128);
        // With the testbed's Q_Key and with Q_Key 0: an RC QP has no Q_Key to compare, so neither may pass.
        for (int qkey : new int[] {Testbed.QKEY, 0}) {
            assertEquals(WcStatus.SUCCESS, ud.postA(new SendWr().wrId(2).opcode(WrOpcode.SEND)
                    .sendFlags(SendFlags.SIGNALED).sgList(Sge.of(src, 0, 16)).ud(ud.ah(), rc.b().qpNum(), qkey)).status());
        }
        Completions.assertNone(rc.cqB(), "a UD datagram at an RC QP");
        Data.assertFilled("the RC QP's receive buffer", dst.segment(), 0, 128, (byte) 0);
        assertEquals(QpState.RTS, rc.b().query().state(), "the RC QP after a stray UD datagram");
        assertEquals(WcStatus.SUCCESS, rc.send(3, src, 0, 16).status(), "the RC pair still works");
        assertEquals(1, Completions.awaitOne(rc.cqB(), "the RC receive").wrId());
    }

    @Test
    @DisplayName("required_ a UD datagram into a receive whose SGE has a bad lkey is never delivered as SUCCESS and writes nothing [ibv_post_recv(3) sg_list; rxe completes the receive with LOC_QP_OP_ERR]")
    void required_udBadReceiveLkeyNotDelivered() {
        badReceiveLkeyNotDelivered(QpType.UD, 128, 16, "UD has no acknowledgement");
    }

    /**
     * A SEND of {@code length} bytes on an unacknowledged {@code type} into a {@code size}-byte receive whose SGE
     * has a bad lkey: the sender completes SUCCESS ({@code noAck} says why), the receive never completes SUCCESS,
     * and the buffer stays untouched.
     */
    private void badReceiveLkeyNotDelivered(QpType type, int size, int length, String noAck) {
        assumeQp(type);
        QpPair p = tb.pair(type);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(size);
        p.b().postRecv(new RecvWr(1, new Sge(dst.address(), size, 0x0BADBAD0)));
        assertEquals(WcStatus.SUCCESS, p.send(2, src, 0, length).status(), noAck);
        for (WorkCompletion r : Completions.collect(p.cqB(), Completions.QUIET_MS)) {
            assertNotEquals(WcStatus.SUCCESS, r.status(), "a " + type + " receive whose SGE has a bad lkey");
        }
        Data.assertFilled("the buffer behind the bad lkey", dst.segment(), 0, size, (byte) 0);
    }

    @Test
    @DisplayName("required_ UD SEND with SOLICITED wakes a solicited-only CQ and one without does not [ibv_post_send(3) IBV_SEND_SOLICITED, ibv_req_notify_cq(3) solicited_only]")
    void required_udSolicited() {
        assumeQp(QpType.UD);
        assumeTrue(caps().completionChannel(), "capability: the device has no completion channels");
        Testbed far = tb.peer();
        CompletionChannel ch = far.context().createCompletionChannel();
        CompletionQueue cqB = far.context().createCq(16, ch, 0);
        CompletionQueue cqA = tb.cq(16);
        QueuePair a = tb.qp(QpType.UD, cqA, null);
        QueuePair b = far.qp(QpType.UD, cqB, null);
        tb.bringUp(a, 0, 7);
        far.bringUp(b, 0, 7);
        MemoryRegion buf = far.buffer(256);
        b.postRecv(new RecvWr(1, Sge.of(buf, 0, 128)));
        b.postRecv(new RecvWr(2, Sge.of(buf, 128, 128)));
        AddressHandle ah = tb.pd().createAh(tb.avTo(far));
        MemoryRegion src = tb.buffer(16);
        cqB.requestNotify(true);
        a.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(src, 0, 8)).ud(ah, b.qpNum(), Testbed.QKEY));
        assertEquals(1, Completions.awaitOne(cqB, "the unsolicited UD receive").wrId());
        assertEquals(null, ch.awaitEvent(Completions.QUIET_MS, TimeUnit.MILLISECONDS),
                "a UD SEND without SOLICITED must not wake a solicited-only CQ");
        a.postSend(new SendWr().wrId(4).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED | SendFlags.SOLICITED)
                .sgList(Sge.of(src, 0, 8)).ud(ah, b.qpNum(), Testbed.QKEY));
        assertEquals(cqB, ch.awaitEvent(Completions.timeoutMs(), TimeUnit.MILLISECONDS), "the solicited event");
        assertEquals(2, Completions.awaitOne(cqB, "the solicited UD receive").wrId());
    }

    @Test
    @DisplayName("required_ UC: a SEND into a receive whose SGE has a bad lkey completes SUCCESS at the sender (no NAK) and is never delivered as SUCCESS [IBA 9.8.2; rxe completes the receive with LOC_QP_OP_ERR]")
    void required_ucBadReceiveLkey() {
        badReceiveLkeyNotDelivered(QpType.UC, 64, 32, "UC has no NAK");
    }

    @Test
    @DisplayName("required_ an RDMA WRITE with immediate through a bad rkey completes with REM_ACCESS_ERR at the sender, writes nothing, and its receive never completes with SUCCESS [ibv_post_send(3) IBV_WR_RDMA_WRITE_WITH_IMM, ibv_poll_cq(3)]")
    void required_writeImmBadRkey() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 29);
        MemoryRegion dst = tb.buffer(64);
        MemoryRegion rbuf = p.remoteBuffer(16);
        p.recvB(1, rbuf, 0, 16);
        WorkCompletion s = p.postA(p.wr(2, WrOpcode.RDMA_WRITE_WITH_IMM, src, 0, 64).rdma(dst.address(), 0x0BADBAD0)
                .immData(7));
        assertEquals(WcStatus.REM_ACCESS_ERR, s.status(), "a WRITE with immediate through a bad rkey");
        for (WorkCompletion r : Completions.collect(p.cqB(), Completions.QUIET_MS)) {
            assertNotEquals(WcStatus.SUCCESS, r.status(), "the receive of a refused WRITE with immediate");
        }
        Data.assertFilled("the target of the refused WRITE with immediate", dst.segment(), 0, 64, (byte) 0);
    }

    @Test
    @DisplayName("required_ a UD message of exactly one MTU is delivered [IBA 11.4.1.1]")
    void required_udMtuMessage() {
        assumeQp(QpType.UD);
        QpPair p = tb.pair(QpType.UD);
        int mtu = tb.mtu().bytes();
        MemoryRegion src = tb.buffer(mtu);
        Data.fill(src, 59);
        MemoryRegion dst = p.remoteBuffer(mtu + 40);
        p.recvB(1, dst, 0, mtu + 40);
        assertEquals(WcStatus.SUCCESS, p.send(2, src, 0, mtu).status());
        assertEquals(mtu + 40, Completions.awaitOne(p.cqB(), "the MTU-sized UD receive").byteLen());
        Data.assertPattern("MTU payload", dst.segment(), 40, mtu, 59, 0);
    }

    @Test
    @DisplayName("required_ a UD message longer than the MTU never arrives; the sender may see success, an error, or EINVAL at post [IBA C10-93.1.1; rxe fakes a successful send]")
    void required_udOverMtu() {
        assumeQp(QpType.UD);
        QpPair p = tb.pair(QpType.UD);
        int mtu = tb.mtu().bytes();
        MemoryRegion src = tb.buffer(mtu + 1);
        MemoryRegion dst = p.remoteBuffer(mtu + 64);
        p.recvB(1, dst, 0, mtu + 64);
        try {
            // C10-93.1.1: no packet is emitted and no error need be raised, so any completion status is allowed.
            p.a().postSend(p.wr(2, WrOpcode.SEND, src, 0, mtu + 1));
            Completions.awaitOne(p.cqA(), "the over-MTU UD send");
        } catch (VerbsException e) {
            assertEquals(Errno.EINVAL, e.errno(), "a UD send of MTU + 1 bytes refused at post: " + e);
        }
        Completions.assertNone(p.cqB(), "a UD message over the MTU");
    }

    @Test
    @DisplayName("required_ a UD send to a QP number nobody uses completes SUCCESS [IBA 9.8.3: UD is unacknowledged]")
    void required_udToNowhere() {
        assumeQp(QpType.UD);
        QpPair p = tb.pair(QpType.UD);
        MemoryRegion buf = tb.buffer(64);
        int nobody = (p.b().qpNum() + 0x1000) & 0xffffff;
        WorkCompletion wc = p.postA(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(buf, 0, 8)).ud(p.ah(), nobody, Testbed.QKEY));
        assertEquals(WcStatus.SUCCESS, wc.status());
    }

    // ---------------------------------------------------------------- atomics

    @Test
    @DisplayName("required_ CMP_AND_SWP with an unequal compare leaves memory unchanged and returns the original [IBA 9.4.6, ibv_post_send(3) atomic]")
    void required_cmpSwpMismatch() {
        assumeAtomics();
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion remote = p.remoteBuffer(8);
        MemoryRegion local = tb.buffer(8);
        Data.u64(remote.segment(), 0, 5);
        WorkCompletion wc = p.postA(p.wr(1, WrOpcode.ATOMIC_CMP_AND_SWP, local, 0, 8).atomic(remote.address(), 6, 77, remote.rkey()));
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.COMP_SWAP, wc.opcode());
        assertEquals(5, Data.u64(remote.segment(), 0), "unequal compare must not swap");
        assertEquals(5, Data.u64(local.segment(), 0), "the original value is returned");
    }

    @Test
    @DisplayName("required_ CMP_AND_SWP with an equal compare writes its swap value and returns the original; two in one postSend list each swap in their own value [IBA 9.4.6, ibv_post_send(3) wr.atomic]")
    void required_cmpSwpMatch() {
        assumeAtomics();
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion remote = p.remoteBuffer(16);
        MemoryRegion local = tb.buffer(16);
        Data.u64(remote.segment(), 0, 5);
        Data.u64(remote.segment(), 8, 0x0A0B_0C0D_0102_0304L);
        p.a().postSend(List.of(
                p.wr(1, WrOpcode.ATOMIC_CMP_AND_SWP, local, 0, 8)
                        .atomic(remote.address(), 5, 0x1122_3344_5566_7788L, remote.rkey()),
                p.wr(2, WrOpcode.ATOMIC_CMP_AND_SWP, local, 8, 8)
                        .atomic(remote.address() + 8, 0x0A0B_0C0D_0102_0304L, 0x8877_6655_4433_2211L, remote.rkey())));
        for (WorkCompletion wc : Completions.await(p.cqA(), 2, "two CMP_AND_SWPs")) {
            assertEquals(WcStatus.SUCCESS, wc.status(), "a CMP_AND_SWP with an equal compare: " + wc);
            assertEquals(WcOpcode.COMP_SWAP, wc.opcode());
        }
        assertEquals(0x1122_3344_5566_7788L, Data.u64(remote.segment(), 0), "the first WR's swap value");
        assertEquals(0x8877_6655_4433_2211L, Data.u64(remote.segment(), 8), "the second WR's swap value");
        assertEquals(5, Data.u64(local.segment(), 0), "the first original value is returned");
        assertEquals(0x0A0B_0C0D_0102_0304L, Data.u64(local.segment(), 8), "the second original value is returned");
    }

    @Test
    @DisplayName("required_ FETCH_AND_ADD wraps around 64 bits and returns the original [IBA 9.4.6]")
    void required_fetchAddWraps() {
        assumeAtomics();
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion remote = p.remoteBuffer(8);
        MemoryRegion local = tb.buffer(8);
        Data.u64(remote.segment(), 0, -1L);
        WorkCompletion wc = p.postA(p.wr(1, WrOpcode.ATOMIC_FETCH_AND_ADD, local, 0, 8).atomic(remote.address(), 2, 0, remote.rkey()));
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.FETCH_ADD, wc.opcode());
        assertEquals(1, Data.u64(remote.segment(), 0));
        assertEquals(-1L, Data.u64(local.segment(), 0));
    }

    @Test
    @DisplayName("required_ an atomic on a remote address not 8-byte aligned is refused at post with EINVAL or completes in error, and leaves memory unchanged [IBA 9.4.6; librxe refuses at post, rxe answers REM_INV_REQ_ERR]")
    void required_atomicMisaligned() {
        assumeAtomics();
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion remote = p.remoteBuffer(32);
        MemoryRegion local = tb.buffer(8);
        try {
            WorkCompletion wc = p.postA(p.wr(1, WrOpcode.ATOMIC_FETCH_AND_ADD, local, 0, 8)
                    .atomic(remote.address() + 4, 1, 0, remote.rkey()));
            assertNotEquals(WcStatus.SUCCESS, wc.status(), "a misaligned atomic must fail");
        } catch (VerbsException e) {
            assertEquals(Errno.EINVAL, e.errno(), "a misaligned atomic refused at post: " + e);
        }
        Data.assertFilled("memory around the misaligned atomic", remote.segment(), 0, 32, (byte) 0);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = WrOpcode.class, names = {"ATOMIC_FETCH_AND_ADD", "ATOMIC_CMP_AND_SWP"})
    @DisplayName("required_ an atomic whose local buffer lacks LOCAL_WRITE completes with LOC_PROT_ERR (rxe: LOC_QP_OP_ERR, D-001) and the original value is not written into it [ibv_reg_mr(3): local write needed to be written, ibv_post_send(3) atomics]")
    void required_atomicResultNeedsLocalWrite(WrOpcode op) {
        assumeAtomics();
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion remote = p.remoteBuffer(8);
        Data.u64(remote.segment(), 0, 0x1122334455667788L);
        MemoryRegion local = tb.buffer(8, AccessFlags.REMOTE_READ);
        WorkCompletion wc = p.postA(p.wr(1, op, local, 0, 8).atomic(remote.address(), 0x1122334455667788L, 5, remote.rkey()));
        assertTrue(Set.of(WcStatus.LOC_PROT_ERR, WcStatus.LOC_QP_OP_ERR).contains(wc.status()),
                op + " into a region without LOCAL_WRITE: expected LOC_PROT_ERR (or rxe's LOC_QP_OP_ERR), got " + wc.status());
        Data.assertFilled("the local buffer without LOCAL_WRITE", local.segment(), 0, 8, (byte) 0);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = WrOpcode.class, names = {"ATOMIC_FETCH_AND_ADD", "ATOMIC_CMP_AND_SWP"})
    @DisplayName("required_ an atomic whose local SGE is shorter than its 8-byte operand is refused at post with EINVAL or completes in error, and writes nothing past the SGE [ibv_post_send(3) atomics: 8-byte operands; librxe refuses at post]")
    void required_atomicShortLocalSge(WrOpcode op) {
        assumeAtomics();
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion remote = p.remoteBuffer(8);
        MemoryRegion local = tb.buffer(16);
        try {
            // For compare-and-swap: compare with the remote's current value (0), so that an executed swap shows.
            WorkCompletion wc = p.postA(p.wr(1, op, local, 0, 4).atomic(remote.address(), 0, 1, remote.rkey()));
            assertNotEquals(WcStatus.SUCCESS, wc.status(), op + " with a 4-byte local SGE must fail");
        } catch (VerbsException e) {
            assertEquals(Errno.EINVAL, e.errno(), op + " with a 4-byte local SGE refused at post: " + e);
        }
        Data.assertFilled("the local buffer past the 4-byte SGE", local.segment(), 4, 12, (byte) 0);
    }

    @Test
    @DisplayName("required_ FETCH_AND_ADD from two QPs on one address loses no update [IBA 9.4.6: atomic with respect to the device]")
    void required_atomicsAreAtomic() {
        assumeAtomics();
        QpPair p1 = tb.pair(QpType.RC);
        QpPair p2 = tb.pair(QpType.RC);
        MemoryRegion remote = p1.remoteBuffer(8); // both responders are on the same testbed
        MemoryRegion l1 = tb.buffer(8L * 50);
        MemoryRegion l2 = tb.buffer(8L * 50);
        for (int i = 0; i < 25; i++) {
            p1.a().postSend(p1.wr(i, WrOpcode.ATOMIC_FETCH_AND_ADD, l1, 8L * i, 8).atomic(remote.address(), 1, 0, remote.rkey()));
            p2.a().postSend(p2.wr(i, WrOpcode.ATOMIC_FETCH_AND_ADD, l2, 8L * i, 8).atomic(remote.address(), 1, 0, remote.rkey()));
        }
        Completions.await(p1.cqA(), 25, "QP 1's atomics");
        Completions.await(p2.cqA(), 25, "QP 2's atomics");
        assertEquals(50, Data.u64(remote.segment(), 0), "50 increments of 1");
    }

    // ---------------------------------------------------------------- RNR

    @Test
    @DisplayName("required_ an RC SEND with no receive posted and rnr_retry 0 completes with RNR_RETRY_EXC_ERR [IBA 9.7.5.2.8, ibv_modify_qp(3) rnr_retry]")
    void required_rnrRetryExceeded() {
        QpPair p = tb.pair(QpType.RC, null, 0);
        MemoryRegion buf = tb.buffer(64);
        WorkCompletion wc = p.send(1, buf, 0, 8);
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, wc.status());
        assertEquals(1, wc.wrId());
    }

    @ParameterizedTest(name = "rnr_retry {0}")
    @ValueSource(ints = {1, 3})
    @DisplayName("required_ an RC SEND with no receive ever posted and rnr_retry 1 to 6 completes with RNR_RETRY_EXC_ERR once its retries are spent [IBA 9.7.5.2.8, ibv_modify_qp(3) rnr_retry]")
    void required_rnrRetriesSpent(int rnrRetry) {
        QpPair p = tb.pair(QpType.RC, null, rnrRetry);
        MemoryRegion buf = tb.buffer(64);
        WorkCompletion wc = p.send(1, buf, 0, 8);
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, wc.status(), "rnr_retry " + rnrRetry + " and no receive");
        assertEquals(1, wc.wrId());
    }

    @Test
    @DisplayName("required_ with rnr_retry 7 a SEND waits for a receive posted later and then succeeds [IBA 9.7.5.2.8: 7 means infinite]")
    void required_rnrRetryInfinite() {
        QpPair p = tb.pair(QpType.RC, null, 7);
        MemoryRegion buf = tb.buffer(64);
        Data.fill(buf, 60);
        p.a().postSend(p.wr(1, WrOpcode.SEND, buf, 0, 16));
        Completions.assertNone(p.cqA(), "the SEND waits for a receive");
        p.recvB(2, p.remoteBuffer(64), 32, 32);
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the SEND after the receive came").status());
        assertEquals(16, Completions.awaitOne(p.cqB(), "the late receive").byteLen());
    }

    @Test
    @DisplayName("required_ with rnr_retry 6 a SEND that meets no receive waits out its RNR NAK and succeeds once a receive is posted within its retries, rather than failing at the first RNR NAK [IBA 9.7.5.2.8, ibv_modify_qp(3) rnr_retry, min_rnr_timer]")
    void required_rnrRetryWaitsBeforeGivingUp() throws InterruptedException {
        QpPair p = tb.pair(QpType.RC, null, 6);
        // The responder's longest RNR timer (code 0, 655.36 ms): six retries give the receive about 3.9 s to come.
        p.b().modify(QpAttributes.toState(QpState.RTS).minRnrTimer(0));
        MemoryRegion buf = tb.buffer(64);
        Data.fill(buf, 61);
        p.a().postSend(p.wr(1, WrOpcode.SEND, buf, 0, 16));
        // Long enough for the SEND to meet the empty receive queue (its first RNR NAK), far shorter than the retries.
        Thread.sleep(30);
        p.recvB(2, p.remoteBuffer(64), 32, 32);
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the SEND after the receive came");
        assertEquals(WcStatus.SUCCESS, wc.status(), "rnr_retry 6 and a receive posted during the first RNR wait");
        assertEquals(16, Completions.awaitOne(p.cqB(), "the late receive").byteLen());
    }

    // ---------------------------------------------------------------- SRQ

    private SharedReceiveQueue srq() {
        assumeTrue(caps().srq(), "capability: the device has no shared receive queues");
        return tb.pd().createSrq(new SrqInitAttributes(16, 1, 0));
    }

    /** An RC QP that takes its receives from {@code srq}. */
    private QueuePair srqQp(SharedReceiveQueue srq, CompletionQueue cq) {
        return tb.qp(QpType.RC, cq, b -> b.srq(srq).maxRecvWr(0));
    }

    /**
     * An RC QP in RTS whose peer, also on this testbed, takes its receives from {@code srq}.
     *
     * @param srq the SRQ of the receiving QP
     * @param recvCq the receiving QP's CQ
     * @param sendCq the sender's CQ
     * @return the sender
     */
    private QueuePair senderToSrq(SharedReceiveQueue srq, CompletionQueue recvCq, CompletionQueue sendCq) {
        QueuePair receiver = srqQp(srq, recvCq);
        QueuePair sender = tb.qp(QpType.RC, sendCq, null);
        tb.bringUp(receiver, sender.qpNum(), 7);
        tb.bringUp(sender, receiver.qpNum(), 7);
        return sender;
    }

    @Test
    @DisplayName("optional_ QPs on one SRQ both take their receives from it [ibv_create_srq(3), ibv_post_srq_recv(3)]")
    void optional_srqShared() {
        SharedReceiveQueue srq = srq();
        CompletionQueue cq = tb.cq(64);
        QueuePair s1 = senderToSrq(srq, cq, cq);
        QueuePair s2 = senderToSrq(srq, cq, cq);
        MemoryRegion buf = tb.buffer(128);
        srq.postRecv(new RecvWr(100, Sge.of(buf, 0, 32)));
        srq.postRecv(new RecvWr(101, Sge.of(buf, 32, 32)));
        s1.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(Sge.of(buf, 64, 8)));
        s2.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(Sge.of(buf, 64, 8)));
        List<WorkCompletion> wcs = Completions.await(cq, 4, "two sends and two SRQ receives");
        long recvs = wcs.stream().filter(w -> w.opcode() == WcOpcode.RECV && w.status() == WcStatus.SUCCESS).count();
        assertEquals(2, recvs, "both QPs received from the SRQ: " + wcs);
        assertTrue((srq.srqNum() & ~0xffffff) == 0, "SRQ numbers are 24-bit");
    }

    @Test
    @DisplayName("optional_ postRecv(List) on an SRQ posts its WRs in list order: three SENDs land in them oldest first, each in its own buffer with its own byte_len [ibv_post_srq_recv(3)]")
    void optional_srqRecvList() {
        SharedReceiveQueue srq = srq();
        CompletionQueue cq = tb.cq(16);
        QueuePair s = senderToSrq(srq, cq, tb.cq(16));
        MemoryRegion dst = tb.buffer(3 * 32);
        MemoryRegion src = tb.buffer(3 * 16);
        Data.fill(src.segment(), 21);
        srq.postRecv(List.of(new RecvWr(200, Sge.of(dst, 0, 32)), new RecvWr(201, Sge.of(dst, 32, 32)),
                new RecvWr(202, Sge.of(dst, 64, 32))));
        for (int i = 0; i < 3; i++) {
            s.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sgList(Sge.of(src, 16L * i, 8 + i)));
        }
        List<WorkCompletion> wcs = Completions.await(cq, 3, "three receives posted by one postRecv(List) on the SRQ");
        for (int i = 0; i < 3; i++) {
            WorkCompletion wc = wcs.get(i);
            assertEquals(WcStatus.SUCCESS, wc.status(), "receive " + i);
            assertEquals(200 + i, wc.wrId(), "receive " + i + ": the list's WRs are used in list order");
            assertEquals(8 + i, wc.byteLen(), "receive " + i + ": byte_len of SEND " + i);
            Data.assertPattern("receive " + i + "'s buffer", dst.segment(), 32L * i, 8 + i, 21, 16L * i);
        }
    }

    @Test
    @DisplayName("optional_ postRecv on a QP that uses an SRQ throws IllegalStateException [ibv_post_recv(3): receives go to the SRQ]")
    void optional_postRecvWithSrq() {
        SharedReceiveQueue srq = srq();
        QueuePair qp = srqQp(srq, tb.cq(8));
        MemoryRegion buf = tb.buffer(32);
        Expect.thrown("postRecv on an SRQ QP", IllegalStateException.class, () -> qp.postRecv(new RecvWr(1, Sge.of(buf))));
    }

    @Test
    @DisplayName("optional_ a full SRQ refuses the next receive with ENOMEM and its index [ibv_post_srq_recv(3)]")
    void optional_srqFull() {
        SharedReceiveQueue srq = srq();
        int size = srq.query().maxWr();
        MemoryRegion buf = tb.buffer(32);
        int posted = 0;
        try {
            for (; posted <= size; posted++) {
                srq.postRecv(new RecvWr(posted, Sge.of(buf)));
            }
            org.junit.jupiter.api.Assertions.fail("the SRQ of " + size + " entries took " + posted);
        } catch (PostRecvException e) {
            assertEquals(Errno.ENOMEM, e.errno());
            assertEquals(0, e.badWrIndex());
            assertTrue(posted >= 16, "fewer than the 16 requested entries fit: " + posted);
        }
    }

    @Test
    @DisplayName("optional_ an armed SRQ limit fires SRQ_LIMIT_REACHED once the queued receives drop below it [ibv_modify_srq(3) srq_limit]")
    void optional_srqLimitEvent() {
        SharedReceiveQueue srq = srq();
        CompletionQueue cq = tb.cq(64);
        QueuePair s = senderToSrq(srq, cq, cq);
        MemoryRegion buf = tb.buffer(256);
        for (int i = 0; i < 4; i++) {
            srq.postRecv(new RecvWr(i, Sge.of(buf, 32L * i, 32)));
        }
        srq.armLimit(3);
        assertEquals(null, tb.context().pollAsyncEvent(0, java.util.concurrent.TimeUnit.MILLISECONDS),
                "no event while 4 receives are queued above the limit 3");
        for (int i = 0; i < 2; i++) {
            s.postSend(new SendWr().wrId(10 + i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(Sge.of(buf, 200, 8)));
        }
        Completions.await(cq, 4, "two sends and their SRQ receives");
        long deadline = System.nanoTime() + Completions.timeoutMs() * 1_000_000;
        while (System.nanoTime() < deadline) {
            var ev = tb.context().pollAsyncEvent(100, java.util.concurrent.TimeUnit.MILLISECONDS);
            if (ev != null && ev.type() == org.verbs4j.AsyncEventType.SRQ_LIMIT_REACHED) {
                assertEquals(srq, ev.srq(), "the event names the SRQ");
                return;
            }
        }
        org.junit.jupiter.api.Assertions.fail("no SRQ_LIMIT_REACHED after the queue fell from 4 to 2 below the limit 3");
    }

    @Test
    @DisplayName("required_ an RC send to a QP that no longer exists completes with RETRY_EXC_ERR once retry_cnt is spent [IBA 9.7.6.1.3, ibv_modify_qp(3) retry_cnt]")
    void required_retryExceeded() {
        Testbed far = tb.peer();
        CompletionQueue cq = tb.cq(16);
        QueuePair a = tb.qp(QpType.RC, cq, null);
        QueuePair gone = far.qp(QpType.RC, far.cq(8), null);
        tb.toInit(a);
        tb.toRtr(a, gone.qpNum(), far);
        a.modify(org.verbs4j.QpAttributes.toRts(Testbed.PSN, 8, 1, 0, 1)); // ~1 ms ACK timeout, one retry
        gone.close();
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion dst = far.buffer(64);
        a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(buf, 0, 8)).rdma(dst.address() + 32, dst.rkey()));
        WorkCompletion wc = Completions.awaitOne(cq, "the WRITE to a destroyed QP");
        assertEquals(WcStatus.RETRY_EXC_ERR, wc.status());
    }

    @Test
    @DisplayName("required_ a UD SEND with immediate through the WR session arrives with the immediate after the GRH [ibv_wr_post(3) table: SEND_WITH_IMM on UD]")
    void required_udSendImmSession() {
        assumeTrue(caps().wrSession(), "capability: the device has no WR session API (ibv_wr_*)");
        assumeOp(QpType.UD, WrOpcode.SEND_WITH_IMM);
        QpPair p = tb.pair(QpType.UD, b -> b.sendOps(WrOpcode.SEND_WITH_IMM));
        MemoryRegion buf = tb.buffer(128);
        Data.fill(buf, 62);
        MemoryRegion dst = p.remoteBuffer(128);
        p.recvB(1, dst, 0, 128);
        p.session(s -> {
            s.wrId(2);
            s.wrFlags(SendFlags.SIGNALED);
            s.sendImm(0x600D);
            s.setUdAddr(p.ah(), p.b().qpNum(), Testbed.QKEY);
            s.setSge(buf.lkey(), buf.address(), 24);
        });
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the UD SEND_WITH_IMM").status());
        WorkCompletion r = Completions.awaitOne(p.cqB(), "its receive");
        assertEquals(0x600D, r.immData());
        assertEquals(64, r.byteLen());
        Data.assertPattern("payload", dst.segment(), 40, 24, 62, 0);
    }

    @Test
    @DisplayName("required_ UC RDMA WRITE with immediate through the WR session completes the peer's receive [ibv_wr_post(3) table: RDMA_WRITE_WITH_IMM on UC]")
    void required_ucWriteImmSession() {
        assumeTrue(caps().wrSession(), "capability: the device has no WR session API (ibv_wr_*)");
        assumeOp(QpType.UC, WrOpcode.RDMA_WRITE_WITH_IMM);
        QpPair p = tb.pair(QpType.UC, b -> b.sendOps(WrOpcode.RDMA_WRITE_WITH_IMM));
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 63);
        MemoryRegion dst = p.remoteBuffer(64);
        p.recvB(1, dst, 0, 0);
        p.session(s -> {
            s.wrId(2);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWriteImm(dst.rkey(), dst.address(), 0xFACE);
            s.setSge(src.lkey(), src.address(), 64);
        });
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the UC WRITE_WITH_IMM receive");
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
        assertEquals(0xFACE, r.immData());
        Data.assertPattern("UC written data", dst.segment(), 0, 64, 63, 0);
    }

    // ---------------------------------------------------------------- UD: answering the sender (issue 29)

    /** A UD receive completion as a caller could build it, with the given wc_flags. */
    private static WorkCompletion udReceive(int wcFlags) {
        return new WorkCompletion(1, WcStatus.SUCCESS, WcOpcode.RECV, 0, 48, 0, 1, 2, wcFlags, 0, 0, 0, 0);
    }

    /** 40 bytes of GRH area: 20 unused, then an IPv4 header from {@code saddr} to {@code daddr} (checksum 0). */
    private MemorySegment ipv4Grh(int saddr, int daddr) {
        MemorySegment g = tb.memory(40);
        g.fill((byte) 0);
        g.set(ValueLayout.JAVA_BYTE, 20, (byte) 0x45);
        g.set(ValueLayout.JAVA_BYTE, 28, (byte) 64);
        g.set(ValueLayout.JAVA_BYTE, 29, (byte) 17);
        g.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 32, saddr);
        g.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 36, daddr);
        return g;
    }

    @Test
    @DisplayName("required_ a UD server answers its sender through an address handle built from the receive completion and its 40-byte GRH [ibv_create_ah_from_wc(3), ibv_init_ah_from_wc(3)]")
    void required_udReplyFromCompletion() {
        assumeQp(QpType.UD);
        QpPair p = tb.pair(QpType.UD);
        Testbed server = tb.peer();
        MemoryRegion request = tb.buffer(64);
        Data.fill(request, 21);
        MemoryRegion serverBuf = p.remoteBuffer(40 + 64);
        p.recvB(1, serverBuf, 0, 40 + 64);
        assertEquals(WcStatus.SUCCESS, p.send(2, request, 0, 64).status());
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the request at the server");
        assertEquals(WcStatus.SUCCESS, r.status());
        Gid sender = tb.gid();
        if (tb.portAttributes().linkLayer() == LinkLayer.ETHERNET && sender.subnetPrefix() == 0
                && (sender.interfaceId() >>> 32) == 0xffffL) {
            // rxe's build_rdma_network_hdr: RoCE v2 over IPv4 puts the packet's IPv4 header in the last 20 bytes.
            MemorySegment area = serverBuf.segment();
            assertEquals(0x45, area.get(ValueLayout.JAVA_BYTE, 20) & 0xff,
                    "RoCE v2 over IPv4: an IPv4 header (version 4, 5 words) at byte 20 of the GRH area");
            assertEquals((int) sender.interfaceId(),
                    area.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 32),
                    "the IPv4 header's source address is the sender's");
        }

        // Exactly 40 bytes suffice.
        AhAttributes av = server.context().initAhAttributes(server.port(), r,
                serverBuf.segment().asSlice(0, 40));
        assertEquals(server.port(), av.portNum(), "the vector's port");
        if ((r.wcFlags() & WcFlags.GRH) != 0) {
            assertTrue(av.grh() != null, "a completion with IBV_WC_GRH gives a global vector");
            assertEquals(tb.gid(), av.grh().dgid(), "the vector's DGID is the sender's GID");
            assertEquals(server.gid(), server.context().queryGid(server.port(), av.grh().sgidIndex()),
                    "the vector's source GID index names the GID the request was sent to");
        }
        AddressHandle ah = server.pd().createAh(r, serverBuf.segment(), server.port());

        MemoryRegion clientBuf = tb.buffer(40 + 64);
        p.a().postRecv(new RecvWr(3, Sge.of(clientBuf, 0, 40 + 64)));
        MemoryRegion reply = server.buffer(64);
        Data.fill(reply, 77);
        p.b().postSend(new SendWr().wrId(4).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(reply, 0, 64)).ud(ah, r.srcQp(), Testbed.QKEY));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "the reply's send").status());
        WorkCompletion back = Completions.awaitOne(p.cqA(), "the reply at the client");
        assertEquals(WcStatus.SUCCESS, back.status(), "the reply's receive");
        assertEquals(3, back.wrId());
        assertEquals(p.b().qpNum(), back.srcQp(), "the reply comes from the server's QP");
        Data.assertPattern("the reply after the GRH", clientBuf.segment(), 40, 64, 77, 0);
    }

    @Test
    @DisplayName("required_ on RoCE a completion without IBV_WC_GRH gives a vector without a global route, which createAh refuses with EINVAL [ibv_init_ah_from_wc(3), ibv_create_ah(3)]")
    void required_udReplyWithoutGrhOnRoce() {
        assumeQp(QpType.UD);
        assumeTrue(tb.portAttributes().linkLayer() == LinkLayer.ETHERNET,
                "the port is not RoCE: a LID routes without a GRH");
        MemorySegment grh = tb.memory(40);
        grh.fill((byte) 0);
        WorkCompletion wc = udReceive(0);
        AhAttributes av = tb.context().initAhAttributes(tb.port(), wc, grh);
        assertTrue(av.grh() == null, "no IBV_WC_GRH, no global route: " + av);
        Expect.errno("createAh(a completion without GRH) on RoCE", () -> tb.pd().createAh(wc, grh, tb.port()),
                Errno.EINVAL);
    }

    @Test
    @DisplayName("required_ a GRH area shorter than 40 bytes, or null, is refused before it is read; so is a closed context or PD [ibv_init_ah_from_wc(3)]")
    void required_udReplyBadGrhArea() {
        WorkCompletion wc = udReceive(WcFlags.GRH);
        MemorySegment short39 = tb.memory(40).asSlice(0, 39);
        Expect.thrown("initAhAttributes(39-byte GRH)", IllegalArgumentException.class,
                () -> tb.context().initAhAttributes(tb.port(), wc, short39));
        Expect.thrown("createAh(wc, 39-byte GRH)", IllegalArgumentException.class,
                () -> tb.pd().createAh(wc, short39, tb.port()));
        Expect.badInput("initAhAttributes(null GRH)", () -> tb.context().initAhAttributes(tb.port(), wc, null));
        Expect.badInput("initAhAttributes(null wc)",
                () -> tb.context().initAhAttributes(tb.port(), null, tb.memory(40)));
        Context other = tb.device().open();
        ProtectionDomain pd = other.allocPd();
        pd.close();
        Expect.closed("ProtectionDomain.createAh(wc, grh, port)", () -> pd.createAh(wc, tb.memory(40), tb.port()));
        other.close();
        Expect.closed("Context.initAhAttributes", () -> other.initAhAttributes(tb.port(), wc, tb.memory(40)));
    }

    @Test
    @DisplayName("required_ a GRH area with neither an IPv6 nor an IPv4 header fails with EPROTONOSUPPORT; one sent to an IPv4 multicast group fails with EINVAL [ibv_init_ah_from_wc(3), libibverbs get_grh_header_version]")
    void required_udReplyGrhForms() {
        WorkCompletion wc = udReceive(WcFlags.GRH);
        MemorySegment zeros = tb.memory(40);
        zeros.fill((byte) 0);
        Expect.errno("initAhAttributes(40 zero bytes)", () -> tb.context().initAhAttributes(tb.port(), wc, zeros),
                Errno.EPROTONOSUPPORT);
        MemorySegment multicast = ipv4Grh(0x0a000001, 0xe0000001);
        Expect.errno("initAhAttributes(IPv4 header to 224.0.0.1)",
                () -> tb.context().initAhAttributes(tb.port(), wc, multicast), Errno.EINVAL);
    }
}
