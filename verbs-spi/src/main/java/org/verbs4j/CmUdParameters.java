package org.verbs4j;

import java.util.Objects;

/**
 * What a UD event of the connection manager tells about where to send, {@code struct rdma_ud_param} (less its
 * private data, which {@link CmEvent#privateData()} gives): on {@link CmEventType#MULTICAST_JOIN}, how to reach
 * the group. Make an address handle from {@link #ahAttributes()} and send to {@link #qpNum()} with
 * {@link #qkey()}.
 *
 * @param ahAttributes the address vector: on RoCE global, its DGID the group's multicast GID
 *     ({@code ::ffff:a.b.c.d} for an IPv4 group)
 * @param qpNum the destination QPN, 24 bits: {@value CmId#MULTICAST_QPN} for a multicast group
 * @param qkey the Q_Key the group's QPs take, a 32-bit key: {@value CmId#UDP_QKEY} for a
 *     {@link CmPortSpace#UDP} id
 * @see "rdma_get_cm_event(3)"
 * @see "rdma_join_multicast(3)"
 */
public record CmUdParameters(AhAttributes ahAttributes, int qpNum, int qkey) {
    /**
     * Checks the ranges.
     *
     * @throws NullPointerException if {@code ahAttributes} is null
     * @throws IllegalArgumentException if {@code qpNum} is beyond 24 bits
     */
    public CmUdParameters {
        Objects.requireNonNull(ahAttributes, "ahAttributes");
        if (qpNum < 0 || qpNum > 0xffffff) {
            throw new IllegalArgumentException("qpNum is 24 bits: " + qpNum);
        }
    }
}
