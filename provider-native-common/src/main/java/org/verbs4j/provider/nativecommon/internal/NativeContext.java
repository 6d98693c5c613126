package org.verbs4j.provider.nativecommon.internal;

import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.verbs4j.AhAttributes;
import org.verbs4j.AsyncEvent;
import org.verbs4j.AsyncEventType;
import org.verbs4j.Capabilities;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.CqInitAttributes;
import org.verbs4j.Device;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.DeviceAttributesEx;
import org.verbs4j.DeviceMemory;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.GidEntry;
import org.verbs4j.GidType;
import org.verbs4j.PortAttributes;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QueuePair;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.ThreadDomain;
import org.verbs4j.VerbsException;
import org.verbs4j.WorkCompletion;
import org.verbs4j.XrcDomain;
import org.verbs4j.provider.nativecommon.CapabilityProbe;
import org.verbs4j.provider.nativecommon.IbverbsHandle;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_async_event;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_gid_entry;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_td_init_attr;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_values_ex;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.verbs_context;
import org.verbs4j.provider.nativecommon.internal.CqStructs.ibv_wc;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_alloc_dm_attr;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_ah_attr;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.AhFromWc;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.spi.support.CallHold;

/**
 * An open device, {@code struct ibv_context}, of either native provider: the queries, the port check, the
 * capabilities, the creation of every object made from a context, its ops as the inline functions of
 * {@code verbs.h} find them, the table of its objects by address (for completion and async events, and for a
 * {@link Cleaner} that destroys what a context dropped unclosed leaves), and async events. The provider gives it
 * only its {@link IbverbsBinding}, through {@link NativeDevice#open()}.
 *
 * @see "ibv_open_device(3)"
 * @see "ibv_get_async_event(3)"
 */
public final class NativeContext extends AbstractVerbsObject implements NativeContextSupport {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final System.Logger LOG = System.getLogger(NativeContext.class.getName());

    private final Device device;
    private final String providerName;
    private final IbverbsBinding binding;
    private final long context;
    private final BooleanSupplier extendedCq;
    private final NativeContextResources resources;
    private final Cleaner.Cleanable cleanable;
    /** The live objects of this context by native address; the events name CQs, QPs and SRQs by address. */
    private final Map<Long, AbstractVerbsObject> byAddress = new ConcurrentHashMap<>();
    private final Object asyncLock = new Object();
    private long asyncScratch;
    /** {@code device_cap_flags_ex} of {@code ibv_query_device_ex}, 0 without the extended query. */
    private final long deviceCapFlagsEx;
    /** Whether the data-path ops are critical calls ({@link CriticalDataPath}). */
    private final boolean criticalDataPath;
    /** Whether extended CQs are polled in batches with {@code next_poll} ({@link BatchPolling}). */
    private final boolean batchPolling;
    private volatile DeviceAttributes deviceAttributes;
    private volatile Capabilities capabilities;

