package org.verbs4j.tck;

// Over 500 lines on purpose: one TCK area (tck/README.md lists one class per area): the MR and MW rules are each a
// short method here.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.AccessFlags;
import org.verbs4j.DeviceAttributesEx;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MrAdvice;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.PostSendException;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpType;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.VerbsException;
import org.verbs4j.WcFlags;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;

/** Protection domains, memory regions and memory windows: access flags, bounds, keys, bind and invalidate. */
public abstract class MemoryRules extends TckArea {
    // Over 600 lines: one TCK area (one @Nested class, one report section).
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected MemoryRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    // LOCAL_WRITE is included because MwBindInfo validates window access like region access.
    private static final int WINDOW_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

    // ---------------------------------------------------------------- PD and MR

    @Test
    @DisplayName("required_ allocPd gives an open PD of this context [ibv_alloc_pd(3)]")
    void required_allocPd() {
        ProtectionDomain pd = tb.context().allocPd();
        assertSame(tb.context(), pd.context());
        assertFalse(pd.isClosed());
        pd.close();
        assertTrue(pd.isClosed());
    }

    @Test
    @DisplayName("required_ a region reports the address, length, access and segment it was registered with [ibv_reg_mr(3)]")
    void required_regionAttributes() {
        MemorySegment seg = tb.memory(4096);
        MemoryRegion mr = tb.pd().registerMemory(seg, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ, tb.arena());
        assertEquals(seg.address(), mr.address(), "MemoryRegion.address() is the segment's address");
        assertEquals(4096, mr.length());
        assertEquals(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ, mr.access());
        assertEquals(seg.address(), mr.segment().address());
        assertSame(tb.pd(), mr.pd());
    }

    @Test
    @DisplayName("required_ a region registered over a slice starts at the slice's address [ibv_reg_mr(3) addr]")
    void required_sliceRegistration() {
        MemorySegment seg = tb.memory(8192).asSlice(1000, 3000);
        MemoryRegion mr = tb.pd().registerMemory(seg, AccessFlags.LOCAL_WRITE, tb.arena());
        assertEquals(seg.address(), mr.address());
        assertEquals(3000, mr.length());
    }

    @Test
    @DisplayName("required_ registering a heap segment is refused with IllegalArgumentException [DESIGN Memory: heap segments rejected]")
    void required_heapSegmentRejected() {
        Expect.thrown("registerMemory(heap segment)", IllegalArgumentException.class,
                () -> tb.pd().registerMemory(MemorySegment.ofArray(new byte[4096]), AccessFlags.LOCAL_WRITE));
    }

    @Test
    @DisplayName("required_ registering a zero-length segment is refused with IllegalArgumentException [ProtectionDomain#registerMemory]")
    void required_zeroLengthRejected() {
        Expect.thrown("registerMemory(0 bytes)", IllegalArgumentException.class,
                () -> tb.pd().registerMemory(tb.memory(64).asSlice(0, 0), AccessFlags.LOCAL_WRITE, tb.arena()));
    }

    @Test
    @DisplayName("required_ REMOTE_WRITE without LOCAL_WRITE is refused [ibv_reg_mr(3): remote write needs local write]")
    void required_remoteWriteNeedsLocalWrite() {
        Expect.refused("registerMemory(REMOTE_WRITE)", () -> tb.pd().registerMemory(tb.memory(64), AccessFlags.REMOTE_WRITE, tb.arena()));
    }

    @Test
    @DisplayName("required_ REMOTE_ATOMIC without LOCAL_WRITE is refused [ibv_reg_mr(3): remote atomic needs local write]")
    void required_remoteAtomicNeedsLocalWrite() {
        Expect.refused("registerMemory(REMOTE_ATOMIC)",
                () -> tb.pd().registerMemory(tb.memory(64), AccessFlags.REMOTE_ATOMIC, tb.arena()));
    }

    @Test
    @DisplayName("required_ unknown access bits are refused with IllegalArgumentException [ibv_reg_mr(3) access]")
    void required_unknownAccessBitsRejected() {
        Expect.badInput("registerMemory(access 1<<30)", () -> tb.pd().registerMemory(tb.memory(64), 1 << 30, tb.arena()));
    }

    @Test
    @DisplayName("required_ REMOTE_READ alone and access 0 are valid registrations [ibv_reg_mr(3)]")
    void required_readOnlyRegistrations() {
        MemoryRegion r = tb.pd().registerMemory(tb.memory(64), AccessFlags.REMOTE_READ, tb.arena());
        MemoryRegion z = tb.pd().registerMemory(tb.memory(64), 0, tb.arena());
        assertEquals(AccessFlags.REMOTE_READ, r.access());
        assertEquals(0, z.access());
    }

    @Test
    @DisplayName("required_ the same memory registered twice gives two regions with different lkeys and rkeys [ibv_reg_mr(3)]")
    void required_twoRegistrationsDifferentKeys() {
        MemorySegment seg = tb.memory(4096);
        MemoryRegion m1 = tb.pd().registerMemory(seg, Testbed.ALL_ACCESS, tb.arena());
        MemoryRegion m2 = tb.pd().registerMemory(seg, Testbed.ALL_ACCESS, tb.arena());
        assertNotEquals(m1.lkey(), m2.lkey(), "two live regions share an lkey");
        assertNotEquals(m1.rkey(), m2.rkey(), "two live regions share an rkey");
    }

