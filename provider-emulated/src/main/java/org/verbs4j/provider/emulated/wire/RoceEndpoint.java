package org.verbs4j.provider.emulated.wire;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.ref.WeakReference;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

import jdk.net.ExtendedSocketOptions;

import org.verbs4j.Device;
import org.verbs4j.Gid;
import org.verbs4j.provider.emulated.engine.Transport;
import org.verbs4j.provider.emulated.verbs.EmulatedDevice;
import org.verbs4j.provider.emulated.verbs.EmulatedQueuePair;
import org.verbs4j.provider.emulated.verbs.NetworkLink;
import org.verbs4j.provider.emulated.wire.codec.CmMad;
import org.verbs4j.provider.emulated.wire.codec.Icrc;
import org.verbs4j.provider.emulated.wire.codec.Ipv4Udp;
import org.verbs4j.provider.emulated.wire.codec.Opcode;
import org.verbs4j.provider.emulated.wire.codec.Packet;
import org.verbs4j.provider.emulated.wire.codec.Reject;

/**
 * The UDP socket of a wire device (RoCE v2): a JDK {@link DatagramChannel} bound to the device's IPv4
 * address and port, and one daemon thread that receives every packet, parses and validates it
 * ({@link Packet#parse}, the ICRC included), finds the QP its BTH names and hands it to that QP's
 * {@link WireTransport}. A packet that fails a check is dropped and counted by reason; nothing in it runs.
 *
 * <p>UD multicast over IPv4: the socket sends a datagram to a group's address ({@code ::ffff:224.0.0.0/4}, the
 * destination QPN {@code 0xFFFFFF}) out of the device's interface ({@code IP_MULTICAST_IF}), with
 * {@code IP_MULTICAST_LOOP} on so that the groups' members on this host get it too, and TTL 64, the unicast
 * datagrams' (the TTL the receiver's GRH shows). For each IPv4 group a QP of the device is attached to, the endpoint
 * holds one more socket, joined to the group on the device's interface, whose virtual thread runs this endpoint's
 * receive loop and hands the group's datagrams to the device's QPs attached to it: {@link MulticastSockets}.
 *
 * <p>Senders (requesters under their QP's lock, the receive thread for responses) call {@link #send}; the
 * channel is safe for concurrent sends. A requester sends on the application's posting thread, and I/O on a blocking
 * channel is interruptible: an interrupt closes the channel ({@code ClosedByInterruptException}). So a send runs
 * with the thread's interrupt status cleared and then restores it, and if an interrupt that comes during the send
 * itself closes the socket anyway, {@link #reopen} binds a new one to the same address (the packet is lost; RC
 * sends it again). An interrupted thread that posts never silences the device.
 */
public final class RoceEndpoint implements NetworkLink {
    private static final System.Logger LOG = System.getLogger(RoceEndpoint.class.getName());
    /** The largest datagram: a 4096-byte payload, the longest headers, pad and ICRC, rounded up. */
    public static final int MAX_PACKET = 4096 + 128;
    /** The receive and send buffer of each socket: the device's and its groups'. */
    static final int SOCKET_BUFFER = 4 << 20;
    /** How many times {@link #reopen} tries to bind a new socket to the address, 1 ms apart. */
    private static final int REBIND_TRIES = 100;
    /**
     * The fraction of received packets every endpoint of this JVM drops on purpose, from
     * {@code -Dverbs4j.emulated.roce.receiveLoss} (0, the default, drops none; a value outside [0, 1) is ignored):
     * a lossy network between processes for measuring loss recovery ({@code benchmarks/wire-loss}) where no netem
     * is at hand. The drops are drawn from a {@link Random} seeded with {@code -Dverbs4j.emulated.roce.receiveLossSeed}
     * (default 27) and the endpoint's address.
     */
    public static final double RECEIVE_LOSS = receiveLoss(System.getProperty("verbs4j.emulated.roce.receiveLoss"));

