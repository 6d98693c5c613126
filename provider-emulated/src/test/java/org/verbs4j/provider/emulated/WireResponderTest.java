package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.AccessFlags;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Gid;
import org.verbs4j.MemoryRegion;
import org.verbs4j.Mtu;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.provider.emulated.verbs.EmulatedDevice;
import org.verbs4j.provider.emulated.wire.RoceEndpoint;
import org.verbs4j.provider.emulated.wire.codec.Icrc;
import org.verbs4j.provider.emulated.wire.codec.Ipv4Udp;
import org.verbs4j.provider.emulated.wire.codec.Opcode;
import org.verbs4j.provider.emulated.wire.codec.Packet;
import org.verbs4j.tck.Completions;

/**
 * The wire device's responder seen from a requester that a test drives by hand (issue 26: tests written for the
 * survivors of mutation testing of {@code WireResponder}; tck/reports/mutation.md). A test socket (127.0.79.7) is
 * the connected requester of a QP on {@code roce0}: it sends request packets, some of them duplicates, out of
 * order or malformed, as a lossy network or a faulty peer would, and reads the answers. None of this is reachable
 * through the verbs, whose requester never sends such packets over a loopback that loses none: duplicate
 * requests (IBA 9.7.5.1.5: acknowledged again, a READ executed again, an atomic answered from its saved result
 * and never executed twice), a PSN sequence error (one NAK per expected PSN, IBA 9.7.5.1.1), the MSN of the
 * acknowledgements (IBA 9.7.5.1.6), malformed sequences (an invalid request NAK, the QP to ERR, IBA 9.7.5.2.2)
 * and a lost packet on UC (the message is dropped, the next one starts clean, IBA 9.7.5.1.2).
 *
 * <p>Every wait for an answer or a completion that should come ends at the TCK's deadline
 * ({@link Completions#timeoutMs()}: 10 s, or {@code verbs4j.tck.timeoutMs}), so that a responder that never answers
 * fails the test at that deadline: the mutation profile sets it to 3 s, below PIT's timeout, and this class is in the
 * wire layer's killing suite (tck/mutation/run).
 */
@Tag("wire")
class WireResponderTest {
    static final byte[] PEER = {127, 0, 79, 7};
    static final int PEER_QPN = 0x00cafe;
    static final int PSN = 0x300;
    static final int MTU = 1024;
    /** The wire devices' {@code max_msg_sz}: 8 MiB. */
    static final int MAX_MSG_SZ = 1 << 23;
    static final int ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;
    /** How long the peer listens for a packet that must not come, ms. */
    static final long QUIET_MS = 300;

    private final Arena arena = Arena.ofShared();
    private final Icrc icrc = new Icrc();
    private final WorkCompletionBatch wc = new WorkCompletionBatch(4);
    private EmulatedDevice roce0;
    private RoceEndpoint ep;
    private Context ctx;
    private PeerSocket peer;
    private CompletionQueue cq;
    private MemoryRegion mr;
    private QueuePair qp;

    @BeforeEach
    void open() throws IOException {
        roce0 = (EmulatedDevice) new EmulatedProvider().device("roce0");
        ep = RoceEndpoint.of(roce0);
        ctx = roce0.open();
        peer = new PeerSocket(PEER, ep.localPort, 4 << 20);
        cq = ctx.createCq(16);
        mr = ctx.allocPd().registerMemory(arena.allocate(16 * 1024, 64), ACCESS, arena);
    }

    @AfterEach
    void close() throws IOException {
        peer.close();
        ctx.close();
        arena.close();
    }

    /** The QP, connected to the peer: RC with {@code maxDestRdAtomic}, or UC; receives expected from {@link #PSN}. */
    private void connect(QpType type, int maxDestRdAtomic) {
        qp = mr.pd().createQp(QpInitAttributes.builder(type).cq(cq).maxSendWr(4).maxRecvWr(8).build());
        qp.modify(QpAttributes.toInit(1, 0, ACCESS & ~AccessFlags.LOCAL_WRITE));
        AhAttributes av = AhAttributes.roce(Gid.ofIpv4(PEER), 1, 1);
        qp.modify(type == QpType.UC ? QpAttributes.toRtrUc(av, Mtu.MTU_1024, PEER_QPN, PSN)
                : QpAttributes.toRtr(av, Mtu.MTU_1024, PEER_QPN, PSN, maxDestRdAtomic, 1));
    }

