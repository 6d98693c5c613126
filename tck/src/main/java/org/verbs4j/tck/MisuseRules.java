package org.verbs4j.tck;

// Over 500 lines on purpose: one TCK area (tck/README.md lists one class per area): each misuse rule is a short
// method; the random walk is MisuseWalk.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.PostSendException;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.Sge;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.VerbsObject;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * Misuse, as a hostile user would try it: memory that is freed under a region or never registered, bad and
 * overflowing arguments, use after close, closed objects passed as arguments, teardown with windows bound, and
 * posting from a thread whose interrupt status is set.
 * Each rule is a guarantee of the API (issue 13): a mistake gives an exception or an error completion, never a
 * JVM crash, a write into freed memory, or a hang.
 *
 * <p>The inline rule from an unmapped address and the random walk run in the kit's child JVM
 * ({@link ForkedScenario}), so a crashing provider fails that rule instead of ending the run; the others run in
 * the kit's JVM.
 */
public abstract class MisuseRules extends TckArea {
    // Over 600 lines: one TCK area (one @Nested class, one report section).
    private static final int WINDOW_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected MisuseRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    // ---------------------------------------------------------------- regions and their memory

    @Test
    @DisplayName("required_ registering a segment whose shared arena is closed throws IllegalStateException [ibv_reg_mr(3), ProtectionDomain.registerMemory]")
    void required_registerClosedSharedArena() {
        Arena arena = Arena.ofShared();
        MemorySegment seg = arena.allocate(4096, 4096);
        arena.close();
        Expect.thrown("registerMemory of a freed segment", IllegalStateException.class,
                () -> tb.pd().registerMemory(seg, Testbed.ALL_ACCESS));
    }

    @Test
    @DisplayName("required_ registering a segment whose confined arena is closed throws IllegalStateException [ibv_reg_mr(3), ProtectionDomain.registerMemory]")
    void required_registerClosedConfinedArena() {
        Arena arena = Arena.ofConfined();
        MemorySegment seg = arena.allocate(64);
        arena.close();
        Expect.thrown("registerMemory of a freed segment", IllegalStateException.class,
                () -> tb.pd().registerMemory(seg, AccessFlags.LOCAL_WRITE, arena));
    }

