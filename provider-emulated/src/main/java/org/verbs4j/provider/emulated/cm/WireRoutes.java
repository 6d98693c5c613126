package org.verbs4j.provider.emulated.cm;

import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;

import org.verbs4j.Device;
import org.verbs4j.provider.emulated.verbs.EmulatedDevice;
import org.verbs4j.provider.emulated.wire.RoceEndpoint;

/**
 * Which wire device an IPv4 address is reached through, for the connection manager's address resolution: the
 * device bound to that address, else the first ACTIVE wire device whose subnet holds it. A device's subnet is its
 * address's prefix on its network interface, except on loopback, where it is the address's /24: the whole of
 * 127.0.0.0/8 is one interface, and the in-JVM device keeps the loopback addresses outside a wire device's /24.
 */
public final class WireRoutes {
    private static final int LOOPBACK_PREFIX = 24;

    private WireRoutes() {}

    /** The wire device that owns or reaches {@code address}, or null. */
    static EmulatedDevice deviceFor(InetAddress address) {
        byte[] a = address.getAddress();
        if (a.length != 4 || address.isAnyLocalAddress()) {
            return null;
        }
        EmulatedDevice reaching = null;
        for (Device d : EmulatedDevices.all()) {
            RoceEndpoint r = RoceEndpoint.of(d);
            if (r == null || !r.isBound()) {
                continue;
            }
            EmulatedDevice e = (EmulatedDevice) d;
            InetAddress own = r.local.getAddress();
            if (own.equals(address)) {
                return e;
            }
            if (reaching == null && sameSubnet(own, a, prefix(own))) {
                reaching = e;
            }
        }
        return reaching;
    }

    /** The source address an id on {@code device} takes towards {@code destination}: a wire device's own address. */
    static InetAddress source(EmulatedDevice device, InetAddress destination) {
        RoceEndpoint r = RoceEndpoint.of(device);
        return r != null ? r.local.getAddress() : destination;
    }

    private static int prefix(InetAddress own) {
        if (own.isLoopbackAddress()) {
            return LOOPBACK_PREFIX;
        }
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(own);
            if (nif != null) {
                for (InterfaceAddress ia : nif.getInterfaceAddresses()) {
                    if (ia.getAddress().equals(own)) {
                        return ia.getNetworkPrefixLength();
                    }
                }
            }
        } catch (SocketException e) {
            // No interface information: the /24 below.
        }
        return LOOPBACK_PREFIX;
    }

    private static boolean sameSubnet(InetAddress own, byte[] other, int prefix) {
        int mask = prefix == 0 ? 0 : -1 << (32 - prefix);
        return (RoceEndpoint.ipv4(new java.net.InetSocketAddress(own, 0)) & mask) == (toInt(other) & mask);
    }

    private static int toInt(byte[] b) {
        return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | b[3] & 0xff;
    }
}
