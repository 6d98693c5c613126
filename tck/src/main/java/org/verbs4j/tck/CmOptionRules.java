package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AhAttributes;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmId;
import org.verbs4j.Errno;

/**
 * The id options of {@code rdma_set_option(3)} at level {@code RDMA_OPTION_ID}: TOS as the route's traffic
 * class, the ACK timeout as the RC QP's, REUSEADDR and AFONLY with the kernel's port rules ({@code cma_check_port})
 * and the states each may be set in ({@code rdma_set_reuseaddr}, {@code rdma_set_afonly}), each limit from both
 * sides.
 */
public abstract class CmOptionRules extends CmArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected CmOptionRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    /** A TCP id bound to {@code address}. */
    private CmId bound(CmEventChannel ch, InetSocketAddress address, boolean reuse) {
        CmId id = cm.id(ch);
        id.setReuseAddress(reuse);
        id.bindAddr(address);
        return id;
    }

    @Test
    @DisplayName("required_ a TOS set before the route is resolved is the traffic class of the connected QP's address vector; 255 fits, 256 and -1 are refused [rdma_set_option(3) RDMA_OPTION_ID_TOS; cma_resolve_iboe_route]")
    void required_tosIsTrafficClass() {
        assumeCm();
        CmBench.Connection c = cm.connect(text("tos"), text("ok"), id -> id.setTos(0x68));
        AhAttributes av = c.a().qp().query().ahAttr();
        assertNotNull(av.grh(), "a RoCE connection's address vector is global");
        assertEquals(0x68, av.grh().trafficClass(), "the active QP's traffic class after rdma_set_option TOS 0x68");
        CmId id = cm.id(cm.channel());
        id.setTos(255);
        id.setTos(0);
        Expect.thrown("setTos(256)", IllegalArgumentException.class, () -> id.setTos(256));
        Expect.thrown("setTos(-1)", IllegalArgumentException.class, () -> id.setTos(-1));
    }

    @Test
    @DisplayName("required_ an ACK timeout set before the connect is the active RC QP's timeout in RTS; 31 fits, 32 and -1 are refused, and a UDP id refuses it with EINVAL [rdma_set_option(3) RDMA_OPTION_ID_ACK_TIMEOUT; rdma_set_ack_timeout: RC only]")
    void required_ackTimeoutIsQpTimeout() {
        assumeCm();
        CmBench.Connection c = cm.connect(text("timeout"), text("ok"), id -> id.setAckTimeout(18));
        assertEquals(18, c.a().qp().query().timeout(), "the active QP's timeout after rdma_set_option ACK_TIMEOUT 18");
        CmId id = cm.id(cm.channel());
        id.setAckTimeout(31);
        id.setAckTimeout(0);
        Expect.thrown("setAckTimeout(32)", IllegalArgumentException.class, () -> id.setAckTimeout(32));
        Expect.thrown("setAckTimeout(-1)", IllegalArgumentException.class, () -> id.setAckTimeout(-1));
        CmId udp = cm.udp(cm.channel());
        Expect.errno("ACK_TIMEOUT on a UDP id", () -> udp.setAckTimeout(14), Errno.EINVAL);
    }

    @Test
    @DisplayName("required_ ids that all reuse a port share one address and port until one listens: without reuse a second bind is EADDRINUSE, with reuse on both it binds, a listen beside a sharer is EADDRINUSE, and a listener shares with nobody [rdma_set_option(3) RDMA_OPTION_ID_REUSEADDR; cma_check_port, rdma_listen]")
    void required_reuseAddressSharesUntilListen() {
        assumeCm();
        CmEventChannel ch = cm.channel();
        CmId a = bound(ch, new InetSocketAddress(cm.address, 0), false);
        InetSocketAddress taken = a.localAddress();
        Expect.errno("a second bind of " + taken + " without reuse", () -> bound(ch, taken, true), Errno.EADDRINUSE);
        a.setReuseAddress(true); // turning it on after the bind is allowed
        CmId b = bound(ch, taken, true);
        Expect.errno("a listen on a port another id shares", () -> a.listen(1), Errno.EADDRINUSE);
        b.close();
        a.listen(1);
        Expect.errno("a bind beside a listener that had reuse", () -> bound(ch, taken, true), Errno.EADDRINUSE);
        Expect.errno("REUSEADDR on a listening id", () -> a.setReuseAddress(true), Errno.EINVAL);
    }

    @Test
    @DisplayName("required_ REUSEADDR is turned off only before the bind (EINVAL after), and a bind beside a wildcard bind of the port is EADDRNOTAVAIL [rdma_set_reuseaddr; cma_check_port]")
    void required_reuseAddressStatesAndWildcard() {
        assumeCm();
        CmEventChannel ch = cm.channel();
        CmId id = cm.id(ch);
        id.setReuseAddress(true);
        id.setReuseAddress(false);
        id.bindAddr(new InetSocketAddress(cm.address, 0));
        Expect.errno("REUSEADDR off after the bind", () -> id.setReuseAddress(false), Errno.EINVAL);
        CmId wildcard = bound(ch, new InetSocketAddress(0), false);
        int port = wildcard.localAddress().getPort();
        Expect.errno("a bind of the device's address on a port bound to the wildcard",
                () -> bound(ch, new InetSocketAddress(cm.address, port), false), Errno.EADDRNOTAVAIL);
    }

    @Test
    @DisplayName("required_ AFONLY is set on a new or bound id and refused (EINVAL) once the id has resolved an address; IPv6 and IPv4 wildcards that are both AF-only share a port, while one that is not gets EADDRNOTAVAIL [rdma_set_option(3) RDMA_OPTION_ID_AFONLY; rdma_set_afonly; cma_check_port]")
    void required_afOnly() throws Exception {
        assumeCm();
        CmEventChannel ch = cm.channel();
        CmId v6 = cm.id(ch);
        v6.setAfOnly(true);
        v6.bindAddr(new InetSocketAddress(Inet6Address.getByName("::"), 0));
        v6.setAfOnly(true); // still allowed once bound
        int port = v6.localAddress().getPort();
        CmId v4 = cm.id(ch);
        v4.setAfOnly(true);
        v4.bindAddr(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), port));
        CmId other = cm.id(ch);
        Expect.errno("an IPv4 wildcard bind that is not AF-only beside them",
                () -> other.bindAddr(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), port)),
                Errno.EADDRNOTAVAIL);
        CmId resolved = cm.resolved(ch, port);
        Expect.errno("AFONLY once an address is resolved", () -> resolved.setAfOnly(true), Errno.EINVAL);
    }
}
