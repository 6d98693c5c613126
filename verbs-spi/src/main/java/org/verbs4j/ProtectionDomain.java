package org.verbs4j;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.verbs4j.spi.support.RegionLifetime;

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
     * Registers memory that is never freed: a segment of the global scope, from {@link Arena#global()} or made
     * from a raw address ({@link MemorySegment#ofAddress(long)} and {@link MemorySegment#reinterpret(long)},
     * for which the caller answers). Memory from any other arena is refused: register it with
     * {@link #registerMemory(MemorySegment, int, Arena)}, which deregisters the region before that arena frees
     * the memory.
     *
     * <p>Why: a device reads and writes registered memory by itself. If the arena of a registered segment
     * were closed while the region is open, a remote peer holding the rkey would go on writing, with a
     * SUCCESS completion, into whatever the allocator puts at those addresses next. The public FFM API does not
     * tell a closeable arena ({@link Arena#ofConfined()}, {@link Arena#ofShared()}) from an automatic one, and
     * gives no way to keep a scope open, so only the global scope is taken on trust.
     *
     * <p>Every address the library itself reads or writes on the CPU (inline data, the emulator's copies) is
     * also checked against the live regions of the PD.
     *
     * @param segment the memory, of 1 byte or more, of the global scope
     * @param access {@link AccessFlags} bits
     * @return the region, with its lkey and rkey
     * @throws NullPointerException if {@code segment} is null
     * @throws IllegalArgumentException for a segment of an arena other than {@link Arena#global()} (the message
     *     names {@link #registerMemory(MemorySegment, int, Arena)}), a heap or zero-length segment, unknown
     *     access bits, or remote write or atomic access without {@link AccessFlags#LOCAL_WRITE}
     * @throws IllegalStateException if the segment's arena is already closed, or this PD is closed
     * @throws VerbsException {@code EINVAL} for access the device does not support, also for
     *     {@link AccessFlags#ON_DEMAND} on a device without on-demand paging under Linux 6.1 ({@code EOPNOTSUPP}
     *     from newer kernels; see {@link #adviseMr}), {@code ENOMEM}
     * @see "ibv_reg_mr(3)"
     */
    MemoryRegion registerMemory(MemorySegment segment, int access);

    /**
     * Registers memory owned by {@code owner} so that the region can never outlive it: when the arena
     * closes, the region is deregistered before the arena frees the memory (the cleanup this method adds to
     * the arena runs before the arena's earlier ones, which free its allocations). After that, a remote
     * access through the old rkey fails with {@code REM_ACCESS_ERR} and a local one with
     * {@code LOC_PROT_ERR}, even if a new allocation reuses the addresses. This is the way to register memory
     * of {@link Arena#ofConfined()} and {@link Arena#ofShared()}:
     * <pre>{@code
     * try (Arena arena = Arena.ofConfined();
     *      MemoryRegion mr = pd.registerMemory(arena.allocate(4096, 4096), AccessFlags.LOCAL_WRITE, arena)) {
     *     ...
     * }
     * }</pre>
     *
     * <p>Deregistration fails while a memory window is still bound to the region ({@code ibv_dereg_mr(3)});
     * when the arena closes, windows still bound to the region are deallocated first, so that no rkey of
     * the freed memory stays valid.
     *
     * <p>An automatic arena ({@link Arena#ofAuto()}) never becomes unreachable once it is an owner (the
     * cleanup holds its memory): its memory is then freed only with the JVM. Use a closeable arena.
     *
     * @param segment the memory, of 1 byte or more, allocated from {@code owner}
     *     ({@code segment.scope()} must be {@code owner.scope()})
     * @param access {@link AccessFlags} bits
     * @param owner the arena that frees {@code segment}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException as {@link #registerMemory(MemorySegment, int)} (but for the scope), or
     *     if {@code segment} does not belong to {@code owner}
     * @return the region, which closes itself before {@code owner} frees the memory
     * @throws IllegalStateException if {@code owner} is closed, or closeable only by another thread
     *     ({@link Arena#ofConfined()} from a different thread)
     * @throws VerbsException as {@link #registerMemory(MemorySegment, int)}
     * @see "ibv_reg_mr(3)"
     * @see "ibv_dereg_mr(3)"
     */
    default MemoryRegion registerMemory(MemorySegment segment, int access, Arena owner) {
        return RegionLifetime.owned(this, segment, access, owner);
    }

    /**
     * Advises the device about ranges of regions registered with {@link AccessFlags#ON_DEMAND}: each SGE names a
     * range of one such region of this PD, by its lkey. Best effort: success does not promise the pages stay
     * present. A device without on-demand paging ({@link DeviceAttributesEx#odpCaps()} without
     * {@link DeviceAttributesEx.OdpCaps#SUPPORT}, as rxe) has no such verb. This default, for a provider without it,
     * refuses.
     *
     * @param advice what to do with the ranges
     * @param flags 0 or {@link MrAdvice#FLAG_FLUSH} (wait until the device has the translations)
     * @param sgList the ranges, at least one: address, length in bytes and lkey of each
     * @throws NullPointerException if {@code advice}, {@code sgList} or an SGE is null
     * @throws IllegalArgumentException if {@code sgList} is empty or {@code flags} has a bit beyond
     *     {@link MrAdvice#FLAG_FLUSH}
     * @throws IllegalStateException if this PD is closed
     * @throws VerbsException {@code EOPNOTSUPP} without on-demand paging; as mlx5 answers, {@code ENOENT} for an
     *     lkey that is not a live on-demand region of this PD (or, with {@link MrAdvice#PREFETCH_WRITE}, not a
     *     writable one), {@code EFAULT} for a range outside its region
     * @see "ibv_advise_mr(3)"
     */
    default void adviseMr(MrAdvice advice, int flags, List<Sge> sgList) {
        if (isClosed()) {
            throw new IllegalStateException("the PD is closed");
        }
        throw new VerbsException("ibv_advise_mr", Errno.EOPNOTSUPP, "no on-demand paging");
    }

    /**
     * Registers part of a buffer of device memory as a region of this PD. The region is zero-based, as
     * {@code ibv_reg_dm_mr} requires ({@link AccessFlags#ZERO_BASED} must be in {@code access}): its
     * {@link MemoryRegion#address()} is 0, and an SGE or a peer names its bytes by their offset from
     * {@code dmOffset}. It has no host memory: {@link MemoryRegion#segment()} throws
     * {@link UnsupportedOperationException}, and the host reads and writes it through {@code dm}. The buffer
     * cannot be freed while the region is open ({@code EBUSY}). This default, for a provider without device
     * memory, refuses.
     *
     * @param dm the buffer, allocated on this PD's context
     * @param dmOffset where the region starts in the buffer, bytes
     * @param length the region's length, bytes, at least 1
     * @param access the {@link AccessFlags} bits, {@link AccessFlags#ZERO_BASED} among them
     * @return the region
     * @throws NullPointerException if {@code dm} is null
     * @throws IllegalArgumentException if {@code dm} is closed or of another context, {@code dmOffset} is
     *     negative, {@code length} is not positive, the range ends past {@link DeviceMemory#length()},
     *     {@code access} lacks {@link AccessFlags#ZERO_BASED} or has an unknown bit
     * @throws IllegalStateException if this PD is closed
     * @throws VerbsException {@code EOPNOTSUPP} without device memory, or the errno of the device's answer
     * @see "ibv_reg_dm_mr(3)"
     */
    default MemoryRegion registerDeviceMemory(DeviceMemory dm, long dmOffset, long length, int access) {
        if (isClosed()) {
            throw new IllegalStateException("the PD is closed");
        }
        throw new VerbsException("ibv_reg_dm_mr", Errno.EOPNOTSUPP, "no device memory");
    }

    /**
     * Registers {@code length} bytes of a dma-buf from {@code offset}, such as GPU or accelerator memory that a
     * driver exports as a file descriptor ({@code ibv_reg_dmabuf_mr}). SGEs and peers name the region's bytes from
     * {@code iova}, its {@link MemoryRegion#address()}. It has no host segment: {@link MemoryRegion#segment()}
     * throws {@link UnsupportedOperationException}. The device takes its own reference to the dma-buf, so the
     * caller may close {@code fd} once this returns. The emulated devices take any file they can map (a memfd, a
     * file on tmpfs) as a dma-buf; shrinking that file under the region is undefined, as for any mapped file. This
     * default, for a provider without dma-buf regions, refuses.
     *
     * @param fd the dma-buf's file descriptor
     * @param offset where the region starts in the dma-buf, bytes
     * @param length the region's length, bytes, at least 1
     * @param iova the region's first address as SGEs and peers name it; its offset within a page must be
     *     {@code offset}'s
     * @param access {@link AccessFlags#LOCAL_WRITE}, {@link AccessFlags#REMOTE_WRITE},
     *     {@link AccessFlags#REMOTE_READ}, {@link AccessFlags#REMOTE_ATOMIC} and
     *     {@link AccessFlags#RELAXED_ORDERING} only
     * @return the region
     * @throws IllegalArgumentException if {@code fd} or {@code offset} is negative, {@code length} is not positive,
     *     {@code offset + length} overflows, or {@code access} has another bit
     * @throws IllegalStateException if this PD is closed
     * @throws VerbsException {@code EOPNOTSUPP} without dma-buf regions (rxe, {@link Capabilities#dmabuf()});
     *     {@code EBADF} for an fd that is not open; {@code EINVAL} for a range past the dma-buf's end or an
     *     {@code iova} whose page offset differs from {@code offset}'s; or the errno of the device's answer
     * @see "ibv_reg_dmabuf_mr(3)"
     */
    default MemoryRegion registerDmabuf(int fd, long offset, long length, long iova, int access) {
        if (isClosed()) {
            throw new IllegalStateException("the PD is closed");
        }
        throw new VerbsException("ibv_reg_dmabuf_mr", Errno.EOPNOTSUPP, "no dma-buf regions");
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
     * Creates an address handle that reaches the sender of a UD receive completion: {@link
     * Context#initAhAttributes} on this PD's context, then {@link #createAh(AhAttributes)}, as libibverbs does.
     *
     * @param wc the receive completion, from a UD QP
     * @param grh the receive buffer's GRH area, at least 40 bytes
     * @param portNum the port that received the completion, 1-based
     * @return the address handle
     * @throws NullPointerException if {@code wc} or {@code grh} is null
     * @throws IllegalArgumentException if {@code grh} is shorter than 40 bytes, or there is no such port
     * @throws IllegalStateException if the PD is closed
     * @throws VerbsException as {@link Context#initAhAttributes} and {@link #createAh(AhAttributes)}; on RoCE a
     *     completion without {@link WcFlags#GRH} gives a vector without a global route, which {@code ibv_create_ah}
     *     refuses with {@code EINVAL}
     * @see "ibv_create_ah_from_wc(3)"
     */
    default AddressHandle createAh(WorkCompletion wc, MemorySegment grh, int portNum) {
        return createAh(context().initAhAttributes(portNum, wc, grh));
    }

    /**
     * Creates a queue pair, in the RESET state. A native provider creates it with {@code ibv_create_qp_ex}: on a
     * parent domain of this PD and the thread domain ({@code ibv_alloc_parent_domain}) when the attributes name one,
     * and with its {@code ibv_qp_ex} ({@code ibv_qp_to_qp_ex}) when they name {@code sendOps}.
     *
     * @param attributes the QP's type, CQs and sizes
     * @return the QP, in RESET; {@link QueuePair#initAttributes()} gives the sizes granted
     * @throws IllegalArgumentException if a CQ, SRQ or thread domain is closed or belongs to another context,
     *     a {@code sendOps} opcode is not valid for the QP type per the seed table, or the type is XRC_RECV (an
     *     {@link XrcDomain} creates those)
     * @throws VerbsException {@code EOPNOTSUPP} for a QP type or {@code sendOps} the device cannot do,
     *     {@code EINVAL} for capabilities beyond the device's limits, {@code ENOMEM}
     * @see "ibv_create_qp_ex(3)"
     * @see "ibv_wr_post(3)"
     * @see "ibv_alloc_parent_domain(3)"
     * @see "ibv_qp_to_qp_ex"
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
