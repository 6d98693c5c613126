package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.LinkLayer;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcFlags;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;

/**
 * UD multicast: {@code ibv_attach_mcast(3)} and {@code ibv_detach_mcast(3)}, their errnos as the kernel gives them
 * ({@code ib_uverbs_attach_mcast}, {@code ib_attach_mcast}, rxe's {@code rxe_mcast.c}), the device's per-group
 * limit from both sides, and delivery of a UD send to a group. Skipped on a device whose
 * {@code max_mcast_grp} or {@code max_mcast_qp_attach} is 0.
 */
public abstract class MulticastRules extends TckArea {
    /** The destination QPN of a multicast datagram. */
    private static final int MULTICAST_QPN = 0xffffff;
    /** A per-group limit above which the limit rule would create too many QPs to stay cheap. */
    private static final int MOST_QPS_FOR_THE_LIMIT = 256;

    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected MulticastRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private void assumeMulticast() {
        assumeQp(QpType.UD);
        DeviceAttributes a = tb.deviceAttributes();
        assumeTrue(a.maxMcastGrp() > 0 && a.maxMcastQpAttach() > 0,
                "capability: the device has no multicast (max_mcast_grp " + a.maxMcastGrp() + ", max_mcast_qp_attach "
                        + a.maxMcastQpAttach() + ")");
    }

    /**
     * A multicast GID of the testbed's address family: the IPv4-mapped {@code ::ffff:239.255.0.n} beside an
     * IPv4-mapped source GID (RoCE v2 over IPv4), else {@code ff0e::1:n}.
     */
    private Gid group(int n) {
        Gid own = tb.gid();
        if (own.subnetPrefix() == 0 && (own.interfaceId() >>> 32) == 0xffff) {
            return Gid.ofIpv4(new byte[] {(byte) 239, (byte) 255, 0, (byte) n});
        }
        return new Gid(0xff0e_0000_0000_0000L, 0x1_0000L | n);
    }

    /** A UD QP of this testbed in RTS, on {@code cq}. */
    private QueuePair udQp(Testbed bed, CompletionQueue cq) {
        QueuePair qp = bed.qp(QpType.UD, cq, null);
        bed.bringUp(qp, 0, 7);
        return qp;
    }

    // ---------------------------------------------------------------- attach and detach

    @Test
    @DisplayName("required_ a UD QP attaches to a multicast group and detaches from it; detaching again is EINVAL [ibv_attach_mcast(3), ibv_detach_mcast(3); uverbs: a group not attached is EINVAL]")
    void required_attachThenDetach() {
        assumeMulticast();
        QueuePair qp = tb.qp(QpType.UD, tb.cq(4), null);
        Gid g = group(1);
        qp.attachMulticast(g, 0xc001);
        qp.detachMulticast(g, 0xc001);
        Expect.errno("a detach of a group no longer attached", () -> qp.detachMulticast(g, 0xc001), Errno.EINVAL);
    }

    @Test
    @DisplayName("required_ detaching from a group never attached is EINVAL [ibv_detach_mcast(3); uverbs ib_uverbs_detach_mcast]")
    void required_detachNeverAttached() {
        assumeMulticast();
        QueuePair qp = tb.qp(QpType.UD, tb.cq(4), null);
        Expect.errno("a detach of a group never attached", () -> qp.detachMulticast(group(2), 0xc002), Errno.EINVAL);
    }

    @Test
    @DisplayName("required_ a QP that is not UD cannot attach: EINVAL [ibv_attach_mcast(3): UD QPs only; ib_attach_mcast]")
    void required_attachNonUdRefused() {
        assumeMulticast();
        assumeQp(QpType.RC);
        QueuePair rc = tb.qp(QpType.RC, tb.cq(4), null);
        Expect.errno("ibv_attach_mcast on an RC QP", () -> rc.attachMulticast(group(3), 0xc003), Errno.EINVAL);
    }