    @Test
    @DisplayName("required_ a region registered with its arena is deregistered when the arena closes, and a remote write through its old rkey completes with REM_ACCESS_ERR and changes nothing [ibv_dereg_mr(3), ProtectionDomain.registerMemory(segment, access, owner)]")
    void required_ownedRegionDiesWithItsArena() {
        QpPair p = tb.pair(QpType.RC);
        Arena arena = Arena.ofShared();
        MemorySegment seg = arena.allocate(4096, 4096);
        MemoryRegion old = tb.pd().registerMemory(seg, Testbed.ALL_ACCESS, arena);
        long oldAddress = old.address();
        int oldRkey = old.rkey();
        arena.close();
        assertTrue(old.isClosed(), "closing the owner arena must close the region registered with it");
        // New allocations, registered for remote write, that may reuse the freed addresses.
        List<MemoryRegion> fresh = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            fresh.add(tb.buffer(4096));
        }
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 5);
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(1, src, 64, oldAddress, oldRkey).status(),
                "a write through the rkey of a region whose arena closed");
        for (MemoryRegion f : fresh) {
            Data.assertFilled("a new allocation after the old region's arena closed", f.segment(), 0, 4096, (byte) 0);
        }
    }

    @Test
    @DisplayName("required_ a plain registerMemory of memory from a confined, shared or automatic arena is refused with IllegalArgumentException naming registerMemory(segment, access, arena), since that arena may free it under the region; memory of the global arena is registered [ProtectionDomain.registerMemory(segment, access), issue 26]")
    void required_plainRegistrationRefusesFreeableMemory() {
        try (Arena confined = Arena.ofConfined(); Arena shared = Arena.ofShared()) {
            for (MemorySegment seg : List.of(confined.allocate(4096, 4096), shared.allocate(4096, 4096),
                    shared.allocate(8192, 64).asSlice(64, 4096), Arena.ofAuto().allocate(4096, 4096))) {
                IllegalArgumentException e = Expect.thrown("a plain registration of memory an arena can free",
                        IllegalArgumentException.class, () -> tb.pd().registerMemory(seg, Testbed.ALL_ACCESS));
                assertTrue(String.valueOf(e.getMessage()).contains("registerMemory(segment, access, arena)"),
                        "the refusal must name the fix, registerMemory(segment, access, arena): " + e.getMessage());
            }
        }
        MemoryRegion global = tb.pd().registerMemory(Arena.global().allocate(64, 64), Testbed.ALL_ACCESS);
        assertEquals(64, global.length(), "memory of the global arena, never freed, is registered");
        global.close();
    }

    @Test
    @DisplayName("required_ the careless sequence, arena closed under an open region: after the close the region is closed, a remote WRITE and a remote READ through its old rkey complete with REM_ACCESS_ERR, a local SGE with its old lkey with LOC_PROT_ERR (rxe: LOC_QP_OP_ERR), and no byte of memory allocated after the close changes [ibv_dereg_mr(3), ProtectionDomain.registerMemory, issue 26]")
    void required_arenaClosedUnderOpenRegion() {
        Testbed far = tb.peer(); // the responder's: remote accesses reach its regions through b
        Arena arena = Arena.ofShared();
        MemoryRegion remote = far.pd().registerMemory(arena.allocate(4096, 4096), Testbed.ALL_ACCESS, arena);
        MemoryRegion local = tb.pd().registerMemory(arena.allocate(4096, 4096), Testbed.ALL_ACCESS, arena);
        long remoteAddress = remote.address();
        int remoteRkey = remote.rkey();
        long localAddress = local.address();
        int localLkey = local.lkey();
        arena.close();
        assertTrue(remote.isClosed() && local.isClosed(), "the regions must be closed by their arena's close");
        List<MemoryRegion> fresh = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            fresh.add(far.buffer(4096));
            fresh.add(tb.buffer(4096));
        }
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 9);
        assertEquals(WcStatus.REM_ACCESS_ERR, tb.pair(QpType.RC).write(1, src, 64, remoteAddress, remoteRkey).status(),
                "a remote WRITE through the rkey of a region whose arena closed");
        MemoryRegion dst = tb.buffer(64);
        assertEquals(WcStatus.REM_ACCESS_ERR, tb.pair(QpType.RC).read(2, dst, 64, remoteAddress, remoteRkey).status(),
                "a remote READ through the rkey of a region whose arena closed");
        Data.assertFilled("the READ's destination", dst.segment(), 0, 64, (byte) 0);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = p.remoteBuffer(64);
        SendWr write = new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(localAddress, 64, localLkey)).rdma(target.address(), target.rkey());
        boolean refused = false;
        try {
            p.a().postSend(write);
        } catch (VerbsException | IllegalArgumentException e) {
            refused = true;
        }
        if (!refused) {
            WcStatus status = Completions.awaitOne(p.cqA(), "the WRITE from the old lkey").status();
            assertTrue(status == WcStatus.LOC_PROT_ERR || status == WcStatus.LOC_QP_OP_ERR,
                    "a local SGE with the lkey of a region whose arena closed: expected LOC_PROT_ERR (or rxe's "
                    + "LOC_QP_OP_ERR, its deviation for a deregistered lkey), got " + status);
        }
        Data.assertFilled("the WRITE's target", target.segment(), 0, 64, (byte) 0);
        for (MemoryRegion f : fresh) {
            Data.assertFilled("memory allocated after the arena closed", f.segment(), 0, 4096, (byte) 0);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    @DisplayName("required_ an arena closed by another thread while this thread writes through its region's rkey: every WRITE completes SUCCESS (while the region is registered) or REM_ACCESS_ERR, the region is closed with the arena, and no byte of memory allocated after the close changes [ibv_dereg_mr(3), ProtectionDomain.registerMemory, issue 26]")
    void required_arenaClosedByAnotherThreadDuringWrites() {
        Testbed far = tb.peer(); // the responder's: the WRITEs reach its regions through b
        Arena arena = Arena.ofShared();
        MemoryRegion old = far.pd().registerMemory(arena.allocate(4096, 4096), Testbed.ALL_ACCESS, arena);
        long oldAddress = old.address();
        int oldRkey = old.rkey();
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 11);
        QpPair p = tb.pair(QpType.RC);
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        Thread closer = Thread.ofPlatform().name("tck-arena-closer").start(() -> {
            try {
                started.await();
                arena.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        WcStatus last = WcStatus.SUCCESS;
        int writes = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (last == WcStatus.SUCCESS && System.nanoTime() < deadline) {   // the budget ends the loop
            last = p.write(100 + writes, src, 64, oldAddress, oldRkey).status();
            writes++;
            started.countDown();
        }
        long closeDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (closer.isAlive() && System.nanoTime() < closeDeadline) {   // not join(): it throws if interrupted
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
        }
        assertTrue(!closer.isAlive() && !arena.scope().isAlive(), "the other thread closed the arena");
        assertTrue(old.isClosed(), "the region must be closed by its arena's close");
        assertEquals(WcStatus.REM_ACCESS_ERR, last, "after " + writes + " WRITEs, the first that did not succeed");
        List<MemoryRegion> fresh = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            fresh.add(far.buffer(4096));
        }
        assertEquals(WcStatus.REM_ACCESS_ERR, tb.pair(QpType.RC).write(1, src, 64, oldAddress, oldRkey).status(),
                "a WRITE through the old rkey after the close");
        for (MemoryRegion f : fresh) {
            Data.assertFilled("memory allocated after the arena closed", f.segment(), 0, 4096, (byte) 0);
        }
    }

    @Test
    @DisplayName("required_ an arena closed while a type 1 window is bound to its region deallocates the window, then deregisters the region: both are closed, and a WRITE through the window's rkey or the region's completes with REM_ACCESS_ERR and changes no byte of memory allocated after [ibv_dealloc_mw(3), ibv_dereg_mr(3), ProtectionDomain.registerMemory(segment, access, owner), issue 26]")
    void required_arenaClosedUnderBoundWindow() {
        assumeMw(MwType.TYPE_1);
        QpPair p = tb.pair(QpType.RC);
        Testbed far = p.remote(); // the window is bound through b, in the responder's PD
        Arena arena = Arena.ofShared();
        MemoryRegion old = far.pd().registerMemory(arena.allocate(4096, 4096),
                Testbed.ALL_ACCESS | AccessFlags.MW_BIND, arena);
        MemoryWindow mw = far.pd().allocMw(MwType.TYPE_1);
        int mwRkey = p.b().bindMw(mw, 1, SendFlags.SIGNALED, new MwBindInfo(old, old.address(), 4096,
                AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "the type 1 bind").status());
        long oldAddress = old.address();
        int oldRkey = old.rkey();
        arena.close();
        assertTrue(mw.isClosed(), "the window bound to the region must be deallocated by its arena's close");
        assertTrue(old.isClosed(), "the region must be closed by its arena's close");
        List<MemoryRegion> fresh = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            fresh.add(far.buffer(4096));
        }
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 13);
        assertEquals(WcStatus.REM_ACCESS_ERR, tb.pair(QpType.RC).write(1, src, 64, oldAddress, mwRkey).status(),
                "a WRITE through the rkey of a window whose region's arena closed");
        assertEquals(WcStatus.REM_ACCESS_ERR, tb.pair(QpType.RC).write(2, src, 64, oldAddress, oldRkey).status(),
                "a WRITE through the rkey of the region whose arena closed");
        for (MemoryRegion f : fresh) {
            Data.assertFilled("memory allocated after the arena closed", f.segment(), 0, 4096, (byte) 0);
        }
    }

    @Test
    @DisplayName("required_ registerMemory with an owner arena refuses a segment of another arena with IllegalArgumentException [ProtectionDomain.registerMemory(segment, access, owner)]")
    void required_ownedRegionNeedsItsOwnArena() {
        try (Arena other = Arena.ofConfined()) {
            MemorySegment seg = tb.memory(64);
            Expect.thrown("registerMemory with a foreign owner", IllegalArgumentException.class,
                    () -> tb.pd().registerMemory(seg, AccessFlags.LOCAL_WRITE, other));
        }
    }

    // ---------------------------------------------------------------- inline data from bad addresses

    private QpPair inlinePair() {
        assumeInline();
        return tb.pair(QpType.RC, b -> b.maxInlineData(16));
    }

    private void assumeInline() {
        assumeTrue(caps().maxInlineData() >= 16, "capability: less than 16 bytes of inline data");
        assumeOp(QpType.RC, WrOpcode.RDMA_WRITE);
    }

    private static void assertInlineRefused(QpPair p, Sge sge, MemoryRegion dst, String what) {
        SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)
                .sgList(sge).rdma(dst.address(), dst.rkey());
        VerbsException e = Expect.errno(what, () -> p.a().postSend(wr), Errno.EINVAL);
        assertInstanceOf(PostSendException.class, e, what + ": postSend reports a PostSendException with bad_wr");
        assertEquals(0, ((PostSendException) e).badWrIndex(), what + ": bad_wr of a one-WR list");
        Completions.assertNone(p.cqA(), what + ": the refused WR must not execute");
        Data.assertFilled(what + ": the destination", dst.segment(), 0, dst.length(), (byte) 0);
    }

    /**
     * Runs in a child JVM ({@link ForkedScenario}): before issue 13 was fixed, every provider crashed the JVM
     * here (SIGSEGV in a raw copy from address 0).
     */
    @Test
    @DisplayName("required_ an INLINE WR whose SGE points at an unmapped address fails with EINVAL and is never read; run in a child JVM, which must not crash [ibv_post_send(3) IBV_SEND_INLINE, DESIGN.md Errors]")
    void required_inlineFromUnmappedAddress() throws Exception {
        assumeInline();
        ForkedScenario.assertHolds(kit(), "inlineFromUnmappedAddress", "inline data from an unmapped address");
    }

    /** The scenario of {@link #required_inlineFromUnmappedAddress}, run by the child JVM. */
    static void inlineFromUnmappedAddressScenario(Testbed tb) {
        QpPair p = tb.pair(QpType.RC, b -> b.maxInlineData(16));
        assertInlineRefused(p, new Sge(0L, 16, 0), tb.buffer(16), "inline data at address 0");
        assertInlineRefused(p, new Sge(-4096L, 16, 0), tb.buffer(16), "inline data at the top of the address space");
    }

    @Test
    @DisplayName("required_ an INLINE WR whose SGE points at readable but unregistered memory fails with EINVAL: nothing of it is sent [ibv_post_send(3) IBV_SEND_INLINE, DESIGN.md Errors]")
    void required_inlineFromUnregisteredMemory() {
        QpPair p = inlinePair();
        MemorySegment secret = tb.memory(16);
        Data.fill(secret, 77);
        assertInlineRefused(p, new Sge(secret.address(), 16, 0), tb.buffer(16), "inline data from unregistered memory");
    }

    @Test
    @DisplayName("required_ an INLINE WR from a region whose arena was closed fails with EINVAL and reads no freed memory [ibv_post_send(3) IBV_SEND_INLINE, DESIGN.md Errors]")
    void required_inlineFromFreedRegion() {
        QpPair p = inlinePair();
        Arena arena = Arena.ofShared();
        MemoryRegion freed = tb.pd().registerMemory(arena.allocate(4096, 4096), Testbed.ALL_ACCESS, arena);
        long address = freed.address();
        arena.close();
        try {
            assertInlineRefused(p, new Sge(address, 16, 0), tb.buffer(16), "inline data from a freed region");
        } finally {
            freed.close();
        }
    }

    @Test
    @DisplayName("required_ an INLINE WR whose SGE runs past the end of its region fails with EINVAL [ibv_post_send(3) IBV_SEND_INLINE, DESIGN.md Errors]")
    void required_inlinePastRegionEnd() {
        QpPair p = inlinePair();
        MemoryRegion src = tb.buffer(4096);
        assertInlineRefused(p, new Sge(src.address() + 4096 - 8, 16, 0), tb.buffer(16), "inline data past a region's end");
    }

    // ---------------------------------------------------------------- a random walk of misuse

    /**
     * The seeded random walk of {@link MisuseWalk}, in a child JVM ({@link ForkedScenario}) so that a crash
     * fails this rule; {@link VerbsCompatibilityKit#misuseWalkSteps()} sets its length and
     * {@value #MISUSE_SEED_PROPERTY} replays a seed.
     */
    @Test
    @DisplayName("required_ a seeded random walk of create, post, session, close, arena close and poll calls over every object ends each failing call in a documented exception, changes no canary byte around any buffer and never crashes the JVM; run in a child JVM [DESIGN.md Errors, VerbsObject, ProtectionDomain.registerMemory]")
    void required_randomMisuseWalk() throws Exception {
        ForkedScenario.assertHolds(kit(), "misuseWalk",
                "the misuse walk (seed " + misuseSeed() + ", " + kit().misuseWalkSteps() + " steps)");
    }

    /** The system property that gives the misuse walk its seed. */
    static final String MISUSE_SEED_PROPERTY = "verbs4j.tck.misuseSeed";
    private static final long DEFAULT_MISUSE_SEED = 0x5eed_13L;

    /** {@return the walk's seed: {@value #MISUSE_SEED_PROPERTY}, else a fixed one} */
    static long misuseSeed() {
        return Long.getLong(MISUSE_SEED_PROPERTY, DEFAULT_MISUSE_SEED);
    }

    /** The scenario of {@link #required_randomMisuseWalk}, run by the child JVM. */
    static void misuseWalkScenario(Testbed tb) {
        int steps = Integer.getInteger(VerbsCompatibilityKit.MISUSE_WALK_STEPS_PROPERTY,
                VerbsCompatibilityKit.DEFAULT_MISUSE_WALK_STEPS);
        long seed = misuseSeed();
        long start = System.nanoTime();
        MisuseWalk.Result r = MisuseWalk.run(tb, seed, steps);
        System.out.println("misuse walk, seed " + seed + ": " + r + " in "
                + (System.nanoTime() - start) / 1_000_000 + " ms");
        assertTrue(r.posted() > steps / 100 && r.completed() > 0,
                "the walk must also post work that executes: " + r);
        assertTrue(r.refused() > steps / 20, "the walk must exercise misuse: " + r);
    }

    // ---------------------------------------------------------------- null and overflowing arguments

    static Stream<Arguments> nullArguments() {
        return Stream.of(
                namedCall("QueuePair.modify with QpAttrMask.ALL and no address vector", "attributes", x -> {
                    QueuePair qp = x.tb.qp(QpType.RC, x.tb.cq(8), null);
                    QpAttributes a = QpAttributes.toInit(x.tb.port(), 0, 0);
                    a.mask(QpAttrMask.ALL);
                    return () -> qp.modify(a);
                }),
                namedCall("SendWr.sgList with a null element", "sgList", x ->
                        () -> new SendWr().sgList(new Sge(0, 0, 0), null)),
                namedCall("RecvWr.sgList with a null element", "sgList", x ->
                        () -> new RecvWr().sgList(new Sge(0, 0, 0), null)),
                namedCall("QueuePair.postSend of a WR whose list gained a null element", "sgList", x -> {
                    QpPair p = x.tb.pair(QpType.RC);
                    MemoryRegion mr = x.tb.buffer(64);
                    Sge[] list = {Sge.of(mr, 0, 8)};
                    SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                            .sgList(list).rdma(mr.address(), mr.rkey());
                    list[0] = null;
                    return () -> p.a().postSend(wr);
                }),
                namedCall("QueuePair.postRecv of a WR whose list gained a null element", "sgList", x -> {
                    QueuePair qp = x.tb.qp(QpType.RC, x.tb.cq(8), null);
                    x.tb.toInit(qp);
                    MemoryRegion mr = x.tb.buffer(64);
                    Sge[] list = {Sge.of(mr, 0, 8)};
                    RecvWr wr = new RecvWr().wrId(1).sgList(list);
                    list[0] = null;
                    return () -> qp.postRecv(wr);
                }),
                namedCall("WrSession.setSgeList with a null element", "sges", x -> {
                    assumeTrue(x.caps().wrSession() && x.caps().supports(QpType.RC, WrOpcode.SEND),
                            "capability: the device has no WR session API (ibv_wr_*) with SEND on RC");
                    QpPair p = x.tb.pair(QpType.RC, b -> b.sendOps(WrOpcode.SEND));
                    WrSession s = p.a().startWr();
                    s.send();
                    return () -> {
                        try {
                            s.setSgeList(new Sge[] {new Sge(0, 0, 0), null}, 2);
                        } finally {
                            s.abort();
                        }
                    };
                }),
                namedCall("QpInitAttributes with null sendOps", "sendOps", x -> {
                    CompletionQueue cq = x.tb.cq(8);
                    return () -> new QpInitAttributes(QpType.RC, cq, cq, null, new QpCapabilities(8, 8, 1, 1, 0),
                            false, null, null, 0);
                }),
                namedCall("QpInitAttributes.Builder.sendOps with a null set", "sendOps", x ->
                        () -> QpInitAttributes.builder(QpType.RC).sendOps((Set<WrOpcode>) null)),
                namedCall("CompletionQueue.poll(null)", "batch", x -> {
                    CompletionQueue cq = x.tb.cq(8);
                    return () -> cq.poll(null);
                }),
                namedCall("Context.pollAsyncEvent(1, null)", "unit", x -> () -> x.tb.context().pollAsyncEvent(1, null)),
                namedCall("CompletionChannel.awaitEvent(1, null)", "unit", x -> {
                    assumeTrue(x.caps().completionChannel(), "capability: the device has no completion channels");
                    CompletionChannel ch = x.tb.context().createCompletionChannel();
                    return () -> ch.awaitEvent(1, null);
                }));
    }

    private static Arguments namedCall(String name, String argument, Function<MisuseRules, Executable> call) {
        return Arguments.of(Named.of(name, call), argument);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nullArguments")
    @DisplayName("required_ a null argument is refused by a parameter check that names it, not by a NullPointerException from inside [DESIGN.md Errors]")
    void required_nullArgumentNamed(Function<MisuseRules, Executable> call, String argument) {
        Throwable t = Expect.badInput("a null argument", call.apply(this));
        String message = String.valueOf(t.getMessage());
        if (message.startsWith("Cannot ") || !message.contains(argument)) {
            fail("a null argument must be refused by a check whose message names '" + argument
                    + "', but the exception came from inside: " + t, t);
        }
    }

    @Test
    @DisplayName("required_ Sge.of with an offset near Long.MAX_VALUE throws IndexOutOfBoundsException: offset + length cannot overflow past the check [Sge.of]")
    void required_sgeOfOverflow() {
        MemoryRegion mr = tb.buffer(64);
        Expect.thrown("Sge.of(mr, Long.MAX_VALUE, 8)", IndexOutOfBoundsException.class, () -> Sge.of(mr, Long.MAX_VALUE, 8));
        Expect.thrown("Sge.of(mr, Long.MAX_VALUE - 4, 8)", IndexOutOfBoundsException.class,
                () -> Sge.of(mr, Long.MAX_VALUE - 4, 8));
    }

    // ---------------------------------------------------------------- type 1 binds outside the region

    @Test
    @DisplayName("required_ a type 1 bind past the region's end or at a negative address fails with EINVAL [ibv_bind_mw(3): the range must lie in the MR]")
    void required_type1BindOutsideRegion() {
        assumeMw(MwType.TYPE_1);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = tb.buffer(4096, Testbed.ALL_ACCESS | AccessFlags.MW_BIND);
        MemoryWindow mw = tb.pd().allocMw(MwType.TYPE_1);
        Expect.errno("a type 1 bind 32 bytes past the region's end",
                () -> p.b().bindMw(mw, 1, SendFlags.SIGNALED, new MwBindInfo(target, target.address() + 4096 - 32, 64,
                        WINDOW_ACCESS)), Errno.EINVAL);
        Expect.errno("a type 1 bind at a negative address",
                () -> p.b().bindMw(mw, 2, SendFlags.SIGNALED, new MwBindInfo(target, -4096, 64, WINDOW_ACCESS)),
                Errno.EINVAL);
        Expect.errno("a type 1 bind below the region's start",
                () -> p.b().bindMw(mw, 3, SendFlags.SIGNALED, new MwBindInfo(target, target.address() - 64, 64,
                        WINDOW_ACCESS)), Errno.EINVAL);
        Completions.assertNone(p.cqB(), "a refused bind must not execute");
    }

    // ---------------------------------------------------------------- every method after close

    static Stream<Arguments> closedObjects() {
        return Stream.of(
                closedObject("Context", Context.class, x -> x.tb.device().open()),
                closedObject("ProtectionDomain", ProtectionDomain.class, x -> x.tb.context().allocPd()),
                closedObject("MemoryRegion", MemoryRegion.class, x -> x.tb.buffer(64)),
                closedObject("MemoryWindow", MemoryWindow.class, x -> {
                    assumeTrue(!x.caps().memoryWindowTypes().isEmpty(), "capability: the device has no memory windows");
                    return x.tb.pd().allocMw(x.caps().memoryWindowTypes().iterator().next());
                }),
                closedObject("AddressHandle", AddressHandle.class, x -> x.tb.ah()),
                closedObject("CompletionQueue", CompletionQueue.class, x -> x.tb.cq(8)),
                closedObject("CompletionChannel", CompletionChannel.class, x -> {
                    assumeTrue(x.caps().completionChannel(), "capability: the device has no completion channels");
                    return x.tb.context().createCompletionChannel();
                }),
                closedObject("QueuePair", QueuePair.class, x -> x.tb.qp(QpType.RC, x.tb.cq(8), null)),
                closedObject("SharedReceiveQueue", SharedReceiveQueue.class, x -> {
                    assumeTrue(x.caps().srq(), "capability: the device has no shared receive queues");
                    return x.tb.pd().createSrq(new SrqInitAttributes(8, 1, 0));
                }),
                closedObject("ThreadDomain", org.verbs4j.ThreadDomain.class, x -> {
                    assumeTrue(x.caps().threadDomains(), "capability: the device has no thread domains");
                    return x.tb.context().allocTd();
                }),
                closedObject("DeviceMemory", org.verbs4j.DeviceMemory.class, x -> {
                    assumeTrue(x.caps().deviceMemory(), "capability: the device has no device memory");
                    return x.tb.context().allocDm(64, 0);
                }),
                closedObject("MemoryRegion of device memory", MemoryRegion.class, x -> {
                    assumeTrue(x.caps().deviceMemory(), "capability: the device has no device memory");
                    return x.tb.pd().registerDeviceMemory(x.tb.context().allocDm(64, 0), 0, 64,
                            AccessFlags.ZERO_BASED | AccessFlags.LOCAL_WRITE);
                }),
                closedObject("XrcDomain", org.verbs4j.XrcDomain.class, x -> {
                    assumeTrue(x.caps().xrc(), "capability: the device has no XRC");
                    return x.tb.context().openXrcd();
                }),
                closedObject("QueuePair of type XRC_RECV", QueuePair.class, x -> {
                    assumeTrue(x.caps().xrc(), "capability: the device has no XRC");
                    return x.tb.context().openXrcd().createRecvQp();
                }),
                closedObject("QueuePair opened with ibv_open_qp", QueuePair.class, x -> {
                    assumeTrue(x.caps().xrc(), "capability: the device has no XRC");
                    org.verbs4j.XrcDomain d = x.tb.context().openXrcd();
                    return d.openQp(d.createRecvQp().qpNum());
                }),
                closedObject("SharedReceiveQueue of XRC", SharedReceiveQueue.class, x -> {
                    assumeTrue(x.caps().xrc(), "capability: the device has no XRC");
                    return x.tb.context().openXrcd().createSrq(x.tb.pd(), x.tb.cq(4), new SrqInitAttributes(8, 1, 0));
                }));
    }

    private static Arguments closedObject(String name, Class<? extends VerbsObject> type,
                                          Function<MisuseRules, VerbsObject> create) {
        return Arguments.of(Named.of(name, type), create);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("closedObjects")
    @DisplayName("required_ every method of a closed object but isClosed() and close() throws IllegalStateException, getters included, whatever the arguments [VerbsObject: use after close()]")
    void required_everyMethodAfterClose(Class<? extends VerbsObject> type, Function<MisuseRules, VerbsObject> create)
            throws IllegalAccessException {
        VerbsObject o = create.apply(this);
        o.close();
        List<String> answered = new ArrayList<>();
        for (Method m : type.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) || m.getDeclaringClass() == Object.class
                    || m.getName().equals("close") || m.getName().equals("isClosed")) {
                continue;
            }
            Object[] args = new Object[m.getParameterCount()];
            Class<?>[] types = m.getParameterTypes();
            for (int i = 0; i < args.length; i++) {
                args[i] = defaultValue(types[i]);
            }
            try {
                m.invoke(o, args);
                answered.add(m.getName() + " answered");
            } catch (InvocationTargetException e) {
                if (!(e.getCause() instanceof IllegalStateException)) {
                    answered.add(m.getName() + " threw " + e.getCause());
                }
            }
        }
        if (!answered.isEmpty()) {
            fail("after close() every method of " + type.getSimpleName()
                    + " must throw IllegalStateException before looking at its arguments: " + answered);
        }
    }

    private static Object defaultValue(Class<?> t) {
        if (t == int.class) {
            return 0;
        } else if (t == long.class) {
            return 0L;
        } else if (t == boolean.class) {
            return false;
        } else if (t == short.class) {
            return (short) 0;
        } else if (t == byte.class) {
            return (byte) 0;
        }
        return null;
    }

    // ---------------------------------------------------------------- closed objects as arguments

    @Test
    @DisplayName("required_ a closed address handle in a UD postSend is refused at the call and nothing executes [ibv_destroy_ah(3), ibv_post_send(3)]")
    void required_closedAhInPostSend() {
        assumeQp(QpType.UD);
        QpPair p = tb.pair(QpType.UD);
        AddressHandle ah = tb.ah();
        ah.close();
        MemoryRegion src = tb.buffer(64);
        SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(src, 0, 16)).ud(ah, p.b().qpNum(), Testbed.QKEY);
        Throwable t = Expect.refused("postSend with a closed address handle", () -> p.a().postSend(wr));
        if (t instanceof VerbsException v) {
            assertEquals(Errno.EINVAL, v.errno(), "postSend with a closed address handle: " + v);
        }
        Completions.assertNone(p.cqA(), "a WR with a closed address handle must not execute");
    }

    @Test
    @DisplayName("required_ a closed address handle in a WR session's setUdAddr is refused, at the setter or by complete() with EINVAL, as postSend refuses it, and nothing executes [ibv_destroy_ah(3), ibv_wr_post(3) ibv_wr_set_ud_addr]")
    void required_closedAhInSession() {
        assumeSession(QpType.UD, WrOpcode.SEND);
        QpPair p = tb.pair(QpType.UD, b -> b.sendOps(WrOpcode.SEND));
        AddressHandle ah = tb.ah();
        ah.close();
        MemoryRegion src = tb.buffer(64);
        p.recvB(1, tb.buffer(64 + 40), 0, 64 + 40);
        try (WrSession s = p.a().startWr()) {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.send();
            assertSessionRefused("a session WR with a closed address handle", () -> {
                s.setUdAddr(ah, p.b().qpNum(), Testbed.QKEY);
                s.setSge(src.lkey(), src.address(), 16);
                s.complete();
            });
        }
        Completions.assertNone(p.cqA(), "a session WR with a closed address handle must not execute");
        Completions.assertNone(p.cqB(), "a session WR with a closed address handle must not arrive");
    }

    @Test
    @DisplayName("required_ a closed type 2 window in a WR session's bindMw is refused, at the builder or by complete() with EINVAL, as postSend refuses it, and nothing executes [ibv_dealloc_mw(3), ibv_wr_post(3) ibv_wr_bind_mw]")
    void required_closedType2WindowInSession() {
        assumeMw(MwType.TYPE_2);
        assumeSession(QpType.RC, WrOpcode.BIND_MW);
        QpPair p = tb.pair(QpType.RC, b -> b.sendOps(WrOpcode.BIND_MW));
        MemoryRegion target = tb.buffer(4096, Testbed.ALL_ACCESS | AccessFlags.MW_BIND);
        MemoryWindow mw = tb.pd().allocMw(MwType.TYPE_2);
        int rkey = MemoryWindow.incRkey(mw.rkey());
        mw.close();
        try (WrSession s = p.a().startWr()) {
            s.wrId(5);
            s.wrFlags(SendFlags.SIGNALED);
            assertSessionRefused("a session bind of a closed window", () -> {
                s.bindMw(mw, rkey, new MwBindInfo(target, target.address(), 4096, WINDOW_ACCESS));
                s.complete();
            });
        }
        Completions.assertNone(p.cqA(), "a session bind of a closed window must not execute");
    }

    private static void assertSessionRefused(String what, Executable calls) {
        Throwable t = Expect.refused(what, calls);
        if (t instanceof VerbsException v) {
            assertEquals(Errno.EINVAL, v.errno(), what + ": " + v);
        }
    }

    @Test
    @DisplayName("required_ a closed type 2 window in a BIND_MW postSend is refused at the call and nothing executes [ibv_dealloc_mw(3), ibv_post_send(3)]")
    void required_closedType2WindowInPostSend() {
        assumeMw(MwType.TYPE_2);
        assumeOp(QpType.RC, WrOpcode.BIND_MW);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = tb.buffer(4096, Testbed.ALL_ACCESS | AccessFlags.MW_BIND);
        MemoryWindow mw = tb.pd().allocMw(MwType.TYPE_2);
        int rkey = MemoryWindow.incRkey(mw.rkey());
        mw.close();
        SendWr wr = new SendWr().wrId(5).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                .bindMw(mw, rkey, new MwBindInfo(target, target.address(), 4096, WINDOW_ACCESS));
        Throwable t = Expect.refused("BIND_MW of a closed window", () -> p.b().postSend(wr));
        if (t instanceof VerbsException v) {
            assertEquals(Errno.EINVAL, v.errno(), "BIND_MW of a closed window: " + v);
        }
        Completions.assertNone(p.cqB(), "a BIND_MW of a closed window must not execute");
    }

    @Test
    @DisplayName("required_ a closed type 1 window in bindMw is refused at the call and nothing executes [ibv_dealloc_mw(3), ibv_bind_mw(3)]")
    void required_closedType1WindowInBind() {
        assumeMw(MwType.TYPE_1);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = tb.buffer(4096, Testbed.ALL_ACCESS | AccessFlags.MW_BIND);
        MemoryWindow mw = tb.pd().allocMw(MwType.TYPE_1);
        mw.close();
        Throwable t = Expect.refused("bindMw of a closed window", () -> p.b().bindMw(mw, 1, SendFlags.SIGNALED,
                new MwBindInfo(target, target.address(), 4096, WINDOW_ACCESS)));
        if (t instanceof VerbsException v) {
            assertEquals(Errno.EINVAL, v.errno(), "bindMw of a closed window: " + v);
        }
        Completions.assertNone(p.cqB(), "a bind of a closed window must not execute");
    }

    // ---------------------------------------------------------------- teardown

    /**
     * The timeout guards against a hang, not a speed: on rxe, destroying the QP that bound a type 2 window
     * while the window is still allocated takes about 50 s, and deallocating the window first about 13 ms.
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    @DisplayName("required_ Context.close() with a bound type 2 window releases the window before the QPs and returns without waiting out a timeout [ibv_close_device(3), ibv_dealloc_mw(3)]")
    void required_contextCloseWithBoundWindow() {
        assumeMw(MwType.TYPE_2);
        assumeOp(QpType.RC, WrOpcode.BIND_MW);
        // The window is older than the QPs, so that releasing in reverse creation order alone is not enough.
        // The window, its region and the QP that binds it (b) are on b's testbed, whose context is closed.
        Testbed far = tb.peer();
        MemoryWindow mw = far.pd().allocMw(MwType.TYPE_2);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = far.buffer(4096, Testbed.ALL_ACCESS | AccessFlags.MW_BIND);
        int rkey = MemoryWindow.incRkey(mw.rkey());
        p.b().postSend(new SendWr().wrId(5).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                .bindMw(mw, rkey, new MwBindInfo(target, target.address(), 4096, WINDOW_ACCESS)));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "the type 2 bind").status());
        far.context().close();
        assertTrue(mw.isClosed() && (p.isSplit() || p.a().isClosed()) && p.b().isClosed() && target.isClosed(),
                "Context.close() releases every object created from it");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rcAndUd")
    @DisplayName("required_ a thread whose interrupt status is set posts a SEND (and on RC a WRITE), posts the receive for it and polls both CQs: every WR completes SUCCESS with its data, no call throws or clears the interrupt status, and the QPs serve the next round of WRs from a thread not interrupted [ibv_post_send(3), ibv_post_recv(3), ibv_poll_cq(3), Thread.interrupt()]")
    void required_interruptedThreadPostsAndPolls(QpType type) {
        assumeQp(type);
        QpPair p = tb.pair(type);
        MemoryRegion src = tb.buffer(4096);
        MemoryRegion dst = p.remoteBuffer(4096);
        for (int round = 0; round < 2; round++) {
            boolean interrupted = round == 0;
            Data.fill(src, 40 + round);
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            boolean kept;
            try {
                p.recvB(10 + round, dst, 2048, 1024);
                p.a().postSend(p.wr(20 + round, WrOpcode.SEND, src, 0, 512));
                int expected = 1;
                if (type == QpType.RC) {
                    p.a().postSend(p.wr(30 + round, WrOpcode.RDMA_WRITE, src, 1024, 512)
                            .rdma(dst.address(), dst.rkey()));
                    expected = 2;
                }
                String what = (interrupted ? "WRs posted by an interrupted thread" : "WRs posted after it");
                for (WorkCompletion wc : Completions.await(p.cqA(), expected, what)) {
                    assertEquals(WcStatus.SUCCESS, wc.status(), what + ": " + wc);
                }
                WorkCompletion recv = Completions.awaitOne(p.cqB(), "the receive of " + what);
                assertEquals(WcStatus.SUCCESS, recv.status(), "the receive of " + what + ": " + recv);
            } finally {
                kept = Thread.interrupted();
            }
            assertEquals(interrupted, kept, "the calls must leave the thread's interrupt status as it was");
            long at = type == QpType.UD ? 2048 + 40 : 2048; // a UD receive starts with the 40-byte GRH area
            Data.assertPattern("the SEND's data, round " + round, dst.segment(), at, 512, 40 + round, 0);
            if (type == QpType.RC) {
                Data.assertPattern("the WRITE's data, round " + round, dst.segment(), 0, 512, 40 + round, 1024);
            }
        }
    }

    static Stream<QpType> rcAndUd() {
        return Stream.of(QpType.RC, QpType.UD);
    }
}
