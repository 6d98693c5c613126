package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.RecvWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;

/**
 * Errors of RC messages longer than the path MTU, which a responder takes packet by packet (issue 26: rules
 * written for the survivors of mutation testing of the wire device's responder, tck/reports/mutation.md). The
 * Errors area's faults are all in messages of one packet; here each message is three path MTUs
 * ({@link Testbed#mtu()}), so a responder that checks a WRITE's rkey and range at its first packet (rxe's
 * {@code check_rkey}, IBA 9.7.4.1.5) and a SEND's receive at each packet answers from there. The statuses are the
 * Errors area's, by the same man page; only the message's length differs.
 */
public abstract class MultiPacketErrorRules extends TckArea {
    /** How many path MTUs each message of this area spans. */
    private static final int PACKETS = 3;

    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected MultiPacketErrorRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    /** {@return the length of this area's messages: three path MTUs, bytes} */
    private int length() {
        return PACKETS * tb.mtu().bytes();
    }

    @Test
    @DisplayName("required_ an RC RDMA WRITE of three path MTUs through a bad rkey completes with REM_ACCESS_ERR at the requester, writes nothing, and the requester's QP goes to ERR [ibv_poll_cq(3) IBV_WC_REM_ACCESS_ERR, IBA 9.7.4.1.5: the R_Key is checked at the first packet]")
    void required_multiPacketWriteBadRkey() {
        int length = length();
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(length);
        Data.fill(src, 71);
        MemoryRegion dst = p.remoteBuffer(length);
        WorkCompletion wc = p.write(1, src, length, dst.address(), ErrorRules.BAD_KEY);
        assertEquals(1, wc.wrId());
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(), "a WRITE of " + length + " bytes through a bad rkey");
        Data.assertFilled("the target of a refused WRITE", dst.segment(), 0, length, (byte) 0);
        ErrorRules.assertState(p.a(), QpState.ERR, "the requester after REM_ACCESS_ERR");
    }

    @Test
    @DisplayName("required_ an RC RDMA WRITE of three path MTUs that ends exactly at its region's end lands whole; the same WRITE one byte further, past the end, completes with REM_ACCESS_ERR and writes nothing [ibv_poll_cq(3) IBV_WC_REM_ACCESS_ERR, ibv_reg_mr(3), IBA 9.7.4.1.5: the whole range is checked at the first packet]")
    void required_multiPacketWriteRegionEnd() {
        int length = length();
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(length);
        MemoryRegion dst = p.remoteBuffer(length);
        Data.fill(src, 72);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, length, dst.address(), dst.rkey()).status(),
                "a WRITE of " + length + " bytes that ends at its region's end");
        Data.assertSame("a WRITE that ends at its region's end", src.segment(), dst.segment(), length);
        Data.fill(src, 73);
        WorkCompletion past = p.write(2, src, length, dst.address() + 1, dst.rkey());
        assertEquals(2, past.wrId());
        assertEquals(WcStatus.REM_ACCESS_ERR, past.status(), "a WRITE of " + length + " bytes one byte past its "
                + "region's end");
        Data.assertPattern("the region after a refused WRITE: the first WRITE's bytes", dst.segment(), 0, length, 72,
                0);
    }

    @Test
    @DisplayName("required_ an RC SEND of three path MTUs into a receive whose SGE has a bad lkey fails at both ends: the receive with LOC_PROT_ERR (rxe: LOC_QP_OP_ERR), the sender with REM_OP_ERR; the receiver's QP goes to ERR [ibv_post_recv(3) sg_list, ibv_poll_cq(3) IBV_WC_LOC_PROT_ERR, IBV_WC_REM_OP_ERR]")
    void required_multiPacketSendIntoBadLkeyReceive() {
        int length = length();
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(length);
        Data.fill(src, 74);
        MemoryRegion dst = p.remoteBuffer(length);
        p.b().postRecv(new RecvWr(1, new Sge(dst.address(), length, ErrorRules.BAD_KEY)));
        WorkCompletion s = p.send(2, src, 0, length);
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the receive whose SGE has a bad lkey");
        assertEquals(1, r.wrId());
        assertTrue(Set.of(WcStatus.LOC_PROT_ERR, WcStatus.LOC_QP_OP_ERR).contains(r.status()),
                "a receive SGE with a bad lkey: expected LOC_PROT_ERR (or rxe's LOC_QP_OP_ERR), got " + r.status());
        assertEquals(2, s.wrId());
        assertEquals(WcStatus.REM_OP_ERR, s.status(), "the sender of " + length + " bytes into a bad-lkey receive");
        Data.assertFilled("the receive buffer behind a bad lkey", dst.segment(), 0, length, (byte) 0);
        ErrorRules.assertState(p.b(), QpState.ERR, "the receiver after a local protection error");
    }

    @Test
    @DisplayName("required_ an RC SEND of three path MTUs fills a receive of exactly its length; one byte more than the next receive holds fails with LOC_LEN_ERR at the receiver and REM_INV_REQ_ERR at the sender [ibv_poll_cq(3) IBV_WC_LOC_LEN_ERR, IBV_WC_REM_INV_REQ_ERR, IBA 9.9.3.1]")
    void required_multiPacketSendReceiveLength() {
        int length = length();
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(length + 1L);
        Data.fill(src, 75);
        MemoryRegion dst = p.remoteBuffer(2L * length);
        p.recvB(1, dst, 0, length);
        p.recvB(2, dst, length, length);
        assertEquals(WcStatus.SUCCESS, p.send(3, src, 0, length).status(), "a SEND of exactly the receive's length");
        WorkCompletion fit = Completions.awaitOne(p.cqB(), "the receive of exactly the SEND's length");
        assertEquals(1, fit.wrId());
        assertEquals(WcStatus.SUCCESS, fit.status(), "a receive of exactly the SEND's " + length + " bytes");
        assertEquals(length, fit.byteLen());
        Data.assertSame("a SEND of three path MTUs", src.segment(), dst.segment(), length);
        WorkCompletion s = p.send(4, src, 0, length + 1);
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the receive one byte too short");
        assertEquals(2, r.wrId());
        assertEquals(WcStatus.LOC_LEN_ERR, r.status(), "a SEND of " + (length + 1) + " bytes into " + length);
        assertEquals(4, s.wrId());
        assertEquals(WcStatus.REM_INV_REQ_ERR, s.status(), "the sender of a SEND one byte longer than the receive");
    }
}
