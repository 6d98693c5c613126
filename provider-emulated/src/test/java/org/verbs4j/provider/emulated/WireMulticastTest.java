package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Gid;
import org.verbs4j.MemoryRegion;
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
import org.verbs4j.provider.emulated.wire.codec.Icrc;
import org.verbs4j.provider.emulated.wire.codec.Ipv4Udp;
import org.verbs4j.provider.emulated.wire.codec.Opcode;
import org.verbs4j.provider.emulated.wire.codec.Packet;
import org.verbs4j.provider.emulated.wire.codec.Reject;

/**
 * UD multicast between the two wire devices of this JVM ({@code roce0}, {@code roce1} on loopback addresses, from
 * the build's {@code wire} test run): a datagram to an IPv4-mapped group leaves as one RoCE v2 packet to the group's
 * address and reaches the QPs attached on both devices through the loopback interface ({@code ibv_attach_mcast(3)};
 * IBA 10.5.2; rxe's {@code rxe_rcv_mcast_pkt}). The groups are {@code 239.255.86.0/24}, apart from the TCK's.
 */
@Tag("wire")
class WireMulticastTest {
    private static final int QKEY = 0x1111_2222;
    private static final int MULTICAST_QPN = 0xffffff;
    private static final int LID = 0xc0de;

    private final Arena arena = Arena.ofShared();
    private final WorkCompletionBatch wc = new WorkCompletionBatch(1);
    private Context ctxA;
    private Context ctxB;
    private ProtectionDomain pdA;
    private ProtectionDomain pdB;
    private MemoryRegion mrA;
    private MemoryRegion mrB;
    private RoceEndpoint epA;
    private RoceEndpoint epB;

    @BeforeEach
    void open() {
        ctxA = WireDevicesTest.device("roce0").open();
        ctxB = WireDevicesTest.device("roce1").open();
        epA = RoceEndpoint.of(WireDevicesTest.device("roce0"));
        epB = RoceEndpoint.of(WireDevicesTest.device("roce1"));
        pdA = ctxA.allocPd();
        pdB = ctxB.allocPd();
        mrA = pdA.registerMemory(arena.allocate(4096, 64), AccessFlags.LOCAL_WRITE, arena);
        mrB = pdB.registerMemory(arena.allocate(4096, 64), AccessFlags.LOCAL_WRITE, arena);
    }

    @AfterEach
    void close() {
        ctxA.close();
        ctxB.close();
        arena.close();
    }

    private static Gid group(int n) {
        return Gid.ofIpv4(new byte[] {(byte) 239, (byte) 255, 86, (byte) n});
    }

    /** A UD QP in RTS with Q_Key {@code qkey}, completing on {@code cq}. */
    private static QueuePair udQp(ProtectionDomain pd, CompletionQueue cq, int qkey) {
        QueuePair q = pd.createQp(QpInitAttributes.builder(QpType.UD).cq(cq).maxSendWr(8).maxRecvWr(8).maxSendSge(1)
                .maxRecvSge(1).build());
        q.modify(QpAttributes.toInitUd(1, 0, qkey));
        q.modify(QpAttributes.toState(QpState.RTR));
        q.modify(QpAttributes.toRtsUnreliable(0));
        return q;
    }

    /** Sends 32 bytes of {@code mrA} at {@code off} from {@code a} to {@code g} (QPN {@code qpn}), awaiting SUCCESS. */
    private void send(QueuePair a, CompletionQueue cq, Gid g, int qpn, int qkey, long off) {
        AddressHandle ah = pdA.createAh(AhAttributes.roce(g, 1, 1));
        a.postSend(new SendWr().wrId(off).opcode(WrOpcode.SEND_WITH_IMM).immData(0x5eed).sendFlags(SendFlags.SIGNALED)
                .ud(ah, qpn, qkey).sgList(Sge.of(mrA, off, 32)));
        assertEquals(WcStatus.SUCCESS, one(cq, "the send to " + g), "a UD send to a group completes SUCCESS");
    }