    /** {@code q}, in RESET, to RTR again, connected to the peer, receives expected from {@link #PSN}. */
    private static void connect(QueuePair q, int maxDestRdAtomic) {
        q.modify(QpAttributes.toInit(1, 0, ACCESS & ~AccessFlags.LOCAL_WRITE));
        q.modify(QpAttributes.toRtr(AhAttributes.roce(Gid.ofIpv4(PEER), 1, 1), Mtu.MTU_1024, PEER_QPN, PSN,
                maxDestRdAtomic, 1));
    }

    private static int ipv4(byte[] a) {
        return (a[0] & 0xff) << 24 | (a[1] & 0xff) << 16 | (a[2] & 0xff) << 8 | a[3] & 0xff;
    }

    /** Sends a request packet to the QP: {@code operation} at {@code psn}, AckReq set, {@code fields} filled in. */
    private void request(int operation, int psn, int payload, Consumer<Packet> fields) throws IOException {
        Packet h = new Packet();
        h.opcode = (qp.type() == QpType.UC ? Opcode.UC : Opcode.RC) | operation;
        h.destQpn = qp.qpNum();
        h.psn = psn & Packet.MASK_24;
        h.ackReq = true;
        h.payloadLength = payload;
        fields.accept(h);
        ByteBuffer p = ByteBuffer.allocate(RoceEndpoint.MAX_PACKET);
        int off = h.writeHeaders(p);
        for (int i = 0; i < payload; i++) {
            p.put(off + i, (byte) (psn + i));
        }
        int len = h.seal(p, icrc, new Ipv4Udp().set(ipv4(PEER), ep.localPort, ep.localAddr, ep.localPort));
        peer.send(p.position(0).limit(len), new InetSocketAddress(ep.local.getAddress(), ep.localPort));
    }

    private void send(int operation, int psn, int payload) throws IOException {
        request(operation, psn, payload, h -> { });
    }

    private void fetchAdd(int psn, long add) throws IOException {
        request(Opcode.FETCH_ADD, psn, 0, h -> {
            h.va = mr.address();
            h.rkey = mr.rkey();
            h.swapAdd = add;
        });
    }

    private void read(int psn, long offset, int length) throws IOException {
        request(Opcode.RDMA_READ_REQUEST, psn, 0, h -> {
            h.va = mr.address() + offset;
            h.rkey = mr.rkey();
            h.dmaLength = length;
        });
    }

    /** The next answer at the peer, parsed (the ICRC checked), within {@link Completions#timeoutMs()}. */
    private Packet answer() throws Exception {
        ByteBuffer b = peer.nextWithin(Completions.timeoutMs());
        if (b == null) {
            throw new AssertionError("no answer at the peer in " + Completions.timeoutMs() + " ms");
        }
        Packet p = new Packet();
        Ipv4Udp ip = new Ipv4Udp().set(ep.localAddr, ep.localPort, ipv4(PEER), ep.localPort);
        assertNull(p.parse(b, b.position(), icrc, ip), "an answer that does not parse");
        assertEquals(PEER_QPN, p.destQpn);
        return p;
    }

    /** The next answer: {@code operation} for {@code psn} with AETH syndrome {@code syndrome}. */
    private Packet expect(int operation, int psn, int syndrome, String what) throws Exception {
        Packet p = answer();
        assertEquals(Opcode.RC | operation, p.opcode, what + ": " + p);
        assertEquals(psn & Packet.MASK_24, p.psn, what + ": the PSN answered, " + p);
        assertEquals(syndrome, p.syndrome, what + ": the AETH syndrome, " + p);
        return p;
    }

    private Packet expectAck(int psn, String what) throws Exception {
        return expect(Opcode.ACKNOWLEDGE, psn, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, what);
    }

    private Packet expectAtomic(int psn, long original, String what) throws Exception {
        Packet p = expect(Opcode.ATOMIC_ACKNOWLEDGE, psn, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, what);
        assertEquals(original, p.origRemoteData, what + ": the original value");
        return p;
    }

