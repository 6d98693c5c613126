package org.verbs4j.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.verbs4j.provider.ffm.internal.Fields.i32;
import static org.verbs4j.provider.ffm.internal.Fields.i64;
import static org.verbs4j.provider.ffm.internal.Fields.u16;
import static org.verbs4j.provider.ffm.internal.Fields.u8;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.verbs4j.AsyncEvent;
import org.verbs4j.AsyncEventType;
import org.verbs4j.AtomicCapability;
import org.verbs4j.Capabilities;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.LinkLayer;
import org.verbs4j.Mtu;
import org.verbs4j.PortAttributes;
import org.verbs4j.PortState;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.ThreadDomain;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.ffm.internal.FfmIbverbsBinding;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.InlineOps;
import org.verbs4j.provider.ffm.internal.Poller;
import org.verbs4j.provider.ffm.internal.Structs;
import org.verbs4j.provider.ffm.internal.Structs.ibv_async_event;
import org.verbs4j.provider.ffm.internal.Structs.ibv_context;
import org.verbs4j.provider.ffm.internal.Structs.ibv_cq_init_attr_ex;
import org.verbs4j.provider.ffm.internal.Structs.ibv_device_attr;
import org.verbs4j.provider.ffm.internal.Structs.ibv_port_attr;
import org.verbs4j.provider.ffm.internal.Structs.verbs_context;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.provider.nativecommon.CapabilityProbe;
import org.verbs4j.provider.nativecommon.internal.ContextStructs;
import org.verbs4j.provider.nativecommon.internal.IbverbsBinding;
import org.verbs4j.provider.nativecommon.internal.NativeCompletionChannel;
import org.verbs4j.provider.nativecommon.internal.NativeContextSupport;
import org.verbs4j.provider.nativecommon.internal.NativeCompletionQueue;
import org.verbs4j.provider.nativecommon.internal.NativeKind;
import org.verbs4j.provider.nativecommon.internal.NativeProtectionDomain;
import org.verbs4j.provider.nativecommon.internal.NativeQueueFactory;
import org.verbs4j.provider.nativecommon.internal.NativeThreadDomain;

/**
 * An open device, {@code struct ibv_context}, with the function pointers of its {@code ops} and of the
 * {@code verbs_context} in front of it. It tracks every object created from it, destroys them when it
 * closes, and maps native addresses back to objects for completion and async events.
 */
final class FfmContext extends AbstractVerbsObject implements NativeContextSupport {
    static final Cleaner CLEANER = Cleaner.create();
    private static final System.Logger LOG = System.getLogger(FfmContext.class.getName());
    /** Whether CQs are created extended where the device allows it; see {@link FfmProvider#EXTENDED_CQ_PROPERTY}. */
    private static final boolean EXTENDED_CQ =
            !"false".equalsIgnoreCase(System.getProperty(FfmProvider.EXTENDED_CQ_PROPERTY, "true"));
    /**
     * {@code IBV_WC_STANDARD_FLAGS}: byte_len, imm_data, qp_num, src_qp, slid, sl and dlid_path_bits,
     * every field of {@code ibv_wc} that {@code ibv_cq_ex} has a reader for.
     */
    private static final long IBV_WC_STANDARD_FLAGS = 0x7f;

    private final FfmDevice device;
    final MemorySegment context;
    private final MemorySegment verbsContext;
    final int rdmaCoreVersion;
    final int physPortCnt;
    /** Whether the device offloads IP checksums ({@code IBV_DEVICE_UD_IP_CSUM} or {@code RAW_IP_CSUM}). */
    final boolean ipCsum;
    /** {@code device_cap_flags_ex} of {@code ibv_query_device_ex}, 0 without the extended query. */
    final long deviceCapFlagsEx;

    final MemorySegment postSend;
    final MemorySegment postRecv;
    final MemorySegment postSrqRecv;
    final MemorySegment pollCq;
    final MemorySegment reqNotifyCq;
    final MemorySegment allocMw;
    final MemorySegment bindMw;
    final MemorySegment deallocMw;

    final Map<Long, NativeCompletionQueue> cqs = new ConcurrentHashMap<>();
    final Map<Long, FfmQueuePair> qps = new ConcurrentHashMap<>();
    final Map<Long, FfmSharedReceiveQueue> srqs = new ConcurrentHashMap<>();
    private final Cleaner.Cleanable cleanable;
    private final Object asyncLock = new Object();
    private volatile Capabilities capabilities;
    private final FfmQueueFactory queueFactory = new FfmQueueFactory(this);

