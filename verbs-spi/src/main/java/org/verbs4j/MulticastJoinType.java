package org.verbs4j;

/**
 * How a {@link CmId} joins a multicast group, {@code enum rdma_cm_mc_join_flags}: as a member that sends and
 * receives, or as one that only sends.
 *
 * @see "rdma_join_multicast_ex(3)"
 */
public enum MulticastJoinType {
    /**
     * {@code RDMA_MC_JOIN_FLAG_FULLMEMBER} (0): sends to the group and receives from it; the id's QP is attached
     * to the group when the join completes. On RoCE the kernel also joins the IP group (IGMP).
     */
    FULL_MEMBER(0),
    /**
     * {@code RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER} (1): sends to the group only; the id's QP is not attached, and
     * on RoCE the kernel joins no IP group. A publisher's join: no copy of the group's traffic comes back to it.
     */
    SENDONLY_FULL_MEMBER(1);

    private final int value;

    MulticastJoinType(int value) {
        this.value = value;
    }

    /** {@return the C value of {@code enum rdma_cm_mc_join_flags}} */
    public int value() {
        return value;
    }
}
