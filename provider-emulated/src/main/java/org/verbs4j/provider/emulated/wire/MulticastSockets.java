package org.verbs4j.provider.emulated.wire;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.nio.channels.MembershipKey;
import java.util.HashMap;
import java.util.Map;

import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.provider.emulated.verbs.EmulatedDevice;

/**
 * The multicast group sockets of a wire device's {@link RoceEndpoint}. For each IPv4 group a QP of the device is
 * attached to, the endpoint holds one more socket, bound to the group's address and the device's port
 * ({@code SO_REUSEADDR}, so that every device of the host may hold one) and joined to the group on the device's
 * interface ({@code IP_ADD_MEMBERSHIP}; one group per socket, as Linux allows a socket few memberships,
 * {@code igmp_max_memberships}), whose virtual thread runs the endpoint's receive loop: it checks each datagram as
 * the unicast one does (the ICRC over the group's address) and hands a UD SEND to {@code 0xFFFFFF} to every QP of
 * the device attached to the group ({@link WireResponder}). Such a socket gets the datagrams of its own membership
 * only (the JDK turns Linux's {@code IP_MULTICAST_ALL} off on its datagram sockets), so devices on different
 * interfaces do not take each other's groups. A loopback address ({@code 127.0.0.0/8}) is on the loopback
 * interface, which takes IP multicast on Linux without its {@code MULTICAST} flag and without privileges.
 *
 * <p>A group is joined on the first attach and left on the last detach ({@link #join}, {@link #leave(Gid)}), and
 * all are left when the endpoint closes ({@link #close}); after that no group is joined any more. The state is
 * under this object's monitor.
 */
final class MulticastSockets {
    /** The endpoint's logger: these are its sockets. */
    private static final System.Logger LOG = System.getLogger(RoceEndpoint.class.getName());

    private final RoceEndpoint endpoint;
    /** The interface of the device's address, which sends and joins its multicast groups; null if unknown. */
    private final NetworkInterface multicastInterface;
    /** The sockets of the IPv4 groups the device is attached to, by group; under this object's monitor. */
    private final Map<Gid, GroupSocket> groups = new HashMap<>();
    /** Set by {@link #close}: no group is joined any more. Under this object's monitor. */
    private boolean closed;

    /**
     * A group's socket, joined to it on the device's interface, and the group's IPv4 address as an int: the
     * destination its datagrams' ICRC and GRH carry.
     */
    private record GroupSocket(DatagramChannel channel, MembershipKey key, int address) {}

    /** The group sockets of {@code endpoint}, joined on {@code multicastInterface} (null if unknown). */
    MulticastSockets(RoceEndpoint endpoint, NetworkInterface multicastInterface) {
        this.endpoint = endpoint;
        this.multicastInterface = multicastInterface;
    }

    /**
     * Joins the IPv4 group of {@code gid} on the device's interface: a socket bound to the group's address and the
     * device's port, and its receive thread. An IPv6 multicast GID is joined by nothing (no IPv4 packet carries it;
     * see {@link EmulatedDevice}), nor is any group once {@linkplain #close closed}. The endpoint joins nothing for
     * an unbound socket, which receives nothing.
     *
     * @return 0, or {@code ENOMEM} if the socket cannot be opened, bound or joined (a warning says why)
     */
    synchronized int join(Gid gid) {
        InetAddress group = RoceEndpoint.ipv4Of(gid);
        if (group == null || closed || groups.containsKey(gid)) {
            return 0;
        }
        if (multicastInterface == null) {
            LOG.log(Level.WARNING, () -> "wire device on " + endpoint.local + ": no interface to join " + gid
                    + " on");
            return Errno.ENOMEM;
        }
        DatagramChannel ch = null;
        try {
            ch = DatagramChannel.open(StandardProtocolFamily.INET);
            ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ch.setOption(StandardSocketOptions.SO_RCVBUF, RoceEndpoint.SOCKET_BUFFER);
            ch.bind(new InetSocketAddress(group, endpoint.localPort));
            MembershipKey key = ch.join(group, multicastInterface);
            GroupSocket g = new GroupSocket(ch, key, (int) gid.interfaceId());
            groups.put(gid, g);
            Thread.ofVirtual().name("verbs4j-roce-" + endpoint.deviceName() + "-" + group.getHostAddress())
                    .start(() -> endpoint.receiveLoop(g.channel(), gid, g.address()));
            return 0;
        } catch (IOException | RuntimeException e) {
            endpoint.closeQuietly(ch);
            groups.remove(gid);
            LOG.log(Level.WARNING, () -> "wire device on " + endpoint.local + " cannot join " + gid + " on "
                    + multicastInterface.getName() + ": " + e);
            return Errno.ENOMEM;
        }
    }

    /** Leaves the group of {@code gid} if a socket is joined to it: the last detach. */
    synchronized void leave(Gid gid) {
        GroupSocket g = groups.remove(gid);
        if (g != null) {
            leave(g);
        }
    }

    /** {@return whether a socket is joined to the IPv4 group of {@code gid} now: for the tests} */
    synchronized boolean joined(Gid gid) {
        return groups.containsKey(gid);
    }

    /**
     * Leaves every group, closing its socket, which ends its receive thread; a group attached to later is joined by
     * no socket.
     */
    synchronized void close() {
        closed = true;
        for (GroupSocket g : groups.values()) {
            leave(g);
        }
        groups.clear();
    }

    /** Drops the group's membership and closes its socket, which ends its receive thread. */
    private void leave(GroupSocket g) {
        try {
            g.key().drop();
        } finally {
            endpoint.closeQuietly(g.channel());
        }
    }
}