    FfmContext(FfmDevice device, MemorySegment ctx, int rdmaCoreVersion) {
        super("Context", null);
        this.device = device;
        this.context = ctx.reinterpret(ibv_context.LAYOUT.byteSize());
        this.rdmaCoreVersion = rdmaCoreVersion;
        boolean extended = context.get(JAVA_LONG, ContextStructs.ibv_context.abi_compat$off) == -1L;
        this.verbsContext = extended
                ? MemorySegment.ofAddress(context.address() - ContextStructs.verbs_context.context$off)
                        .reinterpret(verbs_context.LAYOUT.byteSize())
                : null;
        postSend = context.get(ADDRESS, ContextStructs.ibv_context.ops$post_send$off);
        postRecv = context.get(ADDRESS, ContextStructs.ibv_context.ops$post_recv$off);
        postSrqRecv = context.get(ADDRESS, ContextStructs.ibv_context.ops$post_srq_recv$off);
        pollCq = context.get(ADDRESS, ContextStructs.ibv_context.ops$poll_cq$off);
        reqNotifyCq = context.get(ADDRESS, ContextStructs.ibv_context.ops$req_notify_cq$off);
        allocMw = context.get(ADDRESS, ContextStructs.ibv_context.ops$alloc_mw$off);
        bindMw = context.get(ADDRESS, ContextStructs.ibv_context.ops$bind_mw$off);
        deallocMw = context.get(ADDRESS, ContextStructs.ibv_context.ops$dealloc_mw$off);
        long address = context.address();
        this.cleanable = CLEANER.register(this, () -> Ibverbs.ibv_close_device(MemorySegment.ofAddress(address)));
        DeviceAttributes attrs;
        try {
            attrs = queryDevice();
        } catch (RuntimeException e) {
            cleanable.clean();
            throw e;
        }
        this.physPortCnt = attrs.physPortCnt();
        this.deviceCapFlagsEx = queryDeviceCapFlagsEx();
        this.ipCsum = (attrs.deviceCapFlags()
                & (DeviceAttributes.CAP_UD_IP_CSUM | DeviceAttributes.CAP_RAW_IP_CSUM)) != 0;
    }

    /**
     * The {@code verbs_context} op at {@code offset}, as {@code verbs_get_ctx_op} finds it: present when
     * the context is extended, {@code sz} covers the op, and the pointer is set; else NULL.
     */
    MemorySegment verbsOp(long offset) {
        if (verbsContext == null) {
            return MemorySegment.NULL;
        }
        long sz = verbsContext.get(JAVA_LONG, ContextStructs.verbs_context.sz$off);
        if (sz < verbs_context.LAYOUT.byteSize() - offset) {
            return MemorySegment.NULL;
        }
        return verbsContext.get(ADDRESS, offset);
    }

    @Override
    public IbverbsBinding binding() {
        return FfmIbverbsBinding.INSTANCE;
    }

    @Override
    public long contextOp(long opsOffset) {
        return context.get(ADDRESS, opsOffset).address();
    }

    @Override
    public long verbsContextOp(long offset) {
        return verbsOp(offset).address();
    }

    /**
     * ffm keeps no table of these objects by kind, its {@link #CLEANER} closes only the device; it maps CQs by
     * address for completion and async events.
     */
    @Override
    public void track(NativeKind kind, long address, AbstractVerbsObject object) {
        if (kind == NativeKind.CQ) {
            cqs.put(address, (NativeCompletionQueue) object);
        }
    }

    @Override
    public void untrack(NativeKind kind, long address, AbstractVerbsObject object) {
        if (kind == NativeKind.CQ) {
            cqs.remove(address, object);
        }
    }

    @Override
    public long contextHandle() {
        return context.address();
    }

    @Override
    public long allocate(long bytes) {
        return FfmIbverbsBinding.INSTANCE.allocate(bytes);
    }

    @Override
    public void free(long address) {
        FfmIbverbsBinding.INSTANCE.free(address);
    }

    @Override
    public NativeQueueFactory queueFactory() {
        return queueFactory;
    }

    @Override
    public CompletionQueue completionQueueAt(long cq) {
        return cqs.get(cq);
    }

    @Override
    public Device device() {
        checkOpen();
        return device;
    }