    private void assertQuiet(String why) throws Exception {
        Packet p = peer.packetWithin(QUIET_MS);
        if (p != null) {
            throw new AssertionError(why + ": " + p);
        }
    }

    private long counter() {
        return mr.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }

    /** Posts a receive of {@code length} bytes at {@code offset} of the region. */
    private void recv(long wrId, long offset, int length) {
        qp.postRecv(new RecvWr(wrId, Sge.of(mr, offset, length)));
    }

    /** Polls one receive completion ({@link Completions#timeoutMs()} at most): its WR id, SUCCESS and byte count. */
    private void assertReceived(long wrId, int byteLen) throws Exception {
        long deadline = System.nanoTime() + Completions.timeoutMs() * 1_000_000L;
        while (cq.poll(wc) == 0) {
            assertTrue(System.nanoTime() < deadline, "no receive completion in " + Completions.timeoutMs() + " ms");
            Thread.sleep(1);
        }
        assertEquals(wrId, wc.wrId(0), "the receive that completes");
        assertEquals(WcStatus.SUCCESS, wc.status(0), "receive " + wrId);
        assertEquals(byteLen, wc.byteLen(0), "receive " + wrId + "'s byte count");
    }

    private void assertNoCompletion(String why) throws Exception {
        Thread.sleep(50);
        assertEquals(0, cq.poll(wc), why);
    }

    @Test
    @DisplayName("A duplicate atomic among the last max_dest_rd_atomic is answered from its saved result and not "
            + "executed again; an older one is not answered (IBA 9.7.5.1.5, rxe's responder resources)")
    void duplicateAtomicIsAnsweredFromItsSavedResult() throws Exception {
        connect(QpType.RC, 2);
        fetchAdd(PSN, 5);
        assertEquals(1, expectAtomic(PSN, 0, "the fetch-add").msn, "MSN of the atomic acknowledge");
        fetchAdd(PSN, 5);
        expectAtomic(PSN, 0, "the same fetch-add again (a lost answer)");
        assertEquals(5, counter(), "a duplicate atomic executed again");
        fetchAdd(PSN + 1, 5);
        expectAtomic(PSN + 1, 5, "the second fetch-add");
        fetchAdd(PSN + 2, 5);
        expectAtomic(PSN + 2, 10, "the third fetch-add");
        fetchAdd(PSN + 1, 5);
        expectAtomic(PSN + 1, 5, "the second again, one of the last two");
        fetchAdd(PSN + 2, 5);
        expectAtomic(PSN + 2, 10, "the third again");
        fetchAdd(PSN, 5);
        assertQuiet("the first again, older than the last max_dest_rd_atomic (2)");
        assertEquals(15, counter(), "each fetch-add executed once");
    }