    /** Polls until one completion arrives (10 s at most) and returns its status; its fields stay in {@link #wc}. */
    private WcStatus one(CompletionQueue cq, String what) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                return wc.status(0);
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion within 10 s for " + what);
    }

    /** Polls {@code cq} for 300 ms: nothing may arrive. */
    private void none(CompletionQueue cq, String what) {
        long deadline = System.nanoTime() + 300_000_000L;
        while (System.nanoTime() < deadline) {
            assertEquals(0, cq.poll(wc), what);
            Thread.onSpinWait();
        }
    }

    /** Waits (5 s at most) until {@code ep} has counted one more drop for {@code why} than {@code before}. */
    private static void awaitRejected(RoceEndpoint ep, Reject why, long before) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (ep.rejected(why) == before && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(before + 1, ep.rejected(why), "the drop counted as " + why);
    }

    @Test
    @DisplayName("A datagram to an IPv4 group reaches the QP attached on each wire device once, with the group as its GRH's IPv4 destination, and not a QP that detached; each device joins the group on its first attach and leaves it on its last detach or close")
    void reachesEachAttachedDevice() {
        CompletionQueue cqA = ctxA.createCq(8);
        CompletionQueue cqOnA = ctxA.createCq(8);
        CompletionQueue cqOnB = ctxB.createCq(8);
        CompletionQueue cqGone = ctxB.createCq(8);
        QueuePair a = udQp(pdA, cqA, QKEY);
        QueuePair onA = udQp(pdA, cqOnA, QKEY);
        QueuePair onB = udQp(pdB, cqOnB, QKEY);
        QueuePair gone = udQp(pdB, cqGone, QKEY);
        Gid g = group(1);
        assertFalse(epA.joined(g), "no socket joined before the first attach");
        onA.attachMulticast(g, LID);
        onB.attachMulticast(g, LID);
        gone.attachMulticast(g, LID);
        gone.detachMulticast(g, LID);
        assertTrue(epA.joined(g) && epB.joined(g), "each device joined the group on its first attach");
        onA.postRecv(new RecvWr(1, Sge.of(mrA, 1024, 40 + 32)));
        onA.postRecv(new RecvWr(2, Sge.of(mrA, 1024, 40 + 32)));
        onB.postRecv(new RecvWr(3, Sge.of(mrB, 0, 40 + 32)));
        gone.postRecv(new RecvWr(4, Sge.of(mrB, 1024, 40 + 32)));
        for (int i = 0; i < 32; i++) {
            mrA.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
        }
        send(a, cqA, g, MULTICAST_QPN, QKEY, 0);
        for (Object[] at : new Object[][] {{cqOnA, mrA, 1024L, "the QP attached on roce0"},
            {cqOnB, mrB, 0L, "the QP attached on roce1"}}) {
            CompletionQueue cq = (CompletionQueue) at[0];
            MemorySegment buf = ((MemoryRegion) at[1]).segment();
            long off = (Long) at[2];
            String where = (String) at[3];
            assertEquals(WcStatus.SUCCESS, one(cq, where), where);
            assertEquals(40 + 32, wc.byteLen(0), "GRH and payload at " + where);
            assertEquals(a.qpNum(), wc.srcQp(0), "src_qp at " + where);
            assertEquals(0x5eed, wc.immData(0), "immediate data at " + where);
            assertEquals(0x45, buf.get(ValueLayout.JAVA_BYTE, off + 20), "an IPv4 header after 20 bytes at " + where);
            assertEquals(RoceEndpoint.ipv4(epA.local),
                    Integer.reverseBytes(buf.get(ValueLayout.JAVA_INT_UNALIGNED, off + 32)), "source at " + where);
            assertEquals(0xefff5601, Integer.reverseBytes(buf.get(ValueLayout.JAVA_INT_UNALIGNED, off + 36)),
                    "the group as the destination at " + where);
            assertEquals(-1L, buf.asSlice(off + 40, 32).mismatch(mrA.segment().asSlice(0, 32)),
                    "the payload at " + where);
        }
        none(cqOnA, "a second copy of one multicast datagram");
        none(cqGone, "a datagram to a group the QP detached from");
        onA.detachMulticast(g, LID);
        assertFalse(epA.joined(g), "roce0 left the group with its last detach");
        assertTrue(epB.joined(g), "roce1 keeps the group while a QP is attached");
        onB.close();
        assertFalse(epB.joined(g), "roce1 left the group when its last attached QP closed");
    }

    @Test
    @DisplayName("A multicast datagram with another Q_Key, or a destination QPN other than 0xFFFFFF, is dropped and counted; then one with the QP's Q_Key arrives [IBA 10.2.5 Q_Key; rxe_rcv]")
    void qkeyAndQpnChecked() throws InterruptedException {
        CompletionQueue cqA = ctxA.createCq(8);
        CompletionQueue cqB = ctxB.createCq(8);
        QueuePair a = udQp(pdA, cqA, QKEY);
        QueuePair b = udQp(pdB, cqB, QKEY);
        Gid g = group(2);
        b.attachMulticast(g, LID);
        b.postRecv(new RecvWr(1, Sge.of(mrB, 0, 40 + 32)));
        long badQkey = epB.rejected(Reject.BAD_QKEY);
        send(a, cqA, g, MULTICAST_QPN, QKEY + 1, 0);
        awaitRejected(epB, Reject.BAD_QKEY, badQkey);
        long unknownQp = epB.rejected(Reject.UNKNOWN_QP);
        send(a, cqA, g, b.qpNum(), QKEY, 0);
        awaitRejected(epB, Reject.UNKNOWN_QP, unknownQp);
        none(cqB, "a multicast datagram with another Q_Key or QPN");
        send(a, cqA, g, MULTICAST_QPN, QKEY, 0);
        assertEquals(WcStatus.SUCCESS, one(cqB, "the datagram with the QP's Q_Key"));
    }

    @Test
    @DisplayName("On the wire a UD send to ::ffff:239.255.86.3 is one RoCE v2 datagram from the device's address to 239.255.86.3, the device's port: UD SEND_ONLY_WITH_IMMEDIATE, BTH DestQP 0xFFFFFF, DETH with the Q_Key and the source QPN, and a good ICRC")
    void packetOnTheWire() throws IOException {
        CompletionQueue cqA = ctxA.createCq(8);
        QueuePair a = udQp(pdA, cqA, QKEY);
        InetAddress group = InetAddress.getByAddress(new byte[] {(byte) 239, (byte) 255, 86, 3});
        NetworkInterface lo = NetworkInterface.getByInetAddress(InetAddress.getByName("127.0.0.1"));
        try (DatagramChannel capture = DatagramChannel.open(StandardProtocolFamily.INET)) {
            capture.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            capture.bind(new InetSocketAddress(group, epA.localPort));
            capture.join(group, lo);
            capture.configureBlocking(false);
            for (int i = 0; i < 32; i++) {
                mrA.segment().set(ValueLayout.JAVA_BYTE, 64 + i, (byte) (100 - i));
            }
            send(a, cqA, group(3), MULTICAST_QPN, QKEY, 64);
            ByteBuffer buf = ByteBuffer.allocateDirect(RoceEndpoint.MAX_PACKET);
            InetSocketAddress from = null;
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (from == null && System.nanoTime() < deadline) {
                from = (InetSocketAddress) capture.receive(buf);
                Thread.onSpinWait();
            }
            assertNotNull(from, "the datagram reached a plain socket joined to the group");
            assertEquals(epA.local, from, "sent from the device's own address and port");
            int len = buf.position();
            buf.flip();
            Packet p = new Packet();
            Ipv4Udp ip = new Ipv4Udp().set(RoceEndpoint.ipv4(from), from.getPort(), 0xefff5603, epA.localPort);
            assertNull(p.parse(buf, len, new Icrc(), ip), "the packet parses, its ICRC over the group's address");
            assertEquals(Opcode.UD | Opcode.SEND_ONLY_WITH_IMMEDIATE, p.opcode, "the opcode");
            assertEquals(MULTICAST_QPN, p.destQpn, "BTH DestQP");
            assertEquals(QKEY, p.qkey, "DETH Q_Key");
            assertEquals(a.qpNum(), p.srcQpn, "DETH source QP");
            assertEquals(0x5eed, p.immediate, "the immediate data");
            assertEquals(32, p.payloadLength, "the payload's length");
            assertEquals(-1L, MemorySegment.ofBuffer(buf).asSlice(p.payloadOffset(), 32)
                    .mismatch(mrA.segment().asSlice(64, 32)), "the payload");
        }
    }

    @Test
    @DisplayName("An IPv6 multicast GID (ff0e::) attaches on a wire device without joining anything, and a send to it completes SUCCESS and reaches no one: no IPv4 packet carries it, as on rxe")
    void ipv6GroupGoesNowhere() {
        CompletionQueue cqA = ctxA.createCq(8);
        CompletionQueue cqB = ctxB.createCq(8);
        QueuePair a = udQp(pdA, cqA, QKEY);
        QueuePair b = udQp(pdB, cqB, QKEY);
        Gid g = new Gid(0xff0e_0000_0000_0000L, 0x86_0004L);
        b.attachMulticast(g, LID);
        assertFalse(epB.joined(g), "no socket for an IPv6 group");
        b.postRecv(new RecvWr(1, Sge.of(mrB, 0, 40 + 32)));
        send(a, cqA, g, MULTICAST_QPN, QKEY, 0);
        none(cqB, "a datagram to an IPv6 group from an IPv4 wire device");
        b.detachMulticast(g, LID);
    }

    @Test
    @DisplayName("Closing the endpoint leaves its groups and closes their sockets; a datagram to the group then throws out of no thread")
    void endpointCloseLeavesGroups() throws Exception {
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler old = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        RoceEndpoint ep = RoceEndpoint.bind(new InetSocketAddress(InetAddress.getByName("127.0.86.9"),
                epA.localPort));
        try {
            EmulatedDevice d = EmulatedDevice.wire(90, 90, ep);
            ep.start(d, null);
            Context ctx = d.open();
            try {
                ProtectionDomain pd = ctx.allocPd();
                CompletionQueue cq = ctx.createCq(8);
                QueuePair q = udQp(pd, cq, QKEY);
                Gid g = group(5);
                q.attachMulticast(g, LID);
                assertTrue(ep.joined(g), "joined on the first attach");
                MemoryRegion mr = pd.registerMemory(arena.allocate(128, 64), AccessFlags.LOCAL_WRITE, arena);
                q.postRecv(new RecvWr(1, Sge.of(mr, 0, 40 + 32)));
                ep.close();
                assertFalse(ep.joined(g), "closing the endpoint left the group");
                CompletionQueue cqA = ctxA.createCq(8);
                send(udQp(pdA, cqA, QKEY), cqA, g, MULTICAST_QPN, QKEY, 0);
                none(cq, "a datagram to a device whose endpoint is closed");
                q.detachMulticast(g, LID);
            } finally {
                ctx.close();
            }
            Thread.sleep(100);
            assertEquals(List.of(), uncaught, "nothing thrown out of a thread");
        } finally {
            ep.close();
            Thread.setDefaultUncaughtExceptionHandler(old);
        }
    }
}
