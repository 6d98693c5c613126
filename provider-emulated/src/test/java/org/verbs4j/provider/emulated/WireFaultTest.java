package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.QpState;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.emulated.FaultyWire.Fault;
import org.verbs4j.provider.emulated.FaultyWire.Rule;
import org.verbs4j.provider.emulated.verbs.EmulatedQueuePair;
import org.verbs4j.provider.emulated.wire.RoceEndpoint;
import org.verbs4j.provider.emulated.wire.WireTransport;
import org.verbs4j.provider.emulated.wire.codec.Opcode;
import org.verbs4j.provider.emulated.wire.codec.Packet;

/**
 * The failures issue 27 found with a hostile proxy between two wire devices, each replayed deterministically
 * through the {@link FaultyWire} harness: a multi-packet READ whose response loses a packet after the first, a
 * READ that never gets its answer while later ones do (the retry budget must run out), the amplification of one
 * lost READ response or atomic ACK, and a forged WRITE_FIRST whose RETH runs past the region.
 */
@Tag("wire")
class WireFaultTest {
    /** ACK timeout code: 4.096 us x 2^14, about 67 ms. */
    static final int TIMEOUT = 14;
    static final int READ_LEN = 4099;

    private final WireLink link = new WireLink(1 << 20);

    @AfterEach
    void close() {
        link.close();
    }

    private static long[] retransmissions(QueuePair q) {
        return ((WireTransport) ((EmulatedQueuePair) q).transport()).retransmissions();
    }

    private void pattern(long seed) {
        for (long i = 0; i < link.bufB.byteSize(); i += 8) {
            link.bufB.set(ValueLayout.JAVA_LONG_UNALIGNED, i, seed * 0x9E3779B97F4A7C15L + i);
        }
    }

