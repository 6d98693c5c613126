package org.verbs4j.examples;

import org.verbs4j.Context;
import org.verbs4j.Gid;
import org.verbs4j.GidEntry;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QueuePair;

/**
 * What one side of an RC connection tells the other before they can talk: the address of its port (GID), its
 * QP number, the first PSN it will send, and the rkey and address of the buffer the peer may access.
 *
 * <p>Between two processes these five values cross an ordinary TCP socket (perftest does exactly that); in these
 * examples both QPs live in one process, so the record is simply handed over.
 *
 * @param gid the GID of the side's port
 * @param qpNum its QP number (24 bits)
 * @param psn the first PSN it sends (24 bits)
 * @param rkey the rkey of its buffer (0 when the peer gets no remote access)
 * @param addr the address of its buffer, as the peer will name it in RDMA WRITE, READ and atomics
 */
public record Endpoint(Gid gid, int qpNum, int psn, int rkey, long addr) {

    /** {@return what this side sends its peer: its port's GID, its QPN and PSN, and the buffer's rkey and address} */
    static Endpoint of(Context ctx, int port, int gidIndex, QueuePair qp, int psn, MemoryRegion mr) {
        return new Endpoint(ctx.queryGid(port, gidIndex), qp.qpNum(), psn, mr.rkey(), mr.address());
    }

    /**
     * The GID index to send from, as perftest picks it without {@code -x} ({@link GidEntry#preferred}): on RoCE the
     * IPv4 RoCE v2 GID where the port has one. Real programs usually also take the index as a setting, as perftest's
     * {@code -x} does.
     */
    static int preferredGidIndex(Context ctx, int port) {
        return GidEntry.preferred(ctx.queryGidTable(), port).map(GidEntry::gidIndex).orElseThrow(() ->
                new IllegalStateException("port " + port + " has no GID: is the device's netdev up with an address?"));
    }
}
