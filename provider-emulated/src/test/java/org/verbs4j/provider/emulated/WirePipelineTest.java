package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Gid;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.Mtu;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.emulated.verbs.EmulatedDevice;
import org.verbs4j.provider.emulated.verbs.EmulatedQueuePair;
import org.verbs4j.provider.emulated.wire.RoceEndpoint;
import org.verbs4j.provider.emulated.wire.WireTransport;
import org.verbs4j.provider.emulated.wire.codec.Icrc;
import org.verbs4j.provider.emulated.wire.codec.Ipv4Udp;
import org.verbs4j.provider.emulated.wire.codec.Opcode;
import org.verbs4j.provider.emulated.wire.codec.Packet;
import org.verbs4j.provider.emulated.wire.codec.Reject;

/**
 * Several messages in flight per RC QP on the wire device, seen from its peer: a test socket (127.0.79.6) is the
 * connected responder of a QP on {@code roce0}, reads the request packets it is sent and answers them by hand.
 * WRs go back to back before any answer; one ACK completes several, in order; {@code max_rd_atomic} bounds the
 * READs in flight and {@code IBV_SEND_FENCE} waits for them; a PSN sequence NAK and a timeout resend from the
 * first unacknowledged PSN (go-back-N), and every WR still completes once. At most {@link WireTransport#WINDOW}
 * PSNs are unacknowledged, and a READ longer than that goes out as several READ requests. A modify keeps or forgets
 * the messages in flight as their QP's state says; UC and UD messages take consecutive PSNs; a path whose GID is not
 * IPv4-mapped reaches no one; each packet carries its operation's opcode and headers. Answers the QP cannot take
 * (another address, a PSN outside the flight, the wrong kind for the WR) are dropped, each counted under its reason
 * ({@link RoceEndpoint#rejected}), and change nothing; after a loss the window halves, and grows back by one PSN per
 * window acknowledged.
 */
@Tag("wire")
class WirePipelineTest {
    static final byte[] PEER = {127, 0, 79, 6};
    static final int PEER_QPN = 0x00beef;
    static final int PSN = 0x200;
    static final int ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
    /** How long the peer listens for a packet that must not come, ms (well under the ACK timeout). */
    static final long QUIET_MS = 300;
    /** Remote address of the long READs' source, and the 1024-byte packets of a READ longer than the window. */
    static final long LONG_VA = 0x10_0000;
    static final int LONG_PACKETS = 200;

    private final Arena arena = Arena.ofShared();
    private final Icrc icrc = new Icrc();
    private final WorkCompletionBatch wc = new WorkCompletionBatch(16);
    private EmulatedDevice roce0;
    private Context ctx;
    private PeerSocket peer;
    private CompletionQueue cq;
    private MemoryRegion mr;
    private QueuePair qp;

    @BeforeEach
    void open() throws IOException {
        roce0 = (EmulatedDevice) new EmulatedProvider().device("roce0");
        ctx = roce0.open();
        peer = new PeerSocket(PEER, RoceEndpoint.of(roce0).localPort, 4 << 20);
        ProtectionDomain pd = ctx.allocPd();
        cq = ctx.createCq(64);
        mr = pd.registerMemory(arena.allocate(64 * 1024, 64), ACCESS, arena);
    }

    @AfterEach
    void close() throws IOException {
        peer.close();
        ctx.close();
        arena.close();
    }

    /** The QP, connected to the peer socket: ACK timeout code {@code timeout}, 7 retries, {@code maxRdAtomic}. */
    private void connect(int maxRdAtomic, int timeout) {
        connect(maxRdAtomic, timeout, 7, PSN);
    }

    /**
     * The QP, connected to the peer socket: ACK timeout code {@code timeout}, {@code retryCnt} retries, first PSN
     * {@code psn}.
     */
    private void connect(int maxRdAtomic, int timeout, int retryCnt, int psn) {
        qp = newQp(QpType.RC);
        connectAgain(Gid.ofIpv4(PEER), maxRdAtomic, timeout, retryCnt, psn);
    }

    /** A new QP of {@code type} on {@link #cq}: 32 send WRs, 4 receive WRs. */
    private QueuePair newQp(QpType type) {
        return mr.pd().createQp(QpInitAttributes.builder(type).cq(cq).maxSendWr(32).maxRecvWr(4).build());
    }

    /** Moves {@link #qp} from RESET to RTS, connected to the peer QP at {@code peerGid}: first PSN {@code psn}. */
    private void connectAgain(Gid peerGid, int maxRdAtomic, int timeout, int retryCnt, int psn) {
        qp.modify(QpAttributes.toInit(1, 0, ACCESS & ~AccessFlags.LOCAL_WRITE));
        qp.modify(QpAttributes.toRtr(AhAttributes.roce(peerGid, 1, 1), Mtu.MTU_1024, PEER_QPN, psn, 4, 1));
        qp.modify(QpAttributes.toRts(psn, timeout, retryCnt, 7, maxRdAtomic));
    }

    /** {@link #qp}: a UC QP connected to the peer QP at {@code peerGid}. */
    private void connectUc(Gid peerGid) {
        qp = newQp(QpType.UC);
        qp.modify(QpAttributes.toInit(1, 0, AccessFlags.REMOTE_WRITE));
        qp.modify(QpAttributes.toRtrUc(AhAttributes.roce(peerGid, 1, 1), Mtu.MTU_1024, PEER_QPN, PSN));
        qp.modify(QpAttributes.toRtsUnreliable(PSN));
    }

