package org.verbs4j.examples;

import org.verbs4j.AhAttributes;
import org.verbs4j.Mtu;
import org.verbs4j.QpAttributes;
import org.verbs4j.QueuePair;

/**
 * Moves an RC QP from RESET to RTS towards a peer, with the attributes {@code ibv_modify_qp(3)} requires at each
 * step. Every example with RC QPs connects them this way; the README's walk-through writes the same three calls out.
 */
final class RcConnection {
    /** perftest's ACK timeout code: 4.096 us * 2^14, about 67 ms. */
    private static final int TIMEOUT = 14;
    /** Retries on a lost ACK, and on RNR NAK (7 means forever). */
    private static final int RETRY_COUNT = 7;
    private static final int RNR_RETRY = 7;
    /** Outstanding RDMA READs and atomics, as initiator and as responder. */
    private static final int RD_ATOMIC = 1;
    /** The RNR NAK timer code: 12 is 0.64 ms. */
    private static final int MIN_RNR_TIMER = 12;

    private RcConnection() {}

    /**
     * RESET -> INIT -> RTR -> RTS.
     *
     * @param qp the local QP, in RESET
     * @param port the local port, 1-based
     * @param gidIndex the local GID index to send from
     * @param self what this side told the peer (its first PSN)
     * @param peer what the peer told this side
     * @param access the remote access this QP grants as a responder ({@code AccessFlags})
     */
    static void connect(QueuePair qp, int port, int gidIndex, Endpoint self, Endpoint peer, int access) {
        // INIT: port, P_Key index, remote access.
        qp.modify(QpAttributes.toInit(port, 0, access));
        // RTR: the path to the peer, the path MTU, the peer's QPN and the first PSN expected from it.
        qp.modify(QpAttributes.toRtr(AhAttributes.roce(peer.gid(), gidIndex, port), Mtu.MTU_1024, peer.qpNum(),
                peer.psn(), RD_ATOMIC, MIN_RNR_TIMER));
        // RTS: this side's first PSN, then the retry policy.
        qp.modify(QpAttributes.toRts(self.psn(), TIMEOUT, RETRY_COUNT, RNR_RETRY, RD_ATOMIC));
    }
}
