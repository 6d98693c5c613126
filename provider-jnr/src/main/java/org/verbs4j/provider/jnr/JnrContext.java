package org.verbs4j.provider.jnr;

import java.lang.ref.Cleaner;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.verbs4j.AsyncEvent;
import org.verbs4j.AsyncEventType;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.Errno;
import org.verbs4j.ThreadDomain;
import org.verbs4j.QueuePair;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.provider.jnr.internal.InlineVerbs;
import org.verbs4j.provider.jnr.internal.NativeLibraries;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.verbs_context;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_async_event;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_td_init_attr;
import org.verbs4j.provider.nativecommon.internal.PosixStructs;
import org.verbs4j.provider.nativecommon.internal.NativeContext;
import org.verbs4j.provider.nativecommon.internal.NativeKind;
import org.verbs4j.provider.nativecommon.internal.NativeQueries;
import org.verbs4j.provider.nativecommon.internal.NativeThreadDomain;
import org.verbs4j.provider.nativecommon.internal.NativeCompletionChannel;
import org.verbs4j.provider.nativecommon.internal.IbverbsBinding;
import org.verbs4j.provider.jnr.internal.Fds;
import org.verbs4j.provider.jnr.internal.JnrIbverbsBinding;

/**
 * An open device, {@code struct ibv_context}. It owns every object created from it through
 * {@link ContextResources}; closing it, or its becoming unreachable without a close, releases them all.
 *
 * @see "ibv_open_device(3)"
 */
final class JnrContext extends NativeContext {
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
    private long asyncScratch;
    /** {@code device_cap_flags_ex} of {@code ibv_query_device_ex}, 0 without the extended query. */
    final long deviceCapFlagsEx;

    JnrContext(NativeLibraries libs, JnrDevice device, long handle) {
        super(device, "jnr");
        this.libs = libs;
        this.binding = new JnrIbverbsBinding(libs);
        this.device = device;
        this.handle = handle;
        this.resources = new ContextResources(libs, handle);
        this.cleanable = CLEANER.register(this, resources);
        this.deviceCapFlagsEx = NativeQueries.deviceCapFlagsEx(this);
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
    public int rdmaCoreVersion() {
        return libs.rdmaCoreMajor();
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
    protected boolean extendedCq() {
        return !"false".equals(System.getProperty(EXTENDED_CQ_PROPERTY));
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
                         QP_LAST_WQE_REACHED -> new AsyncEvent(t, (QueuePair) lookup(element), null, null, 0);
                    case SRQ_ERR, SRQ_LIMIT_REACHED ->
                            new AsyncEvent(t, null, null, (SharedReceiveQueue) lookup(element), 0);
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