    private SendWr write(long wrId, int flags) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED | flags)
                .rdma(0x1000, 0x77).sgList(Sge.of(mr, 0, 100));
    }

    private SendWr read(long wrId) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .rdma(0x2000, 0x77).sgList(Sge.of(mr, 8 * wrId, 8));
    }

    /** The next {@code n} packets at the peer, parsed (the ICRC checked). */
    private List<Packet> receive(int n) throws Exception {
        List<Packet> got = new ArrayList<>();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (got.size() < n) {
            ByteBuffer b = peer.nextWithin(Math.max(0, (deadline - System.nanoTime()) / 1_000_000L));
            if (b == null) {
                break;
            }
            int len = b.position();
            Packet p = new Packet();
            Ipv4Udp ip = new Ipv4Udp().set(RoceEndpoint.of(roce0).localAddr, RoceEndpoint.of(roce0).localPort, ipv4(PEER), RoceEndpoint.of(roce0).localPort);
            assertNull(p.parse(b, len, icrc, ip), "a packet of ours that does not parse");
            assertEquals(PEER_QPN, p.destQpn);
            got.add(p);
        }
        assertEquals(n, got.size(), "packets at the peer");
        return got;
    }

    /** Asserts that no packet reaches the peer for {@link #QUIET_MS}. */
    private void assertQuiet(String why) throws Exception {
        assertQuiet(why, QUIET_MS);
    }

    /** Asserts that no packet reaches the peer for {@code ms} milliseconds. */
    private void assertQuiet(String why, long ms) throws Exception {
        Packet p = peer.packetWithin(ms);
        if (p != null) {
            throw new AssertionError(why + ": " + p);
        }
    }

    /** Sends the peer's answer: an ACK or NAK ({@code syndrome}) or a READ response of {@code payload} bytes. */
    private void answer(int operation, int psn, int syndrome, int payload) throws IOException {
        answer(Opcode.RC, operation, psn, syndrome, payload);
    }

    /** {@link #answer(int, int, int, int)} under the transport prefix {@code prefix}. */
    private void answer(int prefix, int operation, int psn, int syndrome, int payload) throws IOException {
        answer(prefix, operation, psn, syndrome, payload, psn);
    }

    /**
     * {@link #answer(int, int, int, int, int)} with payload byte {@code i} set to {@code seed + i} (the other forms
     * use the PSN as the seed, which {@link #assertReadData} expects).
     */
    private void answer(int prefix, int operation, int psn, int syndrome, int payload, int seed) throws IOException {
        peer.send(answerPacket(PEER, prefix, operation, psn, syndrome, payload, seed), device());
    }

    /** The wire device's socket address, where the peer's answers go. */
    private InetSocketAddress device() {
        return new InetSocketAddress(RoceEndpoint.of(roce0).local.getAddress(), RoceEndpoint.of(roce0).localPort);
    }

    /** The answer {@link #answer(int, int, int, int, int, int)} sends, as sent from the IPv4 address {@code from}. */
    private ByteBuffer answerPacket(byte[] from, int prefix, int operation, int psn, int syndrome, int payload,
            int seed) {
        Packet h = new Packet();
        h.opcode = prefix | operation;
        h.destQpn = qp.qpNum();
        h.psn = psn & Packet.MASK_24;
        h.syndrome = syndrome;
        h.payloadLength = payload;
        ByteBuffer p = ByteBuffer.allocate(256 + payload);
        int off = h.writeHeaders(p);
        for (int i = 0; i < payload; i++) {
            p.put(off + i, (byte) (seed + i));
        }
        int len = h.seal(p, icrc, new Ipv4Udp().set(ipv4(from), RoceEndpoint.of(roce0).localPort, RoceEndpoint.of(roce0).localAddr,
                RoceEndpoint.of(roce0).localPort));
        return p.position(0).limit(len);
    }

    private void ack(int psn) throws IOException {
        answer(Opcode.ACKNOWLEDGE, psn, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 0);
    }

    /** A forged packet to the wire device. */
    private interface Forged {
        void send() throws IOException;
    }

    /**
     * Sends {@code answer} and asserts the wire device drops it counted once under {@code why}, and under no other
     * reason ({@link RoceEndpoint#rejected}). The receive thread counts it after the send: the counters are read
     * once any of them moved, or after 10 s.
     */
    private void assertDropped(Reject why, Forged answer) throws Exception {
        long[] before = rejects();
        answer.send();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (moved(before).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(Map.of(why, 1L), moved(before), "the answer's drops by reason");
    }

    /** {@return every reason's drop count on the wire device, by ordinal} */
    private long[] rejects() {
        Reject[] all = Reject.values();
        long[] n = new long[all.length];
        for (Reject r : all) {
            n[r.ordinal()] = RoceEndpoint.of(roce0).rejected(r);
        }
        return n;
    }

    /** {@return the reasons whose drop count moved since {@code before}, with how much} */
    private Map<Reject, Long> moved(long[] before) {
        long[] now = rejects();
        Map<Reject, Long> m = new EnumMap<>(Reject.class);
        for (Reject r : Reject.values()) {
            if (now[r.ordinal()] != before[r.ordinal()]) {
                m.put(r, now[r.ordinal()] - before[r.ordinal()]);
            }
        }
        return m;
    }

    /** Polls {@code n} completions and asserts their WR ids, in order, and that each succeeded. */
    private void assertCompleted(long... wrIds) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        int got = 0;
        while (got < wrIds.length && System.nanoTime() < deadline) {
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++, got++) {
                assertTrue(got < wrIds.length, "an extra completion, WR " + wc.wrId(i));
                assertEquals(wrIds[got], wc.wrId(i), "completion " + got + " in order");
                assertEquals(WcStatus.SUCCESS, wc.status(i), "WR " + wc.wrId(i));
            }
            if (n == 0) {
                Thread.sleep(1);
            }
        }
        assertEquals(wrIds.length, got, "completions");
        Thread.sleep(50);
        assertEquals(0, cq.poll(wc), "no completion twice");
    }

    private static int ipv4(byte[] a) {
        return (a[0] & 0xff) << 24 | (a[1] & 0xff) << 16 | (a[2] & 0xff) << 8 | a[3] & 0xff;
    }

    @Test
    @DisplayName("RC WRs go out back to back before any answer; one ACK for the last PSN completes them all, in order")
    void severalInFlightOneAck() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(List.of(write(1, 0), write(2, 0), write(3, 0), write(4, 0)));
        List<Packet> got = receive(4);
        for (int i = 0; i < 4; i++) {
            assertEquals(PSN + i, got.get(i).psn, "consecutive PSNs");
            assertEquals(Opcode.RC | Opcode.RDMA_WRITE_ONLY, got.get(i).opcode);
        }
        assertTrue(got.get(0).ackReq, "the newest message asks for an ACK when none is outstanding");
        assertFalse(got.get(3).ackReq, "the newest message asks for none while the first's is outstanding");
        assertEquals(0, cq.poll(wc), "nothing completes before an answer");
        ack(PSN + 3);
        assertCompleted(1, 2, 3, 4);
    }

    /**
     * Connects with ACK timeout code {@code timeout}, posts three WRITEs, takes their packets and ACKs the first
     * (the one that asked for an ACK).
     *
     * @return the newest packet, which the requester then sends again asking for an ACK
     */
    private Packet tailAskedAgain(int timeout) throws Exception {
        connect(4, timeout);
        qp.postSend(List.of(write(1, 0), write(2, 0), write(3, 0)));
        receive(3);
        ack(PSN);
        return receive(1).getFirst();
    }

    @Test
    @DisplayName("The ACK asked for comes with packets sent after it unacknowledged: the newest goes again, asking "
            + "for an ACK, which completes the rest")
    void tailAsksAgain() throws Exception {
        Packet again = tailAskedAgain(WireDevicesTest.ACK_TIMEOUT);
        assertEquals(PSN + 2, again.psn, "the newest packet, again");
        assertEquals(Opcode.RC | Opcode.RDMA_WRITE_ONLY, again.opcode);
        assertTrue(again.ackReq, "asking for an ACK");
        assertQuiet("one packet asks; the others wait for its answer");
        ack(PSN + 2);
        assertCompleted(1, 2, 3);
    }

    @Test
    @DisplayName("The newest packet sent again to ask for an ACK is lost: the timeout sends again from the first "
            + "unacknowledged PSN, the newest asking for an ACK, and one ACK completes each WR once")
    void tailAskedAgainIsLost() throws Exception {
        // ACK timeout 268 ms: time for this thread's ACK of the first packet on a loaded machine.
        assertEquals(PSN + 2, tailAskedAgain(16).psn, "the newest packet, asking again; the peer loses it");
        List<Packet> again = receive(2);
        assertEquals(PSN + 1, again.get(0).psn, "after the timeout, from the first unacknowledged PSN");
        assertEquals(PSN + 2, again.get(1).psn);
        assertTrue(again.get(1).ackReq, "the newest packet of the resent window asks for an ACK");
        ack(PSN + 2);
        assertCompleted(1, 2, 3);
    }

    @Test
    @DisplayName("The answer to the newest packet sent again comes twice, and late ACKs of older PSNs come after "
            + "it: each WR completes once, and nothing more is sent")
    void tailAnswerDuplicatedAndReordered() throws Exception {
        assertTrue(tailAskedAgain(WireDevicesTest.ACK_TIMEOUT).ackReq, "the newest packet, asking again");
        ack(PSN); // the first ACK, duplicated, while the newest's is outstanding
        assertQuiet("a duplicate ACK while an ACK asked for is outstanding");
        ack(PSN + 2);
        ack(PSN + 2);
        ack(PSN + 1);
        assertCompleted(1, 2, 3);
        assertQuiet("duplicate and stale ACKs once every PSN is acknowledged");
    }

    @Test
    @DisplayName("An ACK of the newest PSN overtakes the ACK asked for by the first packet: every WR completes, and "
            + "the late ACK sends nothing again")
    void coalescedAckOvertakesTheAskedOne() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(List.of(write(1, 0), write(2, 0), write(3, 0)));
        receive(3);
        ack(PSN + 2);
        assertCompleted(1, 2, 3);
        ack(PSN);
        assertQuiet("a late ACK of an acknowledged PSN");
        qp.postSend(write(4, 0));
        Packet next = receive(1).getFirst();
        assertEquals(PSN + 3, next.psn, "the next WR goes on from the acknowledged PSN");
        assertTrue(next.ackReq, "and asks for an ACK: none is outstanding");
        ack(PSN + 3);
        assertCompleted(4);
    }

    @Test
    @DisplayName("max_rd_atomic bounds the READs in flight; a FENCE waits until the READs before it are answered")
    void maxRdAtomicAndFence() throws Exception {
        // A timeout well past the quiet periods, so that nothing is sent again meanwhile.
        connect(2, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(List.of(read(1), read(2), read(3), write(4, SendFlags.FENCE)));
        List<Packet> got = receive(2);
        assertEquals(Opcode.RC | Opcode.RDMA_READ_REQUEST, got.get(0).opcode);
        assertEquals(PSN + 1, got.get(1).psn);
        assertQuiet("a third READ while max_rd_atomic is 2");
        answer(Opcode.RDMA_READ_RESPONSE_ONLY, PSN, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 8);
        assertEquals(PSN + 2, receive(1).getFirst().psn, "the third READ once the first is answered");
        assertQuiet("the fenced WRITE while READs are in flight");
        answer(Opcode.RDMA_READ_RESPONSE_ONLY, PSN + 1, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 8);
        answer(Opcode.RDMA_READ_RESPONSE_ONLY, PSN + 2, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 8);
        Packet w = receive(1).getFirst();
        assertEquals(Opcode.RC | Opcode.RDMA_WRITE_ONLY, w.opcode, "the fenced WRITE once the READs are answered");
        assertEquals(PSN + 3, w.psn);
        ack(PSN + 3);
        assertCompleted(1, 2, 3, 4);
        for (int r = 1; r <= 3; r++) {
            assertEquals((byte) (PSN + r - 1), mr.segment().get(ValueLayout.JAVA_BYTE, 8L * r), "READ " + r + "'s data");
        }
    }

    @Test
    @DisplayName("Go-back-N: a PSN sequence NAK resends from its PSN, a timeout from the first unacknowledged one; "
            + "each WR completes once")
    void goBackN() throws Exception {
        connect(4, 14); // 67 ms
        qp.postSend(List.of(write(1, 0), write(2, 0), write(3, 0), write(4, 0)));
        receive(4);
        nak(PSN + 2);
        List<Packet> again = receive(2);
        assertEquals(PSN + 2, again.get(0).psn, "resent from the PSN the NAK names");
        assertEquals(PSN + 3, again.get(1).psn);
        assertCompleted(1, 2);
        // No answer now: after the timeout both are sent again, from the first unacknowledged PSN.
        again = receive(2);
        assertEquals(PSN + 2, again.get(0).psn, "resent after the timeout");
        assertEquals(PSN + 3, again.get(1).psn);
        ack(PSN + 3);
        assertCompleted(3, 4);
    }

    private SendWr atomic(long wrId, WrOpcode op) {
        return new SendWr().wrId(wrId).opcode(op).sendFlags(SendFlags.SIGNALED)
                .atomic(0x3000, 1, 2, 0x77).sgList(Sge.of(mr, 8 * wrId, 8));
    }

    private SendWr send(long wrId) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(Sge.of(mr, 0, 64));
    }

    private void atomicAck(int psn) throws IOException {
        answer(Opcode.ATOMIC_ACKNOWLEDGE, psn, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 0);
    }

    /** A PSN sequence NAK: the responder expects {@code psn}. */
    private void nak(int psn) throws IOException {
        answer(Opcode.ACKNOWLEDGE, psn, Packet.AETH_NAK | Packet.NAK_PSN_SEQUENCE_ERROR, 0);
    }

    /** Polls {@code n} completions, within 10 s, in the order the CQ gives them. */
    private List<WorkCompletion> poll(int n) throws Exception {
        List<WorkCompletion> got = new ArrayList<>();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (got.size() < n && System.nanoTime() < deadline) {
            int k = cq.poll(wc);
            for (int i = 0; i < k; i++) {
                got.add(wc.get(i));
            }
            if (k == 0) {
                Thread.sleep(1);
            }
        }
        assertEquals(n, got.size(), "completions: " + got);
        return got;
    }

    @Test
    @DisplayName("Atomics count against max_rd_atomic as READs do (a second one waits for the first's answer); "
            + "WRITEs do not count")
    void atomicsCountAgainstMaxRdAtomicWritesDoNot() throws Exception {
        connect(1, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(List.of(write(1, 0), write(2, 0), atomic(3, WrOpcode.ATOMIC_FETCH_AND_ADD),
                atomic(4, WrOpcode.ATOMIC_CMP_AND_SWP), write(5, 0)));
        List<Packet> got = receive(3);
        assertEquals(Opcode.RC | Opcode.RDMA_WRITE_ONLY, got.get(1).opcode, "two WRITEs with max_rd_atomic 1");
        assertEquals(Opcode.RC | Opcode.FETCH_ADD, got.get(2).opcode, "the fetch-and-add behind them");
        assertQuiet("a compare-and-swap while a fetch-and-add is in flight and max_rd_atomic is 1");
        atomicAck(PSN + 2);
        got = receive(2);
        assertEquals(Opcode.RC | Opcode.COMPARE_SWAP, got.get(0).opcode, "the compare-and-swap once the first is answered");
        assertEquals(PSN + 3, got.get(0).psn);
        assertEquals(PSN + 4, got.get(1).psn, "the WRITE behind it");
        assertQuiet("nothing more");
        atomicAck(PSN + 3);
        ack(PSN + 4);
        assertCompleted(1, 2, 3, 4, 5);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"LOCAL_INV", "BIND_MW"})
    @DisplayName("A local operation (LOCAL_INV, BIND_MW) behind a WRITE in flight waits for its answer, and "
            + "completes after it")
    void localOperationWaitsForThePipeline(String operation) throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        SendWr local;
        WcStatus expected;
        if (operation.equals("LOCAL_INV")) {
            // An rkey that names nothing: the invalidation fails (the QP then moves to ERR), after the WRITE.
            local = new SendWr().wrId(2).opcode(WrOpcode.LOCAL_INV).sendFlags(SendFlags.SIGNALED).invalidateRkey(0x4242);
            expected = WcStatus.LOC_QP_OP_ERR;
        } else {
            MemoryRegion target = mr.pd().registerMemory(arena.allocate(4096, 64), AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND, arena);
            MemoryWindow mw = mr.pd().allocMw(MwType.TYPE_2);
            local = new SendWr().wrId(2).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                    .bindMw(mw, (mw.rkey() & ~0xff) | ((mw.rkey() + 1) & 0xff),
                            new MwBindInfo(target, target.address(), 1024, AccessFlags.REMOTE_READ));
            expected = WcStatus.SUCCESS;
        }
        qp.postSend(List.of(write(1, 0), local));
        assertEquals(PSN, receive(1).getFirst().psn);
        Thread.sleep(50);
        assertEquals(0, cq.poll(wc), "the " + operation + " completed while the WRITE before it waits for its ACK");
        ack(PSN);
        List<WorkCompletion> got = poll(2);
        WorkCompletion first = got.get(0);
        assertEquals(1, first.wrId(), "the WRITE completes first");
        assertEquals(WcStatus.SUCCESS, first.status());
        WorkCompletion second = got.get(1);
        assertEquals(2, second.wrId());
        assertEquals(expected, second.status(), operation);
    }

    @Test
    @DisplayName("A WR that fails its local checks behind a WRITE in flight waits for the WRITE's answer: "
            + "the WRITE completes SUCCESS, then the WR with LOC_PROT_ERR")
    void failingWrWaitsForThePipeline() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        SendWr bad = new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .rdma(0x1000, 0x77).sgList(new Sge(mr.address(), 100, mr.lkey() ^ 0x5500));
        qp.postSend(List.of(write(1, 0), bad));
        assertEquals(PSN, receive(1).getFirst().psn);
        assertQuiet("the WR with a bad lkey");
        assertEquals(0, cq.poll(wc), "the bad WR completed while the WRITE before it waits for its ACK");
        ack(PSN);
        List<WorkCompletion> got = poll(2);
        WorkCompletion first = got.get(0);
        assertEquals(1, first.wrId(), "the WRITE completes first");
        assertEquals(WcStatus.SUCCESS, first.status());
        WorkCompletion second = got.get(1);
        assertEquals(2, second.wrId());
        assertEquals(WcStatus.LOC_PROT_ERR, second.status());
    }

    @Test
    @DisplayName("An RNR NAK holds the SENDs until its timer (code 0, 655.36 ms; scaled down 10 times here) has "
            + "run, then they go again from the NAKed PSN")
    void rnrNakWaitsForItsTimer() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(List.of(send(1), send(2)));
        receive(2);
        answer(Opcode.ACKNOWLEDGE, PSN, Packet.AETH_RNR_NAK, 0); // timer code 0
        // 30 ms: under the emulated 65.5 ms; a loaded machine can only make the resend later.
        assertQuiet("a SEND sent again before the RNR timer ran", 30);
        List<Packet> again = receive(2);
        assertEquals(PSN, again.get(0).psn, "resent from the NAKed PSN");
        assertEquals(PSN + 1, again.get(1).psn);
        assertTrue(again.get(1).ackReq, "the newest, sent again, asks for an ACK: the NAK answered the one asked for");
        ack(PSN + 1);
        assertCompleted(1, 2);
    }

    @Test
    @DisplayName("WRITEs that complete free no max_rd_atomic slot: after two answered WRITEs, max_rd_atomic 1 still "
            + "holds a second READ back")
    void completedWritesFreeNoReadSlot() throws Exception {
        connect(1, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(List.of(write(1, 0), write(2, 0)));
        receive(2);
        ack(PSN + 1);
        assertCompleted(1, 2);
        qp.postSend(List.of(read(3), read(4)));
        assertEquals(PSN + 2, receive(1).getFirst().psn);
        assertQuiet("a second READ while max_rd_atomic is 1");
        answer(Opcode.RDMA_READ_RESPONSE_ONLY, PSN + 2, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 8);
        assertEquals(PSN + 3, receive(1).getFirst().psn, "the second READ once the first is answered");
        answer(Opcode.RDMA_READ_RESPONSE_ONLY, PSN + 3, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 8);
        assertCompleted(3, 4);
    }

    @Test
    @DisplayName("A message of 32 packets asks for an ACK at its 16th packet and at its last, not at each one nor only "
            + "at its end")
    void longMessageAsksEverySixteenthPacket() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .rdma(0x1000, 0x77).sgList(Sge.of(mr, 0, 32 * 1024)));
        List<Packet> got = receive(32);
        for (int i = 0; i < 32; i++) {
            assertEquals(PSN + i, got.get(i).psn, "consecutive PSNs");
            assertEquals(i == 15 || i == 31, got.get(i).ackReq, "packet " + i + " asks for an ACK");
        }
        ack(PSN + 15);
        assertQuiet("the ACK asked at packet 15 came, the one asked at packet 31 is outstanding");
        assertEquals(0, cq.poll(wc), "the WRITE completed before its last packet was acknowledged");
        ack(PSN + 31);
        assertCompleted(1);
    }

    /**
     * Connects, and halves the window three times (128 to 16): WRITEs 1 to 3, each NAKed (PSN sequence error), sent
     * again and acknowledged.
     *
     * @return the next PSN
     */
    private int windowHalvedThreeTimes() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        for (int k = 0; k < 3; k++) {
            qp.postSend(write(k + 1, 0));
            assertEquals(PSN + k, receive(1).getFirst().psn, "WRITE " + (k + 1));
            nak(PSN + k);
            assertEquals(PSN + k, receive(1).getFirst().psn, "WRITE " + (k + 1) + " sent again after the NAK");
            ack(PSN + k);
            assertCompleted(k + 1);
        }
        return PSN + 3;
    }

    @Test
    @DisplayName("After a loss the window grows back by one PSN per window's worth of PSNs acknowledged (additive "
            + "increase): at 16, the ACK of 16 PSNs (with the one acknowledged before) makes it 17; the ACK of 16 of "
            + "the next 17 makes it 18, so 17 more go with one unacknowledged")
    void windowGrowsByOnePerWindowAcknowledged() throws Exception {
        int first = windowHalvedThreeTimes();
        qp.postSend(longWrite(4, 50));
        assertEquals(first, receive(16).getFirst().psn, "a window of 16");
        assertQuiet("more than 16 PSNs unacknowledged");
        ack(first + 15);
        assertEquals(first + 16, receive(17).getFirst().psn, "a window of 17 once 17 PSNs are acknowledged since the loss");
        assertQuiet("more than 17 PSNs unacknowledged");
        ack(first + 31); // 16 of the 17
        assertEquals(first + 33, receive(17).getFirst().psn, "a window of 18 once 17 more are acknowledged");
        assertQuiet("more than 18 PSNs unacknowledged");
        ack(first + 49);
        assertCompleted(4);
    }

    @Test
    @DisplayName("Below a window of 32 an ACK is asked every half window: after three losses (window 128, 64, 32, "
            + "16) a WRITE of 20 packets sends 16, packets 7 and 15 asking, and the last 4 once an ACK makes room")
    void ackAskedEveryHalfWindowBelow32() throws Exception {
        int first = windowHalvedThreeTimes();
        qp.postSend(longWrite(4, 20));
        List<Packet> got = receive(16);
        for (int i = 0; i < 16; i++) {
            assertEquals(first + i, got.get(i).psn, "consecutive PSNs");
            assertEquals(i == 7 || i == 15, got.get(i).ackReq, "packet " + i + " asks for an ACK");
        }
        assertQuiet("a 17th PSN while the window (16) is full");
        ack(first + 15);
        got = receive(4);
        assertEquals(first + 19, got.get(3).psn, "the rest once the ACK made room");
        ack(first + 19);
        assertCompleted(4);
    }

    @Test
    @DisplayName("retry_cnt bounds the retransmissions without progress, and progress gives the rest the whole budget "
            + "again: after an ACK of the first WR, the second goes retry_cnt more times, then RETRY_EXC_ERR")
    void retryBudgetStartsOverOnProgress() throws Exception {
        connect(4, 16, 2, PSN); // 268 ms (time for this thread's ACK on a loaded machine), two retries
        qp.postSend(List.of(write(1, 0), write(2, 0)));
        receive(2);
        List<Packet> again = receive(2);
        assertEquals(PSN, again.get(0).psn, "the first retry, after the timeout, from the first unacknowledged PSN");
        assertEquals(PSN + 1, again.get(1).psn);
        ack(PSN);
        assertCompleted(1);
        for (int r = 1; r <= 2; r++) {
            assertEquals(PSN + 1, receive(1).getFirst().psn, "retry " + r + " of 2 since the ACK");
        }
        WorkCompletion c = poll(1).getFirst();
        assertEquals(2, c.wrId());
        assertEquals(WcStatus.RETRY_EXC_ERR, c.status(), "once the retries since the last progress are spent");
        assertQuiet("nothing is sent once the retries are spent");
    }

    /** WR {@code wrId}: a signaled WRITE of {@code packets} KiB from a new region of its own, to 0x1000. */
    private SendWr longWrite(long wrId, int packets) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .rdma(0x1000, 0x77).sgList(Sge.of(bigRegion(packets), 0, packets * 1024));
    }

    /** {@link WireTransport#retransmissions()} of {@link #qp}: {timer, answer, progress}. */
    private long[] retransmissions() {
        return ((WireTransport) ((EmulatedQueuePair) qp).transport()).retransmissions();
    }

    /** A region of {@code packets} KiB, for messages longer than the default region. */
    private MemoryRegion bigRegion(int packets) {
        return mr.pd().registerMemory(arena.allocate(packets * 1024L, 64), ACCESS, arena);
    }

    /** Asserts a READ request: its PSN, and the remote range it asks for, from response packet {@code from} on. */
    private static void assertReadRequest(Packet p, int psn, int from, int packets, String what) {
        assertEquals(Opcode.RC | Opcode.RDMA_READ_REQUEST, p.opcode, what + ": a READ request");
        assertEquals(PSN + psn, p.psn, what + ": its PSN");
        assertEquals(LONG_VA + from * 1024L, p.va, what + ": its remote address");
        assertEquals(packets * 1024, p.dmaLength, what + ": its DMA length, bytes");
        assertTrue(p.ackReq, what + ": asks for its answer");
    }

    /**
     * Answers READ response PSNs {@code PSN + from} to {@code PSN + to} (inclusive) with 1024 bytes each: FIRST at
     * {@code first}, LAST at {@code last}, MIDDLE between.
     */
    private void readResponses(int from, int to, int first, int last) throws IOException {
        for (int k = from; k <= to; k++) {
            int op = k == first ? Opcode.RDMA_READ_RESPONSE_FIRST
                    : k == last ? Opcode.RDMA_READ_RESPONSE_LAST : Opcode.RDMA_READ_RESPONSE_MIDDLE;
            answer(op, PSN + k, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 1024);
        }
    }

    /**
     * Connects with {@code maxRdAtomic}, posts WR 1, a READ of {@link #LONG_PACKETS} packets from {@link #LONG_VA}, and
     * takes its first READ request, as long as the window.
     *
     * @return the READ's local region
     */
    private MemoryRegion postLongRead(int maxRdAtomic) throws Exception {
        connect(maxRdAtomic, WireDevicesTest.ACK_TIMEOUT);
        MemoryRegion big = bigRegion(LONG_PACKETS);
        qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .rdma(LONG_VA, 0x77).sgList(Sge.of(big, 0, LONG_PACKETS * 1024)));
        assertReadRequest(receive(1).getFirst(), 0, 0, WireTransport.WINDOW, "the first request, as long as the window");
        return big;
    }

    /**
     * Asserts that READ response packet {@code k} of {@code packets} (PSN {@code PSN + firstPsn + k}, whose byte
     * {@code j} the peer sends as {@code PSN + firstPsn + k + j}) landed at {@code offset + k} KiB of {@code dst}.
     */
    private static void assertReadData(MemoryRegion dst, long offset, int firstPsn, int packets) {
        MemorySegment segment = dst.segment();
        for (int k = 0; k < packets; k++) {
            for (int j = 0; j < 1024; j++) {
                byte got = segment.get(ValueLayout.JAVA_BYTE, offset + k * 1024L + j);
                if (got != (byte) (PSN + firstPsn + k + j)) {
                    throw new AssertionError("READ response " + k + ", byte " + j + ": " + got);
                }
            }
        }
    }

    @Test
    @DisplayName("At most 128 PSNs (the window) are unacknowledged: of a WRITE of 130 packets, 128 go before an ACK, "
            + "the last 2 once an ACK makes room")
    void windowHoldsALongWriteBack() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        assertLongWriteHeldByTheWindow(1, PSN, "consecutive PSNs");
    }

    /**
     * Posts WR {@code wrId}, a WRITE of 130 packets on {@link #qp}, whose first PSN is {@code psn}: the window lets
     * 128 PSNs go, the last 2 once the ACK of packet 15 makes room, and the WRITE completes.
     */
    private void assertLongWriteHeldByTheWindow(long wrId, int psn, String what) throws Exception {
        qp.postSend(longWrite(wrId, 130));
        List<Packet> got = receive(WireTransport.WINDOW);
        for (int i = 0; i < WireTransport.WINDOW; i++) {
            assertEquals(psn + i, got.get(i).psn, what);
        }
        assertQuiet("a 129th PSN before any ACK");
        ack(psn + 15);
        got = receive(2);
        assertEquals(psn + 128, got.get(0).psn, "the rest once the ACK of packet 15 moved the window");
        assertEquals(Opcode.RC | Opcode.RDMA_WRITE_LAST, got.get(1).opcode);
        assertEquals(psn + 129, got.get(1).psn);
        ack(psn + 129);
        assertCompleted(wrId);
    }

    @Test
    @DisplayName("A READ of 200 packets goes out as READ requests of 128, 64 and 8 packets: the rest waits for room "
            + "for half a window, and each request counts against max_rd_atomic (2)")
    void longReadIsSplitAtTheWindow() throws Exception {
        MemoryRegion big = postLongRead(2);
        assertQuiet("the rest of the READ while the window is full");
        readResponses(0, 62, 0, -1);
        assertQuiet("the rest of the READ with room for 63 PSNs, less than half a window");
        readResponses(63, 63, -1, -1);
        assertReadRequest(receive(1).getFirst(), 128, 128, 64, "the second request, once half a window is free");
        readResponses(64, 71, -1, -1);
        assertQuiet("a third request while two are unanswered and max_rd_atomic is 2");
        readResponses(72, 127, -1, 127);
        assertReadRequest(receive(1).getFirst(), 192, 192, 8, "the third request, once the first is answered");
        readResponses(128, 191, 128, 191);
        readResponses(192, 199, 192, 199);
        assertCompleted(1);
        assertReadData(big, 0, 0, LONG_PACKETS);
    }

    @Test
    @DisplayName("A gap in a long READ's responses asks again at once, from the missing PSN to the end of the request "
            + "it lies in (not of the READ); the requests after it go again whole, then the rest")
    void longReadAskedAgainStopsAtItsRequest() throws Exception {
        MemoryRegion big = postLongRead(4);
        readResponses(0, 63, 0, -1);
        assertReadRequest(receive(1).getFirst(), 128, 128, 64, "the second request");
        readResponses(65, 65, -1, -1); // response 64 is lost
        assertReadRequest(receive(1).getFirst(), 64, 64, 64, "asked again from the gap to the first request's end");
        assertQuiet("more while the halved window (64) is full");
        readResponses(64, 127, 64, 127); // answered as this device's responder does: FIRST again
        assertReadRequest(receive(1).getFirst(), 128, 128, 64, "the second request again, whole");
        readResponses(128, 191, 128, 191);
        assertReadRequest(receive(1).getFirst(), 192, 192, 8, "the rest, new");
        readResponses(192, 199, 192, 199);
        assertCompleted(1);
        assertReadData(big, 0, 0, LONG_PACKETS);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ATOMIC_FETCH_AND_ADD", "ATOMIC_CMP_AND_SWP"})
    @DisplayName("An atomic in flight counts against max_rd_atomic (3) with a long READ's requests: a READ behind "
            + "the atomic waits while two requests of the long READ and the atomic are unanswered, and goes once one "
            + "request is answered")
    void atomicCountsWithALongReadsRequests(String atomicOp) throws Exception {
        WrOpcode op = WrOpcode.valueOf(atomicOp);
        connect(3, WireDevicesTest.ACK_TIMEOUT);
        MemoryRegion big = bigRegion(LONG_PACKETS);
        qp.postSend(List.of(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .rdma(LONG_VA, 0x77).sgList(Sge.of(big, 0, LONG_PACKETS * 1024)),
                atomic(2, op), read(3)));
        assertReadRequest(receive(1).getFirst(), 0, 0, WireTransport.WINDOW, "the first request");
        readResponses(0, 63, 0, -1);
        assertReadRequest(receive(1).getFirst(), 128, 128, 64, "the second request");
        readResponses(64, 71, -1, -1);
        assertReadRequest(receive(1).getFirst(), 192, 192, 8, "the third, with three requests out");
        readResponses(72, 126, -1, -1);
        assertQuiet("the atomic while three requests are unanswered");
        readResponses(127, 127, -1, 127);
        Packet atomic = receive(1).getFirst();
        assertEquals(Opcode.RC | (op == WrOpcode.ATOMIC_FETCH_AND_ADD ? Opcode.FETCH_ADD : Opcode.COMPARE_SWAP),
                atomic.opcode, "the atomic once the first request is answered");
        assertEquals(PSN + 200, atomic.psn);
        assertQuiet("the READ behind the atomic while two requests and the atomic are unanswered");
        readResponses(128, 191, 128, 191);
        Packet last = receive(1).getFirst();
        assertEquals(Opcode.RC | Opcode.RDMA_READ_REQUEST, last.opcode, "the READ once the second request is answered");
        assertEquals(PSN + 201, last.psn);
        readResponses(192, 199, 192, 199);
        atomicAck(PSN + 200);
        answer(Opcode.RDMA_READ_RESPONSE_ONLY, PSN + 201, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 8);
        assertCompleted(1, 2, 3);
        assertReadData(big, 0, 0, LONG_PACKETS);
    }

    @Test
    @DisplayName("A long READ's responses repeated and out of order: a repeat of a response already taken is dropped "
            + "and asks for nothing; one that overtakes the next asks again at once, from the missing PSN to the end of "
            + "its request (118 PSNs, past the halved window of 64); the late one is still taken, and the READ lands "
            + "whole")
    void longReadResponsesRepeatedAndReordered() throws Exception {
        MemoryRegion big = postLongRead(4);
        int ackWithCredits = Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED;
        readResponses(0, 9, 0, -1);
        // A repeat of 9, behind the first PSN not acknowledged.
        assertDropped(Reject.BAD_PSN,
                () -> answer(Opcode.RC, Opcode.RDMA_READ_RESPONSE_MIDDLE, PSN + 9, ackWithCredits, 1024, 0x55));
        assertQuiet("a request asked again for a repeated response");
        assertDropped(Reject.BAD_PSN, () -> readResponses(11, 11, -1, -1)); // 11 overtakes 10: a gap
        assertReadRequest(receive(1).getFirst(), 10, 10, 118, "asked again at once, to the first request's end");
        readResponses(10, 10, -1, -1); // the late 10: the PSN expected now
        // The answer to the request asked again starts with FIRST at 10, a repeat now, with other bytes.
        assertDropped(Reject.BAD_PSN,
                () -> answer(Opcode.RC, Opcode.RDMA_READ_RESPONSE_FIRST, PSN + 10, ackWithCredits, 1024, 0x55));
        readResponses(11, 127, -1, 127);
        finishLongRead(big, 1, "one go-back, at once: the gap, not the repeats");
    }

    /**
     * With the first request of {@link #postLongRead}'s READ answered, answers each request after it, from where the
     * last one ended, and asserts the READ landed whole and completed, after {@code answerRetries} go-backs that
     * answers started and none the timer started.
     */
    private void finishLongRead(MemoryRegion big, long answerRetries, String why) throws Exception {
        for (int next = 128; next < LONG_PACKETS; ) {
            Packet request = receive(1).getFirst();
            int packets = request.dmaLength / 1024;
            assertReadRequest(request, next, next, packets, "the next request, from where the last one ended");
            readResponses(next, next + packets - 1, next, next + packets - 1);
            next += packets;
        }
        assertCompleted(1);
        assertReadData(big, 0, 0, LONG_PACKETS);
        assertAnswerRetries(answerRetries, why);
    }

    /** Asserts that {@link #qp} retransmitted {@code n} times because of answers, and never because of its timer. */
    private void assertAnswerRetries(long n, String why) {
        long[] retries = retransmissions();
        assertEquals(0, retries[0], "no timeout");
        assertEquals(n, retries[1], why);
    }

    @Test
    @DisplayName("The ACK asked for comes while the newest packet is in the oldest message left: that packet goes "
            + "again, asking for an ACK")
    void tailInTheOldestMessageAsksAgain() throws Exception {
        connect(4, 0); // no timer: only the answer can send the packet again
        qp.postSend(List.of(write(1, 0), write(2, 0)));
        assertFalse(receive(2).get(1).ackReq, "the second asks for none while the first's is outstanding");
        ack(PSN);
        Packet again = receive(1).getFirst();
        assertEquals(PSN + 1, again.psn, "the second WRITE, now the oldest message, again");
        assertTrue(again.ackReq, "asking for an ACK");
        ack(PSN + 1);
        assertCompleted(1, 2);
    }

    @Test
    @DisplayName("ACK timeout 0 is infinite (IBA 9.7.6.1.3): an unanswered WRITE is never sent again, and its late ACK "
            + "still completes it")
    void timeoutZeroNeverSendsAgain() throws Exception {
        connect(4, 0);
        qp.postSend(write(1, 0));
        assertEquals(PSN, receive(1).getFirst().psn);
        assertQuiet("a packet sent again with no timer", 1000);
        ack(PSN);
        assertCompleted(1);
    }

    @Test
    @DisplayName("While a READ's response streams in, nothing is sent: the READ asked for its answer when it went")
    void nothingSentWhileAReadResponseStreams() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(List.of(write(1, 0), new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .rdma(LONG_VA, 0x77).sgList(Sge.of(mr, 4096, 2048))));
        List<Packet> got = receive(2);
        assertEquals(Opcode.RC | Opcode.RDMA_READ_REQUEST, got.get(1).opcode);
        ack(PSN);
        answer(Opcode.RDMA_READ_RESPONSE_FIRST, PSN + 1, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 1024);
        assertQuiet("a packet between the READ's FIRST and LAST responses");
        answer(Opcode.RDMA_READ_RESPONSE_LAST, PSN + 2, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 1024);
        assertCompleted(1, 2);
        assertReadData(mr, 4096, 1, 2);
    }

    @Test
    @DisplayName("A modify of a QP in RTS without SQ_PSN (RTS to RTS, min_rnr_timer) keeps the WRITE in flight and "
            + "the send PSN: its ACK completes it, and the next WRITE takes the next PSN")
    void modifyInRtsKeepsTheMessagesInFlight() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(write(1, 0));
        assertEquals(PSN, receive(1).getFirst().psn);
        qp.modify(new QpAttributes().minRnrTimer(12));
        ack(PSN);
        assertCompleted(1);
        qp.postSend(write(2, 0));
        assertEquals(PSN + 1, receive(1).getFirst().psn, "the next PSN: the modify named no SQ_PSN");
        ack(PSN + 1);
        assertCompleted(2);
    }

    @Test
    @DisplayName("A QP moved to ERR with a WRITE in flight after a retransmission, then reset and connected again, "
            + "sends only its new messages, from its new SQ_PSN, with the whole window (128 PSNs) again")
    void resetQpStartsClean() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(write(1, 0));
        assertEquals(PSN, receive(1).getFirst().psn);
        nak(PSN);
        assertEquals(PSN, receive(1).getFirst().psn, "sent again after the NAK, which halves the window");
        qp.modify(QpAttributes.toState(QpState.ERR));
        WorkCompletion flushed = poll(1).getFirst();
        assertEquals(1, flushed.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status(), "the WRITE in flight, flushed by ERR");
        qp.modify(QpAttributes.toState(QpState.RESET));
        int psn = 0x900;
        connectAgain(Gid.ofIpv4(PEER), 4, WireDevicesTest.ACK_TIMEOUT, 7, psn);
        assertLongWriteHeldByTheWindow(2, psn, "the new WRITE from the new SQ_PSN, nothing of the old one");
    }

    @Test
    @DisplayName("UC messages take consecutive PSNs: two WRITEs of two packets go at PSN to PSN + 3, and complete "
            + "once sent")
    void ucMessagesTakeConsecutivePsns() throws Exception {
        connectUc(Gid.ofIpv4(PEER));
        qp.postSend(List.of(write(1, 0).sgList(Sge.of(mr, 0, 1500)), write(2, 0).sgList(Sge.of(mr, 0, 1500))));
        List<Packet> got = receive(4);
        int[] ops = {Opcode.RDMA_WRITE_FIRST, Opcode.RDMA_WRITE_LAST};
        for (int i = 0; i < 4; i++) {
            assertEquals(PSN + i, got.get(i).psn, "UC packet " + i);
            assertEquals(Opcode.UC | ops[i % 2], got.get(i).opcode, "UC packet " + i);
        }
        assertCompleted(1, 2);
    }

    @Test
    @DisplayName("A connected QP whose path GID is not IPv4-mapped (fe80::1) reaches no one: the modify succeeds, an "
            + "RC WRITE completes RETRY_EXC_ERR and a UC WRITE SUCCESS, and no packet goes out")
    void pathWithoutIpv4PeerReachesNoOne() throws Exception {
        Gid linkLocal = Gid.parse("fe80::1");
        qp = newQp(QpType.RC);
        connectAgain(linkLocal, 4, WireDevicesTest.ACK_TIMEOUT, 7, PSN);
        qp.postSend(write(1, 0));
        WorkCompletion rc = poll(1).getFirst();
        assertEquals(WcStatus.RETRY_EXC_ERR, rc.status(), "RC: no peer answers");
        assertQuiet("an RC packet to a GID that is not IPv4-mapped");
        qp.close();
        connectUc(linkLocal);
        qp.postSend(write(2, 0));
        assertCompleted(2);
        assertQuiet("a UC packet to a GID that is not IPv4-mapped");
    }

    @Test
    @DisplayName("A message of two packets ends with its operation's LAST opcode: SEND, SEND with immediate (the "
            + "immediate data in it), SEND with invalidate (the rkey in it), WRITE with immediate")
    void multiPacketMessagesEndWithTheirOperation() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        Sge twoPackets = Sge.of(mr, 0, 1500);
        qp.postSend(List.of(
                new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(twoPackets),
                new SendWr().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).sendFlags(SendFlags.SIGNALED).immData(0x01020304)
                        .sgList(twoPackets),
                new SendWr().wrId(3).opcode(WrOpcode.SEND_WITH_INV).sendFlags(SendFlags.SIGNALED).invalidateRkey(0x4242)
                        .sgList(twoPackets),
                new SendWr().wrId(4).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).sendFlags(SendFlags.SIGNALED)
                        .immData(0x05060708).rdma(0x1000, 0x77).sgList(twoPackets)));
        List<Packet> got = receive(8);
        int[] ops = {Opcode.SEND_FIRST, Opcode.SEND_LAST, Opcode.SEND_FIRST, Opcode.SEND_LAST_WITH_IMMEDIATE,
            Opcode.SEND_FIRST, Opcode.SEND_LAST_WITH_INVALIDATE, Opcode.RDMA_WRITE_FIRST,
            Opcode.RDMA_WRITE_LAST_WITH_IMMEDIATE};
        for (int i = 0; i < 8; i++) {
            assertEquals(PSN + i, got.get(i).psn, "packet " + i);
            assertEquals(Opcode.RC | ops[i], got.get(i).opcode, "packet " + i + "'s opcode");
        }
        assertEquals(0x01020304, got.get(3).immediate, "the SEND's immediate data, in its LAST packet");
        assertEquals(0x4242, got.get(5).invalidateRkey, "the rkey to invalidate, in the SEND's LAST packet");
        assertEquals(0x05060708, got.get(7).immediate, "the WRITE's immediate data, in its LAST packet");
        ack(PSN + 7);
        assertCompleted(1, 2, 3, 4);
    }

    private SendWr udSend(long wrId, AddressHandle ah, int qkey) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).ud(ah, PEER_QPN, qkey)
                .sgList(Sge.of(mr, 0, 64));
    }

    @Test
    @DisplayName("UD SENDs take consecutive PSNs and carry the WR's Q_Key as given (0 included), or the QP's own when "
            + "its high bit is set; one to a GID that is not IPv4-mapped completes SUCCESS, sends nothing and takes "
            + "no PSN, and the QP goes on")
    void udSendsOnTheWire() throws Exception {
        int ownQkey = 0x11111111;
        qp = newQp(QpType.UD);
        qp.modify(QpAttributes.toInitUd(1, 0, ownQkey));
        qp.modify(QpAttributes.toState(QpState.RTR));
        qp.modify(QpAttributes.toRtsUnreliable(PSN));
        AddressHandle peerAh = mr.pd().createAh(AhAttributes.roce(Gid.ofIpv4(PEER), 1, 1));
        AddressHandle nowhere = mr.pd().createAh(AhAttributes.roce(Gid.parse("fe80::1"), 1, 1));
        qp.postSend(List.of(udSend(1, peerAh, 0), udSend(2, nowhere, 0x1234), udSend(3, peerAh, 0x80000000),
                udSend(4, peerAh, 0x1234)));
        List<Packet> got = receive(3);
        int[] qkeys = {0, ownQkey, 0x1234};
        for (int i = 0; i < 3; i++) {
            Packet p = got.get(i);
            assertEquals(Opcode.UD | Opcode.SEND_ONLY, p.opcode, "UD packet " + i);
            assertEquals(PSN + i, p.psn, "UD packet " + i + "'s PSN");
            assertEquals(qkeys[i], p.qkey, "UD packet " + i + "'s Q_Key");
            assertEquals(qp.qpNum(), p.srcQpn, "UD packet " + i + "'s source QPN");
        }
        assertCompleted(1, 2, 3, 4);
        assertQuiet("a UD SEND to a GID that is not IPv4-mapped");
    }

    @Test
    @DisplayName("An ACK under XRC's transport prefix completes nothing on an RC QP, and is counted as BAD_OPCODE: "
            + "the WRITE waits for its own ACK")
    void foreignPrefixAckIsIgnored() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(write(1, 0));
        assertEquals(PSN, receive(1).getFirst().psn);
        assertDropped(Reject.BAD_OPCODE,
                () -> answer(Opcode.XRC, Opcode.ACKNOWLEDGE, PSN, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 0));
        Thread.sleep(100);
        assertEquals(0, cq.poll(wc), "a WRITE completed by an ACK of another transport");
        ack(PSN);
        assertCompleted(1);
    }

    /**
     * The QP type test of a response: a UD QP has no connected peer, so an ACK that got past the test would be
     * counted as FOREIGN_SOURCE instead.
     */
    @Test
    @DisplayName("An ACK to a UD QP is dropped as BAD_OPCODE: only RC and XRC send QPs take responses, whatever the "
            + "QP's state or peer")
    void ackToAUdQpIsABadOpcode() throws Exception {
        qp = newQp(QpType.UD);
        assertDropped(Reject.BAD_OPCODE, () -> ack(PSN));
    }

    @Test
    @DisplayName("Answers of the wrong kind are dropped as BAD_OPCODE: an atomic ACK or a READ response (as long as "
            + "the WRITE) for a WRITE, and a plain or atomic ACK or a LAST response for a one-packet READ, complete "
            + "nothing and write nothing into the WRITE's source; a READ response shorter than the READ, as "
            + "BAD_LENGTH; each WR's own answer then completes it, and the READ's bytes land")
    void answersOfTheWrongKindAreDropped() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        int ackWithCredits = Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED;
        mr.segment().asSlice(0, 100).fill((byte) 0x3c);
        qp.postSend(List.of(write(1, 0), read(2)));
        receive(2);
        assertDropped(Reject.BAD_OPCODE, () -> atomicAck(PSN));
        assertDropped(Reject.BAD_OPCODE, () -> answer(Opcode.RDMA_READ_RESPONSE_ONLY, PSN, ackWithCredits, 100));
        Thread.sleep(100);
        assertEquals(0, cq.poll(wc), "the WRITE completed by an answer of another kind");
        for (int j = 0; j < 100; j++) {
            assertEquals((byte) 0x3c, mr.segment().get(ValueLayout.JAVA_BYTE, j), "the WRITE's source, byte " + j);
        }
        ack(PSN);
        assertDropped(Reject.BAD_OPCODE, () -> ack(PSN + 1));
        assertDropped(Reject.BAD_OPCODE, () -> atomicAck(PSN + 1));
        // The READ's one response packet is ONLY, not LAST; and carries all 8 bytes.
        assertDropped(Reject.BAD_OPCODE, () -> answer(Opcode.RDMA_READ_RESPONSE_LAST, PSN + 1, ackWithCredits, 8));
        assertDropped(Reject.BAD_LENGTH, () -> answer(Opcode.RDMA_READ_RESPONSE_ONLY, PSN + 1, ackWithCredits, 4));
        assertQuiet("a packet sent because of an answer of another kind");
        assertEquals(1, cq.poll(wc), "only the WRITE completes");
        assertEquals(1, wc.wrId(0));
        answer(Opcode.RDMA_READ_RESPONSE_ONLY, PSN + 1, ackWithCredits, 8);
        assertCompleted(2);
        for (int j = 0; j < 8; j++) {
            assertEquals((byte) (PSN + 1 + j), mr.segment().get(ValueLayout.JAVA_BYTE, 16L + j), "READ byte " + j);
        }
    }

    @Test
    @DisplayName("Answers the QP cannot take are dropped and change nothing: an ACK to a QP with nothing in flight; "
            + "then, with 128 packets of a 130-packet WRITE sent, an ACK from another address than the connected "
            + "peer's, ACKs of the WRITE's first PSN not sent and of its last (the window holds both back) and an ACK of a PSN "
            + "already acknowledged. Each is counted once: FOREIGN_SOURCE from the other address, BAD_PSN the rest. "
            + "The peer's own ACKs then move the window and complete the WRITE, once")
    void answersOutsideTheFlightAreDropped() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        assertDropped(Reject.BAD_PSN, () -> ack(PSN - 1)); // nothing in flight yet
        qp.postSend(longWrite(1, 130));
        receive(WireTransport.WINDOW);
        byte[] stranger = {127, 0, 79, 7};
        try (DatagramChannel other = DatagramChannel.open(StandardProtocolFamily.INET)) {
            other.bind(new InetSocketAddress(InetAddress.getByAddress(stranger), RoceEndpoint.of(roce0).localPort));
            assertDropped(Reject.FOREIGN_SOURCE, () -> other.send(answerPacket(stranger, Opcode.RC,
                    Opcode.ACKNOWLEDGE, PSN + 127, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 0, 0), device()));
        }
        assertDropped(Reject.BAD_PSN, () -> ack(PSN + 128)); // the first PSN not sent
        assertDropped(Reject.BAD_PSN, () -> ack(PSN + 129)); // the WRITE's last, not sent either
        assertDropped(Reject.BAD_PSN, () -> ack(PSN - 1)); // before the first unacknowledged PSN
        assertQuiet("a packet sent because of an answer that was dropped");
        assertEquals(0, cq.poll(wc), "a WRITE completed by an answer it cannot take");
        long[] retries = retransmissions();
        assertEquals(0, retries[1] + retries[2], "retransmissions or progress from dropped answers");
        ack(PSN + 127);
        assertEquals(PSN + 129, receive(2).get(1).psn, "the rest once the peer's ACK made room");
        ack(PSN + 129);
        assertCompleted(1);
    }

    /**
     * An atomic is answered by its atomic ACK only ({@code isReadOrAtomic}): a plain ACK of its PSN is a BAD_OPCODE,
     * and a plain ACK of a later WRITE's PSN means the atomic's answer was lost, so the QP goes back and sends it
     * again instead of completing it as it would a WRITE.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ATOMIC_FETCH_AND_ADD", "ATOMIC_CMP_AND_SWP"})
    @DisplayName("An atomic needs its atomic ACK: a plain ACK of its PSN is dropped as BAD_OPCODE; a plain ACK of the "
            + "WRITE behind it completes neither, and both go again from the atomic's PSN; the atomic ACK then "
            + "completes the atomic, the WRITE's ACK the WRITE")
    void atomicIsNotCompletedByAPlainAck(String atomicOp) throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(List.of(atomic(1, WrOpcode.valueOf(atomicOp)), write(2, 0)));
        int atomicOpcode = receive(2).getFirst().opcode;
        assertDropped(Reject.BAD_OPCODE, () -> ack(PSN));
        ack(PSN + 1);
        List<Packet> again = receive(2);
        assertEquals(PSN, again.get(0).psn, "the atomic again: its answer was lost");
        assertEquals(atomicOpcode, again.get(0).opcode, "the atomic's opcode");
        assertEquals(PSN + 1, again.get(1).psn, "the WRITE behind it again");
        assertEquals(0, cq.poll(wc), "a WR completed by a plain ACK past an atomic");
        atomicAck(PSN);
        ack(PSN + 1);
        assertCompleted(1, 2);
    }

    /**
     * {@code retry}: a PSN sequence NAK that names no new PSN starts no retry while one is under way; and
     * {@code progressed}: the retry ends once the ACKs reach the last PSN it sent again, with a WR still in flight,
     * so that a NAK after that starts a new one.
     */
    @Test
    @DisplayName("A PSN sequence NAK repeated while its go-back is under way sends nothing more, nor does a NAK of "
            + "the first unacknowledged PSN once part of it is acknowledged; once the ACKs reach the last PSN the "
            + "go-back sent, the retry is over, and a NAK of the WRITE posted during it sends that "
            + "WRITE again")
    void repeatedNakStartsNoSecondRetry() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(List.of(write(1, 0), write(2, 0)));
        receive(2);
        nak(PSN);
        assertEquals(PSN, receive(2).getFirst().psn, "go-back from the NAKed PSN");
        nak(PSN);
        assertQuiet("a second go-back for a repeated NAK");
        qp.postSend(write(3, 0));
        assertEquals(PSN + 2, receive(1).getFirst().psn, "a WRITE posted during the retry");
        ack(PSN);
        assertCompleted(1);
        nak(PSN + 1);
        assertQuiet("a second go-back for a NAK of the first unacknowledged PSN while the retry is under way");
        ack(PSN + 1);
        assertCompleted(2);
        drainTailAsk(PSN + 2);
        nak(PSN + 2);
        assertEquals(PSN + 2, receive(1).getFirst().psn, "a new go-back: the first retry ended with its ACK");
        ack(PSN + 2);
        assertCompleted(3);
        assertEquals(2, retransmissions()[1], "two go-backs, each started by a NAK");
    }

    /** Takes the packet {@code psn} if it comes again to ask for an ACK within {@link #QUIET_MS}. */
    private void drainTailAsk(int psn) throws Exception {
        Packet p = peer.packetWithin(QUIET_MS);
        if (p != null) {
            assertEquals(psn, p.psn, "the newest packet, asking for an ACK");
            assertTrue(p.ackReq, "asking for an ACK");
        }
    }

    /**
     * {@code onTimeout}: an ACK stops no timer; one that runs out with nothing in flight sends nothing and spends no
     * retry.
     */
    @Test
    @DisplayName("The ACK timer running out after every WR completed sends nothing and counts no timer retry")
    void timerWithNothingInFlightSendsNothing() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(write(1, 0));
        assertEquals(PSN, receive(1).getFirst().psn);
        ack(PSN);
        assertCompleted(1);
        // The timer (1.07 s from the send) runs out meanwhile on a machine not too loaded; later, nothing is seen.
        assertQuiet("a packet once the timer ran out with nothing in flight", 2000);
        assertEquals(0, retransmissions()[0], "timer retries with nothing in flight");
    }

    /**
     * {@code progressed}: after a go-back an ACK of the first sending past the resend point moves the send point to
     * the first unacknowledged PSN, so that nothing acknowledged is sent again.
     */
    @Test
    @DisplayName("A go-back overtaken by an ACK: after a NAK of a 100-packet WRITE's first PSN, the halved window (64) "
            + "sends it again up to PSN + 63; an ACK of PSN + 79 then sends on from PSN + 80, nothing acknowledged "
            + "again")
    void goBackOvertakenByAnAckSendsOnFromTheAck() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(longWrite(1, 100));
        receive(100);
        nak(PSN);
        List<Packet> again = receive(64);
        assertEquals(PSN, again.getFirst().psn, "sent again from the NAKed PSN");
        assertEquals(PSN + 63, again.getLast().psn, "as far as the halved window");
        assertQuiet("past the halved window");
        ack(PSN + 79);
        List<Packet> rest = receive(20);
        for (int i = 0; i < 20; i++) {
            assertEquals(PSN + 80 + i, rest.get(i).psn, "on from the first unacknowledged PSN");
        }
        assertQuiet("a packet already acknowledged, sent again");
        ack(PSN + 99);
        assertCompleted(1);
    }

    /** Bytes of {@link #fourPacketRead}: three packets of 1024 bytes and one of 500. */
    static final int FOUR_PACKET_BYTES = 3 * 1024 + 500;
    /** Where {@link #fourPacketRead} lands in {@link #mr}. */
    static final long FOUR_PACKET_OFFSET = 8192;

    /** WR {@code wrId}: a READ of {@link #FOUR_PACKET_BYTES} from {@link #LONG_VA} into {@link #mr}. */
    private SendWr fourPacketRead(long wrId) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .rdma(LONG_VA, 0x77).sgList(Sge.of(mr, FOUR_PACKET_OFFSET, FOUR_PACKET_BYTES));
    }

    /** The READ response packet {@code PSN + k}: {@code operation}, {@code payload} bytes seeded by its PSN. */
    private void response(int operation, int k, int payload) throws IOException {
        answer(operation, PSN + k, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, payload);
    }

    /** Asserts that every byte of {@link #fourPacketRead}'s four responses landed, the last packet's 500 too. */
    private void assertFourPacketReadLanded() {
        assertReadData(mr, FOUR_PACKET_OFFSET, 0, 3);
        for (int j = 0; j < 500; j++) {
            byte got = mr.segment().get(ValueLayout.JAVA_BYTE, FOUR_PACKET_OFFSET + 3 * 1024 + j);
            assertEquals((byte) (PSN + 3 + j), got, "READ response 3, byte " + j);
        }
    }

    /**
     * {@code readResponse}'s opcode sequence and lengths, each refusal on its own: a response that starts, goes on
     * or ends where its READ cannot, or that is not as long as its packet of the READ.
     */
    @Test
    @DisplayName("READ responses out of their sequence or of the wrong length are dropped: for a READ of 4 packets "
            + "(3572 bytes), MIDDLE or LAST at its first PSN and FIRST or ONLY inside its response (after a FIRST "
            + "or a MIDDLE) as BAD_OPCODE, MIDDLE at its last PSN as BAD_OPCODE; a packet before the last not of the MTU (1024 bytes), and a last "
            + "one not of the 500 bytes left, as BAD_LENGTH. None asks for anything, and the READ lands whole")
    void readResponsesOutOfSequenceAreDropped() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(fourPacketRead(1));
        assertEquals(Opcode.RC | Opcode.RDMA_READ_REQUEST, receive(1).getFirst().opcode);
        assertDropped(Reject.BAD_OPCODE, () -> response(Opcode.RDMA_READ_RESPONSE_MIDDLE, 0, 1024));
        assertDropped(Reject.BAD_OPCODE, () -> response(Opcode.RDMA_READ_RESPONSE_LAST, 0, 1024));
        assertDropped(Reject.BAD_LENGTH, () -> response(Opcode.RDMA_READ_RESPONSE_FIRST, 0, 1023));
        response(Opcode.RDMA_READ_RESPONSE_FIRST, 0, 1024);
        assertDropped(Reject.BAD_OPCODE, () -> response(Opcode.RDMA_READ_RESPONSE_FIRST, 1, 1024));
        assertDropped(Reject.BAD_OPCODE, () -> response(Opcode.RDMA_READ_RESPONSE_ONLY, 1, 1024));
        assertDropped(Reject.BAD_LENGTH, () -> response(Opcode.RDMA_READ_RESPONSE_MIDDLE, 1, 1000));
        response(Opcode.RDMA_READ_RESPONSE_MIDDLE, 1, 1024);
        assertDropped(Reject.BAD_OPCODE, () -> response(Opcode.RDMA_READ_RESPONSE_FIRST, 2, 1024));
        response(Opcode.RDMA_READ_RESPONSE_MIDDLE, 2, 1024);
        assertDropped(Reject.BAD_OPCODE, () -> response(Opcode.RDMA_READ_RESPONSE_MIDDLE, 3, 500));
        assertDropped(Reject.BAD_LENGTH, () -> response(Opcode.RDMA_READ_RESPONSE_LAST, 3, 1024));
        assertDropped(Reject.BAD_LENGTH, () -> response(Opcode.RDMA_READ_RESPONSE_LAST, 3, 499));
        assertQuiet("a request asked again for a dropped response");
        assertEquals(0, cq.poll(wc), "the READ completed before its last response");
        response(Opcode.RDMA_READ_RESPONSE_LAST, 3, 500);
        assertCompleted(1);
        assertFourPacketReadLanded();
        assertAnswerRetries(0, "retransmissions for dropped responses");
    }

    /**
     * {@code readResponse} after a go-back: the READ request asked again from the middle of one sent before may be
     * answered as rxe's responder does (the rest of the first response: MIDDLE... LAST, or LAST alone) or as this
     * device's (a new response: FIRST... LAST, or ONLY); a response that starts where the READ cannot is still
     * dropped.
     */
    @ParameterizedTest(name = "from response {0}, answered as {1}")
    @CsvSource({"1, rxe", "1, verbs4j", "3, rxe", "3, verbs4j"})
    @DisplayName("A READ whose later responses were lost is asked again from the first one missing, to its end, and "
            + "takes either responder's answer: rxe's replay (MIDDLE... LAST, or LAST alone) or a new response "
            + "(FIRST... LAST, or ONLY); at its last PSN a FIRST or MIDDLE is dropped as BAD_OPCODE")
    void readAskedAgainTakesEitherRespondersReplay(int from, String responder) throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(List.of(fourPacketRead(1), write(2, 0)));
        assertEquals(PSN + 4, receive(2).get(1).psn, "the WRITE after the READ's 4 PSNs");
        response(Opcode.RDMA_READ_RESPONSE_FIRST, 0, 1024);
        for (int k = 1; k < from; k++) {
            response(Opcode.RDMA_READ_RESPONSE_MIDDLE, k, 1024);
        }
        drainTailAsk(PSN + 4); // the WRITE, asking for the ACK the READ's response does not give
        ack(PSN + 4); // the WRITE's ACK overtakes the READ's responses from 'from' on: they were lost
        List<Packet> again = receive(2);
        Packet request = again.get(0);
        assertEquals(Opcode.RC | Opcode.RDMA_READ_REQUEST, request.opcode, "the READ asked again");
        assertEquals(PSN + from, request.psn, "from the first response missing");
        assertEquals(LONG_VA + from * 1024L, request.va, "its remote address");
        assertEquals(FOUR_PACKET_BYTES - from * 1024, request.dmaLength, "to the READ's end, bytes");
        assertEquals(PSN + 4, again.get(1).psn, "the WRITE again behind it");
        boolean rxe = responder.equals("rxe");
        if (from == 3) {
            assertDropped(Reject.BAD_OPCODE, () -> response(Opcode.RDMA_READ_RESPONSE_FIRST, 3, 500));
            assertDropped(Reject.BAD_OPCODE, () -> response(Opcode.RDMA_READ_RESPONSE_MIDDLE, 3, 500));
            response(rxe ? Opcode.RDMA_READ_RESPONSE_LAST : Opcode.RDMA_READ_RESPONSE_ONLY, 3, 500);
        } else {
            response(rxe ? Opcode.RDMA_READ_RESPONSE_MIDDLE : Opcode.RDMA_READ_RESPONSE_FIRST, from, 1024);
            for (int k = from + 1; k < 3; k++) {
                response(Opcode.RDMA_READ_RESPONSE_MIDDLE, k, 1024);
            }
            response(Opcode.RDMA_READ_RESPONSE_LAST, 3, 500);
        }
        ack(PSN + 4);
        assertCompleted(1, 2);
        assertFourPacketReadLanded();
        assertAnswerRetries(1, "one go-back, started by the WRITE's ACK");
    }

    /**
     * {@code readResponse}'s gap during a retry: the responses of the first stream that come after a go-back
     * started at the same PSN are what that go-back answers, and ask for nothing; a gap past the point the go-back
     * started from is a new loss, and asks again at once.
     */
    @Test
    @DisplayName("After a long READ's gap at response 10 asks again from 10, the first stream's late responses (11 to "
            + "13) ask for nothing more; once the second stream has got to 40, a gap there asks again at once, from 40 "
            + "to the end of the first request: two go-backs, both started by answers, none by the timer")
    void readGapPastTheRetryPointAsksAgainAtOnce() throws Exception {
        MemoryRegion big = postLongRead(4);
        readResponses(0, 9, 0, -1);
        assertDropped(Reject.BAD_PSN, () -> readResponses(11, 11, -1, -1)); // response 10 is lost
        assertReadRequest(receive(1).getFirst(), 10, 10, 118, "asked again from the gap");
        for (int k = 12; k <= 13; k++) {
            int late = k;
            assertDropped(Reject.BAD_PSN, () -> readResponses(late, late, -1, -1));
        }
        assertQuiet("a second go-back for the first stream's late responses, while the retry from 10 is under way");
        readResponses(10, 39, 10, -1); // the stream asked again, answered as this device's responder does
        assertDropped(Reject.BAD_PSN, () -> readResponses(41, 41, -1, -1)); // response 40 is lost
        assertReadRequest(receive(1).getFirst(), 40, 40, 88, "asked again at once from the new gap, past the first");
        readResponses(40, 127, 40, 127);
        finishLongRead(big, 2, "two go-backs, each at once");
    }

    /** The ACK timeout of {@link WireDevicesTest#ACK_TIMEOUT}, 4.096 us x 2^18 in whole microseconds, in ns. */
    static final long TIMEOUT_NS = (4096L << WireDevicesTest.ACK_TIMEOUT) / 1000 * 1000;
    /** About half of {@link #TIMEOUT_NS}, in whole microseconds, as the timer counts. */
    static final long HALF_NS = TIMEOUT_NS / 2000 * 1000;

    /** Connects {@link #qp} (ACK timeout {@link WireDevicesTest#ACK_TIMEOUT}), its ACK timer on a clock the test moves. */
    private ManualWireClock connectOnManualClock() {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        ManualWireClock clock = new ManualWireClock();
        ((WireTransport) ((EmulatedQueuePair) qp).transport()).useClock(clock);
        return clock;
    }

    /** {@code armTimer} and {@code onTimeout}: progress restarts the wait, and the rest of it is waited out. */
    @Test
    @DisplayName("Each ACK that moves the window restarts the ACK timer (T, 1.07 s, on a clock the test moves): a "
            + "WRITE of 2 packets sent at 0 whose first packet is acknowledged at T/2 is not sent again at T, nor a "
            + "microsecond before 3T/2, and its second packet goes again at 3T/2")
    void ackTimerRestartsAtProgress() throws Exception {
        ManualWireClock clock = connectOnManualClock();
        qp.postSend(write(1, 0).sgList(Sge.of(mr, 0, 1500)));
        assertEquals(PSN + 1, receive(2).get(1).psn);
        clock.advance(HALF_NS);
        ack(PSN);
        awaitProgress(1);
        clock.advance(TIMEOUT_NS - HALF_NS);
        assertQuiet("a retry at T, with an ACK at T/2");
        assertEquals(1, clock.pending(), "the timer, waiting out the rest");
        clock.advance(HALF_NS - 1000);
        assertQuiet("a retry a microsecond before 3T/2");
        clock.advance(1000);
        Packet again = receive(1).getFirst();
        assertEquals(PSN + 1, again.psn, "the packet not acknowledged, again at 3T/2");
        assertEquals(1, retransmissions()[0], "one timer retry");
        assertEquals(3, clock.scheduled(), "timer tasks: armed by the post, the rest of the wait in one, armed again "
                + "by the retry");
        ack(PSN + 1);
        assertCompleted(1);
    }

    /** Waits until {@code n} acknowledgements moved {@link #qp}'s window ({@link WireTransport#retransmissions()}). */
    private void awaitProgress(long n) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (retransmissions()[2] < n && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(n, retransmissions()[2], "acknowledgements that moved the window");
    }

    /** {@code armTimer}: a request sent while the timer runs neither pushes it back nor arms a second one. */
    @Test
    @DisplayName("A WRITE posted at T/2 while the ACK timer of one posted at 0 runs (T, 1.07 s, on a clock the test "
            + "moves) arms no second timer and does not push the first back: both go again at T, not a "
            + "microsecond before")
    void newRequestsDoNotPushTheTimerBack() throws Exception {
        ManualWireClock clock = connectOnManualClock();
        qp.postSend(write(1, 0));
        assertEquals(PSN, receive(1).getFirst().psn);
        assertEquals(1, clock.pending(), "the ACK timer, armed by the first request");
        clock.advance(HALF_NS);
        qp.postSend(write(2, 0));
        assertEquals(PSN + 1, receive(1).getFirst().psn);
        assertEquals(1, clock.pending(), "still one timer task after a second request");
        clock.advance(TIMEOUT_NS - HALF_NS - 1000);
        assertQuiet("a retry a microsecond before T");
        clock.advance(1000);
        List<Packet> again = receive(2);
        assertEquals(PSN, again.get(0).psn, "both again at T, from the first unacknowledged PSN");
        assertEquals(PSN + 1, again.get(1).psn);
        assertEquals(1, retransmissions()[0], "one timer retry");
        assertEquals(1, clock.pending(), "the timer armed again by the retry, once");
        ack(PSN + 1);
        assertCompleted(1, 2);
    }

    /**
     * {@code onTimeout}: a task of a timer that an RNR NAK disarmed does nothing when it runs, even once a new timer
     * is armed; otherwise it would wait out the new timer's time beside it, two tasks for one timer.
     */
    @Test
    @DisplayName("The ACK timer's task from before an RNR NAK (timer code 1, the shortest) runs at T and does nothing: the "
            + "SEND sent again at T/2 armed a new timer, which alone sends it again at 3T/2, one task at a time")
    void timerDisarmedByAnRnrNakDoesNothing() throws Exception {
        ManualWireClock clock = connectOnManualClock();
        qp.postSend(send(1));
        assertEquals(PSN, receive(1).getFirst().psn);
        clock.advance(HALF_NS);
        answer(Opcode.ACKNOWLEDGE, PSN, Packet.AETH_RNR_NAK | 1, 0);
        assertEquals(PSN, receive(1).getFirst().psn, "the SEND again once the RNR timer ran");
        assertEquals(2, clock.pending(), "the first timer's task, and the new timer's, armed at T/2");
        clock.advance(TIMEOUT_NS - HALF_NS);
        assertEquals(1, clock.pending(), "the new timer's task alone, after the first timer's ran at T");
        assertQuiet("a retry at T, the first timer's time");
        clock.advance(HALF_NS);
        assertEquals(PSN, receive(1).getFirst().psn, "the SEND again at 3T/2, the new timer's time");
        assertEquals(1, retransmissions()[0], "one timer retry");
        assertEquals(1, clock.pending(), "one timer task, armed again by the retry");
        ack(PSN);
        assertCompleted(1);
    }

    /**
     * {@code answered}: a PSN sequence NAK that names a later PSN of the oldest message than acknowledged is progress,
     * as an ACK of the PSN before it would be: the retry budget starts over, and a new go-back starts at once.
     */
    @Test
    @DisplayName("A PSN sequence NAK inside the oldest message, past the PSNs acknowledged, is progress: with retry_cnt "
            + "1, a WRITE of 3 packets NAKed at PSN, PSN + 1 and PSN + 2 in turn goes back three times, each from the "
            + "PSN named, and completes SUCCESS")
    void nakOfANewGapRestoresTheRetryBudget() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT, 1, PSN);
        qp.postSend(write(1, 0).sgList(Sge.of(mr, 0, 2500)));
        receive(3);
        for (int k = 0; k < 3; k++) {
            nak(PSN + k);
            List<Packet> again = receive(3 - k);
            assertEquals(PSN + k, again.getFirst().psn, "go-back " + (k + 1) + " from the PSN the NAK names");
            assertEquals(k, retransmissions()[2], "NAKs that named a new gap, counted as progress");
        }
        ack(PSN + 2);
        assertCompleted(1);
        assertAnswerRetries(3, "three go-backs, each started by its NAK, none refused for want of retries");
    }

    /**
     * {@code answered}: an ACK completes the messages before the one it names in a loop; a completion there that moves
     * the QP to ERR ends the loop, since the QP's messages are forgotten.
     */
    @Test
    @DisplayName("An ACK of the third of three WRITEs on a QP whose CQ holds one completion: the second WRITE's "
            + "completion overflows the CQ and moves the QP to ERR, and the ACK ends there, taken without a fault "
            + "(no packet counted as dropped)")
    void cqOverflowInsideAnAckEndsIt() throws Exception {
        CompletionQueue small = ctx.createCq(1);
        qp = mr.pd().createQp(QpInitAttributes.builder(QpType.RC).cq(small).maxSendWr(32).maxRecvWr(4).build());
        connectAgain(Gid.ofIpv4(PEER), 4, WireDevicesTest.ACK_TIMEOUT, 7, PSN);
        qp.postSend(List.of(write(1, 0), write(2, 0), write(3, 0)));
        receive(3);
        long[] before = rejects();
        ack(PSN + 2);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (qp.state() != QpState.ERR && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(QpState.ERR, qp.state(), "the QP, after its CQ overflowed");
        Thread.sleep(100);
        assertEquals(Map.of(), moved(before), "packets dropped, by reason");
        assertQuiet("a packet from a QP in ERR");
    }

    /**
     * {@code completeOldest}: a message completed while a go-back is still sending it moves the send point to the
     * next message, which goes again, since the responder dropped its first sending behind the gap.
     */
    @Test
    @DisplayName("A go-back overtaken by an ACK of its whole message: after a NAK of a 100-packet WRITE's first PSN, "
            + "the halved window (64) sends it again up to PSN + 63; an ACK of PSN + 99 completes it, and the WRITE "
            + "behind it goes again from PSN + 100, nothing of the first sent again and nothing dropped")
    void goBackOvertakenByAnAckOfItsMessageSendsTheNext() throws Exception {
        connect(4, WireDevicesTest.ACK_TIMEOUT);
        qp.postSend(List.of(longWrite(1, 100), write(2, 0)));
        assertEquals(PSN + 100, receive(101).getLast().psn, "the WRITE behind the long one");
        nak(PSN);
        List<Packet> again = receive(64);
        assertEquals(PSN + 63, again.getLast().psn, "sent again as far as the halved window");
        long[] before = rejects();
        ack(PSN + 99);
        Packet next = receive(1).getFirst();
        assertEquals(PSN + 100, next.psn, "the next WRITE again, once the long one is acknowledged whole");
        assertQuiet("more of the long WRITE");
        assertEquals(Map.of(), moved(before), "packets dropped, by reason");
        ack(PSN + 100);
        assertCompleted(1, 2);
    }
}
