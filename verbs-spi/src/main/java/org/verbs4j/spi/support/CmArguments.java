package org.verbs4j.spi.support;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.verbs4j.CmPortSpace;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;

/**
 * The argument rules of the connection manager ({@code rdma_cm(7)}), checked before a provider acts, so that a
 * misuse fails the same way on every provider.
 */
public final class CmArguments {
    private CmArguments() {}

    /**
     * Checks an address passed to {@code rdma_bind_addr}, {@code rdma_resolve_addr} or {@code rdma_listen}.
     *
     * @param address the address
     * @param what the argument's name, for the message
     * @return the address
     * @throws NullPointerException if address is null
     * @throws IllegalArgumentException if the address is unresolved (a host name DNS did not resolve)
     */
    public static InetSocketAddress address(InetSocketAddress address, String what) {
        Objects.requireNonNull(address, what);
        if (address.isUnresolved()) {
            throw new IllegalArgumentException(what + ": " + address + " is unresolved; the connection manager takes"
                    + " IP addresses");
        }
        return address;
    }

    /**
     * Checks the arguments of {@code rdma_resolve_addr(3)}.
     *
     * @param src the local address, or null to let the connection manager pick one
     * @param dst the destination
     * @param timeoutMs the resolution timeout, milliseconds
     * @throws NullPointerException if dst is null
     * @throws IllegalArgumentException if an address is unresolved or timeoutMs is negative
     */
    public static void resolveAddr(InetSocketAddress src, InetSocketAddress dst, int timeoutMs) {
        address(dst, "dst");
        if (src != null) {
            address(src, "src");
        }
        timeoutMs(timeoutMs);
    }

    /**
     * Checks the port space of {@code rdma_create_id(3)}: verbs4j's connection managers take TCP ids (RC
     * connections) and UDP ids (UD QPs that join multicast groups).
     *
     * @param portSpace the port space
     * @throws NullPointerException if portSpace is null
     * @throws VerbsException {@code EOPNOTSUPP} for IPoIB and IB ids
     */
    public static void portSpace(CmPortSpace portSpace) {
        Objects.requireNonNull(portSpace, "portSpace");
        if (portSpace != CmPortSpace.TCP && portSpace != CmPortSpace.UDP) {
            throw new VerbsException("rdma_create_id", Errno.EOPNOTSUPP, "verbs4j's connection managers take"
                    + " RDMA_PS_TCP (RC connections) and RDMA_PS_UDP (UD multicast) ids, not " + portSpace);
        }
    }

    /**
     * Checks the group of {@code rdma_join_multicast(3)}: an IPv4 (224.0.0.0/4) or IPv6 (ff00::/8) multicast
     * address, as the kernel's {@code rdma_join_multicast} requires of a RoCE or IPoIB group.
     *
     * @param group the group's address
     * @throws NullPointerException if group is null
     * @throws VerbsException {@code EINVAL} if it is not a multicast address
     */
    public static void multicastGroup(InetAddress group) {
        Objects.requireNonNull(group, "group");
        if (!group.isMulticastAddress()) {
            throw new VerbsException("rdma_join_multicast", Errno.EINVAL, group.getHostAddress()
                    + " is not a multicast address (IPv4 224.0.0.0/4 or IPv6 ff00::/8)");
        }
    }

    /**
     * Checks a resolution timeout ({@code rdma_resolve_addr(3)}, {@code rdma_resolve_route(3)}).
     *
     * @param timeoutMs the timeout, milliseconds
     * @throws IllegalArgumentException if it is negative
     */
    public static void timeoutMs(int timeoutMs) {
        if (timeoutMs < 0) {
            throw new IllegalArgumentException("timeoutMs: a timeout is 0 or more milliseconds, not " + timeoutMs);
        }
    }

    /**
     * Checks the timeout of a wait for an event ({@code rdma_get_cm_event(3)}).
     *
     * @param timeout the longest wait
     * @param unit its unit
     * @throws NullPointerException if unit is null
     * @throws IllegalArgumentException if timeout is negative
     */
    public static void waitTimeout(long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout: a wait is 0 or more, not " + timeout + " " + unit);
        }
    }

    /**
     * Checks the backlog of {@code rdma_listen(3)}.
     *
     * @param backlog pending requests allowed
     * @throws IllegalArgumentException if it is negative
     */
    public static void backlog(int backlog) {
        if (backlog < 0) {
            throw new IllegalArgumentException("backlog: 0 or more pending requests, not " + backlog);
        }
    }

    /**
     * Checks the parameters of {@code rdma_connect(3)} against the transport's limit.
     *
     * @param p the parameters
     * @param maxPrivateData the most private data a connect carries on the transport, bytes
     * @throws NullPointerException if p is null
     * @throws IllegalArgumentException if the private data is longer than the limit
     */
    public static void connect(ConnectionParameters p, int maxPrivateData) {
        Objects.requireNonNull(p, "parameters");
        privateData(p.privateDataLength(), maxPrivateData, "a connect");
    }

    /**
     * Checks the parameters of {@code rdma_accept(3)} against the transport's limit.
     *
     * @param p the parameters
     * @param maxPrivateData the most private data an accept carries on the transport, bytes
     * @throws NullPointerException if p is null
     * @throws IllegalArgumentException if the private data is longer than the limit
     */
    public static void accept(ConnectionParameters p, int maxPrivateData) {
        Objects.requireNonNull(p, "parameters");
        privateData(p.privateDataLength(), maxPrivateData, "an accept");
    }

    /**
     * Checks the private data of {@code rdma_reject(3)} against the transport's limit.
     *
     * @param privateData the bytes for the peer
     * @param maxPrivateData the most private data a reject carries on the transport, bytes
     * @throws NullPointerException if privateData is null
     * @throws IllegalArgumentException if the private data is longer than the limit
     */
    public static void reject(byte[] privateData, int maxPrivateData) {
        Objects.requireNonNull(privateData, "privateData");
        privateData(privateData.length, maxPrivateData, "a reject");
    }

    private static void privateData(int length, int max, String call) {
        if (length > max) {
            throw new IllegalArgumentException("privateData: " + call + " carries at most " + max
                    + " bytes of private data on this transport, not " + length);
        }
    }
}
