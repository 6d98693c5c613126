package org.verbs4j.provider.emulated.wire.codec;

import java.nio.ByteBuffer;

/**
 * The header rdma_cm puts at the start of a REQ's private data for an IP port space (Linux {@code cma.c},
 * {@code struct cma_hdr}; IBA vol. 1 annex A11): its version (0), the IP version in the high four bits of the next
 * byte, the active side's port, then the source and destination addresses, 16 bytes each, an IPv4 address in the
 * last four. The consumer's private data follows, {@value #USER_DATA} bytes of the REQ's 92.
 *
 * @param srcAddr the active side's IPv4 address, as an int
 * @param srcPort the active side's port
 * @param dstAddr the passive side's IPv4 address, as an int
 */
public record CmaHeader(int srcAddr, int srcPort, int dstAddr) {
    /** The header's length, bytes. */
    public static final int LENGTH = 36;
    /** The consumer's private data after the header in a REQ, bytes. */
    public static final int USER_DATA = CmMad.REQ_PRIVATE_DATA - LENGTH;
    /** The version rdma_cm writes and accepts. */
    public static final int CMA_VERSION = 0;
    private static final int IPV4 = 4;
    /** rdma_cm's {@code RDMA_PS_TCP}: the service ID of a port is this shifted left 16, plus the port. */
    public static final int PS_TCP = 0x0106;

    /** The service ID rdma_cm listens on, and connects to, for a TCP port space {@code port}. */
    public static long serviceId(int port) {
        return (long) PS_TCP << 16 | port & 0xffff;
    }

    /** The port of a TCP port-space service ID, or -1 if the ID is not one. */
    public static int portOf(long serviceId) {
        return serviceId >>> 16 == PS_TCP ? (int) (serviceId & 0xffff) : -1;
    }

    /** The REQ's private data: this header, then {@code user} (at most {@value #USER_DATA} bytes). */
    public byte[] prepend(byte[] user) {
        if (user.length > USER_DATA) {
            throw new IllegalArgumentException("private data of " + user.length + " bytes; a REQ carries " + USER_DATA
                    + " after rdma_cm's header");
        }
        ByteBuffer b = ByteBuffer.allocate(LENGTH + user.length);
        b.put(0, (byte) CMA_VERSION);
        b.put(1, (byte) (IPV4 << 4));
        b.putShort(2, (short) srcPort);
        b.putInt(16, srcAddr);
        b.putInt(32, dstAddr);
        b.put(LENGTH, user);
        return b.array();
    }

    /** The header at the start of a REQ's private data, or null if it is not an IPv4 rdma_cm header. */
    public static CmaHeader parse(byte[] privateData) {
        if (privateData.length < LENGTH) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(privateData);
        if (b.get(0) != CMA_VERSION || (b.get(1) & 0xf0) != IPV4 << 4) {
            return null;
        }
        return new CmaHeader(b.getInt(16), b.getShort(2) & 0xffff, b.getInt(32));
    }

    /** The consumer's part of a REQ's private data. */
    public static byte[] userData(byte[] privateData) {
        return java.util.Arrays.copyOfRange(privateData, LENGTH, Math.max(LENGTH, privateData.length));
    }
}