    private SendWr read(long wrId, long remoteOff, long localOff, int len) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .rdma(link.mrB.address() + remoteOff, link.mrB.rkey()).sgList(Sge.of(link.mrA, localOff, len));
    }

    private void assertReadBack(long remoteOff, long localOff, int len) {
        assertEquals(-1, link.bufA.asSlice(localOff, len).mismatch(link.bufB.asSlice(remoteOff, len)),
                "the READ's bytes");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {Opcode.RDMA_READ_RESPONSE_FIRST, Opcode.RDMA_READ_RESPONSE_MIDDLE, Opcode.RDMA_READ_RESPONSE_LAST})
    @DisplayName("A 4099-byte READ (5 packets at MTU 1024) whose response loses one packet completes with its bytes: the retry's FIRST is taken at the resumed PSN")
    void readLosingOneResponsePacketCompletes(int opcode) {
        pattern(1);
        QueuePair[] q = link.rc(TIMEOUT, 7, 1, 4);
        link.wire.on(opcode, 1, Fault.DROP);
        q[0].postSend(read(1, 0, 0, READ_LEN));
        List<WireLink.Completion> c = link.await(link.cqA, 1, 10_000);
        assertEquals(List.of(new WireLink.Completion(1, WcStatus.SUCCESS, READ_LEN)), c.stream().map(WireLink.Completion::brief).toList());
        assertReadBack(0, 0, READ_LEN);
        assertEquals(1, link.wire.faulted(opcode), "the harness dropped one packet");
    }

    /**
     * rxe's responder answers a READ asked again from its middle (a duplicate request at a PSN after the READ's
     * first) as a replay, MIDDLE... LAST, or LAST alone, where this device's responder starts again with FIRST or
     * ONLY; the guest's wire-interop step found it (the arbiter passed these cases between rxe and rxe, the wire
     * device ran out of retries). Here every retried answer's first packet is rewritten as rxe sends it.
     */
    @ParameterizedTest(name = "lost {0}")
    @ValueSource(ints = {Opcode.RDMA_READ_RESPONSE_MIDDLE, Opcode.RDMA_READ_RESPONSE_LAST})
    @DisplayName("A READ asked again from its middle takes rxe's replay (MIDDLE or LAST at the resumed PSN) as well as FIRST or ONLY")
    void readResumedMidRangeTakesRxeReplayOpcodes(int lost) {
        pattern(3);
        QueuePair[] q = link.rc(TIMEOUT, 7, 1, 4);
        link.wire.on(lost, lost == Opcode.RDMA_READ_RESPONSE_MIDDLE ? 2 : 1, Fault.DROP);
        // The retried answer starts at the lost packet: FIRST (more to come) or ONLY (the last one); rxe sends
        // MIDDLE or LAST there. Every later retry is rewritten too, so only taking them completes the READ. One
        // READ, so that every FIRST after its own is a retry's.
        boolean last = lost == Opcode.RDMA_READ_RESPONSE_LAST;
        int from = last ? Opcode.RDMA_READ_RESPONSE_ONLY : Opcode.RDMA_READ_RESPONSE_FIRST;
        int to = last ? Opcode.RDMA_READ_RESPONSE_LAST : Opcode.RDMA_READ_RESPONSE_MIDDLE;
        for (int nth = last ? 1 : 2; nth <= 12; nth++) {
            link.wire.rewrite(from, nth, p -> p.opcode = to);
        }
        q[0].postSend(read(1, 0, 0, READ_LEN));
        List<WireLink.Completion> c = link.await(link.cqA, 1, 10_000);
        assertEquals(List.of(new WireLink.Completion(1, WcStatus.SUCCESS, READ_LEN)),
                c.stream().map(WireLink.Completion::brief).toList());
        assertReadBack(0, 0, READ_LEN);
        assertTrue(link.wire.sent(from) > (last ? 0 : 1), "the READ was asked again and its answer rewritten");
        assertEquals(1, link.wire.faulted(lost), "the harness dropped one packet");
    }

    /**
     * A READ of 200 packets goes out as two requests (the window holds 128 PSNs); rxe answers a repeat of the
     * first request's last packet with LAST alone, where the READ goes on after it. The guest's capture showed
     * that answer refused at every retry until RETRY_EXC_ERR.
     */
    @Test
    @DisplayName("A READ longer than the window takes LAST alone, as rxe replays the end of one of its requests, in the middle of the READ")
    void readAskedAgainAtTheEndOfOneOfItsRequestsTakesRxeLast() {
        pattern(4);
        int len = 200 * 1024;
        QueuePair[] q = link.rc(TIMEOUT, 7, 1, 4);
        link.wire.on(Opcode.RDMA_READ_RESPONSE_LAST, 1, Fault.DROP);
        for (int nth = 1; nth <= 12; nth++) {
            link.wire.rewrite(Opcode.RDMA_READ_RESPONSE_ONLY, nth, p -> p.opcode = Opcode.RDMA_READ_RESPONSE_LAST);
        }
        q[0].postSend(read(1, 0, 0, len));
        List<WireLink.Completion> c = link.await(link.cqA, 1, 10_000);
        assertEquals(List.of(new WireLink.Completion(1, WcStatus.SUCCESS, len)),
                c.stream().map(WireLink.Completion::brief).toList());
        assertReadBack(0, 0, len);
        assertTrue(link.wire.sent(Opcode.RDMA_READ_RESPONSE_ONLY) > 0, "the first request's end was asked again");
    }

    @Test
    @DisplayName("A READ whose answer never comes while the READs behind it are answered ends in RETRY_EXC_ERR inside timeout x (retry_cnt + 1): late responses start no retry of their own and spend the budget")
    void unansweredReadSpendsTheRetryBudget() {
        pattern(2);
        int retry = 3;
        QueuePair[] q = link.rc(TIMEOUT, retry, 8, 16);
        // Every response packet of the first READ (PSNs 100..104) is lost, whoever asked for it; the others arrive.
        for (int op : new int[] {Opcode.RDMA_READ_RESPONSE_FIRST, Opcode.RDMA_READ_RESPONSE_MIDDLE,
            Opcode.RDMA_READ_RESPONSE_LAST, Opcode.RDMA_READ_RESPONSE_ONLY}) {
            for (int psn = 100; psn < 105; psn++) {
                link.wire.on(new Rule(op, 0, psn, Fault.DROP, 0));
            }
        }
        long start = System.nanoTime();
        for (int i = 0; i < 8; i++) {
            q[0].postSend(read(i, i * 8192L, i * 8192L, READ_LEN));
        }
        long budgetMs = WireLink.timeoutMs(TIMEOUT) * (retry + 1);
        List<WireLink.Completion> c = link.await(link.cqA, 8, 4 * budgetMs + 3_000);
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertFalse(c.isEmpty(), "no completion in " + tookMs + " ms: the QP livelocks ("
                + link.wire.sent(Opcode.RDMA_READ_REQUEST) + " READ requests sent)");
        assertEquals(0, c.get(0).wrId(), "the oldest READ fails first");
        assertEquals(WcStatus.RETRY_EXC_ERR, c.get(0).status(), "after " + tookMs + " ms");
        assertEquals(QpState.ERR, q[0].state());
        // Each retry resends at most the 8 READs: the requests sent are bounded by the budget.
        int requests = link.wire.sent(Opcode.RDMA_READ_REQUEST);
        assertTrue(requests <= 8 * (retry + 2), requests + " READ requests for 8 READs and " + retry + " retries");
    }

    @Test
    @DisplayName("One lost READ_RESPONSE_FIRST among 32 READs in flight costs at most one resend of the 32 requests")
    void oneLostReadResponseIsRecoveredOnce() {
        pattern(3);
        QueuePair[] q = link.rc(TIMEOUT, 7, 32, 32);
        link.wire.on(Opcode.RDMA_READ_RESPONSE_FIRST, 1, Fault.DROP);
        for (int i = 0; i < 32; i++) {
            q[0].postSend(read(i, i * 8192L, i * 8192L, READ_LEN));
        }
        List<WireLink.Completion> c = link.await(link.cqA, 32, 20_000);
        assertEquals(32, c.size(), "completions");
        for (int i = 0; i < 32; i++) {
            assertEquals(new WireLink.Completion(i, WcStatus.SUCCESS, READ_LEN), c.get(i).brief());
            assertReadBack(i * 8192L, i * 8192L, READ_LEN);
        }
        int requests = link.wire.sent(Opcode.RDMA_READ_REQUEST);
        long[] retries = retransmissions(q[0]);
        // One retransmission for the loss; a host that stalls the receive thread past the timeout adds timer ones.
        assertTrue(retries[1] <= 1, retries[1] + " retransmissions started by late responses");
        assertTrue(requests <= 32 * (1 + retries[0] + retries[1]), requests + " READ requests for 32 READs, one lost"
                + " response packet and " + retries[0] + " timer retransmissions");
    }

    @Test
    @DisplayName("One lost ATOMIC_ACKNOWLEDGE among 64 fetch-adds costs at most one resend of each, and no add is applied twice")
    void oneLostAtomicAckIsRecoveredOnce() {
        link.bufB.set(ValueLayout.JAVA_LONG, 0, 0);
        QueuePair[] q = link.rc(TIMEOUT, 7, 64, 64);
        link.wire.on(Opcode.ATOMIC_ACKNOWLEDGE, 1, Fault.DROP);
        for (int i = 0; i < 64; i++) {
            q[0].postSend(new SendWr().wrId(i).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                    .atomic(link.mrB.address(), 1, 0, link.mrB.rkey()).sgList(Sge.of(link.mrA, 8L * i, 8)));
        }
        List<WireLink.Completion> c = link.await(link.cqA, 64, 20_000);
        assertEquals(64, c.size(), "completions");
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 64; i++) {
            assertEquals(new WireLink.Completion(i, WcStatus.SUCCESS, 8), c.get(i).brief());
            seen.add(link.bufA.get(ValueLayout.JAVA_LONG, 8L * i));
        }
        assertEquals(64, link.bufB.get(ValueLayout.JAVA_LONG, 0), "each add applied once");
        assertEquals(64, seen.size(), "each fetch saw its own value");
        int requests = link.wire.sent(Opcode.FETCH_ADD);
        long[] retries = retransmissions(q[0]);
        assertTrue(retries[1] <= 1, retries[1] + " retransmissions started by late responses");
        assertTrue(requests <= 64 * (1 + retries[0] + retries[1]), requests + " FETCH_ADD requests for 64 fetch-adds,"
                + " one lost ACK and " + retries[0] + " timer retransmissions");
    }

    @Test
    @DisplayName("A forged WRITE_FIRST whose RETH runs past the region is NAKed at that packet: it consumes no PSN, and the next WRITE at that PSN never completes SUCCESS without its bytes")
    void forgedWriteFirstPastTheRegionIsNakedAtOnce() {
        QueuePair[] q = link.rc(TIMEOUT, 2, 1, 4);
        InetSocketAddress toB = new InetSocketAddress(RoceEndpoint.of(link.devB).local.getAddress(), RoceEndpoint.of(link.devB).localPort);
        int bQpn = q[1].qpNum();
        // From roce0's address and port, sealed as roce0 seals: the responder's expected PSN, a valid rkey, a
        // length 1 GiB past a 1 MiB region, one MTU of 0x5a.
        FaultyWire.forge(link.devA, toB, tx -> {
            Packet p = tx.begin(Opcode.RC | Opcode.RDMA_WRITE_FIRST, bQpn, 100);
            p.va = link.mrB.address();
            p.rkey = link.mrB.rkey();
            p.dmaLength = 1 << 30;
            p.payloadLength = WireLink.MTU;
            int off = p.writeHeaders(tx.buf);
            for (int i = 0; i < WireLink.MTU; i++) {
                tx.buf.put(off + i, (byte) 0x5a);
            }
        });
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (link.wire.sent(FaultyWire.NAK) == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        // The legitimate WRITE at the same PSN.
        for (int i = 0; i < 100; i++) {
            link.bufA.set(ValueLayout.JAVA_BYTE, i, (byte) 0x33);
        }
        q[0].postSend(new SendWr().wrId(9).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .rdma(link.mrB.address() + 4096, link.mrB.rkey()).sgList(Sge.of(link.mrA, 0, 100)));
        List<WireLink.Completion> c = link.await(link.cqA, 1, 10_000);
        assertEquals(1, c.size(), "the WRITE completes");
        boolean landed = link.bufB.asSlice(4096, 100).mismatch(link.bufA.asSlice(0, 100)) == -1;
        assertTrue(c.get(0).status() != WcStatus.SUCCESS || landed,
                "the WRITE completed " + c.get(0).status() + " but its bytes were never written");
        assertNotEquals((byte) 0x5a, link.bufB.get(ValueLayout.JAVA_BYTE, 0), "the forged payload landed");
        assertEquals(1, link.wire.sent(FaultyWire.NAK), "the responder answers the forged first packet (a NAK)");
        assertEquals(QpState.ERR, q[1].state(), "the responder moves to ERR on a remote access error (rxe)");
    }
}
