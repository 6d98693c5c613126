package org.verbs4j;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

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
     * <p><b>What is guaranteed for a plain registration.</b>
     * <ul>
     *   <li>A segment whose scope is no longer alive is refused with {@link IllegalStateException}.</li>
     *   <li>The region keeps {@code segment} reachable, so memory from {@link Arena#ofAuto()} or
     *       {@link Arena#global()} cannot be freed while the region is open.</li>
     *   <li>Every address the library itself reads or writes on the CPU (inline data, the emulator's copies)
     *       is checked first against the live regions of the PD; a region whose arena was closed counts as
     *       gone.</li>
     * </ul>
     * <p><b>What is not.</b> If the caller closes the arena of a segment from {@link Arena#ofConfined()} or
     * {@link Arena#ofShared()} while the region is still open, a native device keeps the old translation: it
     * and any remote peer holding the rkey can read and write whatever reuses those addresses. Close the
     * region first, or register with {@link #registerMemory(MemorySegment, int, Arena)}, which does so.
     *
     * @param segment the memory, of 1 byte or more
     * @param access {@link AccessFlags} bits
     * @return the region, with its lkey and rkey
     * @throws NullPointerException if {@code segment} is null
     * @throws IllegalArgumentException for a heap or zero-length segment, unknown access bits, or remote
     *     write or atomic access without {@link AccessFlags#LOCAL_WRITE}
     * @throws IllegalStateException if the segment's arena is already closed, or this PD is closed
     * @throws VerbsException {@code EINVAL} for access the device does not support, {@code ENOMEM}
     * @see "ibv_reg_mr(3)"
     */
    MemoryRegion registerMemory(MemorySegment segment, int access);

    /**
     * Registers memory owned by {@code owner} so that the region can never outlive it: when the arena
     * closes, the region is deregistered before the arena frees the memory (the cleanup this method adds to
     * the arena runs before the arena's earlier ones, which free its allocations). After that, a remote
     * access through the old rkey fails with {@code REM_ACCESS_ERR} and a local one with
     * {@code LOC_PROT_ERR}, even if a new allocation reuses the addresses.
     *
     * <p>Deregistration fails while a memory window is still bound to the region ({@code ibv_dereg_mr(3)});
     * invalidate or deallocate such windows before closing the arena. If one is left bound, the arena's
     * {@code close()} throws that {@link VerbsException} after it has freed the memory, and the guarantee
     * above is lost for that region.
     *
     * @param segment the memory, of 1 byte or more, allocated from {@code owner}
     *     ({@code segment.scope()} must be {@code owner.scope()})
     * @param access {@link AccessFlags} bits
     * @param owner the arena that frees {@code segment}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException as {@link #registerMemory(MemorySegment, int)}, or if {@code segment}
     *     does not belong to {@code owner}
     * @return the region, which closes itself before {@code owner} frees the memory
     * @throws IllegalStateException if {@code owner} is closed, or closeable only by another thread
     *     ({@link Arena#ofConfined()} from a different thread)
     * @throws VerbsException as {@link #registerMemory(MemorySegment, int)}
     * @see "ibv_reg_mr(3)"
     * @see "ibv_dereg_mr(3)"
     */
    @SuppressWarnings("restricted")
    default MemoryRegion registerMemory(MemorySegment segment, int access, Arena owner) {
        if (isClosed()) {
            throw new IllegalStateException("the protection domain is closed");
        }
        Objects.requireNonNull(segment, "segment");
        Objects.requireNonNull(owner, "owner");
        if (!segment.scope().equals(owner.scope())) {
            throw new IllegalArgumentException("segment: it was not allocated from owner");
        }
        MemoryRegion mr = registerMemory(segment, access);
        try {
            // reinterpret with an arena and a cleanup registers the cleanup with that arena (restricted, but
            // it creates no access to memory: the returned segment is dropped).
            segment.reinterpret(owner, ignored -> mr.close());
        } catch (RuntimeException e) {
            mr.close();
            throw e;
        }
        return mr;
    }

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
