package org.verbs4j.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.verbs4j.AsyncEvent;
import org.verbs4j.AsyncEventType;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.Errno;
import org.verbs4j.QueuePair;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.ThreadDomain;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.ffm.internal.FfmIbverbsBinding;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.InlineOps;
import org.verbs4j.provider.ffm.internal.Poller;
import org.verbs4j.provider.ffm.internal.Structs;
import org.verbs4j.provider.ffm.internal.Structs.ibv_async_event;
import org.verbs4j.provider.ffm.internal.Structs.ibv_context;
import org.verbs4j.provider.ffm.internal.Structs.verbs_context;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.provider.nativecommon.internal.ContextStructs;
import org.verbs4j.provider.nativecommon.internal.IbverbsBinding;
import org.verbs4j.provider.nativecommon.internal.NativeCompletionChannel;
import org.verbs4j.provider.nativecommon.internal.NativeCompletionQueue;
import org.verbs4j.provider.nativecommon.internal.NativeContext;
import org.verbs4j.provider.nativecommon.internal.NativeKind;
import org.verbs4j.provider.nativecommon.internal.NativeQueries;
import org.verbs4j.provider.nativecommon.internal.NativeThreadDomain;

/**
 * An open device, {@code struct ibv_context}, with the function pointers of its {@code ops} and of the
 * {@code verbs_context} in front of it. It tracks every object created from it, destroys them when it
 * closes, and maps native addresses back to objects for completion and async events.
 */
final class FfmContext extends NativeContext {
    static final Cleaner CLEANER = Cleaner.create();
    private static final System.Logger LOG = System.getLogger(FfmContext.class.getName());
    /** Whether CQs are created extended where the device allows it; see {@link FfmProvider#EXTENDED_CQ_PROPERTY}. */
    private static final boolean EXTENDED_CQ =
            !"false".equalsIgnoreCase(System.getProperty(FfmProvider.EXTENDED_CQ_PROPERTY, "true"));

    private final FfmDevice device;
    final MemorySegment context;
    private final MemorySegment verbsContext;
    final int rdmaCoreVersion;
    /** Whether the device offloads IP checksums ({@code IBV_DEVICE_UD_IP_CSUM} or {@code RAW_IP_CSUM}). */
    final boolean ipCsum;
    /** {@code device_cap_flags_ex} of {@code ibv_query_device_ex}, 0 without the extended query. */
    final long deviceCapFlagsEx;

    final Map<Long, NativeCompletionQueue> cqs = new ConcurrentHashMap<>();
    final Map<Long, QueuePair> qps = new ConcurrentHashMap<>();
    final Map<Long, SharedReceiveQueue> srqs = new ConcurrentHashMap<>();
    private final Cleaner.Cleanable cleanable;
    private final Object asyncLock = new Object();

    FfmContext(FfmDevice device, MemorySegment ctx, int rdmaCoreVersion) {
        super(device, "ffm");
        this.device = device;
        this.context = ctx.reinterpret(ibv_context.LAYOUT.byteSize());
        this.rdmaCoreVersion = rdmaCoreVersion;
        boolean extended = context.get(JAVA_LONG, ContextStructs.ibv_context.abi_compat$off) == -1L;
        this.verbsContext = extended
                ? MemorySegment.ofAddress(context.address() - ContextStructs.verbs_context.context$off)
                        .reinterpret(verbs_context.LAYOUT.byteSize())
                : null;
        long address = context.address();
        this.cleanable = CLEANER.register(this, () -> Ibverbs.ibv_close_device(MemorySegment.ofAddress(address)));
        DeviceAttributes attrs;
        try {
            attrs = queryDevice();
        } catch (RuntimeException e) {
            cleanable.clean();
            throw e;
        }
        this.deviceCapFlagsEx = NativeQueries.deviceCapFlagsEx(this);
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
     * ffm keeps no table of these objects by kind, its {@link #CLEANER} closes only the device; it maps CQs,
     * QPs and SRQs by address for completion and async events.
     */
    @Override
    public void track(NativeKind kind, long address, AbstractVerbsObject object) {
        switch (kind) {
            case CQ -> cqs.put(address, (NativeCompletionQueue) object);
            case QP -> qps.put(address, (QueuePair) object);
            case SRQ -> srqs.put(address, (SharedReceiveQueue) object);
            default -> { }
        }
    }

    @Override
    public void untrack(NativeKind kind, long address, AbstractVerbsObject object) {
        switch (kind) {
            case CQ -> cqs.remove(address, object);
            case QP -> qps.remove(address, object);
            case SRQ -> srqs.remove(address, object);
            default -> { }
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
    public CompletionQueue completionQueueAt(long cq) {
        return cqs.get(cq);
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
    public int rdmaCoreVersion() {
        return rdmaCoreVersion;
    }

    @Override
    public long deviceCapFlagsEx() {
        return deviceCapFlagsEx;
    }

    @Override
    public boolean ipCsum() {
        return ipCsum;
    }

    @Override
    protected boolean extendedCq() {
        return EXTENDED_CQ;
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
