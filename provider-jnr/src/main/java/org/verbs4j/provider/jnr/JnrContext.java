package org.verbs4j.provider.jnr;

import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.util.Map;
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
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.provider.jnr.internal.InlineVerbs;
import org.verbs4j.provider.jnr.internal.NativeLibraries;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.verbs_context;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.provider.nativecommon.CapabilityProbe;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_async_event;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_device_attr;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_device_attr_ex;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_port_attr;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_td_init_attr;
import org.verbs4j.provider.nativecommon.internal.CqStructs.ibv_cq_init_attr_ex;
import org.verbs4j.provider.nativecommon.internal.PosixStructs;
import org.verbs4j.provider.nativecommon.internal.NativeCompletionQueue;
import org.verbs4j.provider.nativecommon.internal.NativeKind;
import org.verbs4j.provider.nativecommon.internal.NativeProtectionDomain;
import org.verbs4j.provider.nativecommon.internal.NativeQueueFactory;
import org.verbs4j.provider.nativecommon.internal.NativeThreadDomain;
import org.verbs4j.provider.nativecommon.internal.NativeCompletionChannel;
import org.verbs4j.provider.nativecommon.internal.IbverbsBinding;
import org.verbs4j.provider.nativecommon.internal.NativeContextSupport;
import org.verbs4j.provider.jnr.internal.Fds;
import org.verbs4j.provider.jnr.internal.JnrIbverbsBinding;

/**
 * An open device, {@code struct ibv_context}. It owns every object created from it through
 * {@link ContextResources}; closing it, or its becoming unreachable without a close, releases them all.
 *
 * @see "ibv_open_device(3)"
 */
final class JnrContext extends AbstractVerbsObject implements NativeContextSupport {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final System.Logger LOG = System.getLogger(JnrContext.class.getName());
    /**
     * {@code -Dverbs4j.jnr.extendedCq=false} creates every CQ with {@code ibv_create_cq} and polls it with
     * {@code ibv_poll_cq}, even where the provider library has {@code ibv_create_cq_ex}.
     */
    static final String EXTENDED_CQ_PROPERTY = "verbs4j.jnr.extendedCq";

    final NativeLibraries libs;
    private final JnrIbverbsBinding binding;
    final long handle;
    final ContextResources resources;
    private final JnrDevice device;
    private final Cleaner.Cleanable cleanable;
    private final Map<Long, AbstractVerbsObject> byHandle = new ConcurrentHashMap<>();
    private volatile DeviceAttributes deviceAttributes;
    private volatile Capabilities capabilities;
    private long asyncScratch;
    /** {@code device_cap_flags_ex} of {@code ibv_query_device_ex}, 0 without the extended query. */
    final long deviceCapFlagsEx;
    private final JnrQueueFactory queueFactory = new JnrQueueFactory(this);

    JnrContext(NativeLibraries libs, JnrDevice device, long handle) {
        super("Context", null);
        this.libs = libs;
        this.binding = new JnrIbverbsBinding(libs);
        this.device = device;
        this.handle = handle;
        this.resources = new ContextResources(libs, handle);
        this.cleanable = CLEANER.register(this, resources);
        this.deviceCapFlagsEx = queryDeviceCapFlagsEx(handle);
    }

    /**
     * {@code device_cap_flags_ex} of {@code ibv_query_device_ex}, which says what the kernel driver executes beyond
     * {@code ibv_device_attr} (librxe 44 creates ATOMIC_WRITE QPs that Linux 6.1's rxe cannot run); 0 when the
     * device has no extended query or it fails.
     */
    private static long queryDeviceCapFlagsEx(long handle) {
        long fn = InlineVerbs.verbsContextOp(handle, verbs_context.query_device_ex$off);
        if (fn == 0) {
            return 0;
        }
        long a = NativeMemory.allocate(ibv_device_attr_ex.SIZEOF);
        try {
            int rc = InlineVerbs.queryDeviceEx(fn, handle, a, ibv_device_attr_ex.SIZEOF);
            return rc == 0 ? NativeMemory.getLong(a + ibv_device_attr_ex.device_cap_flags_ex$off) : 0;
        } finally {
            NativeMemory.free(a);
        }
    }

    @Override
    public IbverbsBinding binding() {
        return binding;
    }

