package org.verbs4j;

import java.util.Objects;

/**
 * A device's attributes with its extended properties, {@code struct ibv_device_attr_ex} of rdma-core 44. A field the
 * device does not report is 0, as libibverbs leaves it: a device whose library has no extended query answers
 * {@link #legacy} of its {@link Context#queryDevice() attributes}, every extended field 0. Masks are the C enums'
 * bits, unsigned in the Java type; clock rates are in kHz, rate limits in kbit/s, sizes in bytes, periods in
 * microseconds.
 *
 * @param origAttr what {@code ibv_query_device} answers
 * @param compMask which of the fields after it the device filled ({@code comp_mask}); informational, since an
 *     unfilled field is 0
 * @param odpCaps on-demand paging
 * @param completionTimestampMask the bits of a completion timestamp that count; 0 when completions carry none
 * @param hcaCoreClock the frequency of the clock that stamps completions, kHz; 0 when unsupported
 * @param deviceCapFlagsEx the extended capability bits: {@link DeviceAttributes#deviceCapFlags()} in the low 32
 *     and the kernel's {@code IB_UVERBS_DEVICE_*} above them ({@link #DEVICE_ATOMIC_WRITE}, {@link #DEVICE_FLUSH})
 * @param tsoCaps TCP segmentation offload
 * @param rssCaps receive-side scaling
 * @param maxWqTypeRq the most receive work queues ({@code IBV_WQT_RQ})
 * @param packetPacingCaps per-QP rate limits
 * @param rawPacketCaps {@code IBV_RAW_PACKET_CAP_*} bits
 * @param tmCaps tag matching
 * @param cqModCaps what {@link CompletionQueue#modifyModeration} accepts
 * @param maxDmSize the most device memory one allocation can take, bytes; 0 without device memory
 * @param pciAtomicCaps the PCI atomic operation sizes, {@code IBV_PCI_ATOMIC_OPERATION_*_SIZE_SUP} bits per operation
 * @param xrcOdpCaps on-demand paging on XRC, {@code IBV_ODP_SUPPORT_*} transport bits
 * @param physPortCntEx the number of physical ports when it exceeds what {@link DeviceAttributes#physPortCnt()}
 *     holds; 0 when not reported
 * @see "ibv_query_device_ex(3)"
 */
