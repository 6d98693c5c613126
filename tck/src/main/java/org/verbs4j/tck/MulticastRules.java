package org.verbs4j.tck;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.CompletionQueue;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;

/**
 * UD multicast: {@code ibv_attach_mcast(3)} and {@code ibv_detach_mcast(3)}, their errnos as the kernel gives them
 * ({@code ib_uverbs_attach_mcast}, {@code ib_attach_mcast}, rxe's {@code rxe_mcast.c}), the device's per-group
 * limit from both sides. Skipped on a device whose
 * {@code max_mcast_grp} or {@code max_mcast_qp_attach} is 0.
 */
public abstract class MulticastRules extends TckArea {
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
}