    /** Records an object made from this context, by its native address, for the events that name it. */
    @Override
    public void track(NativeKind kind, long h, AbstractVerbsObject o) {
        resources.add(kind, h);
        byHandle.put(h, o);
    }

    /** Forgets an object that was destroyed. */
    @Override
    public void untrack(NativeKind kind, long h, AbstractVerbsObject o) {
        resources.remove(kind, h);
        byHandle.remove(h, o);
    }

    @Override
    public long contextHandle() {
        return handle;
    }

    @Override
    public long allocate(long bytes) {
        return resources.allocate(bytes);
    }

    @Override
    public void free(long address) {
        resources.free(address);
    }

    @Override
    public NativeQueueFactory queueFactory() {
        return queueFactory;
    }

    AbstractVerbsObject lookup(long h) {
        return byHandle.get(h);
    }

    @Override
    public CompletionQueue completionQueueAt(long cq) {
        return byHandle.get(cq) instanceof CompletionQueue q ? q : null;
    }

    long handle() {
        checkOpen();
        return handle;
    }

    /** The function at {@code ibv_context.ops + offset}. */
    long op(long opsOffset) {
        return InlineVerbs.fn(handle(), opsOffset);
    }

    @Override
    public long contextOp(long opsOffset) {
        return op(opsOffset);
    }

    @Override
    public long verbsContextOp(long offset) {
        return InlineVerbs.verbsContextOp(handle(), offset);
    }

    @Override
    public Device device() {
        checkOpen();
        return device;
    }

    @Override
    public DeviceAttributes queryDevice() {
        long a = NativeMemory.allocate(ibv_device_attr.SIZEOF);
        try {
            int rc = libs.ibverbs().ibv_query_device(handle(), a);
            if (rc != 0) {
                throw new VerbsException("ibv_query_device", JnrProvider.errnoOf(rc), null);
            }
            byte[] fw = new byte[64];
            NativeMemory.getBytes(a + ibv_device_attr.fw_ver$off, fw, 0, 64);
            int len = 0;
            while (len < 64 && fw[len] != 0) {
                len++;
            }
            DeviceAttributes d = new DeviceAttributes(new String(fw, 0, len, StandardCharsets.US_ASCII),
                    Long.reverseBytes(NativeMemory.getLong(a + ibv_device_attr.node_guid$off)),
                    Long.reverseBytes(NativeMemory.getLong(a + ibv_device_attr.sys_image_guid$off)),
                    unsignedToLong(NativeMemory.getLong(a + ibv_device_attr.max_mr_size$off)),
                    NativeMemory.getLong(a + ibv_device_attr.page_size_cap$off),
                    i(a, ibv_device_attr.vendor_id$off), i(a, ibv_device_attr.vendor_part_id$off),
                    i(a, ibv_device_attr.hw_ver$off), i(a, ibv_device_attr.max_qp$off),
                    i(a, ibv_device_attr.max_qp_wr$off), i(a, ibv_device_attr.device_cap_flags$off),
                    i(a, ibv_device_attr.max_sge$off), i(a, ibv_device_attr.max_sge_rd$off),
                    i(a, ibv_device_attr.max_cq$off), i(a, ibv_device_attr.max_cqe$off),
                    i(a, ibv_device_attr.max_mr$off), i(a, ibv_device_attr.max_pd$off),
                    i(a, ibv_device_attr.max_qp_rd_atom$off), i(a, ibv_device_attr.max_ee_rd_atom$off),
                    i(a, ibv_device_attr.max_res_rd_atom$off), i(a, ibv_device_attr.max_qp_init_rd_atom$off),
                    i(a, ibv_device_attr.max_ee_init_rd_atom$off),
                    AtomicCapability.of(i(a, ibv_device_attr.atomic_cap$off)),
                    i(a, ibv_device_attr.max_ee$off), i(a, ibv_device_attr.max_rdd$off),
                    i(a, ibv_device_attr.max_mw$off), i(a, ibv_device_attr.max_raw_ipv6_qp$off),
                    i(a, ibv_device_attr.max_raw_ethy_qp$off), i(a, ibv_device_attr.max_mcast_grp$off),
                    i(a, ibv_device_attr.max_mcast_qp_attach$off),
                    i(a, ibv_device_attr.max_total_mcast_qp_attach$off), i(a, ibv_device_attr.max_ah$off),
                    i(a, ibv_device_attr.max_fmr$off), i(a, ibv_device_attr.max_map_per_fmr$off),
                    i(a, ibv_device_attr.max_srq$off), i(a, ibv_device_attr.max_srq_wr$off),
                    i(a, ibv_device_attr.max_srq_sge$off),
                    NativeMemory.getU16(a + ibv_device_attr.max_pkeys$off),
                    NativeMemory.getU8(a + ibv_device_attr.local_ca_ack_delay$off),
                    NativeMemory.getU8(a + ibv_device_attr.phys_port_cnt$off));
            deviceAttributes = d;
            return d;
        } finally {
            NativeMemory.free(a);
        }
    }