    @Test
    @DisplayName("required_ a GID that is not multicast cannot be attached: EINVAL, for the device's own GID and an IPv4-mapped unicast one [ib_attach_mcast: rdma_is_multicast_addr]")
    void required_attachUnicastGidRefused() {
        assumeMulticast();
        QueuePair qp = tb.qp(QpType.UD, tb.cq(4), null);
        Expect.errno("ibv_attach_mcast with the device's own GID", () -> qp.attachMulticast(tb.gid(), 0xc004),
                Errno.EINVAL);
        Gid unicast = Gid.ofIpv4(new byte[] {10, 1, 2, 3});
        Expect.errno("ibv_attach_mcast with ::ffff:10.1.2.3", () -> qp.attachMulticast(unicast, 0xc004),
                Errno.EINVAL);
        Gid reserved = Gid.ofIpv4(new byte[] {(byte) 240, 0, 0, 1});
        Expect.errno("ibv_attach_mcast with ::ffff:240.0.0.1, just past 224.0.0.0/4", () -> qp.attachMulticast(
                reserved, 0xc004), Errno.EINVAL);
    }

    @Test
    @DisplayName("required_ both multicast GID forms attach: ff0e::/16 and the IPv4-mapped ::ffff:224.0.0.0/4, from its first address to its last [ib_attach_mcast: rdma_is_multicast_addr]")
    void required_multicastGidFormsAccepted() {
        assumeMulticast();
        QueuePair qp = tb.qp(QpType.UD, tb.cq(4), null);
        Gid[] accepted = {new Gid(0xff0e_0000_0000_0000L, 5), Gid.ofIpv4(new byte[] {(byte) 224, 0, 0, 0}),
            Gid.ofIpv4(new byte[] {(byte) 239, (byte) 255, (byte) 255, (byte) 255})};
        for (Gid g : accepted) {
            qp.attachMulticast(g, 0xc005);
        }
        for (Gid g : accepted) {
            qp.detachMulticast(g, 0xc005);
        }
    }

    @Test
    @DisplayName("required_ attaching twice to the same group with the same LID succeeds and attaches once: one detach ends it [uverbs ib_uverbs_attach_mcast: an attachment already listed answers 0]")
    void required_attachTwiceIsOnce() {
        assumeMulticast();
        QueuePair qp = tb.qp(QpType.UD, tb.cq(4), null);
        Gid g = group(6);
        qp.attachMulticast(g, 0xc006);
        qp.attachMulticast(g, 0xc006);
        qp.detachMulticast(g, 0xc006);
        Expect.errno("a second detach after attaching twice", () -> qp.detachMulticast(g, 0xc006), Errno.EINVAL);
    }

    @Test
    @DisplayName("required_ a null GID is a NullPointerException and a LID outside 16 bits an IllegalArgumentException, before the device is asked [QueuePair#attachMulticast]")
    void required_badArguments() {
        assumeMulticast();
        QueuePair qp = tb.qp(QpType.UD, tb.cq(4), null);
        Expect.thrown("attachMulticast(null, 0)", NullPointerException.class, () -> qp.attachMulticast(null, 0));
        Expect.thrown("attachMulticast(g, 0x10000)", IllegalArgumentException.class,
                () -> qp.attachMulticast(group(7), 0x10000));
        Expect.thrown("attachMulticast(g, -1)", IllegalArgumentException.class,
                () -> qp.attachMulticast(group(7), -1));
        Expect.thrown("detachMulticast(null, 0)", NullPointerException.class, () -> qp.detachMulticast(null, 0));
        qp.attachMulticast(group(7), 0xffff);
        qp.detachMulticast(group(7), 0xffff);
    }

    @Test
    @DisplayName("required_ attach and detach on a closed QP throw IllegalStateException [VerbsObject: use after close()]")
    void required_closedQp() {
        assumeMulticast();
        QueuePair qp = tb.qp(QpType.UD, tb.cq(4), null);
        qp.close();
        Expect.closed("attachMulticast on a closed QP", () -> qp.attachMulticast(group(8), 0xc008));
        Expect.closed("detachMulticast on a closed QP", () -> qp.detachMulticast(group(8), 0xc008));
    }

