package org.verbs4j;

import java.util.Map;
import java.util.Set;

/**
 * What a device can do, as data. Applications and the TCK decide by these values, never by the
 * provider's name.
 *
 * @param qpTypes the QP types {@code createQp} accepts
 * @param sendOpcodes per QP type, the send opcodes the device executes; always within the seed table
 *     ({@link WrOpcode#isValidFor})
 * @param wrSession whether QPs can be created with {@code sendOps} and posted to through {@link WrSession}
 * @param maxInlineData the most inline data per WR, bytes
 * @param maxSendSge the most SGEs per send WR
 * @param maxRecvSge the most SGEs per receive WR
 * @param atomics how atomic the atomics are
 * @param memoryWindowTypes the memory window types {@code allocMw} accepts
 * @param dataInOrder per opcode (RDMA READ, RDMA WRITE, SEND), what {@code ibv_query_qp_data_in_order}
 *     reports for an RC QP
 * @param threadDomains whether {@code allocTd} is supported
 * @param ipCsum whether {@link SendFlags#IP_CSUM} is supported
 * @param srq whether shared receive queues are supported
 * @param completionChannel whether completion channels and {@code requestNotify} are supported
 * @param maxCqModerationCount the most completions per event {@link CompletionQueue#modifyModeration} accepts
 *     ({@code cq_mod_caps.max_cq_count} of {@code ibv_query_device_ex}); 0 without CQ moderation
 * @param maxCqModerationPeriod the longest event delay {@link CompletionQueue#modifyModeration} accepts,
 *     microseconds ({@code cq_mod_caps.max_cq_period}); 0 without CQ moderation
 * @param maxDmSize the longest buffer {@link Context#allocDm} allocates, bytes ({@code max_dm_size} of
 *     {@code ibv_query_device_ex}); 0 without device memory
 * @param reregMr whether {@link MemoryRegion#reregister} works: a re-registration that changes a region's access
 *     succeeds
 * @param dmabuf whether {@link ProtectionDomain#registerDmabuf} is supported
 * @see "ibv_query_device(3)"
 * @see "ibv_query_qp_data_in_order(3)"
 * @see "ibv_modify_cq(3)"
 * @see "ibv_alloc_dm(3)"
 * @see "ibv_rereg_mr(3)"
 * @see "ibv_reg_dmabuf_mr(3)"
 */
public record Capabilities(
        Set<QpType> qpTypes,
        Map<QpType, Set<WrOpcode>> sendOpcodes,
        boolean wrSession,
        int maxInlineData,
        int maxSendSge,
        int maxRecvSge,
        AtomicCapability atomics,
        Set<MwType> memoryWindowTypes,
        Map<WrOpcode, Set<DataInOrder>> dataInOrder,
        boolean threadDomains,
        boolean ipCsum,
        boolean srq,
        boolean completionChannel,
        int maxCqModerationCount,
        int maxCqModerationPeriod,
        long maxDmSize,
        boolean reregMr,
        boolean dmabuf) {

    /** Copies the sets and maps, so the capabilities cannot change. */
    public Capabilities {
        qpTypes = Set.copyOf(qpTypes);
        sendOpcodes = Map.copyOf(sendOpcodes);
        memoryWindowTypes = Set.copyOf(memoryWindowTypes);
        dataInOrder = Map.copyOf(dataInOrder);
    }

    /**
     * {@return whether a QP of this type can be created and accepts this opcode}
     *
     * @param type the QP type
     * @param op the send opcode
     */
    public boolean supports(QpType type, WrOpcode op) {
        return qpTypes.contains(type) && sendOpcodes.getOrDefault(type, Set.of()).contains(op);
    }

    /**
     * {@return whether this QP type can be created}
     *
     * @param type the QP type
     */
    public boolean supports(QpType type) {
        return qpTypes.contains(type);
    }

    /**
     * {@return whether memory windows of this type can be allocated}
     *
     * @param type the window type
     */
    public boolean supports(MwType type) {
        return memoryWindowTypes.contains(type);
    }

    /**
     * {@return whether {@link CompletionQueue#modifyModeration} is supported: the device reports
     * {@code cq_mod_caps} and has the op}
     */
    public boolean cqModeration() {
        return maxCqModerationCount > 0 || maxCqModerationPeriod > 0;
    }

    /**
     * {@return whether XRC is supported: both XRC QP types can be created, so {@link Context#openXrcd()} and
     * {@link XrcDomain} work}
     */
    public boolean xrc() {
        return qpTypes.contains(QpType.XRC_SEND) && qpTypes.contains(QpType.XRC_RECV);
    }

    /** {@return whether {@link Context#allocDm} is supported: {@link #maxDmSize()} is positive} */
    public boolean deviceMemory() {
        return maxDmSize > 0;
    }
}