    /** A {@code uint64_t} limit as a Java long; rxe's "no limit" (2^64 - 1) becomes Long.MAX_VALUE. */
    private static long unsignedToLong(long v) {
        return v < 0 ? Long.MAX_VALUE : v;
    }

    private static int i(long a, long off) {
        return NativeMemory.getInt(a + off);
    }

    DeviceAttributes cachedDeviceAttributes() {
        DeviceAttributes d = deviceAttributes;
        return d != null ? d : queryDevice();
    }

    @Override
    public void checkPort(int portNum) {
        int ports = cachedDeviceAttributes().physPortCnt();
        if (portNum < 1 || portNum > ports) {
            throw new IllegalArgumentException("device " + device.name() + " has ports 1.." + ports + ", not "
                    + portNum);
        }
    }

    @Override
    public PortAttributes queryPort(int portNum) {
        checkOpen();
        checkPort(portNum);
        long a = NativeMemory.allocate(ibv_port_attr.SIZEOF);
        try {
            long fn = InlineVerbs.verbsContextOp(handle(), verbs_context.query_port$off);
            int rc = fn != 0 ? InlineVerbs.queryPort(fn, handle, portNum, a, ibv_port_attr.SIZEOF)
                    : libs.ibverbs().ibv_query_port(handle, portNum, a);
            if (rc != 0) {
                throw new VerbsException("ibv_query_port", JnrProvider.errnoOf(rc), "port " + portNum);
            }
            int state = i(a, ibv_port_attr.state$off);
            return new PortAttributes(state <= 5 ? PortState.of(state) : PortState.NOP,
                    Mtu.of(i(a, ibv_port_attr.max_mtu$off)), Mtu.of(i(a, ibv_port_attr.active_mtu$off)),
                    i(a, ibv_port_attr.gid_tbl_len$off), i(a, ibv_port_attr.port_cap_flags$off),
                    Integer.toUnsignedLong(i(a, ibv_port_attr.max_msg_sz$off)),
                    i(a, ibv_port_attr.bad_pkey_cntr$off), i(a, ibv_port_attr.qkey_viol_cntr$off),
                    NativeMemory.getU16(a + ibv_port_attr.pkey_tbl_len$off),
                    NativeMemory.getU16(a + ibv_port_attr.lid$off), NativeMemory.getU16(a + ibv_port_attr.sm_lid$off),
                    NativeMemory.getU8(a + ibv_port_attr.lmc$off), NativeMemory.getU8(a + ibv_port_attr.max_vl_num$off),
                    NativeMemory.getU8(a + ibv_port_attr.sm_sl$off),
                    NativeMemory.getU8(a + ibv_port_attr.subnet_timeout$off),
                    NativeMemory.getU8(a + ibv_port_attr.init_type_reply$off),
                    NativeMemory.getU8(a + ibv_port_attr.active_width$off),
                    NativeMemory.getU8(a + ibv_port_attr.active_speed$off),
                    NativeMemory.getU8(a + ibv_port_attr.phys_state$off),
                    linkLayer(NativeMemory.getU8(a + ibv_port_attr.link_layer$off)),
                    NativeMemory.getU8(a + ibv_port_attr.flags$off),
                    NativeMemory.getU16(a + ibv_port_attr.port_cap_flags2$off));
        } finally {
            NativeMemory.free(a);
        }
    }

    private static LinkLayer linkLayer(int v) {
        return v <= 2 ? LinkLayer.of(v) : LinkLayer.UNSPECIFIED;
    }

