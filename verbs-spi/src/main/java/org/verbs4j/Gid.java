package org.verbs4j;

import java.util.HexFormat;

/**
 * A 128-bit global identifier, {@code union ibv_gid}: a subnet prefix and an interface ID, both in
 * network byte order on the wire. For RoCE v2 the GID is an IPv6 address, or an IPv4-mapped one.
 *
 * @param subnetPrefix the first 8 bytes, big-endian
 * @param interfaceId the last 8 bytes, big-endian
 * @see "ibv_query_gid(3)"
 */
public record Gid(long subnetPrefix, long interfaceId) {
    /** The all-zero GID, which a GID table uses for an empty entry. */
    public static final Gid ZERO = new Gid(0, 0);

    /**
     * The GID with these 16 raw bytes, in network order.
     *
     * @param raw 16 bytes, network order; copied
     * @return the GID
     * @throws IllegalArgumentException unless there are exactly 16 bytes
     */
    public static Gid of(byte[] raw) {
        if (raw == null || raw.length != 16) {
            throw new IllegalArgumentException("a GID is 16 bytes, not " + (raw == null ? "null" : raw.length));
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            hi = (hi << 8) | (raw[i] & 0xff);
            lo = (lo << 8) | (raw[i + 8] & 0xff);
        }
        return new Gid(hi, lo);
    }

    /**
     * {@return the IPv4-mapped GID {@code ::ffff:a.b.c.d} that RoCE v2 uses for an IPv4 address}
     *
     * @param ipv4 the 4 bytes of the IPv4 address, network order
     */
    public static Gid ofIpv4(byte[] ipv4) {
        if (ipv4 == null || ipv4.length != 4) {
            throw new IllegalArgumentException("an IPv4 address is 4 bytes");
        }
        long lo = 0xffffL << 32 | (ipv4[0] & 0xffL) << 24 | (ipv4[1] & 0xffL) << 16 | (ipv4[2] & 0xffL) << 8
                | (ipv4[3] & 0xffL);
        return new Gid(0, lo);
    }

    /**
     * Parses the eight-group form {@code fe80:0000:0000:0000:0202:c9ff:fe00:0001} that {@code ibv_devinfo -v}
     * prints, or the same with {@code ::} compression.
     *
     * @param text the GID as text
     * @return the GID
     * @throws IllegalArgumentException if the text is not a GID
     */
    public static Gid parse(String text) {
        try {
            return of(java.net.Inet6Address.getByName("[" + text + "]").getAddress());
        } catch (java.net.UnknownHostException | RuntimeException e) {
            throw new IllegalArgumentException("not a GID: " + text, e);
        }
    }

    /** {@return the 16 raw bytes, in network order} */
    public byte[] toBytes() {
        byte[] raw = new byte[16];
        for (int i = 0; i < 8; i++) {
            raw[i] = (byte) (subnetPrefix >>> (56 - 8 * i));
            raw[i + 8] = (byte) (interfaceId >>> (56 - 8 * i));
        }
        return raw;
    }

    /** {@return whether this is the all-zero GID} */
    public boolean isZero() {
        return subnetPrefix == 0 && interfaceId == 0;
    }

    /** The eight-group form that {@code ibv_devinfo -v} prints. */
    @Override
    public String toString() {
        String hex = HexFormat.of().formatHex(toBytes());
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 32; i += 4) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(hex, i, i + 4);
        }
        return sb.toString();
    }
}
