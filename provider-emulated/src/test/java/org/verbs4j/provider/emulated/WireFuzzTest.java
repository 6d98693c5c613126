package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Gid;
import org.verbs4j.MemoryRegion;
import org.verbs4j.Mtu;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.emulated.verbs.EmulatedDevice;
import org.verbs4j.provider.emulated.wire.RoceEndpoint;
import org.verbs4j.provider.emulated.wire.WireTransport;
import org.verbs4j.provider.emulated.wire.codec.Icrc;
import org.verbs4j.provider.emulated.wire.codec.Ipv4Udp;
import org.verbs4j.provider.emulated.wire.codec.Opcode;
import org.verbs4j.provider.emulated.wire.codec.Packet;
import org.verbs4j.provider.emulated.wire.codec.Reject;

/**
 * A seeded fuzz test of the wire devices' receive path, against live QPs. A test socket (the "fuzzer", on
 * 127.0.79.4) is the connected peer of RC, UC and UD QPs on {@code roce1} (the victims) and of RC QPs on
 * {@code roce0} that each sent it one real request (the capture QPs, whose WRs stay in flight). It then sends
 * random datagrams and mutations of the captured packets at them: truncated, with other opcodes, huge RETH
 * lengths, foreign QPNs, bad Q_Keys, wrong PSNs, replays, forged responses; the ICRC broken, or recomputed after
 * the mutation so that the packet passes it and meets the deeper checks. A second socket (127.0.79.5) sends the
 * same packets from an address no QP is connected to. Every registered region has 64 canary bytes on each side.
 *
 * <p>Afterwards: the canaries are intact, a read-only region is unchanged, every random datagram and more was
 * dropped and counted (by reason), a real RC pair between the two devices still moves data, and each victim
 * either still works (a valid WRITE or datagram from the fuzzer lands) or is in ERR, where a malformed RC request
 * leaves it, as in rxe. The seed is {@code -Dverbs4j.fuzz.seed}, the packet count {@code -Dverbs4j.fuzz.packets}.
 */
@Tag("wire")
class WireFuzzTest {
    static final long SEED = Long.getLong("verbs4j.fuzz.seed", 0x5eedf022L);
    static final int PACKETS = Integer.getInteger("verbs4j.fuzz.packets", 12_000);
    static final int CANARY = 64;
    static final int REGION = 8192;
    static final byte CANARY_BYTE = (byte) 0xa5;
    static final int ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;
    static final int QKEY = 0x1234;
    static final int FUZZER_QPN = 0x00f00d;
    static final int RQ_PSN = 0x100;
    static final byte[] FUZZER = {127, 0, 79, 4};
    static final byte[] STRANGER = {127, 0, 79, 5};

    private final Arena arena = Arena.ofShared();
    private final List<MemorySegment> guarded = new ArrayList<>();
    private final Icrc icrc = new Icrc();
    private final WorkCompletionBatch wc = new WorkCompletionBatch(64);
    private Context ctxA;
    private Context ctxB;
    private EmulatedDevice roce0;
    private EmulatedDevice roce1;
    private int port;
    private DatagramChannel fuzzer;
    private DatagramChannel stranger;

    @BeforeEach
    void open() throws IOException {
        roce0 = (EmulatedDevice) new EmulatedProvider().device("roce0");
        roce1 = (EmulatedDevice) new EmulatedProvider().device("roce1");
        port = RoceEndpoint.of(roce1).localPort;
        ctxA = roce0.open();
        ctxB = roce1.open();
        fuzzer = bind(FUZZER);
        stranger = bind(STRANGER);
    }

