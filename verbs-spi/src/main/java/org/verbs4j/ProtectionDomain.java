package org.verbs4j;

import java.lang.foreign.MemorySegment;

/**
 * A protection domain, {@code struct ibv_pd}: the scope in which memory regions, windows, address
 * handles, QPs and SRQs can be used together.
 *
 * @see "ibv_alloc_pd(3)"
 */
public interface ProtectionDomain extends VerbsObject {
    /** {@return the context this PD belongs to} */
    Context context();

    /**
     * Registers memory. The segment must be native ({@link MemorySegment#isNative()}) and stay alive
     * until the region is closed.
     *
     * @param segment the memory, of 1 byte or more
     * @param access {@link AccessFlags} bits
     * @return the region, with its lkey and rkey
     * @throws IllegalArgumentException for a heap or zero-length segment, unknown access bits, or remote
     *     write or atomic access without {@link AccessFlags#LOCAL_WRITE}
     * @throws VerbsException {@code EINVAL} for access the device does not support, {@code ENOMEM}
     * @see "ibv_reg_mr(3)"
     */
    MemoryRegion registerMemory(MemorySegment segment, int access);

    /**
     * Allocates a memory window.
     *
     * @param type the window type
     * @return the window, unbound
     * @throws VerbsException {@code EOPNOTSUPP} or {@code EINVAL} if the device lacks that type
     * @see "ibv_alloc_mw(3)"
     */
    MemoryWindow allocMw(MwType type);

    /**
     * Creates an address handle for UD sends.
     *
     * @param attributes the address vector of the destination port
     * @return the address handle
     * @throws VerbsException {@code EINVAL} for a port or GID index the device lacks
     * @see "ibv_create_ah(3)"
     */
    AddressHandle createAh(AhAttributes attributes);

    /**
     * Creates a queue pair, in the RESET state.
     *
     * @param attributes the QP's type, CQs and sizes
     * @return the QP, in RESET; {@link QueuePair#initAttributes()} gives the sizes granted
     * @throws IllegalArgumentException if a CQ, SRQ or thread domain is closed or belongs to another context,
     *     or a {@code sendOps} opcode is not valid for the QP type per the seed table
     * @throws VerbsException {@code EOPNOTSUPP} for a QP type or {@code sendOps} the device cannot do,
     *     {@code EINVAL} for capabilities beyond the device's limits, {@code ENOMEM}
     * @see "ibv_create_qp_ex(3)"
     * @see "ibv_wr_post(3)"
     */
    QueuePair createQp(QpInitAttributes attributes);

    /**
     * Creates a shared receive queue.
     *
     * @param attributes the SRQ's sizes and limit
     * @return the SRQ
     * @throws VerbsException {@code EOPNOTSUPP} without SRQ support, {@code EINVAL} beyond the device's limits
     * @see "ibv_create_srq(3)"
     */
    SharedReceiveQueue createSrq(SrqInitAttributes attributes);

    /**
     * Deallocates the PD.
     *
     * @throws VerbsException {@code EBUSY} while a region, window, address handle, QP or SRQ of it is open
     * @see "ibv_dealloc_pd(3)"
     */
    @Override
    void close();
}