public record DeviceAttributesEx(
        DeviceAttributes origAttr,
        int compMask,
        OdpCaps odpCaps,
        long completionTimestampMask,
        long hcaCoreClock,
        long deviceCapFlagsEx,
        TsoCaps tsoCaps,
        RssCaps rssCaps,
        int maxWqTypeRq,
        PacketPacingCaps packetPacingCaps,
        int rawPacketCaps,
        TmCaps tmCaps,
        CqModerationCaps cqModCaps,
        long maxDmSize,
        PciAtomicCaps pciAtomicCaps,
        int xrcOdpCaps,
        int physPortCntEx) {

    /** {@code IB_UVERBS_DEVICE_FLUSH_GLOBAL} and {@code _PERSISTENT}: the device executes {@link WrOpcode#FLUSH}. */
    public static final long DEVICE_FLUSH = 3L << 38;
    /** {@code IB_UVERBS_DEVICE_ATOMIC_WRITE}: the device executes {@link WrOpcode#ATOMIC_WRITE} (Linux 6.2+). */
    public static final long DEVICE_ATOMIC_WRITE = 1L << 40;

    /**
     * Checks that no part is null.
     *
     * @throws NullPointerException if a part is null
     */
    public DeviceAttributesEx {
        Objects.requireNonNull(origAttr, "origAttr");
        Objects.requireNonNull(odpCaps, "odpCaps");
        Objects.requireNonNull(tsoCaps, "tsoCaps");
        Objects.requireNonNull(rssCaps, "rssCaps");
        Objects.requireNonNull(packetPacingCaps, "packetPacingCaps");
        Objects.requireNonNull(tmCaps, "tmCaps");
        Objects.requireNonNull(cqModCaps, "cqModCaps");
        Objects.requireNonNull(pciAtomicCaps, "pciAtomicCaps");
    }

    /**
     * What libibverbs answers for a device without the extended query, or whose query answers EOPNOTSUPP or
     * ENOSYS: the legacy attributes and every extended field 0.
     *
     * @param origAttr what {@code ibv_query_device} answers
     * @return the attributes
     * @see "ibv_query_device_ex(3)"
     */
    public static DeviceAttributesEx legacy(DeviceAttributes origAttr) {
        return new DeviceAttributesEx(origAttr, 0, new OdpCaps(0, 0, 0, 0), 0, 0, 0, new TsoCaps(0, 0),
                new RssCaps(0, 0, 0, 0, 0), 0, new PacketPacingCaps(0, 0, 0), 0, new TmCaps(0, 0, 0, 0, 0),
                new CqModerationCaps(0, 0), 0, new PciAtomicCaps(0, 0, 0), 0, 0);
    }

    /**
     * On-demand paging, {@code struct ibv_odp_caps}.
     *
     * @param generalCaps {@link #SUPPORT} and {@link #SUPPORT_IMPLICIT}
     * @param rcOdpCaps the RC operations that may touch on-demand memory, {@code SUPPORT_SEND} and the rest
     * @param ucOdpCaps the same on UC
     * @param udOdpCaps the same on UD
     */
    public record OdpCaps(long generalCaps, int rcOdpCaps, int ucOdpCaps, int udOdpCaps) {
        /** {@code IBV_ODP_SUPPORT}: on-demand paging is supported. */
        public static final long SUPPORT = 1;
        /** {@code IBV_ODP_SUPPORT_IMPLICIT}: a region may cover the whole address space. */
        public static final long SUPPORT_IMPLICIT = 1 << 1;
        /** {@code IBV_ODP_SUPPORT_SEND}. */
        public static final int SUPPORT_SEND = 1;
        /** {@code IBV_ODP_SUPPORT_RECV}. */
        public static final int SUPPORT_RECV = 1 << 1;
        /** {@code IBV_ODP_SUPPORT_WRITE}. */
        public static final int SUPPORT_WRITE = 1 << 2;
        /** {@code IBV_ODP_SUPPORT_READ}. */
        public static final int SUPPORT_READ = 1 << 3;
        /** {@code IBV_ODP_SUPPORT_ATOMIC}. */
        public static final int SUPPORT_ATOMIC = 1 << 4;
        /** {@code IBV_ODP_SUPPORT_SRQ_RECV}. */
        public static final int SUPPORT_SRQ_RECV = 1 << 5;
    }

    /**
     * TCP segmentation offload, {@code struct ibv_tso_caps}.
     *
     * @param maxTso the largest payload the device segments, bytes
     * @param supportedQpts the QP types with TSO, a bit per {@code enum ibv_qp_type} value
     */
    public record TsoCaps(int maxTso, int supportedQpts) {}

    /**
     * Receive-side scaling, {@code struct ibv_rss_caps}.
     *
     * @param supportedQpts the QP types with RSS, a bit per {@code enum ibv_qp_type} value
     * @param maxRwqIndirectionTables the most receive WQ indirection tables
     * @param maxRwqIndirectionTableSize the most entries per indirection table
     * @param rxHashFieldsMask the packet fields the hash may cover, {@code IBV_RX_HASH_*} bits
     * @param rxHashFunction the hash functions, {@code IBV_RX_HASH_FUNC_*} bits (8 bits)
     */
    public record RssCaps(int supportedQpts, int maxRwqIndirectionTables, int maxRwqIndirectionTableSize,
                          long rxHashFieldsMask, int rxHashFunction) {}

    /**
     * Packet pacing, {@code struct ibv_packet_pacing_caps}.
     *
     * @param qpRateLimitMin the lowest rate limit, kbit/s
     * @param qpRateLimitMax the highest rate limit, kbit/s
     * @param supportedQpts the QP types with a rate limit, a bit per {@code enum ibv_qp_type} value
     */
    public record PacketPacingCaps(int qpRateLimitMin, int qpRateLimitMax, int supportedQpts) {
        /**
         * {@return whether the device paces QPs of this type ({@code supported_qpts})}
         *
         * @param type the QP type
         */
        public boolean paces(QpType type) {
            return (supportedQpts & (1 << type.value())) != 0;
        }
    }

    /**
     * Tag matching, {@code struct ibv_tm_caps}.
     *
     * @param maxRndvHdrSize the largest rendezvous header, bytes
     * @param maxNumTags the most tagged buffers in a matching list
     * @param flags {@code IBV_TM_CAP_*} bits
     * @param maxOps the most outstanding list operations
     * @param maxSge the most SGEs per tagged buffer
     */
    public record TmCaps(int maxRndvHdrSize, int maxNumTags, int flags, int maxOps, int maxSge) {}

    /**
     * CQ moderation, {@code struct ibv_cq_moderation_caps}.
     *
     * @param maxCqCount the most completions per event, 0 to 65535
     * @param maxCqPeriod the longest event delay, microseconds, 0 to 65535
     * @see "ibv_modify_cq(3)"
     */
    public record CqModerationCaps(int maxCqCount, int maxCqPeriod) {}

    /**
     * PCI atomics, {@code struct ibv_pci_atomic_caps}: per operation, the operand sizes, each a 16-bit mask of
     * {@code IBV_PCI_ATOMIC_OPERATION_4_BYTE_SIZE_SUP} (1), {@code _8_BYTE_} (2) and {@code _16_BYTE_} (4).
     *
     * @param fetchAdd fetch and add
     * @param swap unconditional swap
     * @param compareSwap compare and swap
     */
    public record PciAtomicCaps(int fetchAdd, int swap, int compareSwap) {}
}
