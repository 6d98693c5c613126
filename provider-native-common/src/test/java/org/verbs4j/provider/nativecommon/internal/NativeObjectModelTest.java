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
import org.verbs4j.WcStatus;
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
    private static final long CONTEXT = CONTEXT_HANDLE;
    private static final long CREATE_CQ_EX = 0xd3;
    private static final long MODIFY_CQ = 0xd4;
    private static final long CQ = 0x8000;

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
        assertEquals("deallocMw " + DEALLOC_MW + " " + MW, binding.calls.getLast());
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
        assertEquals(List.of("deallocTd " + DEALLOC_TD + " " + TD), binding.calls);
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
    @DisplayName("a completion channel waits on its fd, takes one event and answers the CQ at its address, or throws the failed ibv_get_cq_event's errno")
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
        binding.eventCq = -Errno.EIO;
        VerbsException failed = assertThrows(VerbsException.class, () -> ch.awaitEvent(1, TimeUnit.SECONDS));
        assertEquals("ibv_get_cq_event", failed.verb());
        assertEquals(Errno.EIO, failed.errno(), "a failed ibv_get_cq_event is its errno, never 0");
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
        assertTrue(binding.calls.indexOf("deallocMw " + DEALLOC_MW + " " + MW)
                < binding.calls.indexOf("deregMr " + MR), binding.calls.toString());
        assertTrue(context.tracked.isEmpty(), context.tracked.toString());
    }

    // ---- npd: protection domain and completion queue ----

    @Test
    @DisplayName("a PD is allocated on the context's address; a failed ibv_alloc_pd throws its errno and tracks nothing")
    void protectionDomainAlloc() {
        binding.createResult = -Errno.ENOMEM;
        VerbsException e = assertThrows(VerbsException.class, () -> NativeProtectionDomain.alloc(context));
        assertEquals(Errno.ENOMEM, e.errno());
        assertTrue(context.tracked.isEmpty());
        binding.createResult = 0x6000;
        NativeProtectionDomain p = NativeProtectionDomain.alloc(context);
        assertEquals(List.of("allocPd " + CONTEXT, "allocPd " + CONTEXT), binding.calls);
        assertEquals(NativeKind.PD, context.tracked.get(0x6000L));
        assertSame(context, p.context());
        p.close();
        assertEquals("deallocPd " + 0x6000, binding.calls.getLast());
        assertNull(context.tracked.get(0x6000L));
    }

    @Test
    @DisplayName("a PD registers at the segment's address (0 when zero-based), refuses heap memory, and closes after its regions")
    void protectionDomainRegisters() {
        binding.createResult = 0x6000;
        NativeProtectionDomain p = NativeProtectionDomain.alloc(context);
        binding.createResult = MR;
        MemorySegment buffer = arena.allocate(4096);
        MemoryRegion r = p.registerMemory(buffer, AccessFlags.LOCAL_WRITE, arena);
        assertEquals("regMr " + 0x6000 + " 4096 iova=address", binding.calls.getLast());
        assertThrows(IllegalArgumentException.class,
                () -> p.registerMemory(MemorySegment.ofArray(new byte[64]), AccessFlags.LOCAL_WRITE));
        assertTrue(p.regions().contains(buffer.address(), 4096), "the region table knows the registered memory");
        VerbsException busy = assertThrows(VerbsException.class, p::close);
        assertEquals(Errno.EBUSY, busy.errno(), "a PD with a live region");
        r.close();
        binding.createResult = 0x1100;
        p.registerMemory(arena.allocate(64), AccessFlags.LOCAL_WRITE | AccessFlags.ZERO_BASED, arena).close();
        assertEquals("regMr " + 0x6000 + " 64 iova=0", binding.calls.get(binding.calls.size() - 2));
        p.close();
        int calls = binding.calls.size();
        assertThrows(IllegalStateException.class, () -> p.registerMemory(buffer, AccessFlags.LOCAL_WRITE, arena));
        assertThrows(IllegalStateException.class, () -> p.allocMw(MwType.TYPE_1));
        assertEquals(calls, binding.calls.size(), "nothing reaches the binding through a closed PD");
    }

    @Test
    @DisplayName("a plain registration refuses memory its arena can free before ibv_reg_mr, takes the global arena's, and one with its arena is deregistered when the arena closes (issue 26)")
    void registrationLifetime() {
        binding.createResult = 0x6000;
        NativeProtectionDomain p = NativeProtectionDomain.alloc(context);
        int calls = binding.calls.size();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> p.registerMemory(arena.allocate(64), AccessFlags.LOCAL_WRITE));
        assertTrue(e.getMessage().contains("registerMemory(segment, access, arena)"), e.getMessage());
        assertEquals(calls, binding.calls.size(), "a refused registration reaches no binding");
        binding.createResult = MR;
        p.registerMemory(Arena.global().allocate(64), AccessFlags.LOCAL_WRITE).close();
        assertEquals("regMr " + 0x6000 + " 64 iova=address", binding.calls.get(binding.calls.size() - 2));
        Arena owner = Arena.ofConfined();
        MemoryRegion r = p.registerMemory(owner.allocate(64), AccessFlags.LOCAL_WRITE, owner);
        owner.close();
        assertTrue(r.isClosed(), "the owner's close deregisters the region");
        assertEquals("deregMr " + MR, binding.calls.getLast());
        p.close();
    }

    @Test
    @DisplayName("a PD writes ibv_ah_attr for ibv_create_ah, checks the port first, and creates SRQs in itself")
    void protectionDomainAhAndQueues() {
        binding.createResult = 0x6000;
        NativeProtectionDomain p = NativeProtectionDomain.alloc(context);
        binding.createResult = AH;
        AddressHandle h = p.createAh(new AhAttributes(null, 0x1234, 0, 0, 0, 1));
        assertEquals(1, binding.ahPort);
        assertEquals(0x1234, binding.ahDlid);
        assertSame(p, h.pd());
        assertThrows(IllegalArgumentException.class, () -> p.createAh(new AhAttributes(null, 1, 0, 0, 0, 2)));
        SrqInitAttributes srq = new SrqInitAttributes(16, 1, 0);
        binding.nextObject = 0x6100;
        SharedReceiveQueue s = p.createSrq(srq);
        assertEquals(1, binding.calls.stream().filter(c -> c.equals("createSrq " + 0x6000)).count(),
                "ibv_create_srq in this PD: " + binding.calls);
        assertThrows(NullPointerException.class, () -> p.createQp(null));
        s.close();
        h.close();
        p.close();
        assertThrows(IllegalStateException.class, () -> p.createSrq(srq));
        assertEquals(1, binding.calls.stream().filter(c -> c.startsWith("createSrq ")).count(),
                "nothing reaches ibv_create_srq through a closed PD");
    }

    private NativeCompletionQueue cq(boolean extended) {
        return cq(extended, 0x53L);
    }

    /** A CQ at {@link #CQ}; an extended one with every poll op set, {@code next_poll} to {@code nextPoll}. */
    private NativeCompletionQueue cq(boolean extended, long nextPoll) {
        binding.longs.put(CQ + CqStructs.ibv_cq.cqe$off, 0L);
        binding.memory.put(CQ + CqStructs.ibv_cq.cqe$off, 16);
        if (extended) {
            // every read_* op points at its index in the completion arrays of the binding
            binding.longs.put(CQ + CqStructs.ibv_cq_ex.start_poll$off, 0x51L);
            binding.longs.put(CQ + CqStructs.ibv_cq_ex.end_poll$off, 0x52L);
            binding.longs.put(CQ + CqStructs.ibv_cq_ex.next_poll$off, nextPoll);
            binding.longs.put(CQ + CqStructs.ibv_cq_ex.read_opcode$off, 2L);
            binding.longs.put(CQ + CqStructs.ibv_cq_ex.read_vendor_err$off, 8L);
            binding.longs.put(CQ + CqStructs.ibv_cq_ex.read_wc_flags$off, 3L);
            binding.longs.put(CQ + CqStructs.ibv_cq_ex.read_imm_data$off, 4L);
            binding.longs.put(CQ + CqStructs.ibv_cq_ex.read_qp_num$off, 5L);
            binding.longs.put(CQ + CqStructs.ibv_cq_ex.read_src_qp$off, 6L);
            binding.longs.put(CQ + CqStructs.ibv_cq_ex.read_byte_len$off, 7L);
            binding.longs.put(CQ + CqStructs.ibv_cq_ex.read_slid$off, 9L);
            binding.longs.put(CQ + CqStructs.ibv_cq_ex.read_sl$off, 10L);
            binding.longs.put(CQ + CqStructs.ibv_cq_ex.read_dlid_path_bits$off, 11L);
        } else {
            context.createCqEx = 0;
        }
        binding.createResult = CQ;
        return NativeCompletionQueue.create(context, 16, null, 0, true);
    }

    @Test
    @DisplayName("a plain CQ polls ibv_wc in host order: imm_data swapped, a failed entry's undefined fields 0")
    void plainCqPoll() {
        NativeCompletionQueue q = cq(false);
        assertFalse(q.isExtended());
        assertEquals(16, q.capacity());
        binding.plainCompletions.add(new long[] {7, 0, 129, 0x3, 0x11223344, 5, 6, 100});
        binding.plainCompletions.add(new long[] {8, 5, 1, 0x3, 0x55, 5, 6, 100});
        WorkCompletionBatch batch = new WorkCompletionBatch(8);
        assertEquals(2, q.poll(batch));
        assertEquals(7, batch.wrId(0));
        assertEquals(0x44332211, batch.immData(0));
        assertEquals(6, batch.srcQp(0));
        assertEquals(100, batch.byteLen(0));
        assertEquals(8, batch.wrId(1));
        assertEquals(WcStatus.WR_FLUSH_ERR, batch.status(1));
        assertEquals(0, batch.byteLen(1));
        assertEquals(0, batch.immData(1));
        assertEquals(0x77, batch.vendorErr(1));
        assertEquals(5, batch.qpNum(1));
        q.close();
        assertEquals("destroyCq " + CQ, binding.calls.get(binding.calls.size() - 2));
        assertTrue(binding.calls.getLast().startsWith("free "), "the wc array is freed: " + binding.calls);
        int calls = binding.calls.size();
        assertThrows(IllegalStateException.class, () -> q.poll(batch));
        assertEquals(calls, binding.calls.size(), "no poll_cq on a destroyed CQ");
    }

    @Test
    @DisplayName("an extended CQ reads each completion between start_poll and end_poll, sender fields only for receives")
    void extendedCqPoll() {
        NativeCompletionQueue q = cq(true);
        assertTrue(q.isExtended());
        // {wr_id, status, opcode, flags, imm, qp_num, src_qp, byte_len, vendor_err, slid, sl, dlid_path_bits}
        binding.extendedCompletions.add(new long[] {1, 0, 1, 0, 0, 5, 6, 64, 0, 9, 3, 0});
        binding.extendedCompletions.add(new long[] {2, 0, 128, 0x3, 0x01000000, 5, 6, 64, 0, 9, 3, 0});
        binding.extendedCompletions.add(new long[] {3, 10, 0, 0, 0, 5, 0, 0, 0x99, 0, 0, 0});
        binding.calls.clear();
        WorkCompletionBatch batch = new WorkCompletionBatch(8);
        assertEquals(3, q.poll(batch));
        assertEquals(List.of("startPoll", "read 5", "read 3", "read 2", "read 7", "endPoll",
                "startPoll", "read 5", "read 3", "read 4", "read 2", "read 7", "read 6", "read 9", "read 10",
                "read 11", "endPoll", "startPoll", "read 5", "read 8", "endPoll", "startPoll"), binding.calls);
        assertEquals(0, batch.srcQp(0), "a send completion has no sender");
        assertEquals(6, batch.srcQp(1));
        assertEquals(1, batch.immData(1), "imm_data in host order");
        assertEquals(3, batch.sl(1));
        assertEquals(0x99, batch.vendorErr(2));
        assertEquals(WcStatus.REM_ACCESS_ERR, batch.status(2));
        q.close();
    }

    /** {wr_id, status, opcode, ...} of a successful RDMA WRITE completion of QP 5, 64 bytes. */
    private static long[] write(long wrId) {
        return new long[] {wrId, 0, 1, 0, 0, 5, 0, 64, 0, 0, 0, 0};
    }

    private static long count(List<String> calls, String call) {
        return calls.stream().filter(call::equals).count();
    }

    @Test
    @DisplayName("a batch of N completions: one start_poll, N-1 next_poll, one end_poll, all in order (ibv_create_cq_ex(3))")
    void extendedCqPollsABatch() {
        context.batchPolling = true;
        NativeCompletionQueue q = cq(true);
        for (long id = 1; id <= 6; id++) {
            binding.extendedCompletions.add(write(id));
        }
        binding.calls.clear();
        WorkCompletionBatch batch = new WorkCompletionBatch(4);
        assertEquals(4, q.poll(batch), "a full batch");
        for (int i = 0; i < 4; i++) {
            assertEquals(i + 1, batch.wrId(i), "completion " + i + " in order");
            assertEquals(64, batch.byteLen(i));
        }
        assertEquals(List.of("startPoll", "read 5", "read 3", "read 2", "read 7", "nextPoll", "read 5", "read 3",
                "read 2", "read 7", "nextPoll", "read 5", "read 3", "read 2", "read 7", "nextPoll", "read 5",
                "read 3", "read 2", "read 7", "endPoll"), binding.calls, "no next_poll once the batch is full");

        binding.calls.clear();
        assertEquals(2, q.poll(batch), "the rest, then ENOENT");
        assertEquals(5, batch.wrId(0));
        assertEquals(6, batch.wrId(1));
        assertEquals(List.of("startPoll", "nextPoll", "nextPoll", "endPoll"),
                binding.calls.stream().filter(c -> !c.startsWith("read ")).toList(),
                "end_poll after the next_poll that answered ENOENT");

        binding.calls.clear();
        assertEquals(0, q.poll(batch));
        assertEquals(List.of("startPoll"), binding.calls, "no end_poll after a start_poll that answered ENOENT");
        q.close();
    }

    @Test
    @DisplayName("a next_poll error ends the batch with what was read, then end_poll; the next poll goes on")
    void extendedCqNextPollError() {
        context.batchPolling = true;
        NativeCompletionQueue q = cq(true);
        for (long id = 1; id <= 5; id++) {
            binding.extendedCompletions.add(write(id));
        }
        binding.nextPollError = Errno.EIO;
        binding.nextPollErrorAfter = 2;
        binding.calls.clear();
        WorkCompletionBatch batch = new WorkCompletionBatch(8);
        assertEquals(3, q.poll(batch), "start_poll's completion and two of next_poll");
        assertEquals(List.of(1L, 2L, 3L), List.of(batch.wrId(0), batch.wrId(1), batch.wrId(2)));
        assertEquals("endPoll", binding.calls.getLast(), "end_poll after a failed next_poll");
        assertEquals(1, count(binding.calls, "endPoll"));
        binding.nextPollError = 0;
        assertEquals(2, q.poll(batch));
        assertEquals(List.of(4L, 5L), List.of(batch.wrId(0), batch.wrId(1)));
        q.close();
    }

    @Test
    @DisplayName("on librxe (no batch polling) each completion has its own start_poll/end_poll and next_poll is never called")
    void extendedCqOnRxePollsOnePerPair() {
        context.batchPolling = false;
        NativeCompletionQueue q = cq(true);
        for (long id = 1; id <= 3; id++) {
            binding.extendedCompletions.add(write(id));
        }
        binding.calls.clear();
        WorkCompletionBatch batch = new WorkCompletionBatch(8);
        assertEquals(3, q.poll(batch));
        assertEquals(List.of(1L, 2L, 3L), List.of(batch.wrId(0), batch.wrId(1), batch.wrId(2)));
        assertEquals(List.of("startPoll", "endPoll", "startPoll", "endPoll", "startPoll", "endPoll", "startPoll"),
                binding.calls.stream().filter(c -> !c.startsWith("read ")).toList());
        q.close();
    }

    @Test
    @DisplayName("a driver that leaves next_poll NULL is polled one completion per pair even where batches are allowed")
    void extendedCqWithoutNextPoll() {
        context.batchPolling = true;
        NativeCompletionQueue q = cq(true, 0);
        assertTrue(q.isExtended());
        binding.extendedCompletions.add(write(1));
        binding.extendedCompletions.add(write(2));
        binding.calls.clear();
        assertEquals(2, q.poll(new WorkCompletionBatch(8)));
        assertEquals(0, count(binding.calls, "nextPoll"), binding.calls.toString());
        assertEquals(2, count(binding.calls, "endPoll"));
        q.close();
    }

    @Test
    @DisplayName("ibv_modify_cq: IBV_CQ_ATTR_MODERATE, the count and the period through verbs_context.modify_cq; its errno names the verb")
    void moderation() {
        binding.memory.put(CQ + CqStructs.ibv_cq.cqe$off, 16);
        binding.createResult = CQ;
        NativeCompletionQueue q = NativeCompletionQueue.create(context, 16, null, 0, false);
        binding.calls.clear();
        q.moderate(0xffff, 4095);
        assertTrue(binding.calls.contains("modifyCq " + MODIFY_CQ + " " + CQ + " mask 1 count 65535 period 4095"),
                binding.calls.toString());
        binding.failWith = Errno.EINVAL;
        VerbsException e = assertThrows(VerbsException.class, () -> q.moderate(1, 2));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals("ibv_modify_cq", e.verb());
        binding.failWith = 0;
        assertTrue(binding.calls.stream().filter(c -> c.startsWith("free ")).count()
                == binding.calls.stream().filter(c -> c.startsWith("allocate ")).count(), "every scratch freed");
        q.close();
        assertThrows(IllegalStateException.class, () -> q.modifyModeration(0, 0), "closed before capabilities");
    }

    @Test
    @DisplayName("an extended CQ with a NULL poll op is destroyed and a plain one made instead")
    void extendedCqWithoutPollOp() {
        binding.memory.put(CQ + CqStructs.ibv_cq.cqe$off, 16);
        binding.createResult = CQ;
        NativeCompletionQueue q = NativeCompletionQueue.create(context, 16, null, 0, true);
        assertFalse(q.isExtended());
        assertEquals(List.of("allocate " + 0x100000, "createCqEx " + CREATE_CQ_EX, "destroyCq " + CQ,
                "free " + 0x100000, "createCq 16", "allocate " + 0x101000), binding.calls);
        assertThrows(IllegalArgumentException.class, () -> NativeCompletionQueue.create(context, 0, null, 0, true));
        assertThrows(IllegalArgumentException.class, () -> NativeCompletionQueue.create(context, 4, null, 1, true));
        q.close();
    }

    @Test
    @DisplayName("ibv_query_port is decoded from ibv_port_attr's offsets; an MTU out of range reads as 256; a failure throws its errno")
    void portQuery() {
        PortAttributes a = NativeQueries.queryPort(context, 1);
        assertEquals(List.of("allocate " + 0x100000, "queryPort 0 1", "free " + 0x100000), binding.calls,
                "no verbs_context.query_port: the exported call, in scratch memory freed after");
        assertEquals(org.verbs4j.PortState.ACTIVE, a.state());
        assertEquals(org.verbs4j.Mtu.MTU_1024, a.activeMtu());
        assertEquals(org.verbs4j.Mtu.MTU_256, a.maxMtu());
        assertEquals(16, a.gidTblLen());
        assertEquals(0x1234, a.lid());
        assertEquals(org.verbs4j.LinkLayer.ETHERNET, a.linkLayer());
        byte[] gid = NativeQueries.queryGid(context, 1, 3).toBytes();
        assertEquals((byte) 0xfe, gid[0]);
        assertEquals((byte) 0x80, gid[1]);
        assertEquals(3, gid[15]);
        binding.failWith = Errno.EINVAL;
        VerbsException e = assertThrows(VerbsException.class, () -> NativeQueries.queryPort(context, 1));
        assertEquals(Errno.EINVAL, e.errno());
        binding.failWith = 0;
        assertTrue(binding.calls.stream().filter(c -> c.startsWith("free ")).count()
                == binding.calls.stream().filter(c -> c.startsWith("allocate ")).count(), "every scratch freed");
    }

    /** Native memory as a map of 32-bit fields, and every call recorded. */
    static final class Binding implements IbverbsBinding {
        @Override
        public LibIbverbs libibverbs() {
            // the fake overrides every CoreVerbs call; only the compatibility ibv_query_port is called directly
            return (LibIbverbs) Proxy.newProxyInstance(LibIbverbs.class.getClassLoader(),
                    new Class<?>[] {LibIbverbs.class}, (proxy, m, a) -> {
                        if (!m.getName().equals("ibv_query_port")) {
                            throw new UnsupportedOperationException(m.getName());
                        }
                        return queryPort(0, (long) a[0], (int) a[1], (long) a[2], 0);
                    });
        }

        /** The declared ops, each recorded by the method of the fake named after it. */
        @Override
        public LibIbverbsOps libibverbsOps() {
            Binding b = this;
            return new LibIbverbsOps() {
                public int req_notify_cq(long fn, long cq, int solicitedOnly) {
                    return b.reqNotifyCq(fn, cq, solicitedOnly);
                }

                public int bind_mw(long fn, long qp, long mw, long mwBind) {
                    return b.bindMw(fn, qp, mw, mwBind);
                }

                public long alloc_mw(long fn, long pd, int type) {
                    return b.allocMw(fn, pd, type);
                }

                public int dealloc_mw(long fn, long mw) {
                    return b.deallocMw(fn, mw);
                }

                public int query_port(long fn, long context, int portNum, long portAttr, long portAttrLen) {
                    return b.queryPort(fn, context, portNum, portAttr, portAttrLen);
                }

                public long alloc_parent_domain(long fn, long context, long attr) {
                    return b.allocParentDomain(fn, context, attr);
                }

                public int dealloc_td(long fn, long td) {
                    return b.deallocTd(fn, td);
                }

                public long alloc_td(long fn, long context, long initAttr) {
                    return b.allocTd(fn, context, initAttr);
                }

                public long create_cq_ex(long fn, long context, long initAttr) {
                    return b.createCqEx(fn, context, initAttr);
                }

                public int query_device_ex(long fn, long context, long input, long attr, long attrSize) {
                    return b.queryDeviceEx(fn, context, attr, attrSize);
                }

                public long create_qp_ex(long fn, long context, long qpInitAttrEx) {
                    return b.createQpEx(fn, context, qpInitAttrEx);
                }

                public int advise_mr(long fn, long pd, int advice, int flags, long sgList, int numSges) {
                    throw new UnsupportedOperationException("advise_mr");
                }

                public int query_rt_values(long fn, long context, long values) {
                    throw new UnsupportedOperationException("query_rt_values");
                }

                public int modify_cq(long fn, long cq, long attr) {
                    return b.modifyCq(fn, cq, attr);
                }

                public int get_srq_num(long fn, long srq, long srqNum) {
                    return b.getSrqNum(fn, srq, srqNum);
                }

                public int modify_qp_rate_limit(long fn, long qp, long attr) {
                    return b.modifyQpRateLimit(fn, qp, attr);
                }

                public long open_xrcd(long fn, long context, long attr) {
                    return b.openXrcd(fn, context, attr);
                }

                public int close_xrcd(long fn, long xrcd) {
                    return b.closeXrcd(fn, xrcd);
                }

                public long create_srq_ex(long fn, long context, long attr) {
                    return b.createSrqEx(fn, context, attr);
                }

                public long open_qp(long fn, long context, long attr) {
                    return b.openQp(fn, context, attr);
                }

                public long alloc_dm(long fn, long context, long attr) {
                    throw new UnsupportedOperationException("alloc_dm");
                }

                public int free_dm(long fn, long dm) {
                    throw new UnsupportedOperationException("free_dm");
                }

                public long reg_dm_mr(long fn, long pd, long dm, long dmOffset, long length, int access) {
                    throw new UnsupportedOperationException("reg_dm_mr");
                }

                public int memcpy_to_dm(long fn, long dm, long dmOffset, long hostAddr, long length) {
                    throw new UnsupportedOperationException("memcpy_to_dm");
                }

                public int memcpy_from_dm(long fn, long hostAddr, long dm, long dmOffset, long length) {
                    throw new UnsupportedOperationException("memcpy_from_dm");
                }
            };
        }

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
            return -failWith;
        }

        @Override
        public int deregMr(long mr) {
            return call("deregMr " + mr);
        }

        @Override
        public int detachMcast(long qp, long gid, int lid) {
            byte[] raw = new byte[16];
            getBytes(gid, raw);
            return call("detachMcast " + qp + " " + Gid.of(raw) + " " + lid);
        }

        @Override
        public int destroyAh(long ah) {
            return call("destroyAh " + ah);
        }

        public int deallocTd(long fn, long object) {
            return call("deallocTd " + fn + " " + object);
        }

        public int deallocMw(long fn, long object) {
            return call("deallocMw " + fn + " " + object);
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

        // ---- nqp and npd: 64-bit fields are a map of their own, 8- and 16-bit ones a byte map, both apart from
        // the 32-bit map above. A QP/SRQ create verb answers nextObject, or -failWith when it is set.
        final Map<Long, Long> longs = new HashMap<>();
        final Map<Long, Integer> bytes = new HashMap<>();
        long nextObject;
        /** What the next posts answer (0 once empty), and the WR address a failed one stores in bad_wr. */
        final java.util.ArrayDeque<Integer> postResults = new java.util.ArrayDeque<>();
        long badWrAt;
        /** The length of each posted list, followed from its first WR through {@code next}. */
        final List<Integer> postedLengths = new ArrayList<>();
        int queryQpResult;
        /** What a PD, MR, MW, AH or CQ create verb answers: an address, or minus an errno. */
        long createResult = 0x9000;
        /** The ibv_wc entries a poll_cq writes, each {wr_id, status, opcode, flags, imm, qp_num, src_qp, byte_len}. */
        final List<long[]> plainCompletions = new ArrayList<>();
        /** The completions start_poll and next_poll make current, in the same shape. */
        final List<long[]> extendedCompletions = new ArrayList<>();
        /** An errno next_poll answers once it has made {@link #nextPollErrorAfter} completions current; 0: none. */
        int nextPollError;
        int nextPollErrorAfter;
        /** The {@code vendor_id} ibv_query_device reports, and the provider library libraryOf names (or null). */
        int vendorId;
        String library;
        long[] current;
        /** The AH attributes as createAh saw them: port_num and dlid. */
        int ahPort;
        int ahDlid;

        @Override
        public long getLong(long address) {
            Long v = longs.get(address);
            return v != null ? v : (getInt(address) & 0xffffffffL) | ((long) getInt(address + 4) << 32);
        }

        @Override
        public int getU16(long address) {
            return bytes.getOrDefault(address, 0) | bytes.getOrDefault(address + 1, 0) << 8;
        }

        @Override
        public int getU8(long address) {
            return bytes.getOrDefault(address, 0);
        }

        @Override
        public void putLong(long address, long value) {
            writes++;
            longs.put(address, value);
        }

        @Override
        public short getShort(long address) {
            return (short) getU16(address);
        }

        @Override
        public void putShort(long address, short value) {
            putByte(address, (byte) value);
            putByte(address + 1, (byte) (value >> 8));
        }

        @Override
        public byte getByte(long address) {
            return (byte) getU8(address);
        }

        @Override
        public void putByte(long address, byte value) {
            writes++;
            bytes.put(address, value & 0xff);
        }

        @Override
        public void putBytes(long address, byte[] from) {
            for (int i = 0; i < from.length; i++) {
                putByte(address + i, from[i]);
            }
        }

        @Override
        public void getBytes(long address, byte[] into) {
            for (int i = 0; i < into.length; i++) {
                into[i] = getByte(address + i);
            }
        }

        /** Fake addresses, never touched: this binding's memory is the maps. */
        long nextMemory = 0x100000;
        final List<Long> freed = new ArrayList<>();
        /** Whether allocate and free are recorded in {@code calls} too (the QP tests count only verbs there). */
        boolean recordMemory = true;

        @Override
        public long allocate(long size) {
            long a = nextMemory;
            nextMemory += (size + 0xfff) & ~0xfffL;
            if (recordMemory) {
                calls.add("allocate " + a);
            }
            return a;
        }

        @Override
        public void free(long address) {
            freed.add(address);
            if (recordMemory) {
                calls.add("free " + address);
            }
        }

        /** Run inside every post call, as the library's own work would be; null for none. */
        volatile Runnable duringPost;

        private int post(String what, long wr, long badWr, long nextOffset) {
            calls.add(what + " " + wr);
            Runnable hook = duringPost;
            if (hook != null) {
                hook.run();
            }
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

        public long createQpEx(long fn, long context, long attr) {
            qpExAttrs.add("type " + getInt(attr + QpStructs.ibv_qp_init_attr_ex.qp_type$off)
                    + " mask " + getInt(attr + QpStructs.ibv_qp_init_attr_ex.comp_mask$off)
                    + " pd " + getLong(attr + QpStructs.ibv_qp_init_attr_ex.pd$off)
                    + " xrcd " + getLong(attr + QpStructs.ibv_qp_init_attr_ex.xrcd$off)
                    + " cqs " + getLong(attr + QpStructs.ibv_qp_init_attr_ex.send_cq$off)
                    + "/" + getLong(attr + QpStructs.ibv_qp_init_attr_ex.recv_cq$off)
                    + " wrs " + getInt(attr + QpStructs.ibv_qp_init_attr_ex.cap$off + QpStructs.ibv_qp_cap.max_send_wr$off)
                    + "/" + getInt(attr + QpStructs.ibv_qp_init_attr_ex.cap$off + QpStructs.ibv_qp_cap.max_recv_wr$off));
            return create("createQpEx " + fn + " " + context);
        }

        /** What each createQpEx was given: type, comp_mask, pd, xrcd, CQs and WR counts. */
        final List<String> qpExAttrs = new ArrayList<>();

        public long allocParentDomain(long fn, long context, long attr) {
            return create("allocParentDomain " + fn + " " + context);
        }

        public long allocTd(long fn, long context, long attr) {
            return create("allocTd " + fn + " " + context);
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
        public long allocPd(long ctx) {
            calls.add("allocPd " + ctx);
            return createResult;
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

        public int modifyCq(long fn, long cq, long attr) {
            return call("modifyCq " + fn + " " + cq
                    + " mask " + getInt(attr + CqStructs.ibv_modify_cq_attr.attr_mask$off)
                    + " count " + getU16(attr + CqStructs.ibv_modify_cq_attr.moderate$cq_count$off)
                    + " period " + getU16(attr + CqStructs.ibv_modify_cq_attr.moderate$cq_period$off));
        }

        public int modifyQpRateLimit(long fn, long qp, long attr) {
            return call("modifyQpRateLimit " + fn + " " + qp
                    + " rate " + getInt(attr + QpStructs.ibv_qp_rate_limit_attr.rate_limit$off)
                    + " burst " + getInt(attr + QpStructs.ibv_qp_rate_limit_attr.max_burst_sz$off)
                    + " packet " + getU16(attr + QpStructs.ibv_qp_rate_limit_attr.typical_pkt_sz$off));
        }

        public int getSrqNum(long fn, long srq, long out) {
            putInt(out, srqNum);
            return call("getSrqNum " + fn + " " + srq);
        }

        /** What get_srq_num answers. */
        int srqNum;

        // ---- XRC: each verb records the fields it was given; a create answers nextObject or -failWith
        public long openXrcd(long fn, long ctx, long attr) {
            return create("openXrcd " + fn + " " + ctx
                    + " mask " + getInt(attr + ContextStructs.ibv_xrcd_init_attr.comp_mask$off)
                    + " fd " + getInt(attr + ContextStructs.ibv_xrcd_init_attr.fd$off)
                    + " oflags " + Integer.toOctalString(getInt(attr + ContextStructs.ibv_xrcd_init_attr.oflags$off)));
        }

        public int closeXrcd(long fn, long xrcd) {
            return call("closeXrcd " + fn + " " + xrcd);
        }

        public long createSrqEx(long fn, long ctx, long attr) {
            memory.put(attr + QpStructs.ibv_srq_init_attr_ex.attr$off + QpStructs.ibv_srq_attr.max_wr$off,
                    getInt(attr + QpStructs.ibv_srq_init_attr_ex.attr$off + QpStructs.ibv_srq_attr.max_wr$off) + 1); // granted more
            return create("createSrqEx " + fn + " " + ctx
                    + " mask " + getInt(attr + QpStructs.ibv_srq_init_attr_ex.comp_mask$off)
                    + " type " + getInt(attr + QpStructs.ibv_srq_init_attr_ex.srq_type$off)
                    + " pd " + getLong(attr + QpStructs.ibv_srq_init_attr_ex.pd$off)
                    + " xrcd " + getLong(attr + QpStructs.ibv_srq_init_attr_ex.xrcd$off)
                    + " cq " + getLong(attr + QpStructs.ibv_srq_init_attr_ex.cq$off)
                    + " sge " + getInt(attr + QpStructs.ibv_srq_init_attr_ex.attr$off + QpStructs.ibv_srq_attr.max_sge$off));
        }

        public long openQp(long fn, long ctx, long attr) {
            return create("openQp " + fn + " " + ctx
                    + " mask " + getInt(attr + QpStructs.ibv_qp_open_attr.comp_mask$off)
                    + " num " + getInt(attr + QpStructs.ibv_qp_open_attr.qp_num$off)
                    + " xrcd " + getLong(attr + QpStructs.ibv_qp_open_attr.xrcd$off)
                    + " type " + getInt(attr + QpStructs.ibv_qp_open_attr.qp_type$off));
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

        // ---- npd: PD, MR, MW, AH, CQ and the context queries
        @Override
        public long regMr(long pd, long address, long length, long iova, int access) {
            calls.add("regMr " + pd + " " + length + " " + (iova == address ? "iova=address" : "iova=" + iova));
            return createResult;
        }

        public long allocMw(long fn, long pd, int type) {
            calls.add("allocMw " + fn + " " + pd + " " + type);
            return createResult;
        }

        @Override
        public long createAh(long pd, long attr) {
            calls.add("createAh " + pd);
            ahPort = getU8(attr + QpStructs.ibv_ah_attr.port_num$off);
            ahDlid = getU16(attr + QpStructs.ibv_ah_attr.dlid$off);
            return createResult;
        }

        @Override
        public long createCq(long ctx, int cqe, long channel, int compVector) {
            calls.add("createCq " + cqe);
            return createResult;
        }

        public long createCqEx(long fn, long ctx, long attr) {
            calls.add("createCqEx " + fn);
            return createResult;
        }

        @Override
        public int destroyCq(long cq) {
            return call("destroyCq " + cq);
        }

        @Override
        public int pollCq(long fn, long cq, int entries, long wc) {
            calls.add("pollCq " + entries);
            int n = Math.min(entries, plainCompletions.size());
            for (int i = 0; i < n; i++) {
                long[] c = plainCompletions.removeFirst();
                long at = wc + CqStructs.ibv_wc.SIZEOF * i;
                longs.put(at + CqStructs.ibv_wc.wr_id$off, c[0]);
                memory.put(at + CqStructs.ibv_wc.status$off, (int) c[1]);
                memory.put(at + CqStructs.ibv_wc.opcode$off, (int) c[2]);
                memory.put(at + CqStructs.ibv_wc.wc_flags$off, (int) c[3]);
                memory.put(at + CqStructs.ibv_wc.imm_data$off, (int) c[4]);
                memory.put(at + CqStructs.ibv_wc.qp_num$off, (int) c[5]);
                memory.put(at + CqStructs.ibv_wc.src_qp$off, (int) c[6]);
                memory.put(at + CqStructs.ibv_wc.byte_len$off, (int) c[7]);
                memory.put(at + CqStructs.ibv_wc.vendor_err$off, 0x77);
            }
            return n;
        }

        public int reqNotifyCq(long fn, long cq, int solicitedOnly) {
            return call("reqNotifyCq " + solicitedOnly);
        }

        @Override
        public int startPoll(long fn, long cq, long attr) {
            calls.add("startPoll");
            if (extendedCompletions.isEmpty()) {
                return Errno.ENOENT;
            }
            current = extendedCompletions.removeFirst();
            longs.put(cq + CqStructs.ibv_cq_ex.wr_id$off, current[0]);
            memory.put(cq + CqStructs.ibv_cq_ex.status$off, (int) current[1]);
            return 0;
        }

        @Override
        public int nextPoll(long fn, long cq) {
            assertTrue(current != null, "next_poll outside start_poll/end_poll");
            calls.add("nextPoll");
            if (nextPollError != 0 && --nextPollErrorAfter < 0) {
                return nextPollError;
            }
            if (extendedCompletions.isEmpty()) {
                return Errno.ENOENT;
            }
            current = extendedCompletions.removeFirst();
            longs.put(cq + CqStructs.ibv_cq_ex.wr_id$off, current[0]);
            memory.put(cq + CqStructs.ibv_cq_ex.status$off, (int) current[1]);
            return 0;
        }

        @Override
        public void endPoll(long fn, long cq) {
            calls.add("endPoll");
            current = null;
        }

        @Override
        public int readU32(long fn, long cq) {
            assertTrue(current != null, "read_* outside start_poll/end_poll");
            calls.add("read " + fn);
            return (int) current[(int) fn];
        }

        @Override
        public int readU8(long fn, long cq) {
            return readU32(fn, cq) & 0xff;
        }

        @Override
        public long readU64(long fn, long cq) {
            assertTrue(current != null, "read_* outside start_poll/end_poll");
            calls.add("read " + fn);
            return current[(int) fn];
        }

        @Override
        public int queryDevice(long ctx, long attr) {
            memory.put(attr + ContextStructs.ibv_device_attr.vendor_id$off, vendorId);
            return call("queryDevice " + ctx);
        }

        @Override
        public String libraryOf(long fn) {
            return library;
        }

        public int queryDeviceEx(long fn, long ctx, long attr, long size) {
            return call("queryDeviceEx " + fn);
        }

        public int queryPort(long fn, long ctx, int port, long attr, long size) {
            calls.add("queryPort " + fn + " " + port);
            memory.put(attr + ContextStructs.ibv_port_attr.state$off, 4);
            memory.put(attr + ContextStructs.ibv_port_attr.active_mtu$off, 3);
            memory.put(attr + ContextStructs.ibv_port_attr.max_mtu$off, 9);
            memory.put(attr + ContextStructs.ibv_port_attr.gid_tbl_len$off, 16);
            bytes.put(attr + ContextStructs.ibv_port_attr.link_layer$off, 2);
            bytes.put(attr + ContextStructs.ibv_port_attr.lid$off, 0x34);
            bytes.put(attr + ContextStructs.ibv_port_attr.lid$off + 1, 0x12);
            return -failWith;
        }

        @Override
        public int queryGid(long ctx, int port, int index, long gid) {
            calls.add("queryGid " + port + " " + index);
            putBytes(gid, new byte[] {(byte) 0xfe, (byte) 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) index});
            return -failWith;
        }

        // ---- nctx: the context and the device. openDevice answers openResult; getAsyncEvent writes asyncType
        // and asyncElement into the event, or answers failWith when it is set.
        long openResult = CONTEXT_HANDLE;
        int asyncType;
        long asyncElement;

        @Override
        public long openDevice(String name) {
            calls.add("openDevice " + name);
            return openResult;
        }

        @Override
        public int closeDevice(long ctx) {
            return call("closeDevice " + ctx);
        }

        @Override
        public long createCompChannel(long ctx) {
            calls.add("createCompChannel " + ctx);
            return failWith != 0 ? -failWith : createResult;
        }

        @Override
        public int getAsyncEvent(long ctx, long event) {
            calls.add("getAsyncEvent " + ctx);
            if (failWith != 0) {
                return -failWith;
            }
            putInt(event + ContextStructs.ibv_async_event.event_type$off, asyncType);
            putLong(event + ContextStructs.ibv_async_event.element$qp$off, asyncElement);
            putInt(event + ContextStructs.ibv_async_event.element$port_num$off, (int) asyncElement);
            return 0;
        }

        @Override
        public void ackAsyncEvent(long event) {
            calls.add("ackAsyncEvent " + event);
        }
    }

    /** A context with no device behind it: the ops, the table of tracked objects and the CQs by address. */
    static final class FakeContext extends AbstractVerbsObject implements NativeContextSupport {
        final Binding binding;
        final Map<Long, NativeKind> tracked = new HashMap<>();
        final Map<Long, CompletionQueue> cqs = new HashMap<>();
        long deallocTd = DEALLOC_TD;
        long createCqEx = CREATE_CQ_EX;
        /** {@code verbs_context.create_qp_ex}, 0 for none (the default: a QP with sendOps is refused). */
        long createQpEx;
        /** The XRC ops of {@code verbs_context}; 0 for none. */
        long openXrcd = 0xe1;
        long closeXrcd = 0xe2;
        long createSrqEx = 0xe3;
        long openQp = 0xe4;
        /** {@code verbs_context.get_srq_num}, 0 for none (the default: every SRQ number reads 0). */
        long getSrqNum;
        /** {@code verbs_context.modify_qp_rate_limit}; 0 for a library without packet pacing. */
        long modifyQpRateLimit;
        /** Whether extended CQs poll in batches ({@link NativeContextSupport#batchPolling}); false: librxe's pair. */
        boolean batchPolling;

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
            return opsOffset == DeclaredOps.member("dealloc_mw").offset() ? DEALLOC_MW : 0x10000 + opsOffset;
        }

        @Override
        public boolean batchPolling() {
            return batchPolling;
        }

        @Override
        public long verbsContextOp(long offset) {
            if (offset == DeclaredOps.member("create_cq_ex").offset()) {
                return createCqEx;
            }
            if (offset == DeclaredOps.member("create_qp_ex").offset()) {
                return createQpEx;
            }
            if (offset == DeclaredOps.member("modify_cq").offset()) {
                return MODIFY_CQ;
            }
            Map<String, Long> xrc = Map.of("open_xrcd", openXrcd, "close_xrcd", closeXrcd, "create_srq_ex",
                    createSrqEx, "open_qp", openQp, "get_srq_num", getSrqNum, "modify_qp_rate_limit", modifyQpRateLimit);
            for (Map.Entry<String, Long> e : xrc.entrySet()) {
                if (offset == DeclaredOps.member(e.getKey()).offset()) {
                    return e.getValue();
                }
            }
            return offset == DeclaredOps.member("dealloc_td").offset() ? deallocTd : 0;
        }

        @Override
        public synchronized void track(NativeKind kind, long address, AbstractVerbsObject object) {
            tracked.put(address, kind);
        }

        @Override
        public void multicastChanged(long qp, Gid gid, int lid, boolean attached) {
            // the fake context has no Cleaner; NativeContextResourcesTest covers the record
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
        public long contextHandle() {
            return CONTEXT;
        }

        @Override
        public void checkPort(int portNum) {
            if (portNum != 1) {
                throw new IllegalArgumentException("port " + portNum);
            }
        }

        @Override
        public long allocate(long bytes) {
            return binding.allocate(bytes);
        }

        @Override
        public void free(long address) {
            binding.free(address);
        }

        @Override
        protected int destroy() {
            return 0;
        }

        @Override
        public Device device() {
            return (Device) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Device.class},
                    (p, m, a) -> m.getName().equals("name") ? "fake0" : null);
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
        public int queryPkey(int portNum, int index) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int pkeyIndex(int portNum, int pkey) {
            throw new UnsupportedOperationException();
        }

        @Override
        public org.verbs4j.GidEntry queryGidEntry(int portNum, int index) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<org.verbs4j.GidEntry> queryGidTable(int maxEntries) {
            throw new UnsupportedOperationException();
        }

        @Override
        public AhAttributes initAhAttributes(int portNum, org.verbs4j.WorkCompletion wc, MemorySegment grh) {
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
        public long deviceCapFlagsEx() {
            return 0;
        }

        @Override
        public boolean ipCsum() {
            return false;
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

        @Override
        public void modifyModeration(int cqCount, int cqPeriodMicros) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int resize(int cqe) {
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