    private DatagramChannel bind(byte[] addr) throws IOException {
        DatagramChannel ch = DatagramChannel.open(java.net.StandardProtocolFamily.INET);
        // A window's worth of packets arrives at once.
        ch.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4 << 20);
        ch.bind(new InetSocketAddress(java.net.InetAddress.getByAddress(addr), port));
        ch.configureBlocking(false);
        return ch;
    }

    @AfterEach
    void close() throws IOException {
        fuzzer.close();
        stranger.close();
        ctxA.close();
        ctxB.close();
        arena.close();
    }

    /** A region of {@link #REGION} bytes with {@link #CANARY} canary bytes on each side, outside the region. */
    private MemoryRegion guardedRegion(ProtectionDomain pd, int access, long seed) {
        MemorySegment all = arena.allocate(CANARY + REGION + CANARY, 64);
        all.fill(CANARY_BYTE);
        MemorySegment inside = all.asSlice(CANARY, REGION);
        fill(inside, seed);
        guarded.add(all);
        return pd.registerMemory(inside, access, arena);
    }

    private static void fill(MemorySegment s, long seed) {
        Random r = new Random(seed);
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
    }

    private static QueuePair qp(ProtectionDomain pd, CompletionQueue cq, QpType type) {
        return pd.createQp(QpInitAttributes.builder(type).cq(cq).maxSendWr(16).maxRecvWr(64).build());
    }

    private static void connect(QueuePair q, Gid peer, int peerQpn, int timeout) {
        switch (q.type()) {
            case RC -> {
                q.modify(QpAttributes.toInit(1, 0, ACCESS & ~AccessFlags.LOCAL_WRITE));
                q.modify(QpAttributes.toRtr(AhAttributes.roce(peer, 1, 1), Mtu.MTU_1024, peerQpn, RQ_PSN, 4, 1));
                q.modify(QpAttributes.toRts(RQ_PSN, timeout, 7, 7, 4));
            }
            case UC -> {
                q.modify(QpAttributes.toInit(1, 0, AccessFlags.REMOTE_WRITE));
                q.modify(QpAttributes.toRtrUc(AhAttributes.roce(peer, 1, 1), Mtu.MTU_1024, peerQpn, RQ_PSN));
                q.modify(QpAttributes.toRtsUnreliable(RQ_PSN));
            }
            default -> {
                q.modify(QpAttributes.toInitUd(1, 0, QKEY));
                q.modify(QpAttributes.toState(QpState.RTR));
                q.modify(QpAttributes.toRtsUnreliable(RQ_PSN));
            }
        }
    }

    private long drops(EmulatedDevice d) {
        long n = 0;
        for (Reject r : Reject.values()) {
            n += RoceEndpoint.of(d).rejected(r);
        }
        return n;
    }

    private Map<Reject, Long> counts(EmulatedDevice d) {
        Map<Reject, Long> m = new EnumMap<>(Reject.class);
        for (Reject r : Reject.values()) {
            m.put(r, RoceEndpoint.of(d).rejected(r));
        }
        return m;
    }

    @Test
    @DisplayName("Random and mutated packets at live RC, UC and UD QPs are dropped and counted, never executed "
            + "outside the rules; canaries hold and the QPs still work or are in ERR")
    void fuzz() throws Exception {
        Gid fuzzerGid = Gid.ofIpv4(FUZZER);
        ProtectionDomain pdA = ctxA.allocPd();
        ProtectionDomain pdB = ctxB.allocPd();
        CompletionQueue cqA = ctxA.createCq(4096);
        CompletionQueue cqB = ctxB.createCq(4096);
        MemoryRegion mrA = guardedRegion(pdA, ACCESS, 1);
        MemoryRegion mrB = guardedRegion(pdB, ACCESS, 2);
        MemoryRegion readOnlyB = guardedRegion(pdB, AccessFlags.REMOTE_READ, 3);
        MemorySegment readOnlyCopy = arena.allocate(REGION);
        readOnlyCopy.copyFrom(readOnlyB.segment());

        // The victims: roce1's QPs whose peer is the fuzzer.
        QueuePair vRc = qp(pdB, cqB, QpType.RC);
        QueuePair vUc = qp(pdB, cqB, QpType.UC);
        QueuePair vUd = qp(pdB, cqB, QpType.UD);
        connect(vRc, fuzzerGid, FUZZER_QPN, 14);
        connect(vUc, fuzzerGid, FUZZER_QPN, 0);
        connect(vUd, null, 0, 0);
        for (int i = 0; i < 16; i++) {
            vUd.postRecv(new RecvWr(i, Sge.of(mrB, 0, 2048)));
        }
        // A real pair between the devices, which the packets also aim at.
        QueuePair rA = qp(pdA, cqA, QpType.RC);
        QueuePair rB = qp(pdB, cqB, QpType.RC);
        connect(rA, ctxB.queryGid(1, 1), rB.qpNum(), WireDevicesTest.ACK_TIMEOUT);
        connect(rB, ctxA.queryGid(1, 1), rA.qpNum(), WireDevicesTest.ACK_TIMEOUT);

        // The capture QPs: one real request each to the fuzzer, which never answers them properly.
        List<ByteBuffer> captured = new ArrayList<>();
        List<QueuePair> capture = new ArrayList<>();
        long remote = mrB.address();
        SendWr[] wrs = {
            new SendWr().opcode(WrOpcode.RDMA_WRITE).rdma(remote, mrB.rkey()).sgList(Sge.of(mrA, 0, 100)),
            new SendWr().opcode(WrOpcode.RDMA_WRITE).rdma(remote, mrB.rkey()).sgList(Sge.of(mrA, 0, 3000)),
            new SendWr().opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(7).rdma(remote, mrB.rkey())
                    .sgList(Sge.of(mrA, 0, 64)),
            new SendWr().opcode(WrOpcode.SEND).sgList(Sge.of(mrA, 0, 2500)),
            new SendWr().opcode(WrOpcode.SEND_WITH_IMM).immData(9).sgList(Sge.of(mrA, 0, 16)),
            new SendWr().opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(mrB.rkey()).sgList(Sge.of(mrA, 0, 16)),
            new SendWr().opcode(WrOpcode.RDMA_READ).rdma(remote, mrB.rkey()).sgList(Sge.of(mrA, 0, 3000)),
            new SendWr().opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).atomic(remote, 1, 0, mrB.rkey())
                    .sgList(Sge.of(mrA, 0, 8)),
            new SendWr().opcode(WrOpcode.ATOMIC_CMP_AND_SWP).atomic(remote + 8, 0, 5, mrB.rkey())
                    .sgList(Sge.of(mrA, 8, 8)),
        };
        for (int i = 0; i < wrs.length; i++) {
            QueuePair c = qp(pdA, cqA, QpType.RC);
            connect(c, fuzzerGid, FUZZER_QPN, 0);
            c.postSend(wrs[i].wrId(100 + i).sendFlags(SendFlags.SIGNALED));
            capture.add(c);
        }
        QueuePair cUc = qp(pdA, cqA, QpType.UC);
        connect(cUc, fuzzerGid, FUZZER_QPN, 0);
        cUc.postSend(new SendWr().wrId(200).opcode(WrOpcode.RDMA_WRITE).rdma(remote, mrB.rkey())
                .sgList(Sge.of(mrA, 0, 1500)));
        cUc.postSend(new SendWr().wrId(201).opcode(WrOpcode.SEND).sgList(Sge.of(mrA, 0, 40)));
        QueuePair cUd = qp(pdA, cqA, QpType.UD);
        connect(cUd, null, 0, 0);
        cUd.postSend(new SendWr().wrId(202).opcode(WrOpcode.SEND).sgList(Sge.of(mrA, 0, 200))
                .ud(pdA.createAh(AhAttributes.roce(fuzzerGid, 1, 1)), vUd.qpNum(), QKEY));
        // RC: 1 + 3 + 1 + 3 + 1 + 1 + 1 + 1 + 1 request packets (MTU 1024); UC: 2 + 1; UD: 1.
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (captured.size() < 17 && System.nanoTime() < deadline) {
            ByteBuffer b = ByteBuffer.allocate(4200);
            if (fuzzer.receive(b) != null) {
                b.flip();
                captured.add(b);
            } else {
                Thread.sleep(1);
            }
        }
        assertEquals(17, captured.size(), "the capture QPs' request packets reached the fuzzer");

        Map<Reject, Long> before0 = counts(roce0);
        Map<Reject, Long> before1 = counts(roce1);
        long drops0 = drops(roce0);
        long drops1 = drops(roce1);
        Random rnd = new Random(SEED);
        int[] victimQpns = {vRc.qpNum(), vUc.qpNum(), vUd.qpNum(), rB.qpNum()};
        int[] requesterQpns = capture.stream().mapToInt(QueuePair::qpNum).toArray();
        List<ByteBuffer> sent = new ArrayList<>();
        int random = 0;
        int rcResets = 0;
        ByteBuffer p = ByteBuffer.allocate(8192);
        for (int n = 0; n < PACKETS; n++) {
            int kind = rnd.nextInt(10);
            boolean toB = true;
            int length;
            if (kind == 0) {
                // Random bytes: dropped, whatever they say.
                length = rnd.nextInt(1600);
                byte[] junk = new byte[length];
                rnd.nextBytes(junk);
                p.clear();
                p.put(junk);
                random++;
                send(p, length, rnd.nextBoolean() ? roce1 : roce0, rnd.nextInt(4) == 0 ? stranger : fuzzer);
                continue;
            } else if (kind == 1 && !sent.isEmpty()) {
                // A replay, byte for byte.
                ByteBuffer old = sent.get(rnd.nextInt(sent.size()));
                p.clear();
                p.put(old.duplicate());
                send(p, old.limit(), roce1, fuzzer);
                continue;
            } else if (kind == 2) {
                toB = false;
                length = forgedResponse(p, rnd, requesterQpns);
            } else {
                length = mutatedRequest(p, rnd, captured, victimQpns, mrB, readOnlyB);
            }
            int icrcChoice = rnd.nextInt(8);
            EmulatedDevice to = toB ? roce1 : roce0;
            boolean fromStranger = rnd.nextInt(16) == 0;
            if (icrcChoice > 0 && length >= Opcode.BTH_BYTES + Opcode.ICRC_BYTES) {
                Ipv4Udp ip = new Ipv4Udp().set(ipv4(fromStranger ? STRANGER : FUZZER), port, RoceEndpoint.of(to).localAddr, port);
                icrc.write(p, length, ip);
            }
            if (icrcChoice == 1) {
                // Truncated after the ICRC was computed over the whole.
                length = rnd.nextInt(length + 1);
            }
            ByteBuffer copy = ByteBuffer.allocate(length);
            copy.put(p.duplicate().position(0).limit(length)).flip();
            if (sent.size() < 512) {
                sent.add(copy);
            } else {
                sent.set(rnd.nextInt(512), copy);
            }
            send(p, length, to, fromStranger ? stranger : fuzzer);
            if ((n & 63) == 0) {
                drain();
                if (vRc.state() == QpState.ERR) {
                    // A malformed request moved it to ERR (as rxe does); back to RTS, so that the packets after
                    // this meet the deeper checks again.
                    vRc.modify(QpAttributes.toState(QpState.RESET));
                    connect(vRc, fuzzerGid, FUZZER_QPN, 14);
                    rcResets++;
                }
                // Lets the receive threads keep up, so that the kernel drops nothing for want of buffer space.
                Thread.sleep(1);
            }
        }
        // The receive threads count on their own time.
        deadline = System.nanoTime() + 10_000_000_000L;
        while ((drops(roce1) - drops1) + (drops(roce0) - drops0) < random && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Thread.sleep(200);
        drain();

        for (MemorySegment g : guarded) {
            for (int i = 0; i < CANARY; i++) {
                assertEquals(CANARY_BYTE, g.get(ValueLayout.JAVA_BYTE, i), "canary before a region, byte " + i);
                assertEquals(CANARY_BYTE, g.get(ValueLayout.JAVA_BYTE, CANARY + REGION + i),
                        "canary after a region, byte " + i);
            }
        }
        assertEquals(-1, readOnlyB.segment().mismatch(readOnlyCopy), "nothing wrote the read-only region");
        long dropped = drops(roce1) - drops1 + drops(roce0) - drops0;
        assertTrue(dropped >= random, "dropped and counted: " + dropped + ", random datagrams: " + random);
        System.out.printf("WireFuzzTest seed 0x%x: %d packets (%d random), %d dropped and counted; the RC victim "
                + "went to ERR and was reset %d times%nroce1 %s%nroce0 %s%n", SEED, PACKETS, random, dropped,
                rcResets, diff(before1, counts(roce1)), diff(before0, counts(roce0)));
        Map<Reject, Long> after1 = counts(roce1);
        Map<Reject, Long> after0 = counts(roce0);
        for (Reject r : new Reject[] {Reject.TRUNCATED, Reject.BAD_OPCODE, Reject.BAD_ICRC, Reject.UNKNOWN_QP,
            Reject.BAD_QKEY, Reject.FOREIGN_SOURCE, Reject.BAD_LENGTH, Reject.BAD_PSN}) {
            assertTrue(after1.get(r) > before1.get(r), "roce1 counted " + r + ": " + after1 + " was " + before1);
        }
        for (Reject r : new Reject[] {Reject.BAD_PSN, Reject.FOREIGN_SOURCE}) {
            assertTrue(after0.get(r) > before0.get(r), "roce0 counted forged responses as " + r + ": " + after0);
        }

        // The real pair still works.
        while (cqB.poll(wc) > 0) {
            // the victims' completions of the fuzzer's valid datagrams and messages
        }
        for (MemorySegment g : guarded) {
            g.asSlice(CANARY, REGION).fill((byte) 0);
        }
        mrA.segment().asSlice(0, 256).fill((byte) 0x3c);
        rA.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .rdma(mrB.address() + 4096, mrB.rkey()).sgList(Sge.of(mrA, 0, 256)));
        assertEquals(WcStatus.SUCCESS, awaitWrId(cqA, 1), "the real pair's WRITE after the fuzz");
        assertEquals(-1, mrB.segment().asSlice(4096, 256).mismatch(mrA.segment().asSlice(0, 256)));

        // Each victim works, or is in ERR.
        assertVictimRc(vRc, mrB);
        assertVictimUc(vUc, mrB);
        assertVictimUd(vUd, cqB, mrB);
    }

    @Test
    @DisplayName("An ACK from the connected peer for a packet not yet sent is dropped; the WRITE completes only "
            + "when its real last packet is acknowledged")
    void ackForAnUnsentPacketIsDropped() throws Exception {
        ProtectionDomain pdA = ctxA.allocPd();
        CompletionQueue cqA = ctxA.createCq(16);
        int window = WireTransport.WINDOW;
        MemoryRegion mrA = pdA.registerMemory(arena.allocate(2 * window * 1024, 64), ACCESS, arena);
        QueuePair q = qp(pdA, cqA, QpType.RC);
        connect(q, Gid.ofIpv4(FUZZER), FUZZER_QPN, 0);
        // At MTU 1024, twice the window's packets, of which the window lets half go before an ACK.
        q.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .rdma(0x1000, 0x77).sgList(Sge.of(mrA, 0, 2 * window * 1024)));
        receivePackets(window);
        long badPsn = RoceEndpoint.of(roce0).rejected(Reject.BAD_PSN);
        ack(q.qpNum(), RQ_PSN + 2 * window - 1);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (RoceEndpoint.of(roce0).rejected(Reject.BAD_PSN) == badPsn && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(badPsn + 1, RoceEndpoint.of(roce0).rejected(Reject.BAD_PSN), "the ACK of the unsent last packet is dropped");
        assertEquals(0, cqA.poll(wc), "and completes nothing");
        ack(q.qpNum(), RQ_PSN + window - 1);
        receivePackets(window);
        ack(q.qpNum(), RQ_PSN + 2 * window - 1);
        assertEquals(WcStatus.SUCCESS, awaitWrId(cqA, 1), "the ACK of the last packet, once sent, completes it");
    }

    private void receivePackets(int n) throws Exception {
        int got = 0;
        long deadline = System.nanoTime() + 10_000_000_000L;
        ByteBuffer b = ByteBuffer.allocate(4200);
        while (got < n && System.nanoTime() < deadline) {
            if (fuzzer.receive(b.clear()) != null) {
                got++;
            } else {
                Thread.sleep(1);
            }
        }
        assertEquals(n, got, "packets of the WRITE at the fuzzer");
    }

    /** An ACK (credits unlimited) from the fuzzer to {@code qpn} on roce0 for {@code psn}. */
    private void ack(int qpn, int psn) throws IOException {
        Packet h = new Packet();
        h.opcode = Opcode.RC | Opcode.ACKNOWLEDGE;
        h.destQpn = qpn;
        h.psn = psn & Packet.MASK_24;
        h.syndrome = Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED;
        h.payloadLength = 0;
        ByteBuffer p = ByteBuffer.allocate(64);
        h.writeHeaders(p);
        int len = h.seal(p, icrc, new Ipv4Udp().set(ipv4(FUZZER), port, RoceEndpoint.of(roce0).localAddr, port));
        send(p, len, roce0, fuzzer);
    }

    private static Map<Reject, Long> diff(Map<Reject, Long> before, Map<Reject, Long> after) {
        Map<Reject, Long> d = new EnumMap<>(Reject.class);
        after.forEach((r, n) -> {
            if (n > before.get(r)) {
                d.put(r, n - before.get(r));
            }
        });
        return d;
    }

    private void send(ByteBuffer p, int length, EmulatedDevice to, DatagramChannel from) throws IOException {
        ByteBuffer b = p.duplicate().position(0).limit(length);
        from.send(b, new InetSocketAddress(RoceEndpoint.of(to).local.getAddress(), port));
    }

    /** Drops whatever the devices answered the fuzzer. */
    private void drain() throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8192);
        while (fuzzer.receive(b) != null || stranger.receive(b.clear()) != null) {
            b.clear();
        }
    }

    private static int ipv4(byte[] a) {
        return (a[0] & 0xff) << 24 | (a[1] & 0xff) << 16 | (a[2] & 0xff) << 8 | a[3] & 0xff;
    }

    /**
     * A captured request, retargeted at a victim (or a foreign QPN), with a PSN near the victims' and zero to
     * three mutations. Returns the length; the ICRC is the caller's.
     */
    private static int mutatedRequest(ByteBuffer p, Random rnd, List<ByteBuffer> captured, int[] victims,
                                      MemoryRegion mr, MemoryRegion readOnly) {
        ByteBuffer src = captured.get(rnd.nextInt(captured.size()));
        p.clear();
        p.put(src.duplicate());
        int length = src.limit();
        Packet h = new Packet();
        if (h.parse(p, length, null, null) != null) {
            throw new AssertionError("a captured packet does not parse");
        }
        int qpn = rnd.nextInt(8) == 0 ? rnd.nextInt(1 << 24) : victims[rnd.nextInt(victims.length)];
        p.putInt(4, p.getInt(4) & 0xff000000 | qpn);
        int psn = rnd.nextInt(4) == 0 ? rnd.nextInt(1 << 24) : RQ_PSN + rnd.nextInt(24) - 4;
        p.putInt(8, p.getInt(8) & 0xff000000 | psn & Packet.MASK_24);
        int info = Opcode.info(h.opcode);
        int reth = (info & Opcode.RETH) != 0 ? Opcode.BTH_BYTES + ((info & Opcode.DETH) != 0 ? 8 : 0) : -1;
        int atomicEth = (info & Opcode.ATOMIC_ETH) != 0 ? Opcode.BTH_BYTES : -1;
        int keyAt = reth >= 0 ? reth : atomicEth;
        if (keyAt >= 0) {
            // Point it at the victim side's regions: the writable one, the read-only one, or their edges.
            MemoryRegion target = rnd.nextInt(4) == 0 ? readOnly : mr;
            long va = target.address() + switch (rnd.nextInt(5)) {
                case 0 -> 0;
                case 1 -> REGION - 8;
                case 2 -> -8 - rnd.nextInt(64);
                case 3 -> REGION + rnd.nextInt(64);
                default -> rnd.nextInt(REGION);
            };
            p.putLong(keyAt, rnd.nextInt(16) == 0 ? rnd.nextLong() : va);
            p.putInt(keyAt + 8, rnd.nextInt(16) == 0 ? rnd.nextInt() : target.rkey());
        }
        int mutations = rnd.nextInt(4);
        for (int m = 0; m < mutations; m++) {
            switch (rnd.nextInt(9)) {
                case 0 -> p.put(0, (byte) rnd.nextInt(256));
                case 1 -> p.put(0, (byte) (p.get(0) & 0xe0 | rnd.nextInt(0x20)));
                case 2 -> length = Opcode.BTH_BYTES + rnd.nextInt(Math.max(1, length - Opcode.BTH_BYTES));
                case 3 -> {
                    if (reth >= 0) {
                        int[] huge = {-1, Integer.MIN_VALUE, 1 << 30, REGION + 1, 0};
                        p.putInt(reth + 12, huge[rnd.nextInt(huge.length)]);
                    }
                }
                case 4 -> p.put(1, (byte) rnd.nextInt(256));
                case 5 -> p.putShort(2, (short) rnd.nextInt(1 << 16));
                case 6 -> {
                    if ((info & Opcode.DETH) != 0) {
                        p.putInt(Opcode.BTH_BYTES, rnd.nextBoolean() ? rnd.nextInt() : QKEY ^ 1);
                    }
                }
                case 7 -> p.put(rnd.nextInt(length), (byte) rnd.nextInt(256));
                default -> length = Math.min(p.capacity(), length + 4 * (1 + rnd.nextInt(300)));
            }
        }
        return length;
    }

    /** An ACK, NAK, READ response or atomic ACK for a capture QP, built from scratch with random fields. */
    private static int forgedResponse(ByteBuffer p, Random rnd, int[] requesters) {
        Packet h = new Packet();
        int[] ops = {Opcode.ACKNOWLEDGE, Opcode.ATOMIC_ACKNOWLEDGE, Opcode.RDMA_READ_RESPONSE_FIRST,
            Opcode.RDMA_READ_RESPONSE_MIDDLE, Opcode.RDMA_READ_RESPONSE_LAST, Opcode.RDMA_READ_RESPONSE_ONLY};
        h.opcode = Opcode.RC | ops[rnd.nextInt(ops.length)];
        h.destQpn = rnd.nextInt(8) == 0 ? rnd.nextInt(1 << 24) : requesters[rnd.nextInt(requesters.length)];
        h.psn = rnd.nextInt(4) == 0 ? rnd.nextInt(1 << 24) : RQ_PSN + rnd.nextInt(12) - 4;
        int[] syndromes = {Packet.AETH_ACK | 0x1f, Packet.AETH_RNR_NAK | 1, Packet.AETH_NAK,
            Packet.AETH_NAK | 1, Packet.AETH_NAK | 2, Packet.AETH_NAK | 3, Packet.AETH_NAK | 4};
        h.syndrome = syndromes[rnd.nextInt(syndromes.length)];
        h.msn = rnd.nextInt(1 << 24);
        h.origRemoteData = rnd.nextLong();
        int info = Opcode.info(h.opcode);
        h.payloadLength = (info & Opcode.PAYLOAD) != 0 ? rnd.nextInt(1100) : 0;
        p.clear();
        int off = h.writeHeaders(p);
        for (int i = 0; i < h.payloadLength + h.padCount; i++) {
            p.put(off + i, (byte) rnd.nextInt());
        }
        return h.packetLength();
    }

    private WcStatus awaitWrId(CompletionQueue cq, long wrId) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                if (wc.wrId(i) == wrId) {
                    return wc.status(i);
                }
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion of WR " + wrId + " within 10 s");
    }

    /** The answer the fuzzer gets to a packet: {AETH syndrome, PSN}, or null after 2 s. */
    private int[] answer() throws Exception {
        ByteBuffer b = ByteBuffer.allocate(8192);
        long deadline = System.nanoTime() + 2_000_000_000L;
        Packet h = new Packet();
        while (System.nanoTime() < deadline) {
            b.clear();
            if (fuzzer.receive(b) != null) {
                if (h.parse(b, b.position(), null, null) == null && Opcode.is(h.opcode, Opcode.AETH)) {
                    return new int[] {h.syndrome, h.psn};
                }
            } else {
                Thread.sleep(1);
            }
        }
        return null;
    }

    /** A valid 64-byte WRITE ONLY from the fuzzer to {@code qpn} at {@code psn}, with a known pattern. */
    private void write(int opcode, int qpn, int psn, MemoryRegion mr, long offset) throws IOException {
        Packet h = new Packet();
        h.opcode = opcode;
        h.destQpn = qpn;
        h.psn = psn;
        h.ackReq = true;
        h.va = mr.address() + offset;
        h.rkey = mr.rkey();
        h.dmaLength = 64;
        ByteBuffer p = ByteBuffer.allocate(256);
        send(p, withPattern(h, p), roce1, fuzzer);
    }

    /** Writes {@code h}'s headers and a 64-byte pattern into {@code p}, seals it for roce1; returns its length. */
    private int withPattern(Packet h, ByteBuffer p) {
        h.payloadLength = 64;
        int off = h.writeHeaders(p);
        for (int i = 0; i < 64; i++) {
            p.put(off + i, (byte) (0x40 + i));
        }
        return h.seal(p, icrc, new Ipv4Udp().set(ipv4(FUZZER), port, RoceEndpoint.of(roce1).localAddr, port));
    }

    private static void assertPattern(MemoryRegion mr, long offset) {
        for (int i = 0; i < 64; i++) {
            assertEquals((byte) (0x40 + i), mr.segment().get(ValueLayout.JAVA_BYTE, offset + i), "byte " + i);
        }
    }

    /**
     * RC: in ERR (a malformed request moved it there, as rxe does), or a valid WRITE lands: the fuzzer learns the
     * expected PSN from the ACK of a duplicate, then writes at it and gets its ACK.
     */
    private void assertVictimRc(QueuePair v, MemoryRegion mr) throws Exception {
        if (v.state() == QpState.ERR) {
            return;
        }
        assertEquals(QpState.RTS, v.state());
        drain();
        // A PSN far behind: a duplicate, which is acknowledged (not executed) with the PSN before the expected one.
        write(Opcode.RC | Opcode.RDMA_WRITE_ONLY, v.qpNum(), (RQ_PSN - (1 << 22)) & Packet.MASK_24, mr, 2048);
        int[] a = answer();
        assertTrue(a != null && (a[0] & Packet.AETH_TYPE_MASK) == Packet.AETH_ACK, "the RC victim ACKs a duplicate");
        int epsn = a[1] + 1;
        write(Opcode.RC | Opcode.RDMA_WRITE_ONLY, v.qpNum(), epsn & Packet.MASK_24, mr, 2048);
        a = answer();
        assertTrue(a != null && (a[0] & Packet.AETH_TYPE_MASK) == Packet.AETH_ACK && a[1] == (epsn & Packet.MASK_24),
                "the RC victim ACKs a valid WRITE at its expected PSN");
        assertPattern(mr, 2048);
    }

    /** UC: a valid WRITE ONLY lands (a new message may start at any PSN). */
    private void assertVictimUc(QueuePair v, MemoryRegion mr) throws Exception {
        if (v.state() == QpState.ERR) {
            return;
        }
        write(Opcode.UC | Opcode.RDMA_WRITE_ONLY, v.qpNum(), 77, mr, 1024);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (mr.segment().get(ValueLayout.JAVA_BYTE, 1024 + 63) != (byte) (0x40 + 63)
                && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertPattern(mr, 1024);
    }

    /** UD: a valid datagram with the Q_Key lands in a fresh receive, after the GRH. */
    private void assertVictimUd(QueuePair v, CompletionQueue cq, MemoryRegion mr) throws Exception {
        if (v.state() == QpState.ERR) {
            return;
        }
        while (cq.poll(wc) > 0) {
            // receives the fuzz used up
        }
        v.postRecv(new RecvWr(999, Sge.of(mr, 6144, 2048)));
        Packet h = new Packet();
        h.opcode = Opcode.UD | Opcode.SEND_ONLY;
        h.destQpn = v.qpNum();
        h.qkey = QKEY;
        h.srcQpn = FUZZER_QPN;
        ByteBuffer p = ByteBuffer.allocate(256);
        int len = withPattern(h, p);
        // Receives posted before may still be there: send until the fresh one completes.
        long deadline = System.nanoTime() + 5_000_000_000L;
        WcStatus st = null;
        while (st == null && System.nanoTime() < deadline) {
            send(p, len, roce1, fuzzer);
            Thread.sleep(5);
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                if (wc.wrId(i) == 999) {
                    st = wc.status(i);
                }
            }
        }
        assertEquals(WcStatus.SUCCESS, st, "the UD victim takes a valid datagram");
        assertPattern(mr, 6144 + 40);
    }
}