    @Test
    @DisplayName("A duplicate SEND is acknowledged again without a second receive; a duplicate READ is executed "
            + "again and moves no expected PSN; the MSN of the answers counts the messages done")
    void duplicateSendAndReadAreAnsweredAgain() throws Exception {
        connect(QpType.RC, 2);
        recv(1, 4096, 64);
        recv(2, 8192, 64);
        send(Opcode.SEND_ONLY, PSN, 16);
        assertEquals(1, expectAck(PSN, "the SEND").msn, "MSN: one message done");
        assertReceived(1, 16);
        send(Opcode.SEND_ONLY, PSN, 16);
        assertEquals(1, expectAck(PSN, "the SEND again").msn, "MSN: a duplicate is no new message");
        assertNoCompletion("a duplicate SEND consumed a receive");
        mr.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 64, 0x1111L);
        mr.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 72, 0x2222L);
        read(PSN + 1, 64, 8);
        Packet r = expect(Opcode.RDMA_READ_RESPONSE_ONLY, PSN + 1, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED,
                "the first READ");
        assertEquals(2, r.msn, "MSN of a READ response: the READ is the second message");
        read(PSN + 2, 72, 8);
        expect(Opcode.RDMA_READ_RESPONSE_ONLY, PSN + 2, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED,
                "the second READ");
        mr.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 64, 0x3333L);
        read(PSN + 1, 64, 8);
        Packet again = expect(Opcode.RDMA_READ_RESPONSE_ONLY, PSN + 1,
                Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, "the first READ again");
        assertEquals(8, again.payloadLength, "the repeated READ's response length");
        // The next new request is at PSN + 3: the repeated READ did not move the expected PSN back.
        send(Opcode.SEND_ONLY, PSN + 3, 24);
        assertEquals(4, expectAck(PSN + 3, "the next SEND after the repeated READ").msn, "MSN: four messages");
        assertReceived(2, 24);
    }

    @Test
    @DisplayName("A request past the expected PSN gets one PSN sequence error NAK naming the expected PSN, and no "
            + "second one until a request at the expected PSN is taken (IBA 9.7.5.1.1)")
    void psnAheadIsNakedOnce() throws Exception {
        connect(QpType.RC, 2);
        recv(1, 0, 64);
        recv(2, 64, 64);
        int seqNak = Packet.AETH_NAK | Packet.NAK_PSN_SEQUENCE_ERROR;
        send(Opcode.SEND_ONLY, PSN + 1, 8);
        expect(Opcode.ACKNOWLEDGE, PSN, seqNak, "a SEND one PSN ahead");
        send(Opcode.SEND_ONLY, PSN + 2, 8);
        assertQuiet("a second NAK for the same expected PSN");
        assertNoCompletion("a SEND ahead of the expected PSN was taken");
        send(Opcode.SEND_ONLY, PSN, 32);
        expectAck(PSN, "the SEND at the expected PSN");
        assertReceived(1, 32);
        send(Opcode.SEND_ONLY, PSN + 2, 8);
        expect(Opcode.ACKNOWLEDGE, PSN + 1, seqNak, "ahead again, after a request was taken");
        assertEquals(QpState.RTR, qp.state(), "a PSN sequence error leaves the QP as it was");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"MIDDLE without FIRST", "ONLY inside a message", "short FIRST", "ONLY past the MTU",
        "WRITE continued by SEND", "WRITE shorter than its RETH", "FLUSH", "ATOMIC_WRITE", "WRITE past max_msg_sz",
        "READ past max_msg_sz"})
    @DisplayName("A malformed request sequence (IBA 9.7.5.2.2; rxe does the same), an operation the device does not "
            + "offer (FLUSH, ATOMIC_WRITE) or a RETH longer than max_msg_sz gets an invalid request NAK and moves the "
            + "QP to ERR")
    void malformedSequenceIsAnInvalidRequest(String fault) throws Exception {
        connect(QpType.RC, 2);
        recv(1, 0, 4096);
        int psn = PSN;
        // A WRITE whose RETH names MTU + 8 bytes: a FIRST and an 8-byte LAST would complete it.
        Consumer<Packet> write = h -> {
            h.va = mr.address();
            h.rkey = mr.rkey();
            h.dmaLength = MTU + 8;
        };
        switch (fault) {
            case "MIDDLE without FIRST" -> send(Opcode.SEND_MIDDLE, psn, MTU);
            case "ONLY inside a message" -> {
                send(Opcode.SEND_FIRST, psn++, MTU);
                send(Opcode.SEND_ONLY, psn, 8);
            }
            case "short FIRST" -> send(Opcode.SEND_FIRST, psn, MTU - 4);
            case "ONLY past the MTU" -> send(Opcode.SEND_ONLY, psn, MTU + 4);
            case "WRITE continued by SEND" -> {
                request(Opcode.RDMA_WRITE_FIRST, psn++, MTU, write);
                send(Opcode.SEND_LAST, psn, 8);
            }
            case "WRITE shorter than its RETH" -> request(Opcode.RDMA_WRITE_ONLY, psn, 8, write);
            // Operations the wire device does not offer (its requester never sends them).
            case "FLUSH" -> request(Opcode.FLUSH, psn, 0, h -> {
                write.accept(h);
                h.dmaLength = 8;
            });
            case "ATOMIC_WRITE" -> request(Opcode.ATOMIC_WRITE, psn, 8, h -> {
                write.accept(h);
                h.dmaLength = 8;
            });
            // A RETH past the wire devices' max_msg_sz (8 MiB), which the requester refuses at the post: an invalid
            // request, not the remote access error that the region's range would give.
            case "WRITE past max_msg_sz" -> request(Opcode.RDMA_WRITE_FIRST, psn, MTU, h -> {
                write.accept(h);
                h.dmaLength = MAX_MSG_SZ + 1;
            });
            case "READ past max_msg_sz" -> request(Opcode.RDMA_READ_REQUEST, psn, 0, h -> {
                write.accept(h);
                h.dmaLength = MAX_MSG_SZ + 1;
            });
            default -> throw new AssertionError(fault);
        }
        Packet p = answer();
        if (p.psn != (psn & Packet.MASK_24)) {
            // The ACK a FIRST asked for comes first.
            assertEquals(Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, p.syndrome, fault + ": " + p);
            p = answer();
        }
        assertEquals(Opcode.RC | Opcode.ACKNOWLEDGE, p.opcode, fault + ": " + p);
        assertEquals(psn & Packet.MASK_24, p.psn, fault + ": the NAK names the bad packet, " + p);
        assertEquals(Packet.AETH_NAK | Packet.NAK_INVALID_REQUEST, p.syndrome, fault + ": " + p);
        assertEquals(QpState.ERR, qp.state(), fault + ": the QP after an invalid request");
        send(Opcode.SEND_ONLY, psn + 5, 8);
        assertQuiet(fault + ": a QP in ERR answered a request");
    }

    @Test
    @DisplayName("UC: a message that lost a packet is dropped, and the next message, at a later PSN, is received "
            + "whole (IBA 9.7.5.1.2)")
    void ucLossDropsTheMessage() throws Exception {
        connect(QpType.UC, 0);
        recv(1, 0, 4096);
        send(Opcode.SEND_FIRST, PSN, MTU);
        // PSN + 1, the MIDDLE, is lost.
        send(Opcode.SEND_LAST, PSN + 2, 100);
        send(Opcode.SEND_ONLY, PSN + 3, 40);
        assertReceived(1, 40);
        assertNoCompletion("the message that lost its MIDDLE completed");
        recv(2, 4096, 4096);
        send(Opcode.SEND_FIRST, PSN + 4, MTU);
        send(Opcode.SEND_LAST, PSN + 5, 8);
        assertReceived(2, MTU + 8);
        assertQuiet("UC answers nothing");
    }

    @Test
    @DisplayName("Requests from another address than the connected peer's, or of another transport than the QP's, "
            + "are dropped unanswered (IBA 9.6.1: the BTH's transport and the source must match the QP)")
    void foreignRequestsAreDropped() throws Exception {
        connect(QpType.RC, 2);
        recv(1, 0, 64);
        try (DatagramChannel other = DatagramChannel.open(StandardProtocolFamily.INET)) {
            byte[] foreign = {127, 0, 79, 8};
            other.bind(new InetSocketAddress(InetAddress.getByAddress(foreign), 0));
            Packet h = new Packet();
            h.opcode = Opcode.RC | Opcode.SEND_ONLY;
            h.destQpn = qp.qpNum();
            h.psn = PSN;
            h.ackReq = true;
            h.payloadLength = 8;
            ByteBuffer p = ByteBuffer.allocate(256);
            h.writeHeaders(p);
            // Sealed for its real source port: a packet whose ICRC does not check is dropped before the QP sees it.
            int port = ((InetSocketAddress) other.getLocalAddress()).getPort();
            int len = h.seal(p, icrc, new Ipv4Udp().set(ipv4(foreign), port, ep.localAddr, ep.localPort));
            other.send(p.position(0).limit(len), new InetSocketAddress(ep.local.getAddress(), ep.localPort));
        }
        request(Opcode.SEND_ONLY, PSN, 8, h -> h.opcode = Opcode.UC | Opcode.SEND_ONLY);
        assertQuiet("a request from a foreign address or of another transport was answered");
        assertNoCompletion("a request from a foreign address or of another transport was received");
        send(Opcode.SEND_ONLY, PSN, 16);
        expectAck(PSN, "the peer's SEND at the expected PSN");
        assertReceived(1, 16);
    }

    @Test
    @DisplayName("A modify that does not name RQ_PSN keeps the expected PSN, the MSN and the saved atomics; a reset "
            + "starts them over (ibv_modify_qp(3): rq_psn only with IBV_QP_RQ_PSN)")
    void modifyKeepsTheResponderStateAndResetClearsIt() throws Exception {
        connect(QpType.RC, 2);
        recv(1, 1024, 64);
        fetchAdd(PSN, 3);
        expectAtomic(PSN, 0, "the fetch-add");
        qp.modify(QpAttributes.toRts(0, 14, 7, 7, 2));
        fetchAdd(PSN, 3);
        expectAtomic(PSN, 0, "the fetch-add again after RTR to RTS: answered from its saved result");
        send(Opcode.SEND_ONLY, PSN + 1, 16);
        assertEquals(2, expectAck(PSN + 1, "a SEND after RTR to RTS").msn, "MSN: two messages");
        assertReceived(1, 16);
        assertEquals(3, counter(), "the fetch-add executed once");
        qp.modify(QpAttributes.toState(QpState.RESET));
        connect(qp, 2);
        recv(2, 2048, 64);
        send(Opcode.SEND_ONLY, PSN, 16);
        assertEquals(1, expectAck(PSN, "the first SEND after a reset").msn, "MSN after a reset: one message");
        assertReceived(2, 16);
        // A fetch-add at PSN, the SEND's: a duplicate, and the atomic saved at PSN before the reset is gone.
        fetchAdd(PSN, 3);
        assertQuiet("a duplicate answered from an atomic saved before the reset");
        assertEquals(3, counter(), "the duplicate executed");
    }

    @Test
    @DisplayName("A READ of 2.5 MTUs is answered READ_RESPONSE FIRST, MIDDLE, LAST at consecutive PSNs, cut by the "
            + "path MTU, each with the READ's MSN; the next request is expected after the last (IBA 9.7.5.1.3)")
    void longReadIsAnsweredFirstMiddleLast() throws Exception {
        connect(QpType.RC, 2);
        recv(1, 0, 64);
        int length = 2 * MTU + MTU / 2;
        read(PSN, 4096, length);
        int[] ops = {Opcode.RDMA_READ_RESPONSE_FIRST, Opcode.RDMA_READ_RESPONSE_MIDDLE, Opcode.RDMA_READ_RESPONSE_LAST};
        for (int i = 0; i < 3; i++) {
            Packet r = answer();
            assertEquals(Opcode.RC | ops[i], r.opcode, "response packet " + i + ": " + r);
            assertEquals(PSN + i, r.psn, "response packet " + i + "'s PSN");
            assertEquals(i < 2 ? MTU : MTU / 2, r.payloadLength, "response packet " + i + "'s length");
            if (i != 1) {
                // MIDDLE carries no AETH.
                assertEquals(1, r.msn, "response packet " + i + "'s MSN: the READ is the first message");
            }
        }
        send(Opcode.SEND_ONLY, PSN + 3, 8);
        assertEquals(2, expectAck(PSN + 3, "the SEND after the READ").msn, "MSN: two messages");
        assertReceived(1, 8);
    }

    @Test
    @DisplayName("A multi-packet SEND whose last packet finds no receive gets an RNR NAK for that packet with the "
            + "QP's min_rnr_timer; the last packet sent again completes the whole message (IBA 9.7.5.2.8)")
    void rnrNakForTheLastPacketKeepsTheMessage() throws Exception {
        connect(QpType.RC, 2);
        send(Opcode.SEND_FIRST, PSN, MTU);
        expectAck(PSN, "the SEND's first packet");
        send(Opcode.SEND_LAST, PSN + 1, 100);
        expect(Opcode.ACKNOWLEDGE, PSN + 1, Packet.AETH_RNR_NAK | 1, "the last packet without a receive");
        recv(1, 0, 4096);
        send(Opcode.SEND_LAST, PSN + 1, 100);
        assertEquals(1, expectAck(PSN + 1, "the last packet again").msn, "MSN: one message");
        assertReceived(1, MTU + 100);
    }
}
