package org.verbs4j.provider.emulated.verbs;

import java.util.ArrayList;
import java.util.List;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.verbs4j.AhAttributes;
import org.verbs4j.AsyncEvent;
import org.verbs4j.Capabilities;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.DeviceMemory;
import org.verbs4j.CqInitAttributes;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.DeviceAttributesEx;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.GidEntry;
import org.verbs4j.GidType;
import org.verbs4j.PortAttributes;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.ThreadDomain;
import org.verbs4j.VerbsException;
import org.verbs4j.WorkCompletion;
import org.verbs4j.XrcDomain;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.AhFromWc;
import org.verbs4j.spi.support.Arguments;

/**
 * An open emulated device. It records every object created from it, so that {@link #close()} can release
 * them all, and queues the asynchronous events of its objects.
 */
public final class EmulatedContext extends AbstractVerbsObject implements Context {
    final EmulatedDevice device;
    /** Guards object creation and destruction in this context. */
    final Object lock;
    private final LinkedBlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>();
    /** Whether the connection manager owns it: ids share it, so the application may not close it. */
    private final boolean cmOwned;

    public EmulatedContext(EmulatedDevice device) {
        this(device, false);
    }

    public EmulatedContext(EmulatedDevice device, boolean cmOwned) {
        this(device, cmOwned, new Object());
    }

    private EmulatedContext(EmulatedDevice device, boolean cmOwned, Object lock) {
        super("Context", null, lock);
        this.lock = lock;
        this.device = device;
        this.cmOwned = cmOwned;
    }

    void postEvent(AsyncEvent event) {
        if (!isClosed()) {
            events.add(event);
        }
    }

    @Override
    public Device device() {
        checkOpen();
        return device;
    }

    @Override
    public DeviceAttributes queryDevice() {
        checkOpen();
        return device.attributes();
    }

    @Override
    public XrcDomain openXrcd(int fd, int oflags) {
        checkOpen();
        Arguments.openXrcd(fd, oflags);
        if (!device.capabilities().xrc()) {
            throw new VerbsException("ibv_open_xrcd", Errno.EOPNOTSUPP, "the device has no XRC");
        }
        synchronized (lock) {
            checkOpen();
            return new EmulatedXrcDomain(this, XrcShared.open(device.xrcdsByInode, fd, oflags));
        }
    }

    @Override
    public long queryRawClock() {
        checkOpen();
        return EmulatedDevice.rawClock();
    }

    @Override
    public DeviceAttributesEx queryDeviceEx() {
        checkOpen();
        return device.attributesEx();
    }

    @Override
    public PortAttributes queryPort(int portNum) {
        checkOpen();
        checkPort(portNum);
        return device.port();
    }

    static void checkPort(int portNum) {
        if (portNum != 1) {
            throw new IllegalArgumentException("an emulated device has one port, port 1, not port " + portNum);
        }
    }

    @Override
    public Gid queryGid(int portNum, int index) {
        checkOpen();
        checkPort(portNum);
        Arguments.gidIndex(portNum, index, EmulatedDevice.GID_TABLE_LENGTH);
        return device.gid(index);
    }

    @Override
    public AhAttributes initAhAttributes(int portNum, WorkCompletion wc, MemorySegment grh) {
        checkOpen();
        AhFromWc.check(wc, grh);
        checkPort(portNum);
        return AhFromWc.attributes(this, portNum, wc, grh);
    }

    @Override
    public Capabilities capabilities() {
        checkOpen();
        return device.capabilities();
    }

    @Override
    public ProtectionDomain allocPd() {
        checkOpen();
        return new EmulatedProtectionDomain(this);
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        checkOpen();
        return new EmulatedCompletionChannel(this);
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
        return createCq(new CqInitAttributes(cqe, channel, compVector, CqInitAttributes.STANDARD_FLAGS));
    }

    /** The device stamps completions of either kind ({@code completion_timestamp_mask} is all 64 bits). */
    @Override
    public CompletionQueue createCq(CqInitAttributes attributes) {
        checkOpen();
        int cqe = attributes.cqe();
        CompletionChannel channel = attributes.channel();
        int compVector = attributes.compVector();
        if (cqe < 1) {
            throw new IllegalArgumentException("a CQ needs at least 1 entry, not " + cqe);
        }
        EmulatedCompletionChannel ch = null;
        if (channel != null) {
            if (!(channel instanceof EmulatedCompletionChannel c) || c.context != this) {
                throw new IllegalArgumentException("the completion channel belongs to another context");
            }
            c.checkOpen();
            ch = c;
        }
        if (compVector != 0) {
            throw new IllegalArgumentException("an emulated device has one completion vector, 0, not " + compVector);
        }
        if (cqe > EmulatedDevice.MAX_CQE) {
            throw new VerbsException("ibv_create_cq", Errno.EINVAL,
                    "cqe " + cqe + " exceeds max_cqe " + EmulatedDevice.MAX_CQE);
        }
        return new EmulatedCompletionQueue(this, cqe, ch, attributes.wcFlags());
    }