    @Override
    public DeviceAttributes queryDevice() {
        checkOpen();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(ibv_device_attr.LAYOUT);
            int rc = Ibverbs.ibv_query_device(context, s);
            if (rc != 0) {
                throw new VerbsException("ibv_query_device", Ibverbs.errnoOf(rc), device.name());
            }
            var l = ibv_device_attr.LAYOUT;
            return new DeviceAttributes(org.verbs4j.provider.ffm.internal.Fields.string(s, l, "fw_ver"),
                    Long.reverseBytes(i64(s, l, "node_guid")), Long.reverseBytes(i64(s, l, "sys_image_guid")),
                    unsignedClamp(i64(s, l, "max_mr_size")), i64(s, l, "page_size_cap"), i32(s, l, "vendor_id"),
                    i32(s, l, "vendor_part_id"), i32(s, l, "hw_ver"), i32(s, l, "max_qp"), i32(s, l, "max_qp_wr"),
                    i32(s, l, "device_cap_flags"), i32(s, l, "max_sge"), i32(s, l, "max_sge_rd"),
                    i32(s, l, "max_cq"), i32(s, l, "max_cqe"), i32(s, l, "max_mr"), i32(s, l, "max_pd"),
                    i32(s, l, "max_qp_rd_atom"), i32(s, l, "max_ee_rd_atom"), i32(s, l, "max_res_rd_atom"),
                    i32(s, l, "max_qp_init_rd_atom"), i32(s, l, "max_ee_init_rd_atom"),
                    AtomicCapability.of(i32(s, l, "atomic_cap")), i32(s, l, "max_ee"), i32(s, l, "max_rdd"),
                    i32(s, l, "max_mw"), i32(s, l, "max_raw_ipv6_qp"), i32(s, l, "max_raw_ethy_qp"),
                    i32(s, l, "max_mcast_grp"), i32(s, l, "max_mcast_qp_attach"),
                    i32(s, l, "max_total_mcast_qp_attach"), i32(s, l, "max_ah"), i32(s, l, "max_fmr"),
                    i32(s, l, "max_map_per_fmr"), i32(s, l, "max_srq"), i32(s, l, "max_srq_wr"),
                    i32(s, l, "max_srq_sge"), u16(s, l, "max_pkeys"), u8(s, l, "local_ca_ack_delay"),
                    u8(s, l, "phys_port_cnt"));
        }
    }

    /**
     * {@code device_cap_flags_ex} of {@code ibv_query_device_ex}, which says what the kernel driver
     * executes beyond {@code ibv_device_attr}; 0 when the device has no extended query.
     */
    private long queryDeviceCapFlagsEx() {
        MemorySegment op = verbsOp(ContextStructs.verbs_context.query_device_ex$off);
        if (op.address() == 0) {
            return 0;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(Structs.ibv_device_attr_ex.LAYOUT);
            int rc = InlineOps.query_device_ex(op, context, MemorySegment.NULL, attr,
                    Structs.ibv_device_attr_ex.LAYOUT.byteSize());
            return rc == 0 ? attr.get(JAVA_LONG, ContextStructs.ibv_device_attr_ex.device_cap_flags_ex$off) : 0;
        }
    }

    /** A {@code uint64_t} size as a long: values beyond {@code Long.MAX_VALUE} (rxe reports 2^64-1) clamp to it. */
    private static long unsignedClamp(long v) {
        return v < 0 ? Long.MAX_VALUE : v;
    }

    @Override
    public void checkPort(int portNum) {
        if (portNum < 1 || portNum > physPortCnt) {
            throw new IllegalArgumentException(device.name() + " has ports 1.." + physPortCnt + ", not " + portNum);
        }
    }

    @Override
    public PortAttributes queryPort(int portNum) {
        checkOpen();
        checkPort(portNum);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(ibv_port_attr.LAYOUT);
            MemorySegment op = verbsOp(ContextStructs.verbs_context.query_port$off);
            int rc = op.address() != 0
                    ? InlineOps.query_port(op, context, (byte) portNum, s, ibv_port_attr.LAYOUT.byteSize())
                    : Ibverbs.ibv_query_port(context, (byte) portNum, s);
            if (rc != 0) {
                throw new VerbsException("ibv_query_port", Ibverbs.errnoOf(rc), "port " + portNum);
            }
            var l = ibv_port_attr.LAYOUT;
            return new PortAttributes(PortState.of(i32(s, l, "state")), mtu(i32(s, l, "max_mtu")),
                    mtu(i32(s, l, "active_mtu")), i32(s, l, "gid_tbl_len"), i32(s, l, "port_cap_flags"),
                    Integer.toUnsignedLong(i32(s, l, "max_msg_sz")), i32(s, l, "bad_pkey_cntr"),
                    i32(s, l, "qkey_viol_cntr"), u16(s, l, "pkey_tbl_len"), u16(s, l, "lid"), u16(s, l, "sm_lid"),
                    u8(s, l, "lmc"), u8(s, l, "max_vl_num"), u8(s, l, "sm_sl"), u8(s, l, "subnet_timeout"),
                    u8(s, l, "init_type_reply"), u8(s, l, "active_width"), u8(s, l, "active_speed"),
                    u8(s, l, "phys_state"), LinkLayer.of(u8(s, l, "link_layer")), u8(s, l, "flags"),
                    u16(s, l, "port_cap_flags2"));
        }
    }

    private static Mtu mtu(int v) {
        return v >= 1 && v <= 5 ? Mtu.of(v) : Mtu.MTU_256;
    }

    @Override
    public Gid queryGid(int portNum, int index) {
        checkOpen();
        checkPort(portNum);
        Arguments.gidIndex(portNum, index, queryPort(portNum).gidTblLen());
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(Structs.GID_SIZE, 8);
            int rc = Ibverbs.ibv_query_gid(context, (byte) portNum, index, s);
            if (rc != 0) {
                throw new VerbsException("ibv_query_gid", Ibverbs.errnoOf(rc), "port " + portNum + " index " + index);
            }
            return Gid.of(s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
    }

    @Override
    public Capabilities capabilities() {
        checkOpen();
        Capabilities c = capabilities;
        if (c == null) {
            synchronized (this) {
                c = capabilities;
                if (c == null) {
                    c = capabilities = CapabilityProbe.probe(new FfmDeviceFacts(this));
                }
            }
        }
        return c;
    }

    @Override
    public ProtectionDomain allocPd() {
        return NativeProtectionDomain.alloc(this);
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        checkOpen();
        MemorySegment ch = Ibverbs.ibv_create_comp_channel(context);
        if (ch.address() == 0) {
            throw new VerbsException("ibv_create_comp_channel", Ibverbs.errnoOf(-1), null);
        }
        return new NativeCompletionChannel(this, ch.address());
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
        return createCq(cqe, channel, compVector, EXTENDED_CQ);
    }

    /** {@link #createCq(int, CompletionChannel, int)}, extended only if {@code tryExtended}; tests compare both kinds. */
    NativeCompletionQueue createCq(int cqe, CompletionChannel channel, int compVector, boolean tryExtended) {
        return NativeCompletionQueue.create(this, cqe, channel, compVector, tryExtended);
    }

    @Override
    public ThreadDomain allocTd() {
        checkOpen();
        MemorySegment op = verbsOp(ContextStructs.verbs_context.alloc_td$off);
        if (op.address() == 0) {
            throw new VerbsException("ibv_alloc_td", Errno.EOPNOTSUPP, "the device has no thread domains");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment init = a.allocate(Structs.ibv_td_init_attr.LAYOUT);
            MemorySegment td = InlineOps.create(op, context, init);
            if (td.address() == 0) {
                throw new VerbsException("ibv_alloc_td", Ibverbs.errnoOf(-1), null);
            }
            return new NativeThreadDomain(this, td.address());
        }
    }

    @Override
    public AsyncEvent pollAsyncEvent(long timeout, TimeUnit unit) {
        checkOpen();
        Objects.requireNonNull(unit, "unit");
        int fd = (int) ibv_context.async_fd$vh.get(context, 0L);
        synchronized (asyncLock) {
            if (!Poller.awaitReadable(fd, timeout, unit, "ibv_get_async_event")) {
                return null;
            }
            try (Arena a = Arena.ofConfined()) {
                MemorySegment ev = a.allocate(ibv_async_event.LAYOUT);
                int rc = Ibverbs.ibv_get_async_event(context, ev);
                if (rc != 0) {
                    throw new VerbsException("ibv_get_async_event", Ibverbs.errnoOf(rc), null);
                }
                AsyncEventType type = AsyncEventType.of(ev.get(JAVA_INT, 8));
                long element = ev.get(JAVA_LONG, 0);
                AsyncEvent result = switch (type) {
                    case CQ_ERR -> new AsyncEvent(type, null, cqs.get(element), null, 0);
                    case SRQ_ERR, SRQ_LIMIT_REACHED -> new AsyncEvent(type, null, null, srqs.get(element), 0);
                    case DEVICE_FATAL -> new AsyncEvent(type, null, null, null, 0);
                    case PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE ->
                            new AsyncEvent(type, null, null, null, ev.get(JAVA_INT, 0));
                    case WQ_FATAL -> new AsyncEvent(type, null, null, null, 0);
                    default -> new AsyncEvent(type, qps.get(element), null, null, 0);
                };
                Ibverbs.ibv_ack_async_event(ev);
                return result;
            }
        }
    }

    @Override
    protected int destroy() {
        // The base class has closed every object made from this context; what is left is the device.
        cqs.clear();
        qps.clear();
        srqs.clear();
        cleanable.clean();
        return 0;
    }

    @Override
    public String toString() {
        return "FfmContext[" + device.name() + (isClosed() ? ", closed" : "") + "]";
    }
}
