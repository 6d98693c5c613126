package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.AsyncEvent;
import org.verbs4j.Capabilities;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Device;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.PortAttributes;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QueuePair;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.ThreadDomain;
import org.verbs4j.VerbsException;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_comp_channel;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_mr;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_mw;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.RegionTable;

/**
 * The shared native objects over a recording {@link IbverbsBinding} whose "native memory" is a map: what each
 * reads and writes at which offset, which verb its close calls with which address, what a failed verb leaves,
 * and that nothing touches the binding once an object is closed.
 */
class NativeObjectModelTest {
    private static final long MR = 0x1000;
    private static final long MW = 0x2000;
    private static final long AH = 0x3000;
    private static final long TD = 0x4000;
    private static final long CHANNEL = 0x5000;
    private static final long DEALLOC_MW = 0xd1;
    private static final long DEALLOC_TD = 0xd2;
    static final long CONTEXT_HANDLE = 0xc0;

    private final Binding binding = new Binding();
    private final FakeContext context = new FakeContext(binding);
    private final FakePd pd = new FakePd(context);
    private final Arena arena = Arena.ofConfined();

    @AfterEach
    void closeArena() {
        arena.close();
    }

    private NativeMemoryRegion region(long mr, int lkey, int rkey) {
        binding.memory.put(mr + ibv_mr.lkey$off, lkey);
        binding.memory.put(mr + ibv_mr.rkey$off, rkey);
        return new NativeMemoryRegion(context, pd, pd.regions, mr, arena.allocate(64), AccessFlags.LOCAL_WRITE);
    }

    @Test
    @DisplayName("a region reads its keys at ibv_mr's offsets once, deregisters its own address, and is then forgotten")
    void regionKeysAndDeregistration() {
        NativeMemoryRegion r = region(MR, 0x11, 0x22);
        binding.memory.put(MR + ibv_mr.lkey$off, 0x99);
        assertEquals(0x11, r.lkey(), "read at registration, not later");
        assertEquals(0x22, r.rkey());
        assertEquals(MR, r.handle());
        assertSame(context, r.nativeContext());
        assertEquals(NativeKind.MR, context.tracked.get(MR));
        r.close();
        assertEquals(List.of("deregMr " + MR), binding.calls);
        assertNull(context.tracked.get(MR));
        assertThrows(IllegalStateException.class, r::lkey);
    }

    @Test
    @DisplayName("a failed ibv_dereg_mr throws its errno and leaves the region open and tracked")
    void failedDeregistration() {
        NativeMemoryRegion r = region(MR, 1, 2);
        binding.failWith = Errno.EBUSY;
        VerbsException e = assertThrows(VerbsException.class, r::close);
        assertEquals(Errno.EBUSY, e.errno());
        assertFalse(r.isClosed());
        assertEquals(NativeKind.MR, context.tracked.get(MR));
        binding.failWith = 0;
        r.close();
        assertTrue(r.isClosed());
    }

    @Test
    @DisplayName("a posted bind writes ibv_mw.rkey and holds the region; a closed window writes nothing")
    void windowBoundByWr() {
        NativeMemoryRegion r = region(MR, 1, 2);
        binding.memory.put(MW + ibv_mw.rkey$off, 0x500);
        NativeMemoryWindow w = new NativeMemoryWindow(context, pd, MW, MwType.TYPE_2);
        assertEquals(0x500, w.rkey());
        w.boundByWr(0x501, new MwBindInfo(r, 0, 64, AccessFlags.REMOTE_WRITE));
        assertEquals(0x501, binding.memory.get(MW + ibv_mw.rkey$off));
        assertEquals(0x501, w.rkey());
        VerbsException busy = assertThrows(VerbsException.class, r::close);
        assertEquals(Errno.EBUSY, busy.errno(), "the region is bound");
        w.close();
        assertEquals("callDeallocOp " + DEALLOC_MW + " " + MW, binding.calls.getLast());
        int writes = binding.writes;
        w.boundByWr(0x502, new MwBindInfo(r, 0, 0, 0));
        assertEquals(writes, binding.writes, "no write to a freed ibv_mw");
        assertThrows(IllegalStateException.class, w::rkey);
        r.close();
    }