    @Override
    public ThreadDomain allocTd() {
        checkOpen();
        return new EmulatedThreadDomain(this);
    }

    @Override
    public DeviceMemory allocDm(long length, int logAlignReq) {
        checkOpen();
        Arguments.allocDm(length, logAlignReq);
        synchronized (lock) {
            checkOpen();
            // Words of a long[]: any alignment the device can promise (8 bytes) holds for every offset's word.
            return EmulatedDeviceMemory.alloc(this, length);
        }
    }

    @Override
    public AsyncEvent pollAsyncEvent(long timeout, TimeUnit unit) {
        checkOpen();
        Arguments.timeout(timeout, unit);
        return poll(events, timeout, unit);
    }

    /** The one P_Key of an emulated port (its table has one entry, as rxe's has): the default, full member. */
    private static final int DEFAULT_PKEY = 0xffff;

    @Override
    public int queryPkey(int portNum, int index) {
        checkOpen();
        checkPort(portNum);
        Arguments.pkeyIndex(portNum, index, device.port().pkeyTblLen());
        return DEFAULT_PKEY;
    }

    @Override
    public int pkeyIndex(int portNum, int pkey) {
        checkOpen();
        checkPort(portNum);
        Arguments.pkey(pkey);
        if (pkey != DEFAULT_PKEY) {
            throw new VerbsException("ibv_get_pkey_index", Errno.ENOENT,
                    "port 1's P_Key table holds only 0xffff, not 0x" + Integer.toHexString(pkey));
        }
        return 0;
    }

    /**
     * Every entry of an emulated GID table is RoCE v2, on the in-JVM devices as on the wire devices: the engine
     * speaks only RoCE v2 (BTH in UDP to port 4791, on the wire or between the in-JVM devices), so neither has an
     * IB or RoCE v1 entry. No entry has a network device the kernel knows: {@code ndev_ifindex} is 0.
     */
    @Override
    public GidEntry queryGidEntry(int portNum, int index) {
        checkOpen();
        checkPort(portNum);
        Arguments.gidIndex(portNum, index, EmulatedDevice.GID_TABLE_LENGTH);
        Gid gid = device.gid(index);
        if (gid.isZero()) {
            throw new VerbsException("ibv_query_gid_ex", Errno.ENODATA, "GID index " + index + " is empty");
        }
        return new GidEntry(gid, index, portNum, GidType.ROCE_V2, 0);
    }

    @Override
    public List<GidEntry> queryGidTable(int maxEntries) {
        checkOpen();
        Arguments.gidTableRoom(maxEntries);
        List<GidEntry> entries = new ArrayList<>();
        for (int i = 0; i < EmulatedDevice.GID_TABLE_LENGTH; i++) {
            if (!device.gid(i).isZero()) {
                entries.add(queryGidEntry(1, i));
            }
        }
        if (entries.size() > maxEntries) {
            throw new VerbsException("ibv_query_gid_table", Errno.EINVAL, "the device has " + entries.size()
                    + " valid GID entries, more than max_entries " + maxEntries);
        }
        return List.copyOf(entries);
    }

    /**
     * The head of {@code queue}, waiting up to the timeout (0: not at all); null if none came or this thread was
     * interrupted, whose interrupt status is then set again.
     */
    static <T> T poll(BlockingQueue<T> queue, long timeout, TimeUnit unit) {
        try {
            return timeout == 0 ? queue.poll() : queue.poll(timeout, unit);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The connection manager's context is shared by its ids (rdma_cm's id-&gt;verbs): it refuses to close. */
    @Override
    protected void beforeClose() {
        if (cmOwned) {
            throw new IllegalStateException("the context of " + device.name() + " belongs to the connection manager"
                    + " and is shared by its ids (rdma_cm's id->verbs): close the objects made from it, not the context");
        }
    }

    /** The base class has closed every object made from this context; what is left is its event queue. */
    @Override
    protected int destroy() {
        events.clear();
        return 0;
    }

    @Override
    public String toString() {
        return "EmulatedContext[" + device.name() + (isClosed() ? ", closed]" : "]");
    }
}
