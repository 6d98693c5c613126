package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AddressHandle;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.CmPortSpace;
import org.verbs4j.CmUdParameters;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.LinkLayer;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MulticastJoinType;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;

/**
 * Multicast through the connection manager: {@code rdma_join_multicast(3)} and {@code rdma_leave_multicast(3)} on
 * a UDP id, its UD QP in RTS from {@code rdma_create_qp}, the join event's address vector, QPN and Q_Key, the
 * attach of the id's QP when that event is taken (librdmacm's {@code ucma_process_join}), and the errors.
 */
public abstract class CmMulticastRules extends CmArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected CmMulticastRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    /** A connection manager, UD multicast on the device, and RoCE (the group is named by its IPv4 address). */
    private void assumeCmMulticast() {
        assumeCm();
        DeviceAttributes a = tb.deviceAttributes();
        assumeTrue(a.maxMcastGrp() > 0 && a.maxMcastQpAttach() > 0,
                "capability: the device has no multicast (max_mcast_grp " + a.maxMcastGrp() + ")");
        assumeTrue(tb.portAttributes().linkLayer() == LinkLayer.ETHERNET,
                "a RoCE port: an InfiniBand join asks the subnet administrator");
        assumeTrue(cm.address.getAddress().length == 4, "an IPv4 device address: RoCE v2 joins IPv4 groups");
    }

    /** The IPv4 group {@code 239.255.2.n}. */
    private static InetAddress group(int n) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) 239, (byte) 255, 2, (byte) n});
        } catch (UnknownHostException e) {
            throw new AssertionError("4 bytes are an IPv4 address", e);
        }
    }

    /** Joins {@code group} and takes the join event, which must be MULTICAST_JOIN. */
    private static CmUdParameters join(CmBench.End end, InetAddress group) {
        end.id().joinMulticast(group);
        CmEvent e = CmBench.expect(end.channel(), CmEventType.MULTICAST_JOIN, "rdma_join_multicast of " + group);
        assertEquals(group, e.multicastGroup(), "the join event names the group joined");
        assertNotNull(e.udParameters(), "a join event's param.ud");
        return e.udParameters();
    }

    /** Sends 32 bytes of pattern {@code seed} from {@code from} to the group, and awaits its send completion. */
    private void sendToGroup(CmBench.End from, CmUdParameters ud, int seed) {
        MemoryRegion src = cm.buffer(from, 32);
        Data.fill(src, seed);
        AddressHandle ah = cm.keep(from.pd().createAh(ud.ahAttributes()));
        from.qp().postSend(new SendWr().wrId(seed).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(src, 0, 32)).ud(ah, ud.qpNum(), ud.qkey()));
        WorkCompletion s = Completions.awaitOne(from.cq(), "the send to the group");
        assertEquals(WcStatus.SUCCESS, s.status(), "a UD send to a multicast group");
    }

    @Test
    @DisplayName("required_ a UDP id's QP is in RTS from createQp, and the join event gives QPN 0xFFFFFF, the UDP Q_Key and an address vector to the group's IPv4-mapped GID; a datagram sent with them reaches the id's QP, which the join attached [rdma_join_multicast(3); rdma_create_qp(3): ucma_init_ud_qp; cma_iboe_set_mgid]")
    void required_joinAttachesAndDelivers() {
        assumeCmMulticast();
        CmEventChannel ch = cm.channel();
        CmBench.End receiver = cm.end(ch, cm.udp(ch), QpType.UD);
        CmBench.End sender = cm.end(ch, cm.udp(ch), QpType.UD);
        assertEquals(QpState.RTS, receiver.qp().state(), "a UDP id's QP after createQp");
        MemoryRegion dst = cm.buffer(receiver, 128);
        receiver.qp().postRecv(new RecvWr(1, Sge.of(dst, 0, 128)));
        InetAddress g = group(1);
        CmUdParameters ud = join(receiver, g);
        assertEquals(CmId.MULTICAST_QPN, ud.qpNum(), "param.ud.qp_num of a join");
        assertEquals(CmId.UDP_QKEY, ud.qkey(), "param.ud.qkey of a UDP id's join: RDMA_UDP_QKEY");
        Gid mgid = Gid.ofIpv4(g.getAddress());
        assertNotNull(ud.ahAttributes().grh(), "a RoCE address vector is global");
        assertEquals(mgid, ud.ahAttributes().grh().dgid(), "the DGID of the join's address vector");
        sendToGroup(sender, ud, 41);
        MulticastRules.assertDelivered(receiver.cq(), dst, "the joined id's QP", mgid, sender.qp().qpNum(), 41);
        Completions.assertNone(sender.cq(), "the sender, which did not join");
    }

    @Test
    @DisplayName("required_ a send-only join gets the same join event but leaves the id's QP detached: its datagrams reach a full member, and none comes back to it; leave then works [rdma_join_multicast_ex(3) RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER; librdmacm attaches full members only]")
    void required_sendOnlyJoinDoesNotAttach() {
        assumeCmMulticast();
        CmEventChannel ch = cm.channel();
        CmBench.End member = cm.end(ch, cm.udp(ch), QpType.UD);
        CmBench.End publisher = cm.end(ch, cm.udp(ch), QpType.UD);
        MemoryRegion dst = cm.buffer(member, 128);
        MemoryRegion own = cm.buffer(publisher, 128);
        member.qp().postRecv(new RecvWr(1, Sge.of(dst, 0, 128)));
        publisher.qp().postRecv(new RecvWr(2, Sge.of(own, 0, 128)));
        InetAddress g = group(6);
        join(member, g);
        publisher.id().joinMulticast(g, MulticastJoinType.SENDONLY_FULL_MEMBER);
        CmEvent e = CmBench.expect(ch, CmEventType.MULTICAST_JOIN, "a send-only rdma_join_multicast_ex");
        assertEquals(g, e.multicastGroup(), "the send-only join event names the group");
        CmUdParameters ud = e.udParameters();
        assertEquals(CmId.MULTICAST_QPN, ud.qpNum(), "param.ud.qp_num of a send-only join");
        sendToGroup(publisher, ud, 45);
        MulticastRules.assertDelivered(member.cq(), dst, "the full member", Gid.ofIpv4(g.getAddress()),
                publisher.qp().qpNum(), 45);
        Completions.assertNone(publisher.cq(), "the send-only member's own datagram (its QP is not attached)");
        publisher.id().leaveMulticast(g);
        Expect.thrown("joinMulticast(g, null)", NullPointerException.class,
                () -> publisher.id().joinMulticast(g, null));
    }

    @Test
    @DisplayName("required_ leaving detaches the id's QP: a datagram sent to the group after it is not delivered, and a second leave is EADDRNOTAVAIL [rdma_leave_multicast(3)]")
    void required_leaveDetaches() {
        assumeCmMulticast();
        CmEventChannel ch = cm.channel();
        CmBench.End receiver = cm.end(ch, cm.udp(ch), QpType.UD);
        CmBench.End sender = cm.end(ch, cm.udp(ch), QpType.UD);
        MemoryRegion dst = cm.buffer(receiver, 128);
        receiver.qp().postRecv(new RecvWr(1, Sge.of(dst, 0, 128)));
        InetAddress g = group(2);
        CmUdParameters ud = join(receiver, g);
        receiver.id().leaveMulticast(g);
        sendToGroup(sender, ud, 42);
        Completions.assertNone(receiver.cq(), "a datagram to a group the id left");
        Expect.errno("a second rdma_leave_multicast", () -> receiver.id().leaveMulticast(g), Errno.EADDRNOTAVAIL);
        join(receiver, g);
        receiver.id().leaveMulticast(g);
    }

    @Test
    @DisplayName("required_ a QP created after the join event was taken is not attached by it; it attaches by itself [librdmacm: ucma_process_join attaches id->qp when the event is read]")
    void required_qpAfterJoinNotAttached() {
        assumeCmMulticast();
        CmEventChannel ch = cm.channel();
        CmId id = cm.udp(ch);
        InetAddress g = group(3);
        id.joinMulticast(g);
        CmUdParameters ud = CmBench.expect(ch, CmEventType.MULTICAST_JOIN, "rdma_join_multicast").udParameters();
        CmBench.End receiver = cm.end(ch, id, QpType.UD);
        CmBench.End sender = cm.end(ch, cm.udp(ch), QpType.UD);
        MemoryRegion dst = cm.buffer(receiver, 128);
        receiver.qp().postRecv(new RecvWr(1, Sge.of(dst, 0, 128)));
        sendToGroup(sender, ud, 43);
        Completions.assertNone(receiver.cq(), "a QP created after the join event");
        Gid mgid = ud.ahAttributes().grh().dgid();
        receiver.qp().attachMulticast(mgid, ud.ahAttributes().dlid());
        sendToGroup(sender, ud, 44);
        MulticastRules.assertDelivered(receiver.cq(), dst, "the QP attached by hand", mgid, sender.qp().qpNum(), 44);
        id.leaveMulticast(g); // the join did not attach this QP: leave leaves it attached
        receiver.qp().detachMulticast(mgid, ud.ahAttributes().dlid());
    }

    @Test
    @DisplayName("required_ a join needs a UDP id bound to a device and a multicast address: EINVAL for a TCP id, an unbound id and a unicast address (one past 239.255.255.255 too), EADDRINUSE for a group joined twice; leaving a group never joined is EADDRNOTAVAIL [rdma_join_multicast(3); kernel: cma qp_type UD, bound state]")
    void required_joinErrors() throws UnknownHostException {
        assumeCmMulticast();
        CmEventChannel ch = cm.channel();
        InetAddress g = group(4);
        CmId tcp = cm.id(ch);
        tcp.bindAddr(new InetSocketAddress(cm.address, 0));
        Expect.errno("rdma_join_multicast on a TCP id", () -> tcp.joinMulticast(g), Errno.EINVAL);
        CmId unbound = cm.keep(cm.cm.createId(ch, CmPortSpace.UDP));
        Expect.errno("rdma_join_multicast on an unbound id", () -> unbound.joinMulticast(g), Errno.EINVAL);
        CmId udp = cm.udp(ch);
        Expect.errno("rdma_join_multicast of a unicast address", () -> udp.joinMulticast(cm.address), Errno.EINVAL);
        InetAddress pastClassD = InetAddress.getByAddress(new byte[] {(byte) 240, 0, 0, 0});
        Expect.errno("rdma_join_multicast of 240.0.0.0, one past 224.0.0.0/4", () -> udp.joinMulticast(pastClassD),
                Errno.EINVAL);
        Expect.thrown("joinMulticast(null)", NullPointerException.class, () -> udp.joinMulticast(null));
        Expect.errno("rdma_leave_multicast of a group never joined", () -> udp.leaveMulticast(g),
                Errno.EADDRNOTAVAIL);
        udp.joinMulticast(group(0xff));
        Expect.errno("a second join of one group", () -> udp.joinMulticast(group(0xff)), Errno.EADDRINUSE);
        CmBench.expect(ch, CmEventType.MULTICAST_JOIN, "the first join of 239.255.2.255");
        assertNull(ch.getEvent(0, TimeUnit.MILLISECONDS), "an event of the refused second join");
        udp.leaveMulticast(group(0xff));
    }

    @Test
    @DisplayName("required_ a UDP id refuses connect and listen with EOPNOTSUPP (SIDR is not supported), and its QP must be UD [CmId; rdma_create_qp(3)]")
    void required_udpIdIsNotConnected() {
        assumeCmMulticast();
        CmEventChannel ch = cm.channel();
        CmId udp = cm.udp(ch);
        Expect.errno("rdma_listen on a UDP id", () -> udp.listen(1), Errno.EOPNOTSUPP);
        Expect.errno("rdma_connect on a UDP id", () -> udp.connect(ConnectionParameters.defaults()),
                Errno.EOPNOTSUPP);
        Expect.errno("an RC QP on a UDP id", () -> cm.end(ch, udp, QpType.RC), Errno.EINVAL);
    }

    @Test
    @DisplayName("required_ leave is EBUSY while the join event is taken and not acknowledged, and works once it is; the id closes with a group joined [rdma_leave_multicast(3) waits for the events; rdma_destroy_id(3)]")
    void required_leaveWaitsForAck() {
        assumeCmMulticast();
        CmEventChannel ch = cm.channel();
        CmBench.End end = cm.end(ch, cm.udp(ch), QpType.UD);
        InetAddress g = group(5);
        end.id().joinMulticast(g);
        CmEvent e = ch.getEvent(CmBench.EVENT_WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(e, "the join event");
        Expect.errno("rdma_leave_multicast with the join event not acknowledged", () -> end.id().leaveMulticast(g),
                Errno.EBUSY);
        e.close();
        end.id().leaveMulticast(g);
        end.id().joinMulticast(g);
        CmBench.expect(ch, CmEventType.MULTICAST_JOIN, "a join after the leave");
        end.id().destroyQp();
        end.id().close();
    }
}