    @Test
    @DisplayName("a bind of length 0 unbinds: the region closes")
    void windowUnbound() {
        NativeMemoryRegion r = region(MR, 1, 2);
        NativeMemoryWindow w = new NativeMemoryWindow(context, pd, MW, MwType.TYPE_2);
        w.boundByWr(0x601, new MwBindInfo(r, 0, 64, 0));
        w.boundByWr(0x602, new MwBindInfo(r, 0, 0, 0));
        r.close();
        assertTrue(r.isClosed());
        w.close();
    }

    @Test
    @DisplayName("a thread domain without verbs_context.dealloc_td fails its close with EOPNOTSUPP and stays open")
    void threadDomainWithoutDeallocOp() {
        context.deallocTd = 0;
        NativeThreadDomain t = new NativeThreadDomain(context, TD);
        VerbsException e = assertThrows(VerbsException.class, t::close);
        assertEquals(Errno.EOPNOTSUPP, e.errno());
        assertFalse(t.isClosed());
        assertTrue(binding.calls.isEmpty(), "no call through a NULL op");
        context.deallocTd = DEALLOC_TD;
    }

    @Test
    @DisplayName("a thread domain is freed through the op the context had when it was allocated")
    void threadDomainDealloc() {
        NativeThreadDomain t = new NativeThreadDomain(context, TD);
        assertSame(context, t.context());
        t.close();
        assertEquals(List.of("callDeallocOp " + DEALLOC_TD + " " + TD), binding.calls);
        assertNull(context.tracked.get(TD));
    }

    @Test
    @DisplayName("an address handle keeps its PD and attributes, destroys its own address, and refuses getters after")
    void addressHandle() {
        AhAttributes attrs = new AhAttributes(null, 3, 0, 0, 0, 1);
        NativeAddressHandle h = new NativeAddressHandle(context, pd, AH, attrs);
        assertSame(pd, h.pd());
        assertSame(attrs, h.attributes());
        assertEquals(AH, h.handle());
        h.close();
        assertEquals(List.of("destroyAh " + AH), binding.calls);
        assertThrows(IllegalStateException.class, h::pd);
        assertThrows(IllegalStateException.class, h::attributes);
    }

