package org.verbs4j.tools.perf;

import org.verbs4j.Gid;

/**
 * What one side of a test tells the other to connect, as perftest exchanges it ({@link PerftestWire}): LID, QPN,
 * PSN, rkey, buffer address and GID.
 *
 * @param lid the port's 16-bit LID (0 on RoCE)
 * @param qpn the 24-bit QP number
 * @param psn the 24-bit starting PSN
 * @param rkey the 32-bit rkey of the buffer
 * @param address the buffer's address
 * @param gid the port's GID at the chosen index
 */
public record PeerInfo(int lid, int qpn, int psn, int rkey, long address, Gid gid) {}
