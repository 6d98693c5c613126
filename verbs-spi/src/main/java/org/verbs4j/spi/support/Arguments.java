package org.verbs4j.spi.support;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.verbs4j.AccessFlags;
import org.verbs4j.DataInOrder;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MrAdvice;
import org.verbs4j.MwBindInfo;
import org.verbs4j.PostRecvException;
import org.verbs4j.PostSendException;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WrOpcode;
import org.verbs4j.XrcDomain;

/**
 * The argument rules every provider applies before it reaches its device, kept in one place so that a
 * misuse fails the same way everywhere: with an exception that names the argument, or with the errno
 * the man page gives, and never with an exception from deep inside a provider.
 */
public final class Arguments {
    private Arguments() {}

    /**
     * Checks a segment offered to {@code ibv_reg_mr(3)}.
     *
     * @throws NullPointerException for a null segment
     * @param segment the memory to register
     * @throws IllegalArgumentException for a heap or zero-length segment, or memory an arena can free while the
     *     region is open ({@link RegionLifetime}: neither of the global scope nor being registered with its arena)
     * @throws IllegalStateException if the segment's scope is no longer alive (its arena was closed): its
     *     memory may already belong to another allocation
     */
    public static void registrable(MemorySegment segment) {
        Objects.requireNonNull(segment, "segment");
        if (!segment.isNative()) {
            throw new IllegalArgumentException("segment: only native memory can be registered; this segment is on the heap");
        }
        if (segment.byteSize() == 0) {
            throw new IllegalArgumentException("segment: a memory region needs at least 1 byte");
        }
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("segment: its arena is closed, so its memory is freed and cannot be registered");
        }
        RegionLifetime.checkCannotBeFreed(segment);
    }

    /**
     * Checks a GID table index given to {@code ibv_query_gid(3)}.
     *
     * @param portNum the port, already checked
     * @param index the index asked for
     * @param tableLength the number of entries in the port's GID table ({@code gid_tbl_len})
     * @throws IllegalArgumentException if {@code index} is negative or not below {@code tableLength}
     */
    public static void gidIndex(int portNum, int index, int tableLength) {
        if (index < 0 || index >= tableLength) {
            throw new IllegalArgumentException("port " + portNum + " has GID indexes 0.." + (tableLength - 1)
                    + ", not " + index);
        }
    }

    /**
     * Checks a P_Key table index given to {@code ibv_query_pkey(3)}.
     *
     * @param portNum the port, already checked
     * @param index the index asked for
     * @param tableLength the number of entries in the port's P_Key table ({@code pkey_tbl_len})
     * @throws IllegalArgumentException if {@code index} is negative or not below {@code tableLength}
     */
    public static void pkeyIndex(int portNum, int index, int tableLength) {
        if (index < 0 || index >= tableLength) {
            throw new IllegalArgumentException("port " + portNum + " has P_Key indexes 0.." + (tableLength - 1)
                    + ", not " + index);
        }
    }

    /**
     * Checks a P_Key given to {@code ibv_get_pkey_index(3)}.
     *
     * @param pkey the P_Key
     * @throws IllegalArgumentException unless it is 16 bits, 0 to 0xFFFF
     */
    public static void pkey(int pkey) {
        if ((pkey & ~0xffff) != 0) {
            throw new IllegalArgumentException("a P_Key is 16 bits, 0 to 0xFFFF, not 0x" + Integer.toHexString(pkey));
        }
    }

    /**
     * Checks the room given to {@code ibv_query_gid_table(3)}.
     *
     * @param maxEntries the number of entries the caller makes room for
     * @throws IllegalArgumentException if it is negative
     */
    public static void gidTableRoom(int maxEntries) {
        if (maxEntries < 0) {
            throw new IllegalArgumentException("max_entries must be >= 0, not " + maxEntries);
        }
    }

    /**
     * Checks the arguments of {@code ibv_query_qp_data_in_order(3)} and says whether the operation is one whose
     * data may be written in order at all: only RDMA READ, RDMA WRITE and SEND are; for any other the answer is 0
     * without asking the device.
     *
     * @param op the operation asked about
     * @param flags 0, or {@code IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS}
     * @return whether {@code op} is RDMA READ, RDMA WRITE or SEND
     * @throws NullPointerException if {@code op} is null
     * @throws IllegalArgumentException if {@code flags} has bits other than {@code RETURN_CAPS}
     */
    public static boolean dataInOrderQuery(WrOpcode op, int flags) {
        Objects.requireNonNull(op, "op");
        if ((flags & ~DataInOrder.RETURN_CAPS) != 0) {
            throw new IllegalArgumentException("unknown ibv_query_qp_data_in_order flags 0x"
                    + Integer.toHexString(flags & ~DataInOrder.RETURN_CAPS));
        }
        return op == WrOpcode.RDMA_READ || op == WrOpcode.RDMA_WRITE || op == WrOpcode.SEND;
    }

    /**
     * Checks the wait of {@code CompletionChannel.awaitEvent} and {@code Context.pollAsyncEvent}: 0 looks once
     * without waiting, a positive value waits up to that long.
     *
     * @param timeout how long to wait, in {@code unit}s
     * @param unit the unit of {@code timeout}
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalArgumentException if {@code timeout} is negative
     */
    public static void timeout(long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout cannot be negative: " + timeout);
        }
    }

    /**
     * Checks the first {@code count} entries of a gather or scatter list for nulls.
     *
     * @param list the SGE array
     * @param count how many of its entries are used
     * @param what the argument's name, for the message, e.g. {@code "sgList"}
     * @throws NullPointerException naming the first null entry, e.g. {@code sgList[1]}
     */
    public static void sges(Sge[] list, int count, String what) {
        Objects.requireNonNull(list, what);
        for (int i = 0; i < count; i++) {
            if (list[i] == null) {
                throw nullEntry(what, i);
            }
        }
    }

    /**
     * The exception for a null entry of a gather or scatter list, for a provider that checks the entries as it
     * copies them (so that the check and the copy are one pass).
     *
     * @param what the argument's name, e.g. {@code "sgList"}
     * @param i the index of the null entry
     * @return a {@link NullPointerException} naming the entry, e.g. {@code sgList[1] is null}
     */
    public static NullPointerException nullEntry(String what, int i) {
        return new NullPointerException(what + "[" + i + "] is null");
    }

    /**
     * Why the CPU may not read the inline data of {@code wr}, or null when it may (or the WR is not inline).
     * Inline data ignores the lkey ({@code ibv_post_send(3)}), so the library copies from the SGE's address
     * itself: every byte must lie in a live registered region of the QP's protection domain, or the copy
     * could read unmapped memory (a JVM crash) or memory the caller never offered (an information leak).
     * A provider refuses such a WR with {@code EINVAL}. Allocates nothing.
     *
     * @param wr the send WR
     * @param regions the live regions of the QP's protection domain
     * @return why the inline data cannot be read, or null when it can (or the WR is not inline)
     */
    public static String inlineData(SendWr wr, RegionTable regions) {
        if ((wr.sendFlags() & SendFlags.INLINE) == 0) {
            return null;
        }
        Sge[] sges = wr.sgList();
        for (int i = 0, n = wr.numSge(); i < n; i++) {
            Sge g = sges[i];
            if (g == null) {
                return "sgList[" + i + "] is null";
            }
            long len = Integer.toUnsignedLong(g.length());
            if (len > 0 && !regions.contains(g.addr(), len)) {
                return "inline SGE #" + i + " [0x" + Long.toHexString(g.addr()) + ", +" + len
                        + ") is not inside a live registered region of the QP's protection domain";
            }
        }
        return null;
    }

    /** The largest queue pair number: a QPN is 24 bits wide (IBA 9.2 BTH DestQP, {@code ibv_post_send(3)} remote_qpn). */
    public static final int MAX_QPN = 0xFF_FFFF;

    /**
     * Whether {@code qpn} can name a UD destination: a QPN is 24 bits (the BTH's DestQP), so a value of 2^24 or
     * more, or negative, names no QP, and the device would send it truncated to another QP. A provider refuses a
     * UD WR with such a {@code remote_qpn} with {@code EINVAL}. Allocates nothing.
     *
     * @param qpn the WR's remote QPN
     * @return true if it fits 24 bits
     */
    public static boolean remoteQpn(int qpn) {
        return (qpn & ~MAX_QPN) == 0;
    }

    /**
     * Whether the provider library may read {@code hdr} as a TSO header ({@code ibv_post_send(3)},
     * {@code wr.tso.hdr}): native, alive, and at most 65535 bytes ({@code hdr_sz} is 16 bits). A provider
     * refuses any other header with {@code EINVAL}. Allocates nothing.
     *
     * @param hdr the header, or null
     * @return whether it may
     */
    public static boolean tsoHeader(MemorySegment hdr) {
        return hdr != null && hdr.isNative() && hdr.byteSize() <= 0xffff && hdr.scope().isAlive();
    }

    /**
     * Why a type 1 bind of {@code info} is outside its region ({@code ibv_bind_mw(3)}: EINVAL), or null.
     * The window must lie inside {@code [mr.address(), mr.address() + mr.length())}; a negative address or a
     * range past the region's end is refused before it reaches the device, whatever the device checks.
     *
     * @param info the bind's region, address and length
     * @return why the range is outside the region, or null when it is inside
     */
    public static String bindRange(MwBindInfo info) {
        MemoryRegion mr = info.mr();
        long start = mr.address();
        long addr = info.addr();
        long length = info.length();
        if (addr < 0) {
            return "the window's address " + addr + " is negative";
        }
        if (length == 0) {
            return null;
        }
        if (addr < start || addr - start > mr.length() - length) {
            return "the window [0x" + Long.toHexString(addr) + ", +" + length + ") is outside the region [0x"
                    + Long.toHexString(start) + ", +" + mr.length() + ")";
        }
        return null;
    }

    /**
     * Checks that every attribute named by the mask of {@code a} is set ({@code ibv_modify_qp(3)}).
     *
     * @param a the attributes of a modify
     * @throws NullPointerException naming the attribute whose mask bit is set but whose value is missing
     */
    public static void modifyAttributes(QpAttributes a) {
        Objects.requireNonNull(a, "attributes");
        int m = a.mask();
        if ((m & QpAttrMask.STATE) != 0 && a.state() == null) {
            throw new NullPointerException("attributes.state: the mask has STATE but no state is set");
        }
        if ((m & QpAttrMask.CUR_STATE) != 0 && a.curState() == null) {
            throw new NullPointerException("attributes.curState: the mask has CUR_STATE but no state is set");
        }
        if ((m & QpAttrMask.AV) != 0 && a.ahAttr() == null) {
            throw new NullPointerException("attributes.ahAttr: the mask has AV but no address vector is set");
        }
        if ((m & QpAttrMask.ALT_PATH) != 0 && a.altAhAttr() == null) {
            throw new NullPointerException("attributes.altAhAttr: the mask has ALT_PATH but no alternate path is set");
        }
        if ((m & QpAttrMask.PATH_MTU) != 0 && a.pathMtu() == null) {
            throw new NullPointerException("attributes.pathMtu: the mask has PATH_MTU but no MTU is set");
        }
        if ((m & QpAttrMask.PATH_MIG_STATE) != 0 && a.pathMigState() == null) {
            throw new NullPointerException("attributes.pathMigState: the mask has PATH_MIG_STATE but none is set");
        }
        if ((m & QpAttrMask.CAP) != 0 && a.cap() == null) {
            throw new NullPointerException("attributes.cap: the mask has CAP but no capabilities are set");
        }
    }

    /**
     * The arguments of {@code ibv_advise_mr} the library can check before the device: the advice, the flags (only
     * {@link MrAdvice#FLAG_FLUSH}) and a non-empty list of SGEs.
     *
     * @param advice the advice
     * @param flags the flags
     * @param sgList the SGEs
     * @throws NullPointerException if an argument or an SGE is null
     * @throws IllegalArgumentException for other flags or no SGE
     * @see "ibv_advise_mr(3)"
     */
    public static void adviseMr(MrAdvice advice, int flags, List<Sge> sgList) {
        Objects.requireNonNull(advice, "advice");
        Objects.requireNonNull(sgList, "sgList");
        if ((flags & ~MrAdvice.FLAG_FLUSH) != 0) {
            throw new IllegalArgumentException("ibv_advise_mr flags 0x" + Integer.toHexString(flags)
                    + ": only IBV_ADVISE_MR_FLAG_FLUSH (0x1) exists");
        }
        if (sgList.isEmpty()) {
            throw new IllegalArgumentException("ibv_advise_mr needs at least one SGE");
        }
        for (int i = 0; i < sgList.size(); i++) {
            Objects.requireNonNull(sgList.get(i), "SGE " + i);
        }
    }
    /**
     * The QP types a protection domain creates: every type but XRC_RECV, which an XRC domain creates.
     *
     * @param type the type asked for
     * @throws IllegalArgumentException for XRC_RECV
     * @see "ibv_create_qp_ex(3)"
     */
    public static void pdQpType(QpType type) {
        if (type == QpType.XRC_RECV) {
            throw new IllegalArgumentException("an XRC_RECV QP has no protection domain: it is created in an XRC "
                    + "domain with XrcDomain.createRecvQp() (ibv_create_qp_ex(3), comp_mask IBV_QP_INIT_ATTR_XRCD)");
        }
    }

    /**
     * The QP types with a receive queue of their own to post to: an XRC_SEND QP receives nothing, and an XRC_RECV
     * QP delivers into the SRQ each message names.
     *
     * @param type the QP's type
     * @throws PostRecvException {@code EINVAL} (WR #0) on either XRC type
     * @see "ibv_post_recv(3)"
     */
    public static void hasRecvQueue(QpType type) {
        if (type == QpType.XRC_SEND || type == QpType.XRC_RECV) {
            throw new PostRecvException("ibv_post_recv", Errno.EINVAL, 0, "an " + type
                    + " QP has no receive queue: XRC receives are posted to the XRC SRQ (ibv_post_srq_recv(3))");
        }
    }

    /**
     * The QP types with a send queue: every type but XRC_RECV.
     *
     * @param type the QP's type
     * @throws PostSendException {@code EINVAL} (WR #0) on XRC_RECV
     * @see "ibv_post_send(3)"
     */
    public static void hasSendQueue(QpType type) {
        if (type == QpType.XRC_RECV) {
            throw new PostSendException(Errno.EINVAL, 0,
                    "an XRC_RECV QP has no send queue: its connected XRC_SEND QP sends");
        }
    }

    /**
     * The arguments of {@code ibv_open_xrcd}.
     *
     * @param fd a file descriptor, or -1
     * @param oflags {@code O_CREAT} and {@code O_EXCL} bits only
     * @throws IllegalArgumentException if {@code fd} is below -1 or {@code oflags} has other bits
     * @see "ibv_open_xrcd(3)"
     */
    public static void openXrcd(int fd, int oflags) {
        if (fd < -1) {
            throw new IllegalArgumentException("fd is an open file's descriptor or -1: " + fd);
        }
        if ((oflags & ~(XrcDomain.O_CREAT | XrcDomain.O_EXCL)) != 0) {
            throw new IllegalArgumentException("oflags takes O_CREAT (0100) and O_EXCL (0200) only: 0"
                    + Integer.toOctalString(oflags));
        }
    }

    /**
     * The arguments of an XRC SRQ ({@code ibv_create_srq_ex}, {@code IBV_SRQT_XRC}): none may be null.
     *
     * @param pd its protection domain
     * @param cq its CQ
     * @param attributes its sizes
     * @throws NullPointerException naming the argument that is null
     * @see "ibv_create_srq_ex(3)"
     */
    public static void xrcSrq(Object pd, Object cq, Object attributes) {
        Objects.requireNonNull(pd, "pd");
        Objects.requireNonNull(cq, "cq");
        Objects.requireNonNull(attributes, "attributes");
    }

    /**
     * The number {@code ibv_open_qp} opens.
     *
     * @param qpNum the QP's number
     * @throws IllegalArgumentException unless it is a 24-bit number
     * @see "ibv_open_qp(3)"
     */
    public static void openQpNum(int qpNum) {
        if (!remoteQpn(qpNum)) {
            throw new IllegalArgumentException("a QP number is 24 bits: 0x" + Integer.toHexString(qpNum));
        }
    }

    /**
     * Checks the limit given to {@link org.verbs4j.SharedReceiveQueue#armLimit(int)}: a count of WRs, 0 to disarm.
     * Whether it fits the queue is the device's answer ({@code EINVAL} from {@code ibv_modify_srq(3)}).
     *
     * @param srqLimit the number of queued WRs below which the limit event fires
     * @throws IllegalArgumentException if {@code srqLimit} is negative
     */
    public static void srqLimit(int srqLimit) {
        if (srqLimit < 0) {
            throw new IllegalArgumentException("srqLimit cannot be negative: " + srqLimit);
        }
    }

    /**
     * Checks the arguments of {@code ibv_alloc_dm(3)}.
     *
     * @param length the buffer's length, bytes
     * @param logAlignReq log2 of the alignment asked for
     * @throws IllegalArgumentException if {@code length} is not positive or {@code logAlignReq} is outside 0 to 63
     */
    public static void allocDm(long length, int logAlignReq) {
        if (length <= 0) {
            throw new IllegalArgumentException("length: device memory needs at least 1 byte, not " + length);
        }
        if (logAlignReq < 0 || logAlignReq > 63) {
            throw new IllegalArgumentException("logAlignReq: log2 of an alignment is 0 to 63, not " + logAlignReq);
        }
    }

    /**
     * Checks a range of a device memory buffer: a copy ({@code ibv_memcpy_to_dm(3)}, {@code ibv_memcpy_from_dm})
     * or a registration ({@code ibv_reg_dm_mr(3)}).
     *
     * @param what the call, for the message
     * @param dmOffset where the range starts, bytes
     * @param length its length, bytes
     * @param dmLength the buffer's length, bytes
     * @throws IllegalArgumentException if {@code dmOffset} or {@code length} is negative, or the range ends past
     *     {@code dmLength}
     */
    public static void dmRange(String what, long dmOffset, long length, long dmLength) {
        if (dmOffset < 0 || length < 0 || dmOffset > dmLength || length > dmLength - dmOffset) {
            throw new IllegalArgumentException(what + ": " + length + " bytes at offset " + dmOffset
                    + " do not fit the " + dmLength + "-byte device memory buffer");
        }
    }

    /**
     * Checks the arguments of {@code ibv_reg_dm_mr(3)}, which registers device memory zero-based only.
     *
     * @param dmOffset where the region starts in the buffer, bytes
     * @param length the region's length, bytes
     * @param dmLength the buffer's length, bytes
     * @param access the {@link AccessFlags} bits
     * @throws IllegalArgumentException if {@code length} is not positive, the range does not fit the buffer
     *     ({@link #dmRange}), or {@code access} has an unknown bit or lacks {@link AccessFlags#ZERO_BASED}
     */
    public static void deviceMemoryRegion(long dmOffset, long length, long dmLength, int access) {
        if (length <= 0) {
            throw new IllegalArgumentException("length: a region needs at least 1 byte, not " + length);
        }
        dmRange("registerDeviceMemory", dmOffset, length, dmLength);
        AccessFlags.validate(access);
        if ((access & AccessFlags.ZERO_BASED) == 0) {
            throw new IllegalArgumentException("access: a region of device memory is zero-based; add ZERO_BASED to "
                    + AccessFlags.toString(access));
        }
    }

    /** The access flags {@code ibv_reg_dmabuf_mr(3)} takes. */
    private static final int DMABUF_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
            | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC | AccessFlags.RELAXED_ORDERING;

    /**
     * Checks the arguments of {@code ibv_reg_dmabuf_mr(3)}.
     *
     * @param fd the dma-buf's file descriptor
     * @param offset where the region starts in it, bytes
     * @param length the region's length, bytes
     * @param access the {@link AccessFlags} bits
     * @throws IllegalArgumentException if {@code fd} or {@code offset} is negative, {@code length} is not positive,
     *     {@code offset + length} overflows, or {@code access} has a bit the man page does not list for it
     */
    public static void dmabuf(int fd, long offset, long length, int access) {
        if (fd < 0) {
            throw new IllegalArgumentException("fd: a file descriptor is not negative, not " + fd);
        }
        if (offset < 0 || length <= 0 || length > Long.MAX_VALUE - offset) {
            throw new IllegalArgumentException("a dma-buf region needs offset >= 0 and length >= 1 that do not"
                    + " overflow, not offset " + offset + " and length " + length);
        }
        AccessFlags.validate(access);
        if ((access & ~DMABUF_ACCESS) != 0) {
            throw new IllegalArgumentException("access: ibv_reg_dmabuf_mr(3) takes LOCAL_WRITE, REMOTE_WRITE,"
                    + " REMOTE_READ, REMOTE_ATOMIC and RELAXED_ORDERING only, not " + AccessFlags.toString(access));
        }
    }
}