    @Test
    @DisplayName("a completion channel waits on its fd, takes one event and answers the CQ at its address")
    void completionChannel() {
        binding.memory.put(CHANNEL + ibv_comp_channel.fd$off, 42);
        CompletionQueue cq = (CompletionQueue) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {CompletionQueue.class}, (p, m, a) -> null);
        context.cqs.put(0x7000L, cq);
        NativeCompletionChannel ch = new NativeCompletionChannel(context, CHANNEL);
        binding.readable = false;
        assertNull(ch.awaitEvent(0, TimeUnit.MILLISECONDS));
        binding.readable = true;
        binding.eventCq = 0x7000L;
        assertSame(cq, ch.awaitEvent(1, TimeUnit.SECONDS));
        assertEquals(List.of("awaitReadable 42", "awaitReadable 42", "getAndAckCqEvent " + CHANNEL), binding.calls);
        assertThrows(IllegalArgumentException.class, () -> ch.awaitEvent(-1, TimeUnit.SECONDS));
        ch.close();
        assertEquals("destroyCompChannel " + CHANNEL, binding.calls.getLast());
        int calls = binding.calls.size();
        assertThrows(IllegalStateException.class, () -> ch.awaitEvent(0, TimeUnit.SECONDS));
        assertEquals(calls, binding.calls.size(), "no poll on a destroyed channel's fd");
    }

    @Test
    @DisplayName("the context closes what it owns through the binding, windows before the regions they hold")
    void contextClosesChildren() {
        NativeMemoryRegion r = region(MR, 1, 2);
        NativeMemoryWindow w = new NativeMemoryWindow(context, pd, MW, MwType.TYPE_2);
        w.boundByWr(0x701, new MwBindInfo(r, 0, 64, 0));
        context.close();
        assertTrue(r.isClosed());
        assertTrue(w.isClosed());
        assertTrue(binding.calls.indexOf("callDeallocOp " + DEALLOC_MW + " " + MW)
                < binding.calls.indexOf("deregMr " + MR), binding.calls.toString());
        assertTrue(context.tracked.isEmpty(), context.tracked.toString());
    }

    /** Native memory as a map of 32-bit fields, and every call recorded. */
    static final class Binding implements IbverbsBinding {
        final Map<Long, Integer> memory = new HashMap<>();
        final List<String> calls = new ArrayList<>();
        int writes;
        int failWith;
        boolean readable;
        long eventCq;

        @Override
        public int getInt(long address) {
            return memory.getOrDefault(address, 0);
        }

        @Override
        public void putInt(long address, int value) {
            writes++;
            memory.put(address, value);
        }

        private int call(String what) {
            calls.add(what);
            return failWith;
        }

        @Override
        public int deregMr(long mr) {
            return call("deregMr " + mr);
        }

        @Override
        public int destroyAh(long ah) {
            return call("destroyAh " + ah);
        }

        @Override
        public int callDeallocOp(long fn, long object) {
            return call("callDeallocOp " + fn + " " + object);
        }

        @Override
        public int destroyCompChannel(long channel) {
            return call("destroyCompChannel " + channel);
        }

        @Override
        public boolean awaitReadable(int fd, long timeout, TimeUnit unit, String verb) {
            call("awaitReadable " + fd);
            return readable;
        }

        @Override
        public long getAndAckCqEvent(long channel) {
            call("getAndAckCqEvent " + channel);
            return eventCq;
        }

        // ---- nqp: queue pairs and shared receive queues. 64-bit fields are a map of their own; 8- and 16-bit
        // ones share the 32-bit map. A create verb answers nextObject, or -failWith when it is set.
        final Map<Long, Long> longs = new HashMap<>();
        long nextObject;
        /** What the next posts answer (0 once empty), and the WR address a failed one stores in bad_wr. */
        final java.util.ArrayDeque<Integer> postResults = new java.util.ArrayDeque<>();
        long badWrAt;
        /** The length of each posted list, followed from its first WR through {@code next}. */
        final List<Integer> postedLengths = new ArrayList<>();
        int queryQpResult;

        @Override
        public long getLong(long address) {
            return longs.getOrDefault(address, 0L);
        }

        @Override
        public void putLong(long address, long value) {
            writes++;
            longs.put(address, value);
        }

        @Override
        public short getShort(long address) {
            return (short) getInt(address);
        }

        @Override
        public void putShort(long address, short value) {
            putInt(address, value);
        }

        @Override
        public byte getByte(long address) {
            return (byte) getInt(address);
        }

        @Override
        public void putByte(long address, byte value) {
            putInt(address, value);
        }

        @Override
        public void getBytes(long address, byte[] into) {
            for (int i = 0; i < into.length; i++) {
                into[i] = getByte(address + i);
            }
        }

        @Override
        public void putBytes(long address, byte[] from) {
            for (int i = 0; i < from.length; i++) {
                putByte(address + i, from[i]);
            }
        }

        /** Fake addresses, never touched: this binding's memory is the maps. */
        private long nextFree = 0x100_0000;
        final List<Long> freed = new ArrayList<>();

        @Override
        public long allocate(long bytes) {
            long a = nextFree;
            nextFree += (bytes + 15) & ~15L;
            return a;
        }

        @Override
        public void free(long address) {
            freed.add(address);
        }

        private int post(String what, long wr, long badWr, long nextOffset) {
            calls.add(what + " " + wr);
            int n = 0;
            for (long at = wr; at != 0 && n < 1000; at = getLong(at + nextOffset)) {
                n++;
            }
            postedLengths.add(n);
            Integer result = postResults.poll();
            if (result != null && result != 0) {
                putLong(badWr, badWrAt);
                return result;
            }
            return 0;
        }

        @Override
        public int postSend(long fn, long qp, long wr, long badWr) {
            return post("postSend " + fn + " " + qp, wr, badWr, QpStructs.ibv_send_wr.next$off);
        }

        @Override
        public int postRecv(long fn, long queue, long wr, long badWr) {
            return post("postRecv " + fn + " " + queue, wr, badWr, QpStructs.ibv_recv_wr.next$off);
        }

        @Override
        public int bindMw(long fn, long qp, long mw, long bind) {
            return call("bindMw " + fn + " " + qp + " " + mw);
        }

        private long create(String what) {
            calls.add(what);
            return failWith != 0 ? -failWith : nextObject;
        }

        @Override
        public long createQp(long pd, long initAttr) {
            return create("createQp " + pd);
        }

        @Override
        public long callCreateOp(long fn, long context, long attr) {
            return create("callCreateOp " + fn + " " + context);
        }

        @Override
        public long qpToQpEx(long qp) {
            return create("qpToQpEx " + qp);
        }

        @Override
        public int modifyQp(long qp, long attr, int mask) {
            return call("modifyQp " + qp + " " + mask);
        }

        @Override
        public int queryQp(long qp, long attr, int mask, long initAttr) {
            calls.add("queryQp " + qp + " " + mask);
            return queryQpResult;
        }

        @Override
        public int destroyQp(long qp) {
            return call("destroyQp " + qp);
        }

        @Override
        public int deallocPd(long pd) {
            return call("deallocPd " + pd);
        }

        @Override
        public int queryDataInOrder(long qp, int op, int flags) {
            calls.add("queryDataInOrder " + qp + " " + op + " " + flags);
            return 1;
        }

        @Override
        public long createSrq(long pd, long initAttr) {
            return create("createSrq " + pd);
        }

        @Override
        public int modifySrq(long srq, long attr, int mask) {
            return call("modifySrq " + srq + " " + mask);
        }

        @Override
        public int querySrq(long srq, long attr) {
            return call("querySrq " + srq);
        }

        @Override
        public int destroySrq(long srq) {
            return call("destroySrq " + srq);
        }

        @Override
        public int callSrqNumOp(long fn, long srq, long out) {
            return call("callSrqNumOp " + fn + " " + srq);
        }

        // ---- nwr: the WR session's calls (NativeWrSessionTest drives them; here they are only recorded) ----
        @Override
        public void wrCall(long fn, long qpx) {
            call("wrCall " + fn);
        }

        @Override
        public int wrComplete(long fn, long qpx) {
            return call("wrComplete " + fn);
        }

        @Override
        public void wrBuild(long fn, long qpx) {
            call("wrBuild " + fn);
        }

        @Override
        public void wrU32(long fn, long qpx, int value) {
            call("wrU32 " + fn);
        }

        @Override
        public void wrRdma(long fn, long qpx, int rkey, long remoteAddr) {
            call("wrRdma " + fn);
        }

        @Override
        public void wrRdmaWriteImm(long fn, long qpx, int rkey, long remoteAddr, int immDataBe) {
            call("wrRdmaWriteImm " + fn);
        }

        @Override
        public void wrAtomicCmpSwp(long fn, long qpx, int rkey, long remoteAddr, long compare, long swap) {
            call("wrAtomicCmpSwp " + fn);
        }

        @Override
        public void wrAtomicFetchAdd(long fn, long qpx, int rkey, long remoteAddr, long add) {
            call("wrAtomicFetchAdd " + fn);
        }

        @Override
        public void wrAtomicWrite(long fn, long qpx, int rkey, long remoteAddr, long operand) {
            call("wrAtomicWrite " + fn);
        }

        @Override
        public void wrBindMw(long fn, long qpx, long mw, int rkey, long bindInfo) {
            call("wrBindMw " + fn + " " + mw);
        }

        @Override
        public void wrSendTso(long fn, long qpx, long hdr, int hdrSize, int mss) {
            call("wrSendTso " + fn);
        }

        @Override
        public void wrFlush(long fn, long qpx, int rkey, long remoteAddr, long length, int type, int level) {
            call("wrFlush " + fn);
        }

        @Override
        public void wrSetUdAddr(long fn, long qpx, long ah, int remoteQpn, int remoteQkey) {
            call("wrSetUdAddr " + fn + " " + ah);
        }

        @Override
        public void wrSetSge(long fn, long qpx, int lkey, long addr, int length) {
            call("wrSetSge " + fn);
        }

        @Override
        public void wrSetList(long fn, long qpx, long count, long list) {
            call("wrSetList " + fn);
        }

        @Override
        public void wrSetInlineData(long fn, long qpx, long addr, long length) {
            call("wrSetInlineData " + fn);
        }
        // ---- end of nwr's block ----
    }

    /** A context with no device behind it: the ops, the table of tracked objects and the CQs by address. */
    static final class FakeContext extends AbstractVerbsObject implements NativeContextSupport {
        final Binding binding;
        final Map<Long, NativeKind> tracked = new HashMap<>();
        final Map<Long, CompletionQueue> cqs = new HashMap<>();
        long deallocTd = DEALLOC_TD;

        FakeContext(Binding binding) {
            super("Context", null);
            this.binding = binding;
        }

        @Override
        public IbverbsBinding binding() {
            return binding;
        }

        @Override
        public long contextOp(long opsOffset) {
            // The other ops are named by their offset, so that a test sees which one was called.
            return opsOffset == ContextStructs.ibv_context.ops$dealloc_mw$off ? DEALLOC_MW : 0x10000 + opsOffset;
        }

        @Override
        public long verbsContextOp(long offset) {
            return offset == ContextStructs.verbs_context.dealloc_td$off ? deallocTd : 0;
        }

        @Override
        public synchronized void track(NativeKind kind, long address, AbstractVerbsObject object) {
            tracked.put(address, kind);
        }

        @Override
        public synchronized void untrack(NativeKind kind, long address, AbstractVerbsObject object) {
            tracked.remove(address, kind);
        }

        @Override
        public CompletionQueue completionQueueAt(long cq) {
            return cqs.get(cq);
        }

        @Override
        protected int destroy() {
            return 0;
        }

        @Override
        public Device device() {
            throw new UnsupportedOperationException();
        }

        @Override
        public DeviceAttributes queryDevice() {
            throw new UnsupportedOperationException();
        }

        @Override
        public PortAttributes queryPort(int portNum) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Gid queryGid(int portNum, int index) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Capabilities capabilities() {
            throw new UnsupportedOperationException();
        }

        @Override
        public ProtectionDomain allocPd() {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionChannel createCompletionChannel() {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ThreadDomain allocTd() {
            throw new UnsupportedOperationException();
        }

        @Override
        public AsyncEvent pollAsyncEvent(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        // ---- nqp: what the shared QPs and SRQs need of the context

        @Override
        public long contextHandle() {
            return CONTEXT_HANDLE;
        }

        @Override
        public int rdmaCoreVersion() {
            return 44;
        }

        @Override
        public long deviceCapFlagsEx() {
            return 0;
        }

        @Override
        public boolean ipCsum() {
            return false;
        }

        @Override
        public void checkPort(int portNum) {
            if (portNum != 1) {
                throw new IllegalArgumentException("the fake device has port 1, not " + portNum);
            }
        }

        @Override
        public AbstractVerbsObject siblingCq(Object cq, String what) {
            return sibling(cq, FakeCq.class, what);
        }

        @Override
        public long cqHandle(AbstractVerbsObject cq) {
            return ((FakeCq) cq).handle;
        }
    }

    /** A completion queue that is only an address. */
    static final class FakeCq extends AbstractVerbsObject implements CompletionQueue {
        final long handle;
        private final FakeContext context;

        FakeCq(FakeContext context, long handle) {
            super("CompletionQueue", context);
            this.context = context;
            this.handle = handle;
            register();
        }

        @Override
        protected int destroy() {
            return 0;
        }

        @Override
        public FakeContext context() {
            return context;
        }

        @Override
        public int capacity() {
            return 16;
        }

        @Override
        public CompletionChannel channel() {
            return null;
        }

        @Override
        public int poll(WorkCompletionBatch batch) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void requestNotify(boolean solicitedOnly) {
            throw new UnsupportedOperationException();
        }
    }

    /** A protection domain that only owns the objects made in it. */
    static final class FakePd extends AbstractVerbsObject implements ProtectionDomain {
        final RegionTable regions = new RegionTable();
        private final FakeContext context;

        FakePd(FakeContext context) {
            super("ProtectionDomain", context);
            this.context = context;
            register();
        }

        @Override
        protected int destroy() {
            return 0;
        }

        @Override
        public FakeContext context() {
            return context;
        }

        @Override
        public MemoryRegion registerMemory(MemorySegment segment, int access) {
            throw new UnsupportedOperationException();
        }

        @Override
        public MemoryWindow allocMw(MwType type) {
            throw new UnsupportedOperationException();
        }

        @Override
        public AddressHandle createAh(AhAttributes attributes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public QueuePair createQp(QpInitAttributes attributes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public SharedReceiveQueue createSrq(SrqInitAttributes attributes) {
            throw new UnsupportedOperationException();
        }
    }
}
