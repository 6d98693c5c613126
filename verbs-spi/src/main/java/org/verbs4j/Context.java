package org.verbs4j;

import java.util.List;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * An open device, {@code struct ibv_context}. The parent of every other verbs object.
 *
 * <p>{@link #close()} releases every object created from this context, as {@code ibv_close_device}
 * and the kernel do; those objects then report {@link #isClosed()} and refuse every call.
 *
 * <p>A context dropped without {@code close()}, with every object made from it, is released once the garbage
 * collector finds it unreachable: no provider keeps a reference to it. The native providers then destroy what is
 * left in dependency order (windows, QPs, SRQs, address handles, regions, CQs, completion channels, parent domains,
 * thread domains, PDs) on a {@link java.lang.ref.Cleaner} thread and close the device; the emulated device
 * forgets its QPs and keys. When that happens is the collector's choice, and until then the objects hold their
 * device resources (and a QP still answers its peer), so close a context when done with it. Memory registered in
 * it stays the caller's, as the registration rules of {@link ProtectionDomain#registerMemory} have it.
 *
 * @see "ibv_open_device(3)"
 */
public interface Context extends VerbsObject {
    /** {@return the device this context was opened from} */
    Device device();

    /**
     * The device's attributes and limits.
     *
     * @return the attributes, queried now
     * @see "ibv_query_device(3)"
     */
    DeviceAttributes queryDevice();

    /**
     * The device's attributes with its extended properties: on-demand paging, completion timestamps, CQ
     * moderation, device memory and the rest. Like libibverbs, a device whose library has no extended query, or
     * whose query answers EOPNOTSUPP or ENOSYS, gives {@link DeviceAttributesEx#legacy} of {@link #queryDevice()}.
     * This default does just that, for a provider that has no extended query.
     *
     * @return the attributes, queried now
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException the errno of the device's answer if the query fails otherwise
     * @see "ibv_query_device_ex(3)"
     */
    default DeviceAttributesEx queryDeviceEx() {
        return DeviceAttributesEx.legacy(queryDevice());
    }

    /**
     * A port's attributes.
     *
     * @param portNum the port, 1-based
     * @return the port's attributes, queried now
     * @throws IllegalArgumentException if the device has no such port
     * @see "ibv_query_port(3)"
     */
    PortAttributes queryPort(int portNum);

    /**
     * An entry of a port's GID table.
     *
     * @param portNum the port, 1-based
     * @param index the entry, 0-based, below {@link PortAttributes#gidTblLen()}
     * @return the GID; all zeros for an unused entry
     * @throws IllegalArgumentException if there is no such port or entry
     * @see "ibv_query_gid(3)"
     */
    Gid queryGid(int portNum, int index);

    /**
     * What the device can do, as data.
     *
     * @return the capabilities, found when the context opened
     */
    Capabilities capabilities();

    /**
     * Allocates a protection domain.
     *
     * @return the new PD
     * @throws VerbsException {@code ENOMEM} when the device's PD limit is reached
     * @see "ibv_alloc_pd(3)"
     */
    ProtectionDomain allocPd();

    /**
     * Creates a completion channel for CQ events.
     *
     * @return the new channel
     * @throws VerbsException {@code EOPNOTSUPP} if the device has none ({@link Capabilities#completionChannel()})
     * @see "ibv_create_comp_channel(3)"
     */
    CompletionChannel createCompletionChannel();

    /**
     * Creates a completion queue.
     *
     * @param cqe the least number of entries; the device may round it up
     * @param channel the channel that receives this CQ's events, or null
     * @param compVector the completion vector, 0 .. {@code num_comp_vectors - 1}
     * @return the new CQ
     * @throws IllegalArgumentException if cqe is below 1, or the channel belongs to another context
     * @throws VerbsException {@code EINVAL} if cqe exceeds {@link DeviceAttributes#maxCqe()}, {@code ENOMEM}
     * @see "ibv_create_cq(3)"
     */
    CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector);

    /**
     * {@return a CQ of at least {@code cqe} entries with no channel, on vector 0}
     *
     * @param cqe the least number of entries; the device may round it up
     */
    default CompletionQueue createCq(int cqe) {
        return createCq(cqe, null, 0);
    }

    /**
     * A completion queue whose completions carry the fields {@code attributes} asks for, timestamps among them. A
     * CQ without {@link CqInitAttributes#timestamps() timestamps} is the CQ of {@link #createCq(int,
     * CompletionChannel, int)}. This default, for a provider without timestamps, refuses them. A native provider
     * creates a CQ with timestamps by {@code ibv_create_cq_ex} and hands QPs its {@code ibv_cq}
     * ({@code ibv_cq_ex_to_cq}).
     *
     * @param attributes the entries, channel, vector and {@code wc_flags}
     * @return the new CQ
     * @throws IllegalArgumentException as {@link #createCq(int, CompletionChannel, int)}
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException {@code EOPNOTSUPP} if the device does not stamp completions (its
     *     {@link DeviceAttributesEx#completionTimestampMask()} is 0, as on rxe), or the errno of the device's refusal
     * @see "ibv_create_cq_ex(3) ibv_cq_ex_to_cq"
     */
    default CompletionQueue createCq(CqInitAttributes attributes) {
        if (isClosed()) {
            throw new IllegalStateException("the context is closed");
        }
        if (attributes.timestamps()) {
            throw new VerbsException("ibv_create_cq_ex", Errno.EOPNOTSUPP,
                    device().name() + " stamps no completions");
        }
        return createCq(attributes.cqe(), attributes.channel(), attributes.compVector());
    }

    /**
     * The device's free-running clock now, in the units of {@link WorkCompletionBatch#completionTimestamp}: ticks
     * of {@link DeviceAttributesEx#hcaCoreClock()} kHz. This default, for a provider without it, refuses.
     *
     * @return {@code raw_clock} as {@code tv_sec * 1,000,000,000 + tv_nsec}, which a device may fill with a plain
     *     tick count in {@code tv_nsec}
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException {@code EOPNOTSUPP} if the device has no such clock (rxe), or the errno of its answer
     * @see "ibv_query_rt_values_ex(3)"
     */
    default long queryRawClock() {
        if (isClosed()) {
            throw new IllegalStateException("the context is closed");
        }
        throw new VerbsException("ibv_query_rt_values_ex", Errno.EOPNOTSUPP, device().name() + " has no raw clock");
    }

    /**
     * Allocates a buffer of device memory. The device holds at most {@link DeviceAttributesEx#maxDmSize()} bytes in
     * one allocation ({@link Capabilities#maxDmSize()}); 0 there means it has none. This default, for a provider
     * without device memory, refuses.
     *
     * @param length the buffer's length, bytes, at least 1
     * @param logAlignReq log2 of the alignment its device address needs, 0 to 63 (RDMA atomics into it need 8 bytes,
     *     3); the device may align it further
     * @return the buffer; its contents are undefined until written
     * @throws IllegalArgumentException if {@code length} is not positive or {@code logAlignReq} is outside 0 to 63
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException {@code EOPNOTSUPP} without device memory (rxe); {@code EINVAL} (the emulated devices) or
     *     {@code ENOMEM} for a length beyond {@code max_dm_size}, which ibv_alloc_dm(3) gives no errno of its own;
     *     {@code ENOMEM} when the device's memory is taken by other buffers
     * @see "ibv_alloc_dm(3)"
     */
    default DeviceMemory allocDm(long length, int logAlignReq) {
        if (isClosed()) {
            throw new IllegalStateException("the context is closed");
        }
        throw new VerbsException("ibv_alloc_dm", Errno.EOPNOTSUPP, device().name() + " has no device memory");
    }

    /**
     * Opens a new XRC domain of this process alone: {@link #openXrcd(int, int)} with no file ({@code fd} -1) and
     * {@link XrcDomain#O_CREAT}.
     *
     * @return the domain
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException {@code EOPNOTSUPP} if the device has no XRC ({@link Capabilities#xrc()})
     * @see "ibv_open_xrcd(3)"
     */
    default XrcDomain openXrcd() {
        return openXrcd(-1, XrcDomain.O_CREAT);
    }

    /**
     * Opens an XRC domain. With a file descriptor, the domain is the one bound to that file's inode on this device:
     * every process (and every context of this device) that opens the same file shares it. This default, for a
     * provider without XRC, refuses.
     *
     * @param fd an open file's descriptor, or -1 for a domain of this caller alone
     * @param oflags {@link XrcDomain#O_CREAT} to create the domain if the file has none (required with {@code fd}
     *     -1), with {@link XrcDomain#O_EXCL} to fail if it has one; no other bits
     * @return the domain
     * @throws IllegalArgumentException if {@code fd} is below -1 or {@code oflags} has other bits
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException {@code EOPNOTSUPP} without XRC (rxe); {@code EINVAL} for {@code fd} -1 without
     *     {@code O_CREAT}, a file with no domain and no {@code O_CREAT}, or one with a domain and {@code O_EXCL};
     *     {@code EBADF} if {@code fd} is not open
     * @see "ibv_open_xrcd(3)"
     */
    default XrcDomain openXrcd(int fd, int oflags) {
        if (isClosed()) {
            throw new IllegalStateException("the context is closed");
        }
        throw new VerbsException("ibv_open_xrcd", Errno.EOPNOTSUPP, device().name() + " has no XRC");
    }

    /**
     * Allocates a thread domain: QPs created with it take no lock in their WR sessions.
     *
     * @return the new thread domain
     * @throws VerbsException {@code EOPNOTSUPP} if the device has none ({@link Capabilities#threadDomains()})
     * @see "ibv_alloc_td(3)"
     */
    ThreadDomain allocTd();

    /**
     * Waits for the next asynchronous event, and acknowledges it.
     *
     * @param timeout the longest wait; 0 returns at once
     * @param unit the unit of {@code timeout}
     * @return the event, or null if none came in time
     * @throws IllegalArgumentException if timeout is negative
     * @see "ibv_get_async_event(3) ibv_ack_async_event"
     */
    AsyncEvent pollAsyncEvent(long timeout, TimeUnit unit);

    /**
     * The address vector that reaches the sender of a UD receive completion, so that a UD server can answer
     * whoever sent to it. On RoCE the sender is named by the GRH area, the first 40 bytes of the receive buffer:
     * an IPv6 header, or (RoCE v2 over IPv4) 20 unused bytes and the IPv4 header. The vector is global exactly
     * when the completion has {@link WcFlags#GRH}; its source GID index is the index of the packet's destination
     * address in this port's GID table. Only {@code grh}'s first 40 bytes are read, and only after its size is
     * checked.
     *
     * @param portNum the port that received the completion, 1-based
     * @param wc the receive completion, from a UD QP
     * @param grh the receive buffer's GRH area, at least 40 bytes (a native or heap segment)
     * @return the address vector; {@code createAh} makes the handle ({@link ProtectionDomain#createAh(WorkCompletion,
     *     MemorySegment, int)} does both)
     * @throws NullPointerException if {@code wc} or {@code grh} is null
     * @throws IllegalArgumentException if {@code grh} is shorter than 40 bytes, or there is no such port
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException {@code EPROTONOSUPPORT} if the GRH area holds neither an IPv6 nor an IPv4 header (or an
     *     IPv6 header whose next header is neither UDP nor 0x1b); {@code EINVAL} if the packet went to a multicast
     *     group or to a GID the port's table lacks
     * @see "ibv_init_ah_from_wc(3)"
     */
    AhAttributes initAhAttributes(int portNum, WorkCompletion wc, MemorySegment grh);

    /**
     * Closes the device and every object created from it.
     *
     * @see "ibv_close_device(3)"
     */
    @Override
    void close();

    /**
     * An entry of a port's P_Key table.
     *
     * @param portNum the port, 1-based
     * @param index the entry, 0-based, below {@link PortAttributes#pkeyTblLen()}
     * @return the 16-bit P_Key, 0 to 0xFFFF (the default, full-member P_Key is 0xFFFF, at index 0)
     * @throws IllegalArgumentException if there is no such port or entry
     * @throws VerbsException the errno of the device's answer if it cannot read the entry
     * @see "ibv_query_pkey(3)"
     */
    int queryPkey(int portNum, int index);

    /**
     * The index of a P_Key in a port's P_Key table: the first entry that holds it.
     *
     * @param portNum the port, 1-based
     * @param pkey the 16-bit P_Key, 0 to 0xFFFF
     * @return its index, 0-based, below {@link PortAttributes#pkeyTblLen()}
     * @throws IllegalArgumentException if there is no such port, or {@code pkey} is not 16 bits
     * @throws VerbsException {@code ENOENT} if no entry holds {@code pkey}: rdma-core reads the table entry by entry
     *     until the one past its end, which does not exist
     * @see "ibv_get_pkey_index(3)"
     */
    int pkeyIndex(int portNum, int pkey);

    /**
     * An entry of a port's GID table with its type and network device.
     *
     * @param portNum the port, 1-based
     * @param index the entry, 0-based, below {@link PortAttributes#gidTblLen()}
     * @return the entry
     * @throws IllegalArgumentException if there is no such port or entry
     * @throws VerbsException {@code ENODATA} if the entry is empty (its GID is zero, as {@link #queryGid} shows it)
     * @see "ibv_query_gid_ex(3)"
     */
    GidEntry queryGidEntry(int portNum, int index);

    /**
     * The type of an entry of a port's GID table: {@link #queryGidEntry}'s type. Unlike rdma-core's private
     * {@code ibv_query_gid_type}, which calls an empty entry IB/RoCE v1, an empty entry has no type here.
     *
     * @param portNum the port, 1-based
     * @param index the entry, 0-based, below {@link PortAttributes#gidTblLen()}
     * @return the entry's type
     * @throws IllegalArgumentException if there is no such port or entry
     * @throws VerbsException {@code ENODATA} if the entry is empty
     * @see "ibv_query_gid_ex(3)"
     */
    default GidType queryGidType(int portNum, int index) {
        return queryGidEntry(portNum, index).type();
    }

    /**
     * The valid (non-empty) entries of every port's GID table, by port and then index.
     *
     * @param maxEntries room for this many entries; at least the number of valid entries
     * @return the valid entries, at most {@code maxEntries}
     * @throws IllegalArgumentException if {@code maxEntries} is negative
     * @throws VerbsException {@code EINVAL} if the device has more valid entries than {@code maxEntries}
     * @see "ibv_query_gid_table(3)"
     */
    List<GidEntry> queryGidTable(int maxEntries);

    /**
     * The valid entries of every port's GID table, by port and then index, with room for every entry of every
     * port's table.
     *
     * @return the valid entries
     * @see "ibv_query_gid_table(3)"
     */
    default List<GidEntry> queryGidTable() {
        long room = 0;
        for (int port = 1; port <= queryDevice().physPortCnt(); port++) {
            room += queryPort(port).gidTblLen();
        }
        return queryGidTable((int) Math.min(room, Integer.MAX_VALUE));
    }
}