    public final InetSocketAddress local;
    /** The local IPv4 address as an int, and the port: the ICRC's source or destination. */
    public final int localAddr;
    public final int localPort;
    /**
     * Null if the socket could not be bound: the device is listed with its port DOWN and sends nothing. Replaced
     * by {@link #reopen} when an interrupt closed it under a send.
     */
    private volatile DatagramChannel channel;
    /** Whether {@link #close} ran: no socket is bound again after it. Guarded by {@code this}. */
    private boolean closed;
    /** How many times an interrupt closed the socket under a send and {@link #reopen} bound a new one. */
    private final AtomicLong reopens = new AtomicLong();
    /** The sockets of the IPv4 groups the device is attached to, joined on the interface of its address. */
    private final MulticastSockets groups;
    private final AtomicLongArray rejected = new AtomicLongArray(Reject.values().length);
    private EmulatedDevice device;
    /** The device's QP1: the IB CM over the wire. */
    private GsiAgent gsi;
    /** Draws the {@link #RECEIVE_LOSS} drops; null when there are none. Used by the receive threads (thread-safe). */
    private final Random receiveLossRandom;
    /** A test's hand on the packets this endpoint sends (the fault-injection harness); null in service. */
    public volatile Tap tap;

    /**
     * Sees every sealed packet before it leaves, for the tests' fault injection between two wire devices (the
     * transport seam: requesters and responders both send through {@link #send}).
     */
    public interface Tap {
        /**
         * Takes the packet between {@code packet}'s position and limit, on its way to {@code to}.
         *
         * @return true if the tap took the packet over (it drops it, or sends it or a copy later through
         *         {@link #sendNow}); false to let it go now. The buffer is the sender's: a tap copies what it keeps.
         */
        boolean intercept(RoceEndpoint from, ByteBuffer packet, InetSocketAddress to);
    }

    private RoceEndpoint(InetSocketAddress local, DatagramChannel channel, NetworkInterface multicastInterface) {
        this.local = local;
        this.localAddr = ipv4(local);
        this.localPort = local.getPort();
        this.channel = channel;
        this.groups = new MulticastSockets(this, multicastInterface);
        this.receiveLossRandom = RECEIVE_LOSS > 0
                ? new Random(Long.getLong("verbs4j.emulated.roce.receiveLossSeed", 27L) ^ localAddr) : null;
    }

    /** {@link #RECEIVE_LOSS} from its property's value: 0 when unset or not a fraction in [0, 1). */
    public static double receiveLoss(String v) {
        if (v == null) {
            return 0;
        }
        try {
            double d = Double.parseDouble(v.trim());
            if (d >= 0 && d < 1) {
                return d;
            }
        } catch (NumberFormatException e) {
            // Reported below.
        }
        LOG.log(Level.WARNING, () -> "verbs4j.emulated.roce.receiveLoss=" + v
                + " is not a fraction in [0, 1): no loss");
        return 0;
    }

    /**
     * Binds a UDP socket to {@code local}.
     *
     * @throws IllegalArgumentException if the address is not IPv4, or not one interface address
     *         ({@link #notUnicast})
     * @throws IOException if the socket cannot be bound
     */
    public static RoceEndpoint bind(InetSocketAddress local) throws IOException {
        if (!(local.getAddress() instanceof Inet4Address)) {
            throw new IllegalArgumentException("a RoCE v2 wire device needs an IPv4 address, not " + local);
        }
        String why = notUnicast(local.getAddress());
        if (why != null) {
            throw new IllegalArgumentException("wire device on " + local + ": the address " + why);
        }
        DatagramChannel ch = openSocket(local);
        NetworkInterface nif = multicastSending(ch, local.getAddress());
        // The bound address: with port 0, the port the system picked.
        return new RoceEndpoint((InetSocketAddress) ch.getLocalAddress(), ch, nif);
    }