    @Test
    @DisplayName("required_ an SGE using a deregistered region's lkey completes with LOC_PROT_ERR [ibv_dereg_mr(3), ibv_poll_cq(3)]")
    void required_deregisteredLkeyRefused() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion dst = p.remoteBuffer(256);
        p.recvB(1, dst, 0, 256);
        MemoryRegion src = tb.buffer(256);
        int lkey = src.lkey();
        long addr = src.address();
        src.close();
        WorkCompletion wc = p.postA(p.address(new SendWr().wrId(7).opcode(WrOpcode.SEND)
                .sendFlags(SendFlags.SIGNALED).sgList(new Sge(addr, 64, lkey))));
        assertEquals(WcStatus.LOC_PROT_ERR, wc.status(), "a send from a deregistered region");
        assertEquals(7, wc.wrId());
    }

    @Test
    @DisplayName("required_ an RDMA WRITE to a deregistered region's rkey completes with REM_ACCESS_ERR [ibv_dereg_mr(3), IBA 9.7.5.1]")
    void required_deregisteredRkeyRefused() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        long addr = dst.address();
        int rkey = dst.rkey();
        dst.close();
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(1, src, 64, addr, rkey).status());
    }

    @Test
    @DisplayName("required_ an lkey of another PD's region completes with LOC_PROT_ERR [ibv_alloc_pd(3): PDs separate resources]")
    void required_lkeyOfOtherPdRefused() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion dst = p.remoteBuffer(64);
        p.recvB(1, dst, 0, 64);
        ProtectionDomain other = tb.context().allocPd();
        MemoryRegion foreign = other.registerMemory(tb.memory(64), Testbed.ALL_ACCESS, tb.arena());
        assertEquals(WcStatus.LOC_PROT_ERR, p.send(2, foreign, 0, 64).status());
    }

    @Test
    @DisplayName("required_ an rkey of another PD's region completes with REM_ACCESS_ERR [ibv_alloc_pd(3), IBA 10.6.3]")
    void required_rkeyOfOtherPdRefused() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        ProtectionDomain other = tb.context().allocPd();
        MemoryRegion foreign = other.registerMemory(tb.memory(64), Testbed.ALL_ACCESS, tb.arena());
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(1, src, 64, foreign.address(), foreign.rkey()).status());
        Data.assertFilled("the other PD's region", foreign.segment(), 0, 64, (byte) 0);
    }

    @Test
    @DisplayName("required_ an RDMA WRITE ending at the last byte of the remote region succeeds [ibv_reg_mr(3) bounds]")
    void required_writeToLastByte() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 3);
        MemoryRegion dst = p.remoteBuffer(256);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, 64, dst.address() + 192, dst.rkey()).status());
        Data.assertPattern("the last 64 bytes", dst.segment(), 192, 64, 3, 0);
    }

    @Test
    @DisplayName("required_ an RDMA WRITE one byte past the remote region completes with REM_ACCESS_ERR and writes nothing [IBA 9.7.5.1, rxe]")
    void required_writePastRegion() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 3);
        MemoryRegion dst = p.remoteBuffer(256);
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(1, src, 64, dst.address() + 193, dst.rkey()).status());
        Data.assertFilled("the remote region", dst.segment(), 0, 256, (byte) 0);
    }

    @Test
    @DisplayName("required_ an RDMA READ starting before the remote region completes with REM_ACCESS_ERR [IBA 9.7.5.1, rxe]")
    void required_readBeforeRegion() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion dst = tb.buffer(64);
        MemoryRegion remote = p.remoteBuffer(256);
        assertEquals(WcStatus.REM_ACCESS_ERR, p.read(1, dst, 64, remote.address() - 8, remote.rkey()).status());
    }

    @Test
    @DisplayName("required_ an SGE reaching one byte past its region completes with LOC_PROT_ERR [ibv_post_send(3) sg_list, rxe]")
    void required_sgePastRegion() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion dst = p.remoteBuffer(256);
        p.recvB(1, dst, 0, 256);
        MemoryRegion src = tb.buffer(64);
        WorkCompletion wc = p.postA(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(src.address() + 1, 64, src.lkey())));
        assertEquals(WcStatus.LOC_PROT_ERR, wc.status());
    }

    @Test
    @DisplayName("required_ RDMA WRITE to a region without REMOTE_WRITE completes with REM_ACCESS_ERR [ibv_reg_mr(3) access]")
    void required_writeNeedsRemoteWrite() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(1, src, 64, dst.address(), dst.rkey()).status());
    }

    @Test
    @DisplayName("required_ RDMA READ from a region without REMOTE_READ completes with REM_ACCESS_ERR [ibv_reg_mr(3) access]")
    void required_readNeedsRemoteRead() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion dst = tb.buffer(64);
        MemoryRegion remote = p.remoteBuffer(64, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
        assertEquals(WcStatus.REM_ACCESS_ERR, p.read(1, dst, 64, remote.address(), remote.rkey()).status());
    }

    @Test
    @DisplayName("required_ an atomic on a region without REMOTE_ATOMIC completes with REM_ACCESS_ERR [ibv_reg_mr(3) access]")
    void required_atomicNeedsRemoteAtomic() {
        assumeAtomics();
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion local = tb.buffer(8);
        MemoryRegion remote = p.remoteBuffer(8, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
        WorkCompletion wc = p.postA(p.wr(1, WrOpcode.ATOMIC_FETCH_AND_ADD, local, 0, 8)
                .atomic(remote.address(), 1, 0, remote.rkey()));
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status());
        assertEquals(0, Data.u64(remote.segment(), 0), "the refused atomic changed memory");
    }

    // ---------------------------------------------------------------- memory windows

    @Test
    @DisplayName("required_ allocMw gives a window of each type the device claims [ibv_alloc_mw(3)]")
    void required_allocMwClaimedTypes() {
        assumeTrue(!caps().memoryWindowTypes().isEmpty(), "capability: the device has no memory windows");
        for (MwType t : caps().memoryWindowTypes()) {
            MemoryWindow mw = tb.pd().allocMw(t);
            assertEquals(t, mw.type());
            assertSame(tb.pd(), mw.pd());
            mw.close();
            assertTrue(mw.isClosed());
        }
    }

    private static void assumeTrue(boolean b, String why) {
        org.junit.jupiter.api.Assumptions.assumeTrue(b, why);
    }

    @Test
    @DisplayName("required_ allocMw of a type the device lacks fails with a VerbsException [ibv_alloc_mw(3)]")
    void required_allocMwUnclaimedType() {
        for (MwType t : MwType.values()) {
            if (!caps().supports(t)) {
                Expect.errno("allocMw(" + t + ")", () -> tb.pd().allocMw(t), Errno.EOPNOTSUPP, Errno.EINVAL);
                return;
            }
        }
        assumeTrue(false, "capability: the device has every memory window type");
    }

    private MemoryRegion bindable(long bytes) {
        return bindable(tb, bytes);
    }

    /** A region windows can be bound to, in the PD of {@code where}: the testbed of the QP that binds them. */
    private static MemoryRegion bindable(Testbed where, long bytes) {
        return where.buffer(bytes, Testbed.ALL_ACCESS | AccessFlags.MW_BIND);
    }

    @Test
    @DisplayName("required_ binding a type 1 window returns its new rkey, and a peer writes through it into the region [ibv_bind_mw(3)]")
    void required_type1BindAndWrite() {
        assumeMw(MwType.TYPE_1);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = bindable(p.remote(), 4096);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_1);
        int rkey = p.b().bindMw(mw, 11, SendFlags.SIGNALED, new MwBindInfo(target, target.address() + 1024, 1024, WINDOW_ACCESS));
        WorkCompletion bind = Completions.awaitOne(p.cqB(), "the type 1 bind");
        assertEquals(WcStatus.SUCCESS, bind.status());
        assertEquals(WcOpcode.BIND_MW, bind.opcode());
        assertEquals(rkey, mw.rkey(), "MemoryWindow.rkey() is the rkey bindMw returned");
        MemoryRegion src = tb.buffer(128);
        Data.fill(src, 5);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, 128, target.address() + 1024, rkey).status());
        Data.assertPattern("the window's first bytes", target.segment(), 1024, 128, 5, 0);
    }

    @Test
    @DisplayName("required_ an access outside a bound type 1 window completes with REM_ACCESS_ERR [ibv_bind_mw(3)]")
    void required_type1OutsideWindow() {
        assumeMw(MwType.TYPE_1);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = bindable(p.remote(), 4096);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_1);
        int rkey = p.b().bindMw(mw, 11, SendFlags.SIGNALED, new MwBindInfo(target, target.address() + 1024, 1024, WINDOW_ACCESS));
        Completions.awaitOne(p.cqB(), "the type 1 bind");
        MemoryRegion src = tb.buffer(128);
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(1, src, 128, target.address(), rkey).status(),
                "a write below the window's start");
    }

    @Test
    @DisplayName("required_ a window's access flags apply: a WRITE through a read-only type 1 window completes with REM_ACCESS_ERR [ibv_bind_mw(3) mw_access_flags]")
    void required_type1AccessFlags() {
        assumeMw(MwType.TYPE_1);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = bindable(p.remote(), 4096);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_1);
        int rkey = p.b().bindMw(mw, 11, SendFlags.SIGNALED, new MwBindInfo(target, target.address(), 4096, AccessFlags.REMOTE_READ));
        Completions.awaitOne(p.cqB(), "the type 1 bind");
        MemoryRegion src = tb.buffer(64);
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(1, src, 64, target.address(), rkey).status());
    }

    @Test
    @DisplayName("required_ rebinding a type 1 window changes its rkey and the old rkey is refused with REM_ACCESS_ERR [ibv_bind_mw(3)]")
    void required_type1RebindNewRkey() {
        assumeMw(MwType.TYPE_1);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = bindable(p.remote(), 4096);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_1);
        MwBindInfo info = new MwBindInfo(target, target.address(), 4096, WINDOW_ACCESS);
        int first = p.b().bindMw(mw, 1, SendFlags.SIGNALED, info);
        Completions.awaitOne(p.cqB(), "the first bind");
        int second = p.b().bindMw(mw, 2, SendFlags.SIGNALED, info);
        Completions.awaitOne(p.cqB(), "the second bind");
        assertNotEquals(first, second, "a rebind must give a new rkey");
        MemoryRegion src = tb.buffer(64);
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(1, src, 64, target.address(), first).status());
    }

    @Test
    @DisplayName("required_ binding a type 1 window to a region without MW_BIND fails [ibv_bind_mw(3): the MR needs IBV_ACCESS_MW_BIND]")
    void required_type1NeedsMwBindAccess() {
        assumeMw(MwType.TYPE_1);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion plain = p.remoteBuffer(4096);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_1);
        try {
            p.b().bindMw(mw, 3, SendFlags.SIGNALED, new MwBindInfo(plain, plain.address(), 4096, WINDOW_ACCESS));
        } catch (VerbsException e) {
            assertEquals(Errno.EINVAL, e.errno(), "bindMw without MW_BIND: " + e);
            return;
        }
        WorkCompletion wc = Completions.awaitOne(p.cqB(), "the refused bind");
        assertNotEquals(WcStatus.SUCCESS, wc.status(),
                "a bind to a region without MW_BIND must fail with EINVAL or an error completion (MW_BIND_ERR)");
    }

    @Test
    @DisplayName("required_ QueuePair.bindMw refuses a type 2 window with IllegalArgumentException [ibv_bind_mw(3): type 1 only]")
    void required_qpBindMwRefusesType2() {
        assumeMw(MwType.TYPE_2);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = bindable(p.remote(), 4096);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_2);
        Expect.thrown("bindMw(type 2)", IllegalArgumentException.class,
                () -> p.b().bindMw(mw, 1, SendFlags.SIGNALED, new MwBindInfo(target, target.address(), 64, WINDOW_ACCESS)));
    }

    private QpPair mwPair() {
        return tb.pair(QpType.RC, b -> b.sendOps(WrOpcode.SEND, WrOpcode.SEND_WITH_INV, WrOpcode.BIND_MW,
                WrOpcode.LOCAL_INV, WrOpcode.RDMA_WRITE));
    }

    /** Binds a type 2 window over the whole target on b's send queue, returning its rkey. */
    private int bindType2(QpPair p, MemoryWindow mw, MemoryRegion target) {
        int rkey = MemoryWindow.incRkey(mw.rkey());
        try (var s = p.b().startWr()) {
            s.wrId(21);
            s.wrFlags(SendFlags.SIGNALED);
            s.bindMw(mw, rkey, new MwBindInfo(target, target.address(), target.length(), WINDOW_ACCESS));
            s.complete();
        }
        WorkCompletion wc = Completions.awaitOne(p.cqB(), "the type 2 bind");
        assertEquals(WcStatus.SUCCESS, wc.status(), "binding a type 2 window");
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        assertEquals(21, wc.wrId());
        return rkey;
    }

    private void assumeType2Session() {
        assumeMw(MwType.TYPE_2);
        assumeSession(QpType.RC, WrOpcode.SEND, WrOpcode.SEND_WITH_INV, WrOpcode.BIND_MW, WrOpcode.LOCAL_INV,
                WrOpcode.RDMA_WRITE);
    }

    @Test
    @DisplayName("required_ a type 2 window bound with ibv_wr_bind_mw takes the given rkey and a peer writes through it [ibv_wr_post(3) Memory Windows]")
    void required_type2BindWithSession() {
        assumeType2Session();
        QpPair p = mwPair();
        MemoryRegion target = bindable(p.remote(), 4096);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_2);
        int rkey = bindType2(p, mw, target);
        assertEquals(rkey, mw.rkey(), "the window's rkey after ibv_wr_bind_mw is the rkey given");
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 9);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, 64, target.address() + 64, rkey).status());
        Data.assertPattern("data written through the window", target.segment(), 64, 64, 9, 0);
    }

    @Test
    @DisplayName("required_ a BIND_MW work request through postSend binds a type 2 window [ibv_post_send(3) bind_mw]")
    void required_type2BindWithPostSend() {
        PostSendWindow w = postSendWindow();
        int rkey = w.bind(5, 0, 4096);
        MemoryRegion src = tb.buffer(64);
        assertEquals(WcStatus.SUCCESS, w.p().write(1, src, 64, w.target().address(), rkey).status());
    }

    /** An RC pair whose side b has a 4 KiB region windows bind to and a type 2 window, both in b's PD. */
    private record PostSendWindow(QpPair p, MemoryRegion target, MemoryWindow mw) {
        /**
         * Binds the window over {@code length} bytes of the target from {@code offset} with a BIND_MW WR posted by
         * postSend on b, and waits for its SUCCESS.
         *
         * @return the window's new rkey
         */
        int bind(long wrId, long offset, long length) {
            int rkey = MemoryWindow.incRkey(mw.rkey());
            p.b().postSend(new SendWr().wrId(wrId).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                    .bindMw(mw, rkey, new MwBindInfo(target, target.address() + offset, length, WINDOW_ACCESS)));
            WorkCompletion wc = Completions.awaitOne(p.cqB(), "the BIND_MW WR");
            assertEquals(WcStatus.SUCCESS, wc.status(), "a type 2 bind posted by postSend");
            assertEquals(WcOpcode.BIND_MW, wc.opcode());
            return rkey;
        }
    }

    /** Skips unless the device binds type 2 windows with postSend on RC; else a {@link PostSendWindow}. */
    private PostSendWindow postSendWindow() {
        assumeMw(MwType.TYPE_2);
        assumeOp(QpType.RC, WrOpcode.BIND_MW);
        QpPair p = tb.pair(QpType.RC);
        return new PostSendWindow(p, bindable(p.remote(), 4096), p.remote().pd().allocMw(MwType.TYPE_2));
    }

    @ParameterizedTest(name = "{0} BIND_MW WRs")
    @ValueSource(ints = {1, 2})
    @DisplayName("required_ type 2 windows bound by postSend, one WR alone or two in one list, take each WR's rkey (MemoryWindow.rkey()) and hold their region: deregistering it fails with EBUSY, or EINVAL as rxe gives, until every window bound to it is closed; a peer writes through each rkey [ibv_post_send(3) bind_mw, ibv_dereg_mr(3), IBA 10.6.7.2.6]")
    void required_type2PostSendBindTakesRkeyAndHoldsRegion(int windows) {
        PostSendWindow first = postSendWindow();
        QpPair p = first.p();
        MemoryRegion target = first.target();
        List<MemoryWindow> mws = new ArrayList<>();
        List<SendWr> binds = new ArrayList<>();
        for (int w = 0; w < windows; w++) {
            MemoryWindow mw = w == 0 ? first.mw() : p.remote().pd().allocMw(MwType.TYPE_2);
            mws.add(mw);
            binds.add(new SendWr().wrId(30 + w).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                    .bindMw(mw, MemoryWindow.incRkey(mw.rkey()),
                            new MwBindInfo(target, target.address() + 1024L * w, 1024, WINDOW_ACCESS)));
        }
        if (windows == 1) {
            p.b().postSend(binds.get(0));
        } else {
            p.b().postSend(binds);
        }
        for (WorkCompletion wc : Completions.await(p.cqB(), windows, windows + " BIND_MW WRs")) {
            assertEquals(WcStatus.SUCCESS, wc.status(), "a type 2 bind posted by postSend: " + wc);
        }
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 47);
        for (int w = 0; w < windows; w++) {
            int rkey = binds.get(w).bindMwRkey();
            assertEquals(rkey, mws.get(w).rkey(), "window " + w + "'s rkey after its postSend BIND_MW");
            assertEquals(WcStatus.SUCCESS, p.write(40 + w, src, 64, target.address() + 1024L * w, rkey).status(),
                    "a WRITE through window " + w);
            Data.assertPattern("the bytes written through window " + w, target.segment(), 1024L * w, 64, 47, 0);
        }
        for (MemoryWindow mw : mws) {
            Expect.errno("deregistering a region with a window bound by postSend", target::close, Errno.EBUSY,
                    Errno.EINVAL);
            assertFalse(target.isClosed(), "the region must stay registered while a window is bound to it");
            mw.close();
        }
        target.close();
        assertTrue(target.isClosed(), "the region deregisters once its windows are closed");
    }

    @Test
    @DisplayName("required_ an access outside a bound type 2 window completes with REM_ACCESS_ERR [ibv_bind_mw(3), ibv_wr_post(3) ibv_wr_bind_mw]")
    void required_type2OutsideWindow() {
        PostSendWindow w = postSendWindow();
        QpPair p = w.p();
        MemoryRegion target = w.target();
        int rkey = w.bind(5, 1024, 1024);
        MemoryRegion src = tb.buffer(128);
        Data.fill(src, 21);
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(1, src, 128, target.address() + 512, rkey).status(),
                "a write 512 bytes below the type 2 window's start, inside its region");
    }

    @Test
    @DisplayName("required_ LOCAL_INV invalidates a type 2 window: later access completes with REM_ACCESS_ERR [ibv_wr_post(3) ibv_wr_local_inv]")
    void required_localInvInvalidates() {
        assumeType2Session();
        QpPair p = mwPair();
        MemoryRegion target = bindable(p.remote(), 4096);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_2);
        int rkey = bindType2(p, mw, target);
        try (var s = p.b().startWr()) {
            s.wrId(22);
            s.wrFlags(SendFlags.SIGNALED);
            s.localInv(rkey);
            s.complete();
        }
        WorkCompletion inv = Completions.awaitOne(p.cqB(), "the LOCAL_INV");
        assertEquals(WcStatus.SUCCESS, inv.status());
        assertEquals(WcOpcode.LOCAL_INV, inv.opcode());
        MemoryRegion src = tb.buffer(64);
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(1, src, 64, target.address(), rkey).status(),
                "a write through an invalidated window");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = WrOpcode.class, names = {"LOCAL_INV", "SEND_WITH_INV"})
    @DisplayName("required_ LOCAL_INV and SEND_WITH_INV posted by postSend invalidate the type 2 window whose rkey they carry, and a write through it then completes with REM_ACCESS_ERR [ibv_post_send(3) invalidate_rkey, IBA 10.6.7.2.3]")
    void required_invalidateWithPostSend(WrOpcode op) {
        assumeOp(QpType.RC, op);
        PostSendWindow w = postSendWindow();
        QpPair p = w.p();
        MemoryRegion target = w.target();
        int rkey = w.bind(5, 0, 4096);
        MemoryRegion src = tb.buffer(64);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, 64, target.address(), rkey).status(),
                "a write through the window before its invalidation");
        if (op == WrOpcode.LOCAL_INV) {
            p.b().postSend(new SendWr().wrId(6).opcode(WrOpcode.LOCAL_INV).sendFlags(SendFlags.SIGNALED)
                    .invalidateRkey(rkey));
            WorkCompletion inv = Completions.awaitOne(p.cqB(), "the LOCAL_INV");
            assertEquals(WcStatus.SUCCESS, inv.status(), "the LOCAL_INV of the bound window's rkey");
            assertEquals(WcOpcode.LOCAL_INV, inv.opcode());
        } else {
            MemoryRegion rbuf = p.remoteBuffer(64);
            p.recvB(30, rbuf, 0, 64);
            p.a().postSend(new SendWr().wrId(31).opcode(WrOpcode.SEND_WITH_INV).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(src, 0, 16)).invalidateRkey(rkey));
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the SEND_WITH_INV").status());
            WorkCompletion recv = Completions.awaitOne(p.cqB(), "the receive of the SEND_WITH_INV");
            // IBV_WC_WITH_INV and the rkey in the receive are required_sendWithInv's rule (rxe reports neither:
            // D-006); this rule is about the invalidation itself.
            assertEquals(WcStatus.SUCCESS, recv.status(), "the receive of the SEND_WITH_INV");
        }
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(2, src, 64, target.address(), rkey).status(),
                "a write through the window invalidated by " + op);
    }

    @Test
    @DisplayName("required_ SEND_WITH_INV invalidates the remote type 2 window and the receive reports WITH_INV and the rkey [ibv_wr_post(3) ibv_wr_send_inv, ibv_poll_cq(3)]")
    void required_sendWithInv() {
        assumeType2Session();
        QpPair p = mwPair();
        MemoryRegion target = bindable(p.remote(), 4096);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_2);
        int rkey = bindType2(p, mw, target);
        MemoryRegion rbuf = p.remoteBuffer(64);
        p.recvB(30, rbuf, 0, 64);
        MemoryRegion src = tb.buffer(64);
        p.session(s -> {
            s.wrId(31);
            s.wrFlags(SendFlags.SIGNALED);
            s.sendInv(rkey);
            s.setSge(src.lkey(), src.address(), 16);
        });
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the SEND_WITH_INV").status());
        WorkCompletion recv = Completions.awaitOne(p.cqB(), "the receive of the SEND_WITH_INV");
        assertEquals(WcStatus.SUCCESS, recv.status());
        assertTrue((recv.wcFlags() & WcFlags.WITH_INV) != 0, "the receive must carry IBV_WC_WITH_INV");
        assertEquals(rkey, recv.immData(), "the receive's invalidated rkey");
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(2, src, 64, target.address(), rkey).status(),
                "a write through the window invalidated by SEND_WITH_INV");
    }

    @Test
    @DisplayName("required_ a PD holds many live regions at once (1,024, or max_mr if smaller), each with its own lkey and rkey, and the first and the last one registered carry data [ibv_reg_mr(3), ibv_query_device(3) max_mr]")
    void required_manyLiveRegions() {
        int n = (int) Math.min(1024, tb.peer().deviceAttributes().maxMr() - 16L);
        assumeTrue(n >= 300, "capability: max_mr " + tb.peer().deviceAttributes().maxMr() + " is below 316");
        Set<Integer> lkeys = new java.util.HashSet<>();
        Set<Integer> rkeys = new java.util.HashSet<>();
        MemoryRegion first = null;
        MemoryRegion last = null;
        Testbed far = tb.peer(); // the responder's: the WRITEs below reach these regions through b
        MemorySegment mem = far.memory(64L * n);
        for (int i = 0; i < n; i++) {
            last = far.pd().registerMemory(mem.asSlice(64L * i, 64), Testbed.ALL_ACCESS, far.arena());
            first = first == null ? last : first;
            assertTrue(lkeys.add(last.lkey()), "region " + i + " reuses a live lkey");
            assertTrue(rkeys.add(last.rkey()), "region " + i + " reuses a live rkey");
        }
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 63);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, 64, last.address(), last.rkey()).status(),
                "a WRITE into region " + n + " of the PD");
        Data.assertPattern("the last region", last.segment(), 0, 64, 63, 0);
        assertEquals(WcStatus.SUCCESS, p.write(2, src, 64, first.address(), first.rkey()).status(),
                "a WRITE into the first of the " + n + " regions");
        Data.assertPattern("the first region", first.segment(), 0, 64, 63, 0);
    }

    @Test
    @DisplayName("required_ local read needs no access flag: a SEND and an RDMA WRITE from a region registered with access 0 succeed and carry its data [ibv_reg_mr(3): local read access is always enabled]")
    void required_localReadNeedsNoAccess() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64, 0);
        Data.fill(src, 64);
        MemoryRegion dst = p.remoteBuffer(64);
        MemoryRegion rbuf = p.remoteBuffer(64);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, 64, dst.address(), dst.rkey()).status(),
                "an RDMA WRITE from a region with access 0");
        Data.assertPattern("the WRITE's data", dst.segment(), 0, 64, 64, 0);
        p.recvB(2, rbuf, 0, 64);
        assertEquals(WcStatus.SUCCESS, p.send(3, src, 0, 64).status(), "a SEND from a region with access 0");
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "the receive").status());
        Data.assertPattern("the SEND's data", rbuf.segment(), 0, 64, 64, 0);
    }

    @Test
    @DisplayName("required_ LOCAL_INV of an rkey that names no region or window completes in error, not SUCCESS [ibv_wr_post(3) ibv_wr_local_inv; rxe: LOC_QP_OP_ERR]")
    void required_localInvUnknownRkeyFails() {
        assumeType2Session();
        assertRefused(mwPair(), 41, s -> s.localInv(0x0BADBAD0), "the LOCAL_INV of an unknown rkey", null,
                "LOCAL_INV of an rkey that names nothing");
    }

    /**
     * One signaled WR ({@code wr} builds it) on b's session that must not succeed: either {@code complete()} fails,
     * or the WR completes with {@code status} (with any status but SUCCESS when {@code status} is null).
     * {@code what} names the completion awaited, {@code why} the rule broken.
     */
    private static void assertRefused(QpPair p, long wrId, java.util.function.Consumer<org.verbs4j.WrSession> wr,
                                      String what, WcStatus status, String why) {
        try (var s = p.b().startWr()) {
            s.wrId(wrId);
            s.wrFlags(SendFlags.SIGNALED);
            wr.accept(s);
            s.complete();
        } catch (VerbsException e) {
            return;
        }
        WorkCompletion wc = Completions.awaitOne(p.cqB(), what);
        assertEquals(wrId, wc.wrId(), "the wr_id of " + what);
        if (status == null) {
            assertNotEquals(WcStatus.SUCCESS, wc.status(), why);
        } else {
            assertEquals(status, wc.status(), why);
        }
    }

    @Test
    @DisplayName("required_ binding a type 2 window that is still bound is refused (complete() fails, or the bind completes with MW_BIND_ERR): it must be invalidated first [IBA 10.6.7.2.1; ibv_wr_post(3) ibv_wr_bind_mw; rxe: a type 2 MW not in the free state]")
    void required_type2RebindWhileBoundFails() {
        assumeType2Session();
        QpPair p = mwPair();
        MemoryRegion target = bindable(p.remote(), 4096);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_2);
        int rkey = bindType2(p, mw, target);
        assertRefused(p, 22, s -> s.bindMw(mw, MemoryWindow.incRkey(rkey), new MwBindInfo(target, target.address(), 1024,
                WINDOW_ACCESS)), "the second bind of a bound type 2 window", WcStatus.MW_BIND_ERR,
                "a type 2 window bound twice without an invalidation");
    }

    @Test
    @DisplayName("required_ a SEND_WITH_INV naming an rkey that names nothing completes its receive with REM_INV_REQ_ERR and moves the receiver to ERR [ibv_wr_post(3) ibv_wr_send_inv, ibv_poll_cq(3) IBV_WC_REM_INV_REQ_ERR; rxe: class J error]")
    void required_sendInvUnknownRkey() {
        assumeType2Session();
        QpPair p = mwPair();
        MemoryRegion rbuf = p.remoteBuffer(64);
        p.recvB(30, rbuf, 0, 64);
        MemoryRegion src = tb.buffer(64);
        p.session(s -> {
            s.wrId(31);
            s.wrFlags(SendFlags.SIGNALED);
            s.sendInv(0x0BADBAD0);
            s.setSge(src.lkey(), src.address(), 16);
        });
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the receive of a SEND_WITH_INV of an unknown rkey");
        assertEquals(30, r.wrId());
        assertEquals(WcStatus.REM_INV_REQ_ERR, r.status(), "a SEND_WITH_INV whose rkey names nothing, at the receiver");
        long deadline = System.nanoTime() + Completions.timeoutMs() * 1_000_000L;
        while (p.b().query().state() != org.verbs4j.QpState.ERR && System.nanoTime() < deadline) {
            Thread.yield();
        }
        assertEquals(org.verbs4j.QpState.ERR, p.b().query().state(), "the receiver after a failed invalidation");
    }

    @Test
    @DisplayName("required_ an SGE that runs past the end of its region completes with LOC_PROT_ERR (rxe: LOC_QP_OP_ERR, D-001) and sends nothing [ibv_post_send(3) sg_list, ibv_reg_mr(3)]")
    void required_sgePastRegionEndFails() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        assertWriteFromBadSgeFails(p, new Sge(src.address() + 32, 64, src.lkey()), p.remoteBuffer(128),
                "an SGE 32 bytes past its region's end");
    }

    /** An RDMA WRITE from {@code sge} into {@code dst} completes with LOC_PROT_ERR (or rxe's LOC_QP_OP_ERR) and writes nothing. */
    private static void assertWriteFromBadSgeFails(QpPair p, Sge sge, MemoryRegion dst, String what) {
        WorkCompletion wc = p.postA(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge).rdma(dst.address(), dst.rkey()));
        assertTrue(Set.of(WcStatus.LOC_PROT_ERR, WcStatus.LOC_QP_OP_ERR).contains(wc.status()),
                what + ": expected LOC_PROT_ERR (or rxe's LOC_QP_OP_ERR), got " + wc.status());
        Data.assertFilled("the WRITE's target", dst.segment(), 0, dst.length(), (byte) 0);
    }

    @Test
    @DisplayName("required_ a memory window's rkey is not an lkey: an SGE using it completes with LOC_PROT_ERR (rxe: LOC_QP_OP_ERR, D-001) [ibv_bind_mw(3): the rkey is for remote access, ibv_post_send(3) lkey]")
    void required_windowRkeyIsNoLkey() {
        assumeMw(MwType.TYPE_1);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = bindable(4096);
        MemoryWindow mw = tb.pd().allocMw(MwType.TYPE_1);
        int rkey = p.a().bindMw(mw, 11, SendFlags.SIGNALED,
                new MwBindInfo(target, target.address(), 4096, WINDOW_ACCESS));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the type 1 bind").status());
        assertWriteFromBadSgeFails(p, new Sge(target.address(), 64, rkey), p.remoteBuffer(64),
                "an SGE whose lkey is a window's rkey");
    }

    @Test
    @DisplayName("required_ a type 2 window grants access only through the QP that bound it: a WRITE through its rkey reaching another QP completes with REM_ACCESS_ERR and writes nothing [ibv_bind_mw(3), IBA 10.6.7.2: a type 2 window is bound to one QP]")
    void required_type2WindowOnlyThroughItsQp() {
        assumeType2Session();
        QpPair p = mwPair();
        MemoryRegion target = bindable(p.remote(), 4096);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_2);
        int rkey = bindType2(p, mw, target);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 32);
        QpPair other = tb.pair(QpType.RC);
        assertEquals(WcStatus.REM_ACCESS_ERR, other.write(1, src, 64, target.address(), rkey).status(),
                "a WRITE through a type 2 window's rkey to a QP other than the one that bound it");
        Data.assertFilled("the window's region", target.segment(), 0, 4096, (byte) 0);
        assertEquals(WcStatus.SUCCESS, p.write(2, src, 64, target.address(), rkey).status(),
                "the same WRITE to the QP that bound the window");
        Data.assertPattern("the window's region", target.segment(), 0, 64, 32, 0);
    }

    @Test
    @DisplayName("required_ a type 2 window bound with a key portion that changes the index is refused [IBA 10.6.7.2.1, rxe]")
    void required_type2BindWrongIndex() {
        assumeType2Session();
        QpPair p = mwPair();
        MemoryRegion target = bindable(p.remote(), 4096);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_2);
        int bad = mw.rkey() ^ 0x100;
        assertRefused(p, 23, s -> s.bindMw(mw, bad, new MwBindInfo(target, target.address(), 4096, WINDOW_ACCESS)),
                "the bad bind", null, "only the low 8 bits (the key) of a type 2 window's rkey may change");
    }

    @Test
    @DisplayName("required_ a type 2 BIND_MW posted by postSend whose rkey changes the index bits is refused at post with EINVAL, bad_wr 0, the window keeping its rkey, or completes in error [IBA 10.6.7.2.1, ibv_post_send(3) bind_mw; rxe accepts it: D-008]")
    void required_type2BindWrongIndexWithPostSend() {
        PostSendWindow w = postSendWindow();
        QpPair p = w.p();
        MemoryRegion target = w.target();
        MemoryWindow mw = w.mw();
        int before = mw.rkey();
        SendWr wr = new SendWr().wrId(24).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                .bindMw(mw, before ^ 0x100, new MwBindInfo(target, target.address(), 4096, WINDOW_ACCESS));
        try {
            p.b().postSend(wr);
        } catch (PostSendException e) {
            assertEquals(Errno.EINVAL, e.errno(), "a bind changing the index refused at post: " + e);
            assertEquals(0, e.badWrIndex(), "bad_wr of a one-WR list");
            assertEquals(before, mw.rkey(), "the window's rkey after a refused bind");
            Completions.assertNone(p.cqB(), "a bind refused at post");
            return;
        }
        WorkCompletion wc = Completions.awaitOne(p.cqB(), "the bind changing the index");
        assertEquals(24, wc.wrId());
        assertNotEquals(WcStatus.SUCCESS, wc.status(), "only the low 8 bits (the key) of a type 2 window's rkey may change");
    }

    @Test
    @DisplayName("required_ a zero-length SEND needs no lkey and a receive into a local-write region succeeds [ibv_post_send(3) num_sge 0]")
    void required_zeroLengthNeedsNoKey() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion rbuf = p.remoteBuffer(64);
        p.b().postRecv(new RecvWr().wrId(1).sgList(Sge.of(rbuf, 0, 64)));
        WorkCompletion wc = p.postA(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED));
        assertEquals(WcStatus.SUCCESS, wc.status());
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the zero-length receive");
        assertEquals(0, r.byteLen());
    }

    @Test
    @DisplayName("required_ an RDMA READ into a region without LOCAL_WRITE fails with LOC_PROT_ERR [ibv_reg_mr(3): local write needed to be written]")
    void required_readTargetNeedsLocalWrite() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion dst = tb.buffer(64, AccessFlags.REMOTE_READ);
        MemoryRegion remote = p.remoteBuffer(64);
        WorkCompletion wc = p.read(1, dst, 64, remote.address(), remote.rkey());
        if (wc.status() == WcStatus.SUCCESS) {
            fail("an RDMA READ wrote into a region registered without LOCAL_WRITE");
        }
        assertEquals(WcStatus.LOC_PROT_ERR, wc.status());
    }

    // ---------------------------------------------------------------- region and window ends from both sides

    @Test
    @DisplayName("required_ an SGE ending at its region's last byte is sent whole and completes SUCCESS [ibv_post_send(3) sg_list, ibv_reg_mr(3)]")
    void required_sgeAtRegionEnd() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 71);
        MemoryRegion dst = p.remoteBuffer(64);
        p.recvB(1, dst, 0, 64);
        WorkCompletion wc = p.postA(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(src.address() + 1, 63, src.lkey())));
        assertEquals(WcStatus.SUCCESS, wc.status(), "a SEND of the region's last 63 bytes");
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the receive");
        assertEquals(WcStatus.SUCCESS, r.status());
        assertEquals(63, r.byteLen());
        Data.assertPattern("the region's last 63 bytes", dst.segment(), 0, 63, 71, 1);
    }

    @Test
    @DisplayName("required_ a type 1 window bound up to its region's last byte is accepted and written through at its last byte; one byte longer is refused with EINVAL [ibv_bind_mw(3): the range must lie in the MR]")
    void required_type1BindAtRegionEnd() {
        assumeMw(MwType.TYPE_1);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = bindable(p.remote(), 4096);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_1);
        int rkey = p.b().bindMw(mw, 11, SendFlags.SIGNALED,
                new MwBindInfo(target, target.address() + 3072, 1024, WINDOW_ACCESS));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "the bind up to the region's end").status());
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 72);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, 64, target.address() + 4096 - 64, rkey).status(),
                "a write of the window's (and the region's) last 64 bytes");
        Data.assertPattern("the region's last 64 bytes", target.segment(), 4096 - 64, 64, 72, 0);
        Expect.errno("a type 1 bind one byte past the region's end", () -> p.b().bindMw(mw, 12, SendFlags.SIGNALED,
                new MwBindInfo(target, target.address() + 3072, 1025, WINDOW_ACCESS)), Errno.EINVAL);
        Completions.assertNone(p.cqB(), "a refused bind must not execute");
    }

    @Test
    @DisplayName("required_ a type 2 window ends where it was bound: a write of its last bytes succeeds, one running a byte past its end, inside the region, completes with REM_ACCESS_ERR and writes nothing [ibv_bind_mw(3), ibv_wr_post(3) ibv_wr_bind_mw]")
    void required_type2AccessAcrossItsEnd() {
        assumeMw(MwType.TYPE_2);
        assumeOp(QpType.RC, WrOpcode.BIND_MW);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = bindable(p.remote(), 4096);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_2);
        int rkey = MemoryWindow.incRkey(mw.rkey());
        p.b().postSend(new SendWr().wrId(5).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                .bindMw(mw, rkey, new MwBindInfo(target, target.address() + 1024, 1024, WINDOW_ACCESS)));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "the type 2 bind").status());
        MemoryRegion src = tb.buffer(128);
        Data.fill(src, 73);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, 128, target.address() + 2048 - 128, rkey).status(),
                "a write of the type 2 window's last 128 bytes");
        Data.assertPattern("the window's last 128 bytes", target.segment(), 2048 - 128, 128, 73, 0);
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(2, src, 128, target.address() + 2048 - 127, rkey).status(),
                "a write running one byte past the type 2 window's end, inside its region");
        Data.assertFilled("the region past the window", target.segment(), 2048, 2048, (byte) 0);
    }

    // ---- on-demand paging: ibv_reg_mr IBV_ACCESS_ON_DEMAND, ibv_advise_mr (issue 29, item 4)

    private boolean odp() {
        return (tb.context().queryDeviceEx().odpCaps().generalCaps() & DeviceAttributesEx.OdpCaps.SUPPORT) != 0;
    }

    @Test
    @DisplayName("required_ where odp_caps has IBV_ODP_SUPPORT with RC WRITE, an ON_DEMAND region takes a peer's RDMA WRITE and gives it back to an RDMA READ [ibv_reg_mr(3) IBV_ACCESS_ON_DEMAND, ibv_query_device_ex(3) odp_caps]")
    void required_onDemandRegionTakesRdma() {
        assumeTrue(odp(), "capability: no on-demand paging (odp_caps)");
        DeviceAttributesEx.OdpCaps caps = tb.peer().context().queryDeviceEx().odpCaps();
        int want = DeviceAttributesEx.OdpCaps.SUPPORT_WRITE | DeviceAttributesEx.OdpCaps.SUPPORT_READ;
        assumeTrue((caps.rcOdpCaps() & want) == want, "capability: no RC WRITE and READ on on-demand memory");
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion odp = p.remoteBuffer(64, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
                | AccessFlags.REMOTE_READ | AccessFlags.ON_DEMAND);
        assertEquals(AccessFlags.ON_DEMAND, odp.access() & AccessFlags.ON_DEMAND);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion back = tb.buffer(64);
        Data.fill(src, 53);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, 64, odp.address(), odp.rkey()).status());
        assertEquals(WcStatus.SUCCESS, p.read(2, back, 64, odp.address(), odp.rkey()).status());
        Data.assertPattern("the READ of the on-demand region", back.segment(), 0, 64, 53, 0);
    }

    @Test
    @DisplayName("required_ without on-demand paging, an ON_DEMAND registration is refused (EINVAL from Linux 6.1's rxe, EOPNOTSUPP from newer kernels) and ibv_advise_mr with EOPNOTSUPP [ibv_reg_mr(3), ibv_advise_mr(3)]")
    void required_onDemandUnsupported() {
        assumeTrue(!odp(), "the device has on-demand paging");
        Expect.errno("registerMemory(ON_DEMAND)", () -> tb.buffer(64, AccessFlags.LOCAL_WRITE | AccessFlags.ON_DEMAND),
                Errno.EINVAL, Errno.EOPNOTSUPP);
        MemoryRegion plain = tb.buffer(64);
        Expect.errno("adviseMr(PREFETCH)", () -> tb.pd().adviseMr(MrAdvice.PREFETCH, 0, List.of(Sge.of(plain))),
                Errno.EOPNOTSUPP);
    }

    @Test
    @DisplayName("required_ ibv_advise_mr over an ON_DEMAND region: each advice with and without FLUSH up to its last byte works; one byte past it is EFAULT; a plain region's lkey, or PREFETCH_WRITE on a read-only one, is ENOENT; unknown flags or no SGE is bad input [ibv_advise_mr(3)]")
    void required_adviseMrLimits() {
        assumeTrue(odp(), "capability: no on-demand paging (odp_caps)");
        MemoryRegion odp = tb.buffer(4096, AccessFlags.LOCAL_WRITE | AccessFlags.ON_DEMAND);
        ProtectionDomain pd = tb.pd();
        for (MrAdvice a : MrAdvice.values()) {
            pd.adviseMr(a, 0, List.of(Sge.of(odp)));
            pd.adviseMr(a, MrAdvice.FLAG_FLUSH, List.of(Sge.of(odp), new Sge(odp.address() + 4095, 1, odp.lkey())));
        }
        Expect.errno("adviseMr one byte past the region", () -> pd.adviseMr(MrAdvice.PREFETCH, 0,
                List.of(new Sge(odp.address() + 4095, 2, odp.lkey()))), Errno.EFAULT);
        MemoryRegion plain = tb.buffer(64);
        Expect.errno("adviseMr over a region without ON_DEMAND", () -> pd.adviseMr(MrAdvice.PREFETCH, 0,
                List.of(Sge.of(plain))), Errno.ENOENT);
        MemoryRegion readOnly = tb.buffer(64, AccessFlags.ON_DEMAND);
        pd.adviseMr(MrAdvice.PREFETCH, 0, List.of(Sge.of(readOnly)));
        Expect.errno("adviseMr(PREFETCH_WRITE) over a read-only region", () -> pd.adviseMr(MrAdvice.PREFETCH_WRITE, 0,
                List.of(Sge.of(readOnly))), Errno.ENOENT);
        Expect.badInput("adviseMr with flags 0x2", () -> pd.adviseMr(MrAdvice.PREFETCH, 2, List.of(Sge.of(odp))));
        Expect.badInput("adviseMr with no SGE", () -> pd.adviseMr(MrAdvice.PREFETCH, 0, List.of()));
    }
}