    @Test
    @DisplayName("required_ exactly max_mcast_qp_attach QPs attach to one group, one more is ENOMEM, and closing an attached QP detaches it so that the last one then fits [ibv_query_device(3) max_mcast_qp_attach; rxe_mcast.c; uverbs detaches before destroy]")
    void required_qpsPerGroupLimit() {
        assumeMulticast();
        int max = tb.deviceAttributes().maxMcastQpAttach();
        assumeTrue(max <= MOST_QPS_FOR_THE_LIMIT, "max_mcast_qp_attach " + max + " is too many QPs for this rule");
        CompletionQueue cq = tb.cq(4);
        Gid g = group(9);
        List<QueuePair> attached = new ArrayList<>();
        for (int i = 0; i < max; i++) {
            QueuePair qp = tb.qp(QpType.UD, cq, null);
            qp.attachMulticast(g, 0xc009);
            attached.add(qp);
        }
        QueuePair oneMore = tb.qp(QpType.UD, cq, null);
        Expect.errno("the QP past max_mcast_qp_attach (" + max + ")", () -> oneMore.attachMulticast(g, 0xc009),
                Errno.ENOMEM);
        attached.get(0).close();
        oneMore.attachMulticast(g, 0xc009);
        oneMore.detachMulticast(g, 0xc009);
    }

    // ---------------------------------------------------------------- delivery

    private void assumeRoce() {
        assumeTrue(tb.portAttributes().linkLayer() != LinkLayer.INFINIBAND,
                "an InfiniBand port needs the group's MLID from the SM; these rules address the group by GID (RoCE)");
    }

