package org.verbs4j.provider.emulated.wire;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

import org.verbs4j.provider.emulated.wire.codec.Ipv4Udp;

/**
 * The wire devices' configuration: the system property {@value #PROPERTY}, or else the environment
 * variable {@value #ENV}, lists {@code ADDRESS[:PORT]} entries separated by commas; each makes one wire
 * device bound to that IPv4 address and UDP port (default {@value Ipv4Udp#ROCE_V2_PORT}). Port 0 asks for a
 * free port: the entries with port 0 share one, which the system picks when the devices are first listed
 * ({@link RoceEndpoint#bindAll}); the tests use it so that builds running side by side do not collide.
 *
 * <p>An ADDRESS is one interface address: {@code 0.0.0.0}, a multicast or the broadcast address is refused. A
 * wire device's GID is its address, and a peer seals and addresses its packets with it, as rxe takes the one
 * address of its netdev; a wildcard would give the GID {@code ::ffff:0.0.0.0} and take the port on every address.
 */
public final class RoceConfig {
    public static final String PROPERTY = "verbs4j.emulated.roce";
    public static final String ENV = "VERBS4J_EMULATED_ROCE";

    private RoceConfig() {}

    /** The configured addresses, from the property, else the environment; empty if neither is set. */
    public static List<InetSocketAddress> configured() {
        String v = System.getProperty(PROPERTY);
        String from = PROPERTY;
        if (v == null || v.isBlank()) {
            v = System.getenv(ENV);
            from = ENV;
        }
        return v == null || v.isBlank() ? List.of() : parse(v, from);
    }

    /**
     * Parses {@code ADDRESS[:PORT],...}.
     *
     * @throws IllegalArgumentException naming {@code from} and the bad entry: not an IPv4 address, or a port
     *         outside 0..65535
     */
    public static List<InetSocketAddress> parse(String value, String from) {
        List<InetSocketAddress> out = new ArrayList<>();
        for (String entry : value.split(",")) {
            String e = entry.trim();
            if (e.isEmpty()) {
                continue;
            }
            int colon = e.indexOf(':');
            String host = colon < 0 ? e : e.substring(0, colon);
            int port = Ipv4Udp.ROCE_V2_PORT;
            if (colon >= 0) {
                try {
                    port = Integer.parseInt(e.substring(colon + 1));
                } catch (NumberFormatException x) {
                    throw new IllegalArgumentException(from + ": '" + e + "' has a port that is not a number", x);
                }
                if (port < 0 || port > 65535) {
                    throw new IllegalArgumentException(from + ": '" + e + "' has a port outside 0..65535");
                }
            }
            if (!host.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
                throw new IllegalArgumentException(from + ": '" + e + "' is not ADDRESS[:PORT] with an IPv4 ADDRESS");
            }
            InetAddress a;
            try {
                a = InetAddress.getByName(host);
            } catch (UnknownHostException x) {
                throw new IllegalArgumentException(from + ": '" + e + "' is not an IPv4 address", x);
            }
            if (!(a instanceof Inet4Address)) {
                throw new IllegalArgumentException(from + ": '" + e + "' is not an IPv4 address");
            }
            String why = RoceEndpoint.notUnicast(a);
            if (why != null) {
                throw new IllegalArgumentException(from + ": '" + e + "' " + why);
            }
            out.add(new InetSocketAddress(a, port));
        }
        return out;
    }
}