    /** A UDP socket bound to {@code local}, with the device's buffers and DF; closed again if a step fails. */
    private static DatagramChannel openSocket(InetSocketAddress local) throws IOException {
        DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
        try {
            ch.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
            ch.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
            dontFragment(ch);
            ch.bind(local);
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * Sends the socket's multicast datagrams out of the interface of {@code address}, loops them back to this
     * host's members and gives them the unicast datagrams' TTL (64, Linux's {@code ip_default_ttl}), so the GRH a
     * receiver writes tells the truth. Where the interface is unknown or an option fails, multicast goes by the
     * routing table's default, or nowhere (logged).
     *
     * @return the interface, which the device's groups are joined on; null if unknown
     */
    private static NetworkInterface multicastSending(DatagramChannel ch, InetAddress address) {
        NetworkInterface nif = interfaceOf(address);
        try {
            if (nif != null) {
                ch.setOption(StandardSocketOptions.IP_MULTICAST_IF, nif);
            }
            ch.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
            ch.setOption(StandardSocketOptions.IP_MULTICAST_TTL, 64);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, () -> "wire device on " + address + ": cannot set up multicast sending (" + e
                    + "); UD sends to a multicast group may not arrive");
        }
        if (nif == null) {
            LOG.log(Level.WARNING, () -> "wire device on " + address + ": no interface has this address; its UD"
                    + " multicast groups cannot be joined");
        }
        return nif;
    }

    /**
     * The interface that has {@code address}; for a loopback address that no interface lists (any of
     * {@code 127.0.0.0/8} but the configured one, routed to it on Linux), the loopback interface.
     *
     * @return the interface, or null if none has the address
     */
    static NetworkInterface interfaceOf(InetAddress address) {
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(address);
            if (nif != null || !address.isLoopbackAddress()) {
                return nif;
            }
            return NetworkInterface.networkInterfaces().filter(RoceEndpoint::isLoopback).findFirst().orElse(null);
        } catch (SocketException e) {
            return null;
        }
    }

    private static boolean isLoopback(NetworkInterface nif) {
        try {
            return nif.isLoopback();
        } catch (SocketException e) {
            return false;
        }
    }

    /**
     * Why {@code a} cannot be a wire device's address, or null if it can: the unspecified address (a wildcard
     * socket would take the port on every address, and the GID {@code ::ffff:0.0.0.0} names no one), a multicast
     * or the limited broadcast address. A device is bound to one interface address, its GID.
     */
    static String notUnicast(InetAddress a) {
        if (a.isAnyLocalAddress()) {
            return "is the unspecified address: a wire device needs one interface address (its GID), not a wildcard";
        }
        if (a.isMulticastAddress() || a.getAddress().length == 4 && Arrays.equals(a.getAddress(),
                new byte[] {-1, -1, -1, -1})) {
            return "is a multicast or broadcast address: a wire device needs one interface address (its GID)";
        }
        return null;
    }

    /**
     * Binds a socket for each of {@code addresses}, in order. The entries with port 0 share one free port: the
     * system picks it for the first of them, and the others bind the same port on their own addresses (a peer's
     * port is taken to be the local one, so the devices of one JVM must agree on it). If one of them finds that
     * port taken, all of them are closed and bound again with another free port, a few times. An address that
     * cannot be bound gives an {@linkplain #unbound unbound} endpoint.
     *
     * @return one endpoint per address, in order
     */
    public static List<RoceEndpoint> bindAll(List<InetSocketAddress> addresses) {
        RoceEndpoint[] out = new RoceEndpoint[addresses.size()];
        IOException failure = bindSharedPort(addresses, out);
        for (int attempt = 1; attempt < 8 && failure != null; attempt++) {
            failure = bindSharedPort(addresses, out);
        }
        for (int i = 0; i < out.length; i++) {
            InetSocketAddress a = addresses.get(i);
            if (out[i] != null) {
                continue;
            }
            if (a.getPort() == 0) {
                out[i] = unbound(a, failure);
                continue;
            }
            try {
                out[i] = bind(a);
            } catch (IOException e) {
                out[i] = unbound(a, e);
            }
        }
        return List.of(out);
    }

    /**
     * Binds the entries of {@code addresses} with port 0 into {@code out}, all on the port the system picks for
     * the first; on a failure, closes and clears what it bound.
     *
     * @return null, or the failure
     */
    private static IOException bindSharedPort(List<InetSocketAddress> addresses, RoceEndpoint[] out) {
        int port = 0;
        for (int i = 0; i < out.length; i++) {
            InetSocketAddress a = addresses.get(i);
            if (a.getPort() != 0) {
                continue;
            }
            try {
                out[i] = bind(new InetSocketAddress(a.getAddress(), port));
                port = out[i].localPort;
            } catch (IOException e) {
                for (int j = 0; j < i; j++) {
                    if (out[j] != null) {
                        out[j].close();
                        out[j] = null;
                    }
                }
                return e;
            }
        }
        return null;
    }

    /**
     * Closes the socket and leaves every multicast group, closing its socket, ending the receive threads; a
     * group attached to later is joined by no socket.
     */
    public void close() {
        groups.close();
        synchronized (this) {
            closed = true;
        }
        closeQuietly(channel);
    }

    /** Closes {@code ch}, if any: the device's socket or a group's; a failure is logged. */
    void closeQuietly(DatagramChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                LOG.log(Level.DEBUG, () -> "close of a socket of " + local + " failed: " + e);
            }
        }
    }

    /**
     * Joins the IPv4 group of {@code gid} on the device's interface: a socket bound to the group's address and the
     * device's port, and its receive thread ({@link MulticastSockets#join}). An IPv6 multicast GID is joined by
     * nothing (no IPv4 packet carries it; see {@link EmulatedDevice}), nor is any group of an unbound or closed
     * endpoint, which receives nothing.
     *
     * @return 0, or {@code ENOMEM} if the socket cannot be opened, bound or joined (a warning says why)
     */
    @Override
    public int joinGroup(Gid gid) {
        return channel == null ? 0 : groups.join(gid);
    }

    @Override
    public void leaveGroup(Gid gid) {
        groups.leave(gid);
    }

    /** {@return whether a socket of this endpoint is joined to the IPv4 group of {@code gid} now: for the tests} */
    public boolean joined(Gid gid) {
        return groups.joined(gid);
    }

    /** {@return the IPv4 address of an IPv4-mapped GID {@code ::ffff:a.b.c.d}, or null for any other GID} */
    static InetAddress ipv4Of(Gid gid) {
        if (gid.subnetPrefix() != 0 || (gid.interfaceId() >>> 32) != 0xffffL) {
            return null;
        }
        try {
            // The GID's last four bytes are the address, in network order.
            return InetAddress.getByAddress(Arrays.copyOfRange(gid.toBytes(), 12, 16));
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Asks for DF on every datagram ({@code IP_MTU_DISCOVER} = {@code IP_PMTUDISC_DO} on Linux). The ICRC covers
     * the IP identification, which a UDP socket cannot see or set. A Linux socket left at its default
     * ({@code IP_PMTUDISC_WANT}) may fragment, so the kernel gives each datagram a hashed identification that no
     * sender can predict, and rxe drops every packet for a bad ICRC; with {@code IP_PMTUDISC_DO} an unconnected
     * socket sends identification 0, the value {@link PacketSender} seals with. Where the option is missing,
     * the socket stays as it is (a peer of ours still recovers the identification, rxe would not).
     */
    private static void dontFragment(DatagramChannel ch) {
        try {
            ch.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
        } catch (UnsupportedOperationException | IOException e) {
            LOG.log(Level.WARNING, () -> "wire device: cannot set IP_DONTFRAGMENT (" + e + "); a kernel RoCE peer"
                    + " such as rxe will drop this device's packets for a bad ICRC");
        }
    }

    /**
     * An endpoint whose socket could not be bound ({@code cause}): it sends and receives nothing. The device
     * stays listed, with its port DOWN, so that a bad or busy address does not take the other devices away.
     */
    static RoceEndpoint unbound(InetSocketAddress local, IOException cause) {
        LOG.log(Level.WARNING, () -> "wire device on " + local + " cannot bind its UDP socket (" + cause
                + "); its port is DOWN. Set " + RoceConfig.PROPERTY + " to a free local IPv4 address and port.");
        return new RoceEndpoint(local, null, null);
    }

    /** Whether the socket is bound: the port is ACTIVE. */
    @Override
    public boolean isBound() {
        return channel != null;
    }

    /** {@return the name of the device this endpoint receives for: its receive threads' names} */
    String deviceName() {
        return device.name();
    }

    /** Starts receiving for {@code d}, handing QP1's datagrams to {@code gsi}. */
    public void start(EmulatedDevice d, GsiAgent gsi) {
        this.device = d;
        this.gsi = gsi;
        if (channel != null) {
            startReceiving(channel);
        }
    }

    /** Starts the daemon thread that receives the datagrams of the device's socket {@code ch}. */
    private void startReceiving(DatagramChannel ch) {
        Thread t = new Thread(() -> receiveLoop(ch, null, localAddr), "verbs4j-roce-" + device.name());
        t.setDaemon(true);
        t.start();
    }

    /** The IPv4 address of {@code a} as an int. */
    public static int ipv4(InetSocketAddress a) {
        byte[] b = a.getAddress().getAddress();
        return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | b[3] & 0xff;
    }

    /** Sends the packet between {@code buf}'s position and limit to {@code to}; a failure is a lost packet. */
    void send(ByteBuffer buf, InetSocketAddress to) {
        Tap t = tap;
        if (t != null && t.intercept(this, buf, to)) {
            return;
        }
        sendNow(buf, to);
    }

    /**
     * Sends the packet between {@code buf}'s position and limit to {@code to}, past any {@link #tap}, with the
     * calling thread's interrupt status cleared, and restores it (see the class comment).
     */
    public void sendNow(ByteBuffer buf, InetSocketAddress to) {
        DatagramChannel ch = channel;
        if (ch == null) {
            return;
        }
        boolean interrupted = Thread.interrupted();
        try {
            ch.send(buf, to);
        } catch (ClosedChannelException e) {
            // An interrupt during the send closed the socket (ClosedByInterruptException), or this send raced that
            // close: the packet is lost, and a new socket takes the address unless the endpoint was closed.
            reopen(ch);
        } catch (IOException e) {
            // The wire may lose packets; RC retransmits, UC and UD do not care.
            LOG.log(Level.DEBUG, () -> "send to " + to + " failed: " + e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Binds a new socket to the device's address in place of {@code old}, which an interrupt closed under a send,
     * and starts its receive thread (the old one ended with the old socket); nothing if the endpoint is closed or
     * the socket was already replaced. The bind is tried up to {@link #REBIND_TRIES} times, 1 ms apart, while the
     * old socket's port is released; if every try fails, the device sends and receives nothing from then on.
     */
    private synchronized void reopen(DatagramChannel old) {
        if (closed || channel != old || old.isOpen()) {
            return;
        }
        IOException last = null;
        for (int i = 0; i < REBIND_TRIES; i++) {   // the budget ends the loop
            try {
                DatagramChannel ch = openSocket(local);
                multicastSending(ch, local.getAddress());
                channel = ch;
                reopens.incrementAndGet();
                startReceiving(ch);
                LOG.log(Level.DEBUG, () -> "wire device on " + local + ": an interrupt closed its socket under a"
                        + " send; a new socket took its address");
                return;
            } catch (IOException e) {
                last = e;
                LockSupport.parkNanos(1_000_000L);
            }
        }
        IOException why = last;
        LOG.log(Level.WARNING, () -> "wire device on " + local + ": an interrupt closed its socket under a send,"
                + " and no new socket could take its address (" + why + "); the device sends and receives nothing");
    }

    /** {@return how many times an interrupt closed the socket under a send and a new socket took its address} */
    public long reopens() {
        return reopens.get();
    }

    /** How many received packets were dropped for {@code why}. */
    public long rejected(Reject why) {
        return rejected.get(why.ordinal());
    }

    /**
     * Receives the datagrams of {@code ch} until it is closed: the device's unicast socket ({@code group} null) or
     * the socket of a multicast group, whose datagrams are addressed to {@code dstAddr} ({@link MulticastSockets}).
     */
    void receiveLoop(DatagramChannel ch, Gid group, int dstAddr) {
        ByteBuffer buf = ByteBuffer.allocateDirect(65536);
        Packet p = new Packet();
        Icrc icrc = new Icrc();
        Ipv4Udp ip = new Ipv4Udp();
        while (true) {
            buf.clear();
            InetSocketAddress from;
            try {
                from = (InetSocketAddress) ch.receive(buf);
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!ch.isOpen()) {
                    return;
                }
                LOG.log(Level.DEBUG, () -> "receive failed: " + e);
                continue;
            }
            int len = buf.position();
            if (receiveLossRandom != null && receiveLossRandom.nextDouble() < RECEIVE_LOSS) {
                continue;
            }
            // The packet is addressed from index 0; a segment of the buffer covers exactly the packet.
            buf.flip();
            Reject why;
            if (!(from.getAddress() instanceof Inet4Address)) {
                why = Reject.FOREIGN_SOURCE;
            } else {
                // Our own peers send identification 0 (DF, unconnected socket: see dontFragment); try that first.
                ip.set(ipv4(from), from.getPort(), dstAddr, localPort);
                why = p.parse(buf, len, icrc, ip);
                if (why == Reject.BAD_ICRC && icrc.recoverIpId(buf, len, ip) >= 0) {
                    // A sender that sets the IP identification (rxe does): the ICRC checks with some value.
                    why = null;
                }
                if (why == null) {
                    why = dispatch(p, buf, from, group, dstAddr);
                }
            }
            if (why != null) {
                rejected.incrementAndGet(why.ordinal());
            }
        }
    }

    /** {@return the endpoint of an emulated wire device {@code d}, or null if {@code d} is an in-JVM device} */
    public static RoceEndpoint of(Device d) {
        return ((EmulatedDevice) d).link() instanceof RoceEndpoint e ? e : null;
    }

    @Override
    public byte[] address() {
        return local.getAddress().getAddress();
    }

    @Override
    public Transport transport(EmulatedQueuePair qp) {
        return new WireTransport(qp, this);
    }

    /**
     * Hands a checked packet to the QP its BTH names, or, sent to a multicast {@code group} (at {@code dstAddr}), to
     * the device's QPs attached to it; null if some QP took it, else why it was dropped. Nothing a QP throws (a
     * region or QP closed under the packet) leaves the receive thread.
     */
    private Reject dispatch(Packet p, ByteBuffer buf, InetSocketAddress from, Gid group, int dstAddr) {
        if (group != null) {
            return p.destQpn == Transport.MULTICAST_QPN && Opcode.transport(p.opcode) == Opcode.UD
                    ? toMembers(p, buf, from, group, dstAddr) : Reject.UNKNOWN_QP;
        }
        EmulatedQueuePair qp = device.qps.get(p.destQpn);
        if (p.destQpn != CmMad.GSI_QPN && (qp == null || !(qp.transport() instanceof WireTransport))) {
            return Reject.UNKNOWN_QP;
        }
        return deliver(p, buf, from, qp, 0);
    }

    /** A multicast datagram, to each QP of the device attached to {@code group}: one copy each (rxe_rcv_mcast_pkt). */
    private Reject toMembers(Packet p, ByteBuffer buf, InetSocketAddress from, Gid group, int dstAddr) {
        Reject why = Reject.UNKNOWN_QP;
        for (WeakReference<EmulatedQueuePair> ref : device.multicastMembers(group)) {
            EmulatedQueuePair qp = ref.get();
            if (qp != null && qp.transport() instanceof WireTransport) {
                Reject r = deliver(p, buf, from, qp, dstAddr);
                why = r == null || why == null ? null : r;
            }
        }
        return why;
    }

    /**
     * Hands a packet to {@code qp}: QP1's agent, a response or a request; {@code group} is the multicast group's
     * address a UD datagram was sent to, or 0 for one sent to the device.
     */
    private Reject deliver(Packet p, ByteBuffer buf, InetSocketAddress from, EmulatedQueuePair qp, int group) {
        try {
            if (group != 0) {
                return ((WireTransport) qp.transport()).responder.onMulticast(p, buf, from, group);
            }
            if (p.destQpn == CmMad.GSI_QPN) {
                return gsi.onDatagram(p, buf, from);
            }
            WireTransport w = (WireTransport) qp.transport();
            return Opcode.is(p.opcode, Opcode.RESPONSE) ? w.onResponse(p, buf, from)
                    : w.responder.onRequest(p, buf, from);
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            // A region whose arena was closed under it: the packet is lost, the device lives.
            LOG.log(Level.DEBUG, () -> "packet " + p + " failed: " + e);
            return Reject.BAD_STATE;
        } catch (RuntimeException e) {
            // A bug of ours must not silence the device: the packet is dropped and the thread goes on.
            LOG.log(Level.WARNING, () -> "packet " + p + " failed", e);
            return Reject.BAD_STATE;
        }
    }
}