    @Override
    public Gid queryGid(int portNum, int index) {
        checkOpen();
        checkPort(portNum);
        Arguments.gidIndex(portNum, index, queryPort(portNum).gidTblLen());
        long a = NativeMemory.allocate(16);
        try {
            int rc = libs.ibverbs().ibv_query_gid(handle(), portNum, index, a);
            if (rc != 0) {
                throw new VerbsException("ibv_query_gid", JnrProvider.errnoOf(rc), "port " + portNum + " index " + index);
            }
            byte[] raw = new byte[16];
            NativeMemory.getBytes(a, raw, 0, 16);
            return Gid.of(raw);
        } finally {
            NativeMemory.free(a);
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
                    c = CapabilityProbe.probe(new JnrDeviceFacts(this));
                    capabilities = c;
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
        long ch = libs.ibverbs().ibv_create_comp_channel(handle());
        if (ch == 0) {
            throw new VerbsException("ibv_create_comp_channel", libs.lastErrno(), null);
        }
        return new NativeCompletionChannel(this, ch);
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
        return NativeCompletionQueue.create(this, cqe, channel, compVector,
                !"false".equals(System.getProperty(EXTENDED_CQ_PROPERTY)));
    }

    @Override
    public ThreadDomain allocTd() {
        long fn = InlineVerbs.verbsContextOp(handle(), verbs_context.alloc_td$off);
        if (fn == 0) {
            throw new VerbsException("ibv_alloc_td", Errno.EOPNOTSUPP, null);
        }
        long attr = NativeMemory.allocate(ibv_td_init_attr.SIZEOF);
        try {
            long td = InlineVerbs.createPP(fn, handle, attr);
            if (td == 0) {
                int e = InlineVerbs.lastErrno();
                throw new VerbsException("ibv_alloc_td", e != 0 ? e : Errno.EOPNOTSUPP, null);
            }
            return new NativeThreadDomain(this, td);
        } finally {
            NativeMemory.free(attr);
        }
    }

    @Override
    public AsyncEvent pollAsyncEvent(long timeout, TimeUnit unit) {
        checkOpen();
        Arguments.timeout(timeout, unit);
        synchronized (this) {
            checkOpen();
            if (asyncScratch == 0) {
                asyncScratch = resources.allocate(ibv_async_event.SIZEOF + PosixStructs.pollfd.SIZEOF);
            }
            int fd = NativeMemory.getInt(handle + ibv_context.async_fd$off);
            if (!Fds.awaitReadable(libs, asyncScratch + ibv_async_event.SIZEOF, fd, timeout, unit)) {
                return null;
            }
            long ev = asyncScratch;
            if (libs.ibverbs().ibv_get_async_event(handle, ev) != 0) {
                throw new VerbsException("ibv_get_async_event", libs.lastErrno(), null);
            }
            try {
                int type = NativeMemory.getInt(ev + ibv_async_event.event_type$off);
                AsyncEventType t = AsyncEventType.of(type);
                long element = NativeMemory.getAddress(ev + ibv_async_event.element$qp$off);
                return switch (t) {
                    case CQ_ERR -> new AsyncEvent(t, null, (CompletionQueue) lookup(element), null, 0);
                    case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR,
                         QP_LAST_WQE_REACHED -> new AsyncEvent(t, (JnrQueuePair) lookup(element), null, null, 0);
                    case SRQ_ERR, SRQ_LIMIT_REACHED ->
                            new AsyncEvent(t, null, null, (JnrSharedReceiveQueue) lookup(element), 0);
                    case PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE ->
                            new AsyncEvent(t, null, null, null,
                                    NativeMemory.getInt(ev + ibv_async_event.element$port_num$off));
                    case DEVICE_FATAL, WQ_FATAL -> new AsyncEvent(t, null, null, null, 0);
                };
            } finally {
                libs.ibverbs().ibv_ack_async_event(ev);
            }
        }
    }

    /** The base class has closed every object made from this context; the cleaner closes the device. */
    @Override
    protected int destroy() {
        byHandle.clear();
        cleanable.clean();
        return 0;
    }

    @Override
    public String toString() {
        return "jnr context of " + device.name() + (isClosed() ? " (closed)" : "");
    }
}