    /**
     * Takes over an opened {@code struct ibv_context}; if the first device query fails, the device is closed
     * again and the failure thrown.
     *
     * @param device the device it was opened on
     * @param providerName the provider's name, for the capability probe
     * @param binding the provider's binding
     * @param context the {@code struct ibv_context *} {@code ibv_open_device} returned
     * @param extendedCq whether a CQ is created with {@code ibv_create_cq_ex} where the device has it, asked
     *     at each creation
     */
    NativeContext(Device device, String providerName, IbverbsBinding binding, long context,
            BooleanSupplier extendedCq) {
        super("Context", null);
        this.device = device;
        this.providerName = providerName;
        this.binding = binding;
        this.context = context;
        this.extendedCq = extendedCq;
        this.resources = new NativeContextResources(binding, context);
        this.cleanable = CLEANER.register(this, resources);
        try {
            queryDevice();
            this.deviceCapFlagsEx = NativeQueries.deviceCapFlagsEx(this);
            long postSend = contextOp(ibv_context.ops$post_send$off);
            this.criticalDataPath = CriticalDataPath.decide(binding, postSend);
            this.batchPolling = BatchPolling.decide(binding, cachedDeviceAttributes().vendorId(), postSend);
            if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
                LOG.log(System.Logger.Level.DEBUG,
                        "{0}: data-path ops are {1} calls, extended CQs polled {2} (provider library {3})",
                        providerName, criticalDataPath ? "critical" : "ordinary",
                        batchPolling ? "in batches" : "one per start_poll",
                        postSend == 0 ? null : binding.libraryOf(postSend));
            }
        } catch (RuntimeException e) {
            cleanable.clean();
            throw e;
        }
    }

    /** {@return the name of the provider that opened it: {@code "ffm"}, {@code "jnr"}} */
    public String providerName() {
        return providerName;
    }

    /** Offers {@link IbverbsHandle}, the door for vendor extensions, besides this object itself. */
    @Override
    public <T> T unwrap(Class<T> type) {
        checkOpen();
        return type == IbverbsHandle.class ? type.cast(NativeHandles.of(this))
                : NativeContextSupport.super.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        checkOpen();
        return type == IbverbsHandle.class || NativeContextSupport.super.isWrapperFor(type);
    }

    @Override
    public IbverbsBinding binding() {
        return binding;
    }

    @Override
    public long contextHandle() {
        return context;
    }

    @Override
    public long contextOp(long opsOffset) {
        return binding.getLong(context + opsOffset);
    }

    @Override
    public long verbsContextOp(long offset) {
        return NativeContextResources.verbsContextOp(binding, context, offset);
    }

    /** Records an object made from this context by its native address, for the events that name it. */
    @Override
    public void track(NativeKind kind, long address, AbstractVerbsObject object) {
        resources.add(kind, address);
        byAddress.put(address, object);
    }

    @Override
    public void untrack(NativeKind kind, long address, AbstractVerbsObject object) {
        resources.remove(kind, address);
        byAddress.remove(address, object);
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
    public CompletionQueue completionQueueAt(long cq) {
        return byAddress.get(cq) instanceof CompletionQueue q ? q : null;
    }

    @Override
    public boolean criticalDataPath() {
        return criticalDataPath;
    }

    @Override
    public boolean batchPolling() {
        return batchPolling;
    }

    @Override
    public long deviceCapFlagsEx() {
        return deviceCapFlagsEx;
    }

    @Override
    public boolean ipCsum() {
        return (cachedDeviceAttributes().deviceCapFlags()
                & (DeviceAttributes.CAP_UD_IP_CSUM | DeviceAttributes.CAP_RAW_IP_CSUM)) != 0;
    }

    @Override
    public Device device() {
        checkOpen();
        return device;
    }

    @Override
    public DeviceAttributes queryDevice() {
        checkOpen();
        try (CallHold hold = CallHold.on(this)) {
            DeviceAttributes d = NativeQueries.queryDevice(this);
            deviceAttributes = d;
            return d;
        }
    }

    @Override
    public void multicastChanged(long qp, Gid gid, int lid, boolean attached) {
        resources.multicast(qp, gid, lid, attached);
    }

    @Override
    public DeviceAttributesEx queryDeviceEx() {
        checkOpen();
        try (CallHold hold = CallHold.on(this)) {
            DeviceAttributesEx d = NativeQueries.queryDeviceEx(this);
            deviceAttributes = d.origAttr();
            return d;
        }
    }

    /** {@return the attributes of the last {@link #queryDevice}, queried now if there was none} */
    public DeviceAttributes cachedDeviceAttributes() {
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
        try (CallHold hold = CallHold.on(this)) {
            return NativeQueries.queryPort(this, portNum);
        }
    }

    @Override
    public Gid queryGid(int portNum, int index) {
        checkOpen();
        checkPort(portNum);
        Arguments.gidIndex(portNum, index, queryPort(portNum).gidTblLen());
        try (CallHold hold = CallHold.on(this)) {
            return NativeQueries.queryGid(this, portNum, index);
        }
    }

    /**
     * Through libibverbs' own {@code ibv_init_ah_from_wc}, which matches the GID's type too: the completion's fields
     * it reads (wc_flags, slid, sl, dlid_path_bits, besides the others a completion has) and a copy of the GRH area
     * go into native memory, so {@code grh} may be a heap segment and is read once, after its size is checked.
     */
    @Override
    public AhAttributes initAhAttributes(int portNum, WorkCompletion wc, MemorySegment grh) {
        checkOpen();
        byte[] area = AhFromWc.grhBytes(wc, grh);
        checkPort(portNum);
        long mem = binding.allocate(ibv_wc.SIZEOF + AhFromWc.GRH_BYTES + ibv_ah_attr.SIZEOF);
        long w = mem;
        long g = mem + ibv_wc.SIZEOF;
        long attr = g + AhFromWc.GRH_BYTES;
        try (CallHold hold = CallHold.on(this)) {
            binding.putInt(w + ibv_wc.status$off, wc.status().value());
            binding.putInt(w + ibv_wc.byte_len$off, wc.byteLen());
            binding.putInt(w + ibv_wc.qp_num$off, wc.qpNum());
            binding.putInt(w + ibv_wc.src_qp$off, wc.srcQp());
            binding.putInt(w + ibv_wc.wc_flags$off, wc.wcFlags());
            binding.putShort(w + ibv_wc.pkey_index$off, (short) wc.pkeyIndex());
            binding.putShort(w + ibv_wc.slid$off, (short) wc.slid());
            binding.putByte(w + ibv_wc.sl$off, (byte) wc.sl());
            binding.putByte(w + ibv_wc.dlid_path_bits$off, (byte) wc.dlidPathBits());
            binding.putBytes(g, area);
            NativeErrors.check(binding.initAhFromWc(context, portNum, w, g, attr), "ibv_init_ah_from_wc",
                    "port " + portNum);
            return NativeQpAttrs.readAhAttr(binding, attr);
        } finally {
            binding.free(mem);
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
                    c = CapabilityProbe.probe(new NativeDeviceFacts(this, providerName));
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
    public AbstractVerbsObject siblingCq(Object cq, String what) {
        return sibling(cq, NativeCompletionQueue.class, what);
    }

    @Override
    public long cqHandle(AbstractVerbsObject cq) {
        return ((NativeCompletionQueue) cq).handle();
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
        return NativeCompletionQueue.create(this, cqe, channel, compVector, extendedCq.getAsBoolean());
    }

    @Override
    public CompletionQueue createCq(CqInitAttributes attributes) {
        return NativeCompletionQueue.create(this, attributes, extendedCq.getAsBoolean());
    }

    /** Through {@code verbs_context.query_rt_values}, as the inline {@code ibv_query_rt_values_ex} calls it. */
    @Override
    public long queryRawClock() {
        checkOpen();
        try (CallHold hold = CallHold.on(this); TempMemory temp = new TempMemory(binding)) {
            long values = temp.allocate(ibv_values_ex.SIZEOF);
            binding.putInt(values + ibv_values_ex.comp_mask$off, ibv_values_ex.IBV_VALUES_MASK_RAW_CLOCK);
            NativeErrors.check(binding.libibverbsOps().query_rt_values(op("query_rt_values"),
                    contextHandle(), values), "ibv_query_rt_values_ex", null);
            return binding.getLong(values + ibv_values_ex.raw_clock$tv_sec$off) * 1_000_000_000L
                    + binding.getLong(values + ibv_values_ex.raw_clock$tv_nsec$off);
        }
    }

    /**
     * {@link #createCq(int, CompletionChannel, int)}, extended only if {@code tryExtended}; tests compare both.
     *
     * @param cqe the minimum number of entries
     * @param channel the completion channel, or null
     * @param compVector the completion vector
     * @param tryExtended whether {@code ibv_create_cq_ex} is tried
     * @return the CQ
     */
    public NativeCompletionQueue createCq(int cqe, CompletionChannel channel, int compVector, boolean tryExtended) {
        return NativeCompletionQueue.create(this, cqe, channel, compVector, tryExtended);
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        checkOpen();
        try (CallHold hold = CallHold.on(this)) {
            long ch = binding.createCompChannel(context);
            NativeErrors.check(ch, "ibv_create_comp_channel", null);
            return new NativeCompletionChannel(this, ch);
        }
    }

    @Override
    public ThreadDomain allocTd() {
        checkOpen();
        long fn = op("alloc_td");
        if (fn == 0) {
            throw new VerbsException("ibv_alloc_td", Errno.EOPNOTSUPP, "the device has no thread domains");
        }
        long attr = binding.allocate(ibv_td_init_attr.SIZEOF);
        try (CallHold hold = CallHold.on(this)) {
            long td = binding.libibverbsOps().alloc_td(fn, context, attr);
            NativeErrors.check(td, "ibv_alloc_td", null);
            return new NativeThreadDomain(this, td);
        } finally {
            binding.free(attr);
        }
    }

    /** Through {@code verbs_context.alloc_dm}, as the inline {@code ibv_alloc_dm} calls it; 0 is EOPNOTSUPP. */
    @Override
    public DeviceMemory allocDm(long length, int logAlignReq) {
        checkOpen();
        Arguments.allocDm(length, logAlignReq);
        try (CallHold hold = CallHold.on(this); TempMemory temp = new TempMemory(binding)) {
            long attr = temp.allocate(ibv_alloc_dm_attr.SIZEOF);
            binding.putLong(attr + ibv_alloc_dm_attr.DESC.offset("length"), length);
            binding.putInt(attr + ibv_alloc_dm_attr.DESC.offset("log_align_req"), logAlignReq);
            long dm = binding.libibverbsOps().alloc_dm(op("alloc_dm"), context, attr);
            NativeErrors.check(dm, "ibv_alloc_dm", length + " bytes, alignment 2^" + logAlignReq);
            return new NativeDeviceMemory(this, dm, length);
        }
    }

    /** Through {@code verbs_context.open_xrcd}, as the inline {@code ibv_open_xrcd} calls it; 0 is EOPNOTSUPP. */
    @Override
    public XrcDomain openXrcd(int fd, int oflags) {
        return NativeXrcDomain.open(this, fd, oflags);
    }

    @Override
    public AsyncEvent pollAsyncEvent(long timeout, TimeUnit unit) {
        checkOpen();
        Arguments.timeout(timeout, unit);
        synchronized (asyncLock) {
            checkOpen();
            if (asyncScratch == 0) {
                asyncScratch = resources.allocate(ibv_async_event.SIZEOF);
            }
            int fd = binding.getInt(context + ibv_context.async_fd$off);
            if (!binding.awaitReadable(fd, timeout, unit, "ibv_get_async_event")) {
                return null;
            }
            long ev = asyncScratch;
            NativeErrors.check(binding.getAsyncEvent(context, ev), "ibv_get_async_event", null);
            try {
                return asyncEvent(ev);
            } finally {
                binding.ackAsyncEvent(ev);
            }
        }
    }

    /** The event in {@code ev}, with the object it names as this context's live object at that address. */
    private AsyncEvent asyncEvent(long ev) {
        AsyncEventType t = AsyncEventType.of(binding.getInt(ev + ibv_async_event.event_type$off));
        long element = binding.getLong(ev + ibv_async_event.element$qp$off);
        return switch (t) {
            case CQ_ERR -> new AsyncEvent(t, null, (CompletionQueue) byAddress.get(element), null, 0);
            case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR,
                 QP_LAST_WQE_REACHED -> new AsyncEvent(t, (QueuePair) byAddress.get(element), null, null, 0);
            case SRQ_ERR, SRQ_LIMIT_REACHED ->
                    new AsyncEvent(t, null, null, (SharedReceiveQueue) byAddress.get(element), 0);
            case PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE ->
                    new AsyncEvent(t, null, null, null, binding.getInt(ev + ibv_async_event.element$port_num$off));
            case DEVICE_FATAL, WQ_FATAL -> new AsyncEvent(t, null, null, null, 0);
        };
    }

    /** Every object made from this context is closed by now (children first); what is left is the device. */
    @Override
    protected int destroy() {
        byAddress.clear();
        cleanable.clean();
        return 0;
    }

    @Override
    public int queryPkey(int portNum, int index) {
        checkOpen();
        checkPort(portNum);
        Arguments.pkeyIndex(portNum, index, queryPort(portNum).pkeyTblLen());
        try (CallHold hold = CallHold.on(this)) {
            long a = binding.allocate(2);
            try {
                NativeErrors.check(binding.queryPkey(contextHandle(), portNum, index, a), "ibv_query_pkey",
                        "port " + portNum + " index " + index);
                return (binding.getByte(a) & 0xff) << 8 | (binding.getByte(a + 1) & 0xff); // __be16
            } finally {
                binding.free(a);
            }
        }
    }

    @Override
    public int pkeyIndex(int portNum, int pkey) {
        checkOpen();
        checkPort(portNum);
        Arguments.pkey(pkey);
        try (CallHold hold = CallHold.on(this)) {
            return NativeErrors.check(binding.getPkeyIndex(contextHandle(), portNum, pkey), "ibv_get_pkey_index",
                    "port " + portNum + " P_Key 0x" + Integer.toHexString(pkey));
        }
    }

    @Override
    public GidEntry queryGidEntry(int portNum, int index) {
        checkOpen();
        checkPort(portNum);
        Arguments.gidIndex(portNum, index, queryPort(portNum).gidTblLen());
        try (CallHold hold = CallHold.on(this)) {
            long a = binding.allocate(ibv_gid_entry.SIZEOF);
            try {
                NativeErrors.check(binding.queryGidEx(contextHandle(), portNum, index, a), "ibv_query_gid_ex",
                        "port " + portNum + " index " + index);
                return gidEntry(a);
            } finally {
                binding.free(a);
            }
        }
    }

    @Override
    public List<GidEntry> queryGidTable(int maxEntries) {
        checkOpen();
        Arguments.gidTableRoom(maxEntries);
        long room = 0;
        for (int port = 1; port <= cachedDeviceAttributes().physPortCnt(); port++) {
            room += queryPort(port).gidTblLen();
        }
        // more room than every entry of every table changes no answer, and bounds the allocation
        long max = Math.min(maxEntries, room);
        try (CallHold hold = CallHold.on(this)) {
            long a = binding.allocate(Math.max(1, max) * ibv_gid_entry.SIZEOF);
            try {
                long n = binding.queryGidTable(contextHandle(), a, max);
                if (n < 0) {
                    throw NativeErrors.exception(n, "ibv_query_gid_table", "max_entries " + maxEntries);
                }
                List<GidEntry> entries = new ArrayList<>((int) n);
                for (long i = 0; i < n; i++) {
                    entries.add(gidEntry(a + i * ibv_gid_entry.SIZEOF));
                }
                return List.copyOf(entries);
            } finally {
                binding.free(a);
            }
        }
    }

    private GidEntry gidEntry(long a) {
        byte[] raw = new byte[16];
        binding.getBytes(a + ibv_gid_entry.gid$off, raw);
        int type = binding.getInt(a + ibv_gid_entry.gid_type$off);
        return new GidEntry(Gid.of(raw), binding.getInt(a + ibv_gid_entry.gid_index$off),
                binding.getInt(a + ibv_gid_entry.port_num$off),
                type >= 0 && type <= GidType.ROCE_V2.value() ? GidType.of(type) : GidType.IB,
                binding.getInt(a + ibv_gid_entry.ndev_ifindex$off));
    }

    @Override
    public String toString() {
        return providerName + " context of " + device.name() + (isClosed() ? " (closed)" : "");
    }
}
