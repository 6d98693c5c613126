package org.verbs4j.tools.perf;

import org.verbs4j.Gid;

/**
 * What one side of a test tells the other to connect, as perftest exchanges it: LID, QPN, PSN, rkey,
 * buffer address and GID.
 *
 * @param lid the port's 16-bit LID (0 on RoCE)
 * @param qpn the 24-bit QP number
 * @param psn the 24-bit starting PSN
 * @param rkey the 32-bit rkey of the buffer
 * @param address the buffer's address
 * @param gid the port's GID at the chosen index
 */
public record PeerInfo(int lid, int qpn, int psn, int rkey, long address, Gid gid) {
    /** The line sent over TCP: {@code lid:qpn:psn:rkey:address:gid}, all hex, as perftest's text format. */
    public String toLine() {
        return String.format("%04x:%06x:%06x:%08x:%016x:%s", lid, qpn, psn, rkey, address, gid);
    }

    /**
     * Parses {@link #toLine()}.
     *
     * @throws IllegalArgumentException if the line is not in that form
     */
    public static PeerInfo parse(String line) {
        String[] f = line == null ? new String[0] : line.strip().split(":", 6);
        if (f.length != 6) {
            throw new IllegalArgumentException("the peer sent '" + line + "', not lid:qpn:psn:rkey:address:gid");
        }
        try {
            return new PeerInfo(Integer.parseInt(f[0], 16), Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16),
                    Integer.parseUnsignedInt(f[3], 16), Long.parseUnsignedLong(f[4], 16), Gid.parse(f[5]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the peer sent '" + line + "', not lid:qpn:psn:rkey:address:gid", e);
        }
    }
}
