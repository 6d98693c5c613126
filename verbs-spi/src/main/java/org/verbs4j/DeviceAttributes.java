package org.verbs4j;

/**
 * A device's attributes and limits, {@code struct ibv_device_attr}. Counts are numbers of objects;
 * sizes are in bytes; GUIDs are the 64-bit values in host order.
 *
 * @param fwVer firmware version text
 * @param nodeGuid node GUID
 * @param sysImageGuid system image GUID
 * @param maxMrSize largest registrable region, bytes
 * @param pageSizeCap supported page sizes, a mask of byte sizes
 * @param vendorId IEEE vendor ID
 * @param vendorPartId vendor part ID
 * @param hwVer hardware version
 * @param maxQp most QPs
 * @param maxQpWr most outstanding WRs on any work queue
 * @param deviceCapFlags {@code IBV_DEVICE_*} capability bits
 * @param maxSge most scatter/gather entries per WR for non-RD QPs
 * @param maxSgeRd most SGEs per WR for RD QPs
 * @param maxCq most CQs
 * @param maxCqe most entries per CQ
 * @param maxMr most MRs
 * @param maxPd most PDs
 * @param maxQpRdAtom most outstanding RDMA READ and atomic operations a QP can be the target of
 * @param maxEeRdAtom the same per EE context
 * @param maxResRdAtom most resources for incoming RDMA READ and atomics
 * @param maxQpInitRdAtom most outstanding RDMA READ and atomics a QP can initiate
 * @param maxEeInitRdAtom the same per EE context
 * @param atomicCap how atomic the atomics are
 * @param maxEe most EE contexts
 * @param maxRdd most RD domains
 * @param maxMw most memory windows
 * @param maxRawIpv6Qp most raw IPv6 QPs
 * @param maxRawEthyQp most raw Ethertype QPs
 * @param maxMcastGrp most multicast groups
 * @param maxMcastQpAttach most QPs per multicast group
 * @param maxTotalMcastQpAttach most QPs attached to multicast groups
 * @param maxAh most address handles
 * @param maxFmr most fast memory regions
 * @param maxMapPerFmr most remaps per FMR
 * @param maxSrq most SRQs
 * @param maxSrqWr most WRs per SRQ
 * @param maxSrqSge most SGEs per SRQ WR
 * @param maxPkeys number of partition keys
 * @param localCaAckDelay local CA ack delay
 * @param physPortCnt number of physical ports
 * @see "ibv_query_device(3)"
 */
public record DeviceAttributes(
        String fwVer,
        long nodeGuid,
        long sysImageGuid,
        long maxMrSize,
        long pageSizeCap,
        int vendorId,
        int vendorPartId,
        int hwVer,
        int maxQp,
        int maxQpWr,
        int deviceCapFlags,
        int maxSge,
        int maxSgeRd,
        int maxCq,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtom,
        int maxEeRdAtom,
        int maxResRdAtom,
        int maxQpInitRdAtom,
        int maxEeInitRdAtom,
        AtomicCapability atomicCap,
        int maxEe,
        int maxRdd,
        int maxMw,
        int maxRawIpv6Qp,
        int maxRawEthyQp,
        int maxMcastGrp,
        int maxMcastQpAttach,
        int maxTotalMcastQpAttach,
        int maxAh,
        int maxFmr,
        int maxMapPerFmr,
        int maxSrq,
        int maxSrqWr,
        int maxSrqSge,
        int maxPkeys,
        int localCaAckDelay,
        int physPortCnt) {

    /** {@code IBV_DEVICE_RC_RNR_NAK_GEN}. */
    public static final int CAP_RC_RNR_NAK_GEN = 1 << 12;
    /** {@code IBV_DEVICE_SRQ_RESIZE}. */
    public static final int CAP_SRQ_RESIZE = 1 << 13;
    /** {@code IBV_DEVICE_N_NOTIFY_CQ}. */
    public static final int CAP_N_NOTIFY_CQ = 1 << 14;
    /** {@code IBV_DEVICE_MEM_WINDOW}. */
    public static final int CAP_MEM_WINDOW = 1 << 17;
    /** {@code IBV_DEVICE_UD_IP_CSUM}. */
    public static final int CAP_UD_IP_CSUM = 1 << 18;
    /** {@code IBV_DEVICE_XRC}. */
    public static final int CAP_XRC = 1 << 20;
    /** {@code IBV_DEVICE_MEM_MGT_EXTENSIONS}. */
    public static final int CAP_MEM_MGT_EXTENSIONS = 1 << 21;
    /** {@code IBV_DEVICE_MEM_WINDOW_TYPE_2A}. */
    public static final int CAP_MEM_WINDOW_TYPE_2A = 1 << 23;
    /** {@code IBV_DEVICE_MEM_WINDOW_TYPE_2B}. */
    public static final int CAP_MEM_WINDOW_TYPE_2B = 1 << 24;
    /** {@code IBV_DEVICE_RAW_IP_CSUM}. */
    public static final int CAP_RAW_IP_CSUM = 1 << 26;
}