    /** Sends 32 bytes of pattern {@code seed} from {@code from} to the group, and awaits its send completion. */
    private void sendToGroup(QueuePair from, CompletionQueue cq, AddressHandle ah, int seed, long wrId) {
        MemoryRegion src = tb.buffer(32);
        Data.fill(src, seed);
        from.postSend(new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(src, 0, 32)).ud(ah, MULTICAST_QPN, Testbed.QKEY));
        WorkCompletion s = Completions.awaitOne(cq, "the send to the group");
        assertEquals(WcStatus.SUCCESS, s.status(), "a UD send to a multicast group");
        assertEquals(wrId, s.wrId());
    }

    @Test
    @DisplayName("required_ a UD send to a multicast GID and QPN 0xFFFFFF reaches each attached QP once, after a 40-byte GRH whose DGID is the group, naming the sender; a QP not attached, the sender included, gets nothing [IBA 10.5.2 multicast; rxe_rcv_mcast_pkt]")
    void required_deliveredToEachAttachedQp() {
        assumeMulticast();
        assumeRoce();
        Testbed far = tb.peer();
        CompletionQueue sendCq = tb.cq(8);
        CompletionQueue cqB = tb.cq(8);
        CompletionQueue cqC = far.cq(8);
        CompletionQueue cqD = tb.cq(8);
        QueuePair a = udQp(tb, sendCq);
        QueuePair b = udQp(tb, cqB);
        QueuePair c = udQp(far, cqC);
        QueuePair d = udQp(tb, cqD);
        Gid g = group(10);
        b.attachMulticast(g, 0xc00a);
        c.attachMulticast(g, 0xc00a);
        MemoryRegion dstB = tb.buffer(128);
        MemoryRegion dstC = far.buffer(128);
        MemoryRegion dstD = tb.buffer(128);
        b.postRecv(new RecvWr(1, Sge.of(dstB, 0, 128)));
        b.postRecv(new RecvWr(2, Sge.of(dstB, 0, 128)));
        c.postRecv(new RecvWr(3, Sge.of(dstC, 0, 128)));
        d.postRecv(new RecvWr(4, Sge.of(dstD, 0, 128)));
        MemoryRegion own = tb.buffer(128);
        a.postRecv(new RecvWr(5, Sge.of(own, 0, 128)));
        AddressHandle ah = tb.pd().createAh(AhAttributes.roce(g, tb.gidIndex(), tb.port()));
        sendToGroup(a, sendCq, ah, 31, 9);
        assertDelivered(cqB, dstB, "the attached QP on the sender's device", g, a.qpNum(), 31);
        assertDelivered(cqC, dstC, "the attached QP on the peer testbed's device", g, a.qpNum(), 31);
        Completions.assertNone(cqB, "a second copy of one multicast send");
        Completions.assertNone(cqD, "a multicast send to a QP not attached");
        Completions.assertNone(sendCq, "the sender's own multicast send, the sender not attached");
    }

    /**
     * One receive of the group's send at {@code where}: a GRH naming the group as its destination, the sender, the
     * payload. The 40 bytes are an IPv6 header (the DGID at bytes 24..39) for an IPv6 group, and for an IPv4-mapped
     * group on RoCE v2 over IPv4, 20 unused bytes and the packet's IPv4 header, its destination address at bytes
     * 36..39 (the kernel's {@code union rdma_network_hdr}, which rxe fills with the received IPv4 header).
     */
    static void assertDelivered(CompletionQueue cq, MemoryRegion dst, String where, Gid g, int srcQp, int seed) {
        WorkCompletion r = Completions.awaitOne(cq, where);
        assertEquals(WcStatus.SUCCESS, r.status(), where);
        assertEquals(40 + 32, r.byteLen(), "40 bytes of GRH + 32 of payload at " + where);
        assertTrue((r.wcFlags() & WcFlags.GRH) != 0, "IBV_WC_GRH at " + where);
        assertEquals(srcQp, r.srcQp(), "src_qp at " + where);
        byte[] gid = g.toBytes();
        if (g.subnetPrefix() == 0 && (g.interfaceId() >>> 32) == 0xffff) {
            assertArrayEquals(Arrays.copyOfRange(gid, 12, 16), dst.segment().asSlice(36, 4)
                    .toArray(ValueLayout.JAVA_BYTE), "the GRH area's IPv4 header names the group's address as its"
                    + " destination (bytes 36..39) at " + where);
        } else {
            assertArrayEquals(gid, dst.segment().asSlice(24, 16).toArray(ValueLayout.JAVA_BYTE),
                    "the GRH's DGID (bytes 24..39) is the group's GID at " + where);
        }
        Data.assertPattern("the payload after the GRH at " + where, dst.segment(), 40, 32, seed, 0);
    }

    @Test
    @DisplayName("required_ a sender attached to the group receives its own multicast send, as an HCA loops multicast back to every attached local QP unless the QP blocks it (IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, which verbs4j does not set) [ibv_create_qp_ex(3); IBA 10.5.2]")
    void required_attachedSenderReceivesOwn() {
        assumeMulticast();
        assumeRoce();
        CompletionQueue sendCq = tb.cq(8);
        CompletionQueue recvCq = tb.cq(8);
        QueuePair a = tb.qp(QpType.UD, sendCq, b -> b.recvCq(recvCq));
        tb.bringUp(a, 0, 7);
        Gid g = group(12);
        a.attachMulticast(g, 0xc00c);
        MemoryRegion dst = tb.buffer(128);
        a.postRecv(new RecvWr(1, Sge.of(dst, 0, 128)));
        AddressHandle ah = tb.pd().createAh(AhAttributes.roce(g, tb.gidIndex(), tb.port()));
        sendToGroup(a, sendCq, ah, 33, 8);
        assertDelivered(recvCq, dst, "the sender, attached to the group", g, a.qpNum(), 33);
    }

    @Test
    @DisplayName("required_ a QP detached from a group receives nothing more sent to it, while a QP still attached does [ibv_detach_mcast(3)]")
    void required_detachedGetsNothing() {
        assumeMulticast();
        assumeRoce();
        CompletionQueue sendCq = tb.cq(8);
        CompletionQueue cqB = tb.cq(8);
        CompletionQueue cqC = tb.cq(8);
        QueuePair a = udQp(tb, sendCq);
        QueuePair b = udQp(tb, cqB);
        QueuePair c = udQp(tb, cqC);
        Gid g = group(11);
        b.attachMulticast(g, 0xc00b);
        c.attachMulticast(g, 0xc00b);
        b.detachMulticast(g, 0xc00b);
        MemoryRegion dst = tb.buffer(256);
        b.postRecv(new RecvWr(1, Sge.of(dst, 0, 128)));
        c.postRecv(new RecvWr(2, Sge.of(dst, 128, 128)));
        AddressHandle ah = tb.pd().createAh(AhAttributes.roce(g, tb.gidIndex(), tb.port()));
        sendToGroup(a, sendCq, ah, 32, 7);
        assertEquals(2, Completions.awaitOne(cqC, "the QP still attached").wrId());
        Completions.assertNone(cqB, "a multicast send to a QP detached from the group");
    }
}
