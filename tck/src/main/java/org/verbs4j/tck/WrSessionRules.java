package org.verbs4j.tck;

// Over 500 lines on purpose: one TCK area (tck/README.md lists one class per area): every rule of the ibv_wr_*
// session is a method here, each short and named by its display name, so a vendor finds the area's rules in one
// file.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.AccessFlags;
import org.verbs4j.Errno;
import org.verbs4j.Flush;
import org.verbs4j.MemoryRegion;
import org.verbs4j.PreparedSends;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.VerbsException;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * The WR session API of {@code ibv_wr_post(3)}: the builder x QP-type table, every builder and setter,
 * {@code wr_id}/{@code wr_flags} capture, complete/abort, batch failure, mandatory setters, inline copies
 * and the per-QP critical section.
 */
public abstract class WrSessionRules extends TckArea {
    // Over 600 lines: one TCK area (one @Nested class, one report section).
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected WrSessionRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    static Stream<Arguments> builderCells() {
        List<Arguments> cells = new ArrayList<>();
        for (WrOpcode op : WrOpcode.values()) {
            for (QpType t : new QpType[] {QpType.RC, QpType.UC, QpType.UD}) {
                cells.add(Arguments.of(op, t));
            }
        }
        return cells.stream();
    }

    private Consumer<QpInitAttributes.Builder> opts(WrOpcode... ops) {
        int inline = Math.min(64, caps().maxInlineData());
        int sge = Math.min(4, caps().maxSendSge());
        int rsge = Math.min(4, caps().maxRecvSge());
        return b -> b.sendOps(ops).maxInlineData(inline).maxSendSge(sge).maxRecvSge(rsge).maxSendWr(256).maxRecvWr(64);
    }

    /** A connected pair of {@code type} whose QPs were created with {@code ops} as send_ops_flags. */
    private QpPair pair(QpType type, WrOpcode... ops) {
        assumeSession(type, ops);
        return tb.pair(type, opts(ops));
    }

    private QpPair rc(WrOpcode... ops) {
        return pair(QpType.RC, ops);
    }

    // ---------------------------------------------------------------- the builder table

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("builderCells")
    @DisplayName("required_ a QP is created with a builder in send_ops_flags exactly where the ibv_wr_post(3) table and the device allow it [ibv_wr_post(3) WORK REQUESTS, USAGE]")
    void required_builderTable(WrOpcode op, QpType type) {
        assumeTrue(caps().wrSession(), "capability: the device has no WR session API (ibv_wr_*)");
        assumeQp(type);
        boolean inTable = SeedTable.builderAllows(op, type);
        if (!inTable) {
            Expect.refused("creating a " + type + " QP with " + op + " in sendOps (outside the seed table)",
                    () -> tb.qp(type, tb.cq(8), b -> b.sendOps(op)));
        } else if (!caps().supports(type, op)) {
            Expect.refused("creating a " + type + " QP with " + op + ", which the device does not execute "
                    + "(\"If the QP does not support all the requested work request types then QP creation will fail\")",
                    () -> tb.qp(type, tb.cq(8), b -> b.sendOps(op)));
        } else {
            QueuePair qp = tb.qp(type, tb.cq(8), b -> b.sendOps(op));
            assertEquals(Set.of(op), qp.initAttributes().sendOps(), "the QP's sendOps");
            WrSession s = qp.startWr();
            assertTrue(s.isActive());
            s.abort();
        }
    }

    // ---------------------------------------------------------------- builders, end to end

    @Test
    @DisplayName("required_ ibv_wr_send with ibv_wr_set_sge sends the buffer to the peer's receive [ibv_wr_post(3) Message Send]")
    void required_send() {
        QpPair p = rc(WrOpcode.SEND);
        MemoryRegion src = tb.buffer(256);
        MemoryRegion dst = p.remoteBuffer(256);
        Data.fill(src, 1);
        p.recvB(9, dst, 0, 256);
        p.session(s -> {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.send();
            s.setSge(src.lkey(), src.address(), 200);
        });
        WorkCompletion sc = Completions.awaitOne(p.cqA(), "the SEND");
        assertEquals(WcStatus.SUCCESS, sc.status());
        assertEquals(WcOpcode.SEND, sc.opcode());
        WorkCompletion rc = Completions.awaitOne(p.cqB(), "the receive");
        assertEquals(WcOpcode.RECV, rc.opcode());
        assertEquals(200, rc.byteLen());
        Data.assertPattern("received data", dst.segment(), 0, 200, 1, 0);
    }

    @Test
    @DisplayName("required_ ibv_wr_send_imm delivers its immediate data with IBV_WC_WITH_IMM [ibv_wr_post(3) Message Send]")
    void required_sendImm() {
        QpPair p = rc(WrOpcode.SEND_WITH_IMM);
        MemoryRegion buf = tb.buffer(128);
        MemoryRegion target = p.remoteBuffer(128);
        p.recvB(9, target, 64, 64);
        p.session(s -> {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.sendImm(0x12345678);
            s.setSge(buf.lkey(), buf.address(), 16);
        });
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the SEND_WITH_IMM").status());
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the receive");
        assertEquals(WcOpcode.RECV, r.opcode());
        assertTrue(r.hasImm(), "IBV_WC_WITH_IMM");
        assertEquals(0x12345678, r.immData(), "immediate data, host order");
    }

    @Test
    @DisplayName("required_ ibv_wr_rdma_write writes the DATA buffers at the remote address [ibv_wr_post(3) RDMA]")
    void required_rdmaWrite() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion src = tb.buffer(4096);
        MemoryRegion dst = p.remoteBuffer(8192);
        Data.fill(src, 2);
        p.session(s -> {
            s.wrId(3);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address() + 100);
            s.setSge(src.lkey(), src.address(), 4096);
        });
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the RDMA WRITE");
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
        assertEquals(3, wc.wrId());
        Data.assertPattern("written data", dst.segment(), 100, 4096, 2, 0);
        Data.assertFilled("bytes before the target", dst.segment(), 0, 100, (byte) 0);
        Completions.assertNone(p.cqB(), "an RDMA WRITE consumes no receive");
    }

    @Test
    @DisplayName("required_ ibv_wr_rdma_write_imm writes and completes a receive with IBV_WC_RECV_RDMA_WITH_IMM and the immediate [ibv_wr_post(3) RDMA]")
    void required_rdmaWriteImm() {
        QpPair p = rc(WrOpcode.RDMA_WRITE_WITH_IMM);
        MemoryRegion src = tb.buffer(512);
        MemoryRegion dst = p.remoteBuffer(512);
        Data.fill(src, 4);
        p.recvB(77, dst, 0, 0);
        p.session(s -> {
            s.wrId(4);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWriteImm(dst.rkey(), dst.address(), 0xCAFE0001);
            s.setSge(src.lkey(), src.address(), 512);
        });
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the WRITE_WITH_IMM").status());
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the receive consumed by WRITE_WITH_IMM");
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
        assertEquals(77, r.wrId());
        assertTrue(r.hasImm());
        assertEquals(0xCAFE0001, r.immData());
        assertEquals(512, r.byteLen(), "byte_len of RDMA WRITE with immediate is the written length");
        Data.assertPattern("written data", dst.segment(), 0, 512, 4, 0);
    }

    @Test
    @DisplayName("required_ ibv_wr_rdma_read reads the remote memory into the DATA buffers [ibv_wr_post(3) RDMA]")
    void required_rdmaRead() {
        QpPair p = rc(WrOpcode.RDMA_READ);
        MemoryRegion remote = p.remoteBuffer(3000);
        MemoryRegion local = tb.buffer(3000);
        Data.fill(remote, 6);
        p.session(s -> {
            s.wrId(5);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaRead(remote.rkey(), remote.address());
            s.setSge(local.lkey(), local.address(), 3000);
        });
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the RDMA READ");
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.RDMA_READ, wc.opcode());
        Data.assertPattern("read data", local.segment(), 0, 3000, 6, 0);
    }

    @Test
    @DisplayName("required_ ibv_wr_atomic_cmp_swp swaps when equal and returns the original value [ibv_wr_post(3) Atomic operations]")
    void required_atomicCmpSwp() {
        assumeAtomics();
        QpPair p = rc(WrOpcode.ATOMIC_CMP_AND_SWP);
        MemoryRegion remote = p.remoteBuffer(64);
        MemoryRegion local = tb.buffer(8);
        Data.u64(remote.segment(), 8, 42);
        p.session(s -> {
            s.wrId(6);
            s.wrFlags(SendFlags.SIGNALED);
            s.atomicCmpSwp(remote.rkey(), remote.address() + 8, 42, 99);
            s.setSge(local.lkey(), local.address(), 8);
        });
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the CMP_AND_SWP");
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.COMP_SWAP, wc.opcode());
        assertEquals(99, Data.u64(remote.segment(), 8), "swapped value");
        assertEquals(42, Data.u64(local.segment(), 0), "the original value returned");
    }

    @Test
    @DisplayName("required_ ibv_wr_atomic_fetch_add adds and returns the original value [ibv_wr_post(3) Atomic operations]")
    void required_atomicFetchAdd() {
        assumeAtomics();
        QpPair p = rc(WrOpcode.ATOMIC_FETCH_AND_ADD);
        MemoryRegion remote = p.remoteBuffer(64);
        MemoryRegion local = tb.buffer(8);
        Data.u64(remote.segment(), 16, 1000);
        p.session(s -> {
            s.wrId(7);
            s.wrFlags(SendFlags.SIGNALED);
            s.atomicFetchAdd(remote.rkey(), remote.address() + 16, 234);
            s.setSge(local.lkey(), local.address(), 8);
        });
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the FETCH_AND_ADD");
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.FETCH_ADD, wc.opcode());
        assertEquals(1234, Data.u64(remote.segment(), 16));
        assertEquals(1000, Data.u64(local.segment(), 0));
    }

    @Test
    @DisplayName("optional_ ibv_wr_atomic_write writes 8 bytes atomically at the remote address [rdma-core 44+ ibv_wr_atomic_write]")
    void optional_atomicWrite() {
        QpPair p = rc(WrOpcode.ATOMIC_WRITE);
        MemoryRegion remote = p.remoteBuffer(64);
        p.session(s -> {
            s.wrId(8);
            s.wrFlags(SendFlags.SIGNALED);
            s.atomicWrite(remote.rkey(), remote.address() + 24, 0x0102030405060708L);
        });
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the ATOMIC_WRITE");
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.ATOMIC_WRITE, wc.opcode());
        assertEquals(0x0102030405060708L, Data.u64(remote.segment(), 24));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"an rkey that names nothing", "a region without REMOTE_WRITE", "a target QP without REMOTE_WRITE",
        "a target QP with max_dest_rd_atomic 0", "an address not 8-byte aligned"})
    @DisplayName("optional_ ibv_wr_atomic_write is refused by the target and writes nothing: with an rkey that names nothing or a region without REMOTE_WRITE it completes with REM_ACCESS_ERR; to a QP whose qp_access_flags lack REMOTE_WRITE, a QP with max_dest_rd_atomic 0, or an address not 8-byte aligned, with REM_INV_REQ_ERR [rdma-core 45+ ibv_wr_atomic_write, ibv_modify_qp(3) qp_access_flags and max_dest_rd_atomic, IBA 1.5 9.4.7 (ATOMIC WRITE: RETH, 8 aligned bytes, an atomic resource); rxe check_op_valid, check_resource, RESPST_ERR_MISALIGNED_ATOMIC]")
    void optional_atomicWriteRefused(String fault) {
        assumeSession(QpType.RC, WrOpcode.ATOMIC_WRITE);
        Consumer<QpInitAttributes.Builder> o = opts(WrOpcode.ATOMIC_WRITE);
        QueuePair a = tb.qp(QpType.RC, tb.cq(16), o);
        QueuePair b = tb.qp(QpType.RC, tb.cq(16), o);
        tb.bringUp(a, b.qpNum(), 7);
        if (fault.equals("a target QP without REMOTE_WRITE")) {
            b.modify(QpAttributes.toInit(tb.port(), 0, AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC));
        } else {
            tb.toInit(b);
        }
        if (fault.equals("a target QP with max_dest_rd_atomic 0")) {
            b.modify(QpAttributes.toRtr(tb.av(), tb.mtu(), a.qpNum(), Testbed.PSN, 0, Testbed.MIN_RNR_TIMER));
        } else {
            tb.toRtr(b, a.qpNum());
        }
        tb.toRts(b, 7);
        MemoryRegion remote = fault.equals("a region without REMOTE_WRITE")
                ? tb.buffer(64, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC)
                : tb.buffer(64);
        int rkey = fault.equals("an rkey that names nothing") ? 0x0BADBAD0 : remote.rkey();
        long address = remote.address() + (fault.equals("an address not 8-byte aligned") ? 20 : 16);
        WrSession s = a.startWr();
        s.wrId(21);
        s.wrFlags(SendFlags.SIGNALED);
        s.atomicWrite(rkey, address, 0x1122334455667788L);
        s.complete();
        WorkCompletion wc = Completions.awaitOne(a.initAttributes().sendCq(), "the ATOMIC_WRITE to " + fault);
        assertEquals(21, wc.wrId());
        WcStatus expected = fault.startsWith("a target QP") || fault.startsWith("an address")
                ? WcStatus.REM_INV_REQ_ERR : WcStatus.REM_ACCESS_ERR;
        assertEquals(expected, wc.status(), "ATOMIC_WRITE with " + fault);
        Data.assertFilled("the target of the refused ATOMIC_WRITE", remote.segment(), 0, 64, (byte) 0);
    }

    @Test
    @DisplayName("optional_ ibv_wr_flush of a written range completes with IBV_WC_FLUSH [ibv_wr_post(3) ibv_wr_flush, rdma-core 45+]")
    void optional_flush() {
        QpPair p = rc(WrOpcode.RDMA_WRITE, WrOpcode.FLUSH);
        MemoryRegion remote = p.remoteBuffer(4096, Testbed.ALL_ACCESS | AccessFlags.FLUSH_GLOBAL);
        MemoryRegion src = tb.buffer(64);
        p.session(s -> {
            s.wrId(9);
            s.rdmaWrite(remote.rkey(), remote.address());
            s.setSge(src.lkey(), src.address(), 64);
            s.wrId(10);
            s.wrFlags(SendFlags.SIGNALED);
            s.flush(remote.rkey(), remote.address(), 64, Flush.TYPE_GLOBAL, Flush.LEVEL_RANGE);
        });
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the FLUSH");
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.FLUSH, wc.opcode());
        assertEquals(10, wc.wrId());
    }

    /** The flush cases whose region lacks what the flush needs: name, type, level, region access, offset past the end. */
    static Stream<Arguments> refusedFlushes() {
        int plain = Testbed.ALL_ACCESS;
        return Stream.of(
                Arguments.of("GLOBAL, range, region without FLUSH_GLOBAL", Flush.TYPE_GLOBAL, Flush.LEVEL_RANGE, plain, 0),
                Arguments.of("PERSISTENT, range, region with FLUSH_GLOBAL only", Flush.TYPE_PERSISTENT, Flush.LEVEL_RANGE,
                        plain | AccessFlags.FLUSH_GLOBAL, 0),
                Arguments.of("GLOBAL, whole MR, region without FLUSH_GLOBAL", Flush.TYPE_GLOBAL, Flush.LEVEL_MR, plain, 0),
                Arguments.of("GLOBAL, range past the region's end", Flush.TYPE_GLOBAL, Flush.LEVEL_RANGE,
                        plain | AccessFlags.FLUSH_GLOBAL, 4096 - 32),
                Arguments.of("GLOBAL, whole MR, an rkey that names nothing", Flush.TYPE_GLOBAL, Flush.LEVEL_MR,
                        plain | AccessFlags.FLUSH_GLOBAL, -1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedFlushes")
    @DisplayName("optional_ ibv_wr_flush completes with REM_ACCESS_ERR when the rkey's region lacks IBV_ACCESS_FLUSH_GLOBAL or _PERSISTENT for the flush type, or the range leaves the region [ibv_wr_post(3) ibv_wr_flush, ibv_reg_mr(3) IBV_ACCESS_FLUSH_*, rdma-core 45+]")
    void optional_flushNeedsAccess(String name, int type, int level, int access, int offset) {
        QpPair p = rc(WrOpcode.FLUSH);
        MemoryRegion remote = p.remoteBuffer(4096, access);
        p.session(s -> {
            s.wrId(11);
            s.wrFlags(SendFlags.SIGNALED);
            s.flush(offset < 0 ? 0x0BADBAD0 : remote.rkey(), remote.address() + Math.max(offset, 0), 64, type, level);
        });
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the FLUSH: " + name);
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(), "FLUSH " + name);
        assertEquals(11, wc.wrId());
    }

    @Test
    @DisplayName("optional_ a PERSISTENT flush needs only IBV_ACCESS_FLUSH_PERSISTENT on the region: it completes with IBV_WC_FLUSH [ibv_wr_post(3) ibv_wr_flush IBV_FLUSH_PERSISTENT, ibv_reg_mr(3), rdma-core 45+]")
    void optional_flushPersistent() {
        QpPair p = rc(WrOpcode.FLUSH);
        MemoryRegion remote = p.remoteBuffer(4096, Testbed.ALL_ACCESS | AccessFlags.FLUSH_PERSISTENT);
        p.session(s -> {
            s.wrId(13);
            s.wrFlags(SendFlags.SIGNALED);
            s.flush(remote.rkey(), remote.address(), 64, Flush.TYPE_PERSISTENT, Flush.LEVEL_RANGE);
        });
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the PERSISTENT FLUSH");
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.FLUSH, wc.opcode());
    }

    @Test
    @DisplayName("optional_ ibv_wr_flush at the whole-MR level ignores the range: with address and length 0 it completes with IBV_WC_FLUSH [ibv_wr_post(3) ibv_wr_flush IBV_FLUSH_MR, rdma-core 45+]")
    void optional_flushWholeMr() {
        QpPair p = rc(WrOpcode.FLUSH);
        MemoryRegion remote = p.remoteBuffer(4096, Testbed.ALL_ACCESS | AccessFlags.FLUSH_GLOBAL);
        p.session(s -> {
            s.wrId(12);
            s.wrFlags(SendFlags.SIGNALED);
            s.flush(remote.rkey(), 0, 0, Flush.TYPE_GLOBAL, Flush.LEVEL_MR);
        });
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the whole-MR FLUSH");
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.FLUSH, wc.opcode());
    }

    @Test
    @DisplayName("optional_ a whole-MR ibv_wr_flush through the rkey of another PD's region completes with REM_ACCESS_ERR: the MR level skips the range check, not the PD check [ibv_wr_post(3) ibv_wr_flush IBV_FLUSH_MR, ibv_reg_mr(3): a region is reached only through QPs of its PD, rdma-core 45+]")
    void optional_flushWholeMrOfAnotherPd() {
        QpPair p = rc(WrOpcode.FLUSH);
        MemoryRegion foreign = tb.context().allocPd().registerMemory(tb.memory(4096),
                Testbed.ALL_ACCESS | AccessFlags.FLUSH_GLOBAL, tb.arena());
        p.session(s -> {
            s.wrId(14);
            s.wrFlags(SendFlags.SIGNALED);
            s.flush(foreign.rkey(), 0, 0, Flush.TYPE_GLOBAL, Flush.LEVEL_MR);
        });
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the whole-MR FLUSH of another PD's region");
        assertEquals(14, wc.wrId());
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(), "a whole-MR FLUSH through another PD's rkey");
    }

    @Test
    @DisplayName("required_ UC QPs send and RDMA WRITE through the session [ibv_wr_post(3) table: UC]")
    void required_ucSendAndWrite() {
        QpPair p = pair(QpType.UC, WrOpcode.SEND, WrOpcode.RDMA_WRITE);
        MemoryRegion src = tb.buffer(128);
        MemoryRegion dst = p.remoteBuffer(256);
        Data.fill(src, 12);
        p.recvB(1, dst, 128, 128);
        // The WRITE goes first: UC has no acknowledgements, so only the receive of a later SEND tells that the
        // WRITE's data was placed (a device on a wire completes both sends before the responder has them).
        p.session(s -> {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSge(src.lkey(), src.address(), 128);
            s.wrId(2);
            s.send();
            s.setSge(src.lkey(), src.address(), 64);
        });
        List<WorkCompletion> wcs = Completions.await(p.cqA(), 2, "UC SEND and WRITE");
        assertEquals(List.of(1L, 2L), List.of(wcs.get(0).wrId(), wcs.get(1).wrId()));
        assertEquals(64, Completions.awaitOne(p.cqB(), "UC receive").byteLen());
        Data.assertPattern("UC written data", dst.segment(), 0, 128, 12, 0);
        Data.assertPattern("UC sent data", dst.segment(), 128, 64, 12, 0);
    }

    @Test
    @DisplayName("required_ a UD send with ibv_wr_set_ud_addr arrives after a 40-byte GRH [ibv_wr_post(3) QP Specific setters, IBA 11.4.1.1]")
    void required_udSend() {
        QpPair p = pair(QpType.UD, WrOpcode.SEND);
        MemoryRegion src = tb.buffer(256);
        MemoryRegion dst = p.remoteBuffer(40 + 256);
        Data.fill(src, 13);
        p.recvB(1, dst, 0, 40 + 256);
        p.session(s -> {
            s.wrId(2);
            s.wrFlags(SendFlags.SIGNALED);
            s.send();
            s.setUdAddr(p.ah(), p.b().qpNum(), Testbed.QKEY);
            s.setSge(src.lkey(), src.address(), 100);
        });
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the UD send").status());
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the UD receive");
        assertEquals(140, r.byteLen(), "byte_len of a UD receive counts the 40-byte GRH");
        Data.assertPattern("UD payload after the GRH", dst.segment(), 40, 100, 13, 0);
    }

    @Test
    @DisplayName("required_ a UD send whose inline data follows ibv_wr_set_ud_addr arrives after a 40-byte GRH [ibv_wr_post(3) Inline setters, QP Specific setters]")
    void required_udInlineSend() {
        assumeTrue(caps().maxInlineData() >= 32, "capability: less than 32 bytes of inline data");
        QpPair p = pair(QpType.UD, WrOpcode.SEND);
        MemoryRegion dst = p.remoteBuffer(40 + 64);
        MemorySegment data = tb.memory(32);
        for (int i = 0; i < 32; i++) {
            data.set(ValueLayout.JAVA_BYTE, i, (byte) (0x40 + i));
        }
        p.recvB(1, dst, 0, 40 + 64);
        p.session(s -> {
            s.wrId(3);
            s.wrFlags(SendFlags.SIGNALED);
            s.send();
            s.setUdAddr(p.ah(), p.b().qpNum(), Testbed.QKEY);
            s.setInlineData(data);
        });
        WorkCompletion sent = Completions.awaitOne(p.cqA(), "the inline UD send");
        assertEquals(WcStatus.SUCCESS, sent.status());
        assertEquals(3, sent.wrId());
        assertEquals(40 + 32, Completions.awaitOne(p.cqB(), "the UD receive").byteLen());
        for (int i = 0; i < 32; i++) {
            assertEquals((byte) (0x40 + i), dst.segment().get(ValueLayout.JAVA_BYTE, 40 + i), "received inline byte " + i);
        }
    }

    // ---------------------------------------------------------------- setters

    @Test
    @DisplayName("required_ ibv_wr_set_sge_list sends the buffers logically concatenated [ibv_wr_post(3) DATA transfer setters]")
    void required_setSgeList() {
        assumeTrue(caps().maxSendSge() >= 3, "capability: fewer than 3 send SGEs");
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion src = tb.buffer(300);
        MemoryRegion dst = p.remoteBuffer(300);
        Data.fill(src, 14);
        Sge[] list = {Sge.of(src, 200, 100), Sge.of(src, 0, 100), Sge.of(src, 100, 100)};
        p.session(s -> {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSgeList(list, 3);
        });
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the gathered WRITE").status());
        Data.assertPattern("first SGE", dst.segment(), 0, 100, 14, 200);
        Data.assertPattern("second SGE", dst.segment(), 100, 100, 14, 0);
        Data.assertPattern("third SGE", dst.segment(), 200, 100, 14, 100);
    }

    @Test
    @DisplayName("required_ ibv_wr_set_sge_list uses only the first num_sge entries [ibv_wr_post(3) ibv_wr_set_sge_list]")
    void required_setSgeListCount() {
        assumeTrue(caps().maxSendSge() >= 2, "capability: fewer than 2 send SGEs");
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion src = tb.buffer(200);
        MemoryRegion dst = p.remoteBuffer(300);
        Data.fill(src, 15);
        Sge[] list = {Sge.of(src, 0, 100), Sge.of(src, 100, 100), new Sge(0, 100, 0xdead)};
        p.session(s -> {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSgeList(list, 2);
        });
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the WRITE of 2 of 3 SGEs").status(),
                "the third, invalid SGE must be ignored");
        Data.assertPattern("two SGEs", dst.segment(), 0, 200, 15, 0);
        Data.assertFilled("past the two SGEs", dst.segment(), 200, 100, (byte) 0);
    }

    @Test
    @DisplayName("required_ inline data is copied at the setter: changing the buffer before complete() changes nothing [ibv_wr_post(3) Inline setters]")
    void required_inlineCopiedAtSetter() {
        assumeTrue(caps().maxInlineData() >= 16, "capability: less than 16 bytes of inline data");
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion dst = p.remoteBuffer(64);
        MemorySegment data = tb.memory(16);
        Data.fill(data, 16);
        try (WrSession s = p.a().startWr()) {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setInlineData(data);
            data.fill((byte) 0x5A);
            s.complete();
        }
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the inline WRITE").status());
        Data.assertPattern("inline data as it was at the setter", dst.segment(), 0, 16, 16, 0);
    }

    @Test
    @DisplayName("required_ inline data may come from a heap segment, needing no registration [ibv_wr_post(3) Inline setters: the lkey is not used]")
    void required_inlineFromHeap() {
        assumeTrue(caps().maxInlineData() >= 8, "capability: less than 8 bytes of inline data");
        QpPair p = rc(WrOpcode.SEND);
        MemoryRegion dst = p.remoteBuffer(64);
        p.recvB(1, dst, 0, 64);
        byte[] bytes = {1, 2, 3, 4, 5, 6, 7, 8};
        p.session(s -> {
            s.wrId(2);
            s.wrFlags(SendFlags.SIGNALED);
            s.send();
            s.setInlineData(MemorySegment.ofArray(bytes));
        });
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the inline SEND").status());
        assertEquals(8, Completions.awaitOne(p.cqB(), "the receive").byteLen());
        for (int i = 0; i < 8; i++) {
            assertEquals(bytes[i], dst.segment().get(ValueLayout.JAVA_BYTE, i), "received inline byte " + i);
        }
    }

    @Test
    @DisplayName("required_ ibv_wr_set_inline_data_list sends the buffers concatenated [ibv_wr_post(3) ibv_wr_set_inline_data_list]")
    void required_inlineDataList() {
        assumeTrue(caps().maxInlineData() >= 24, "capability: less than 24 bytes of inline data");
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion dst = p.remoteBuffer(64);
        MemorySegment all = tb.memory(24);
        Data.fill(all, 17);
        MemorySegment[] parts = {all.asSlice(0, 8), all.asSlice(8, 10), all.asSlice(18, 6), tb.memory(100)};
        p.session(s -> {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setInlineDataList(parts, 3);
        });
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the inline-list WRITE").status());
        Data.assertPattern("concatenated inline data", dst.segment(), 0, 24, 17, 0);
        Data.assertFilled("past the 3 buffers", dst.segment(), 24, 40, (byte) 0);
    }

    @Test
    @DisplayName("required_ inline data beyond max_inline_data makes complete() fail and nothing is sent [ibv_wr_post(3) Inline setters, RETURN VALUE]")
    void required_inlineTooLarge() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        int granted = p.a().initAttributes().cap().maxInlineData();
        MemoryRegion dst = p.remoteBuffer(granted + 64);
        MemorySegment data = tb.memory(granted + 1);
        data.fill((byte) 7);
        assertBatchRefused(p, dst, s -> {
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setInlineData(data);
        }, "inline data of max_inline_data + 1 (" + (granted + 1) + " bytes)");
    }

    @Test
    @DisplayName("required_ inline data on an RDMA READ makes complete() fail: inline is valid only for SEND and RDMA WRITE [ibv_wr_post(3) Inline setters]")
    void required_inlineOnlyForSendAndWrite() {
        assumeTrue(caps().maxInlineData() >= 8, "capability: less than 8 bytes of inline data");
        QpPair p = rc(WrOpcode.RDMA_READ, WrOpcode.RDMA_WRITE);
        MemoryRegion dst = p.remoteBuffer(64);
        assertBatchRefused(p, dst, s -> {
            s.rdmaRead(dst.rkey(), dst.address());
            s.setInlineData(tb.memory(8));
        }, "inline data on RDMA READ");
    }

    // ---------------------------------------------------------------- wr_id and wr_flags

    @Test
    @DisplayName("required_ wr_id is taken when the builder is called, not when setters or complete() run [ibv_wr_post(3) USAGE]")
    void required_wrIdCapturedAtBuilder() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion target = p.remoteBuffer(64);
        p.session(s -> {
            s.wrFlags(SendFlags.SIGNALED);
            s.wrId(111);
            s.rdmaWrite(target.rkey(), target.address());
            s.wrId(222);
            s.setSge(src.lkey(), src.address() + 32, 8);
        });
        assertEquals(111, Completions.awaitOne(p.cqA(), "the WRITE").wrId(), "wr_id set before the builder");
    }

    @Test
    @DisplayName("required_ wr_flags are taken when the builder is called: SIGNALED then cleared still gives a completion [ibv_wr_post(3) USAGE, Flags]")
    void required_wrFlagsCapturedAtBuilder() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion target = p.remoteBuffer(64);
        p.session(s -> {
            s.wrId(5);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(target.rkey(), target.address());
            s.wrFlags(0);
            s.setSge(src.lkey(), src.address() + 32, 8);
        });
        assertEquals(5, Completions.awaitOne(p.cqA(), "the signaled WRITE").wrId());
    }

    @Test
    @DisplayName("required_ a WR built with wr_flags 0 on a QP without sq_sig_all gives no completion, even if SIGNALED is set after the builder [ibv_wr_post(3) Flags]")
    void required_unsignaledGivesNoCompletion() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        Data.fill(src, 18);
        p.session(s -> {
            s.wrId(1);
            s.wrFlags(0);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.wrFlags(SendFlags.SIGNALED);
            s.setSge(src.lkey(), src.address(), 32);
        });
        p.session(s -> {
            s.wrId(2);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address() + 32);
            s.setSge(src.lkey(), src.address(), 32);
        });
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the second, signaled WRITE");
        assertEquals(2, wc.wrId(), "the unsignaled WR must not complete");
        Completions.assertNone(p.cqA(), "the first WR was unsignaled");
        Data.assertPattern("the unsignaled WRITE still executed", dst.segment(), 0, 32, 18, 0);
    }

    @Test
    @DisplayName("required_ on a QP with sq_sig_all every WR completes, signaled or not [ibv_create_qp(3) sq_sig_all]")
    void required_sqSigAll() {
        assumeSession(QpType.RC, WrOpcode.RDMA_WRITE);
        QpPair p = tb.pair(QpType.RC, opts(WrOpcode.RDMA_WRITE).andThen(b -> b.sqSigAll(true)));
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        p.session(s -> {
            s.wrId(1);
            s.wrFlags(0);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSge(src.lkey(), src.address() + 32, 8);
        });
        assertEquals(1, Completions.awaitOne(p.cqA(), "an unsignaled WR on an sq_sig_all QP").wrId());
    }

    @Test
    @DisplayName("required_ the WRs of one session complete in order with their own wr_ids [ibv_wr_post(3) USAGE, IBA 10.8.3]")
    void required_batchInOrder() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64 * 20);
        p.session(s -> {
            s.wrFlags(SendFlags.SIGNALED);
            for (int i = 0; i < 20; i++) {
                s.wrId(1000 + i);
                s.rdmaWrite(dst.rkey(), dst.address() + 64L * i);
                s.setSge(src.lkey(), src.address(), 64);
            }
        });
        List<WorkCompletion> wcs = Completions.await(p.cqA(), 20, "20 WRITEs of one session");
        for (int i = 0; i < 20; i++) {
            assertEquals(1000 + i, wcs.get(i).wrId(), "completion " + i);
            assertEquals(WcStatus.SUCCESS, wcs.get(i).status());
        }
    }

    // ---------------------------------------------------------------- complete and abort

    @Test
    @DisplayName("required_ nothing executes before complete(): no data moves and no completion appears while the session is open [ibv_wr_post(3) USAGE]")
    void required_nothingBeforeComplete() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        Data.fill(src, 19);
        try (WrSession s = p.a().startWr()) {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSge(src.lkey(), src.address(), 64);
            Completions.assertNone(p.cqA(), "the session was not completed");
            Data.assertFilled("remote memory before complete()", dst.segment(), 0, 64, (byte) 0);
            s.complete();
        }
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the WRITE after complete()").status());
        Data.assertPattern("remote memory after complete()", dst.segment(), 0, 64, 19, 0);
    }

    @Test
    @DisplayName("required_ a batch of more WRs than the send queue holds makes complete() fail and posts nothing [ibv_wr_post(3) RETURN VALUE, ibv_post_send(3) ENOMEM: the send queue is full]")
    void required_batchBeyondSendQueueFails() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        // Twice the queue and one more: beyond any rounding up of max_send_wr a device may make.
        int n = 2 * p.a().initAttributes().cap().maxSendWr() + 1;
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        Data.fill(src, 21);
        WrSession s = p.a().startWr();
        s.wrFlags(SendFlags.SIGNALED);
        for (int i = 0; i < n; i++) {
            s.wrId(i);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSge(src.lkey(), src.address(), 64);
        }
        assertThrows(VerbsException.class, s::complete, n + " WRs in one batch on a QP of max_send_wr "
                + p.a().initAttributes().cap().maxSendWr());
        assertFalse(s.isActive(), "a session is closed after a failed complete()");
        Completions.assertNone(p.cqA(), "the batch that did not fit");
        Data.assertFilled("remote memory after the failed complete()", dst.segment(), 0, 64, (byte) 0);
    }

    @Test
    @DisplayName("required_ a session's room counts the WRs still outstanding: with max_send_wr WRs waiting in the send queue, a batch of one more fails at complete() with ENOMEM and executes nothing [ibv_create_qp(3) cap.max_send_wr: the outstanding WRs the send queue holds, ibv_wr_post(3) ibv_wr_complete ENOMEM]")
    void required_sessionRoomCountsOutstandingWrs() {
        assumeSession(QpType.RC, WrOpcode.SEND, WrOpcode.RDMA_WRITE);
        QpPair p = tb.pair(QpType.RC, opts(WrOpcode.SEND, WrOpcode.RDMA_WRITE).andThen(b -> b.maxSendWr(8)), 7);
        int n = p.a().initAttributes().cap().maxSendWr();
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 23);
        MemoryRegion dst = tb.buffer(64);
        // No receive is ever posted at b: the first SEND waits on RNR NAKs (rnr_retry 7 retries forever), and every
        // WR behind it stays outstanding too.
        for (int i = 0; i < n; i++) {
            p.a().postSend(new SendWr().wrId(100 + i).opcode(WrOpcode.SEND).sendFlags(0).sgList(Sge.of(src, 0, 8)));
        }
        WrSession s = p.a().startWr();
        s.wrId(1);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(dst.rkey(), dst.address());
        s.setSge(src.lkey(), src.address(), 64);
        assertThrows(VerbsException.class, s::complete,
                "one WR more than the " + n + " outstanding in a send queue of max_send_wr " + n);
        assertFalse(s.isActive(), "a session is closed after a failed complete()");
        Completions.assertNone(p.cqA(), "the batch that did not fit, and the waiting unsignaled SENDs");
        Data.assertFilled("the target of the WRITE that did not fit", dst.segment(), 0, 64, (byte) 0);
    }

    @Test
    @DisplayName("required_ abort() discards every WR since start: no data moves and no completion appears [ibv_wr_post(3) USAGE]")
    void required_abortDiscards() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        Data.fill(src, 20);
        WrSession s = p.a().startWr();
        s.wrFlags(SendFlags.SIGNALED);
        for (int i = 0; i < 3; i++) {
            s.wrId(i);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSge(src.lkey(), src.address(), 64);
        }
        s.abort();
        assertFalse(s.isActive(), "a session is closed after abort()");
        Completions.assertNone(p.cqA(), "the session was aborted");
        Data.assertFilled("remote memory after abort()", dst.segment(), 0, 64, (byte) 0);
        p.session(t -> {
            t.wrId(9);
            t.wrFlags(SendFlags.SIGNALED);
            t.rdmaWrite(dst.rkey(), dst.address());
            t.setSge(src.lkey(), src.address(), 8);
        });
        assertEquals(9, Completions.awaitOne(p.cqA(), "a WR after the aborted session").wrId());
    }

    @Test
    @DisplayName("required_ closing a session that was not completed aborts it [WrSession#close]")
    void required_closeAborts() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        Data.fill(src, 21);
        try (WrSession s = p.a().startWr()) {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSge(src.lkey(), src.address(), 64);
        }
        Completions.assertNone(p.cqA(), "the session was closed without complete()");
        Data.assertFilled("remote memory", dst.segment(), 0, 64, (byte) 0);
        WrSession again = p.a().startWr(); // close() released the critical section
        assertTrue(again.isActive());
        again.abort();
    }

    @Test
    @DisplayName("required_ wrId, wrFlags, a builder or a setter outside the calling thread's open session (after complete(), or from a thread that does not own it) throws IllegalStateException and posts nothing [WrSession, ibv_wr_post(3) USAGE, CONCURRENCY]")
    void required_callsOutsideOwnSessionRefused() throws Exception {
        QpPair p = rc(WrOpcode.RDMA_WRITE, WrOpcode.SEND);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        Data.fill(src, 23);
        MemorySegment inline = tb.memory(8);
        List<Consumer<WrSession>> calls = List.of(
                s -> s.wrId(7),
                s -> s.wrFlags(SendFlags.SIGNALED),
                s -> s.rdmaWrite(dst.rkey(), dst.address()),
                WrSession::send,
                s -> s.setSge(src.lkey(), src.address(), 64),
                s -> s.setInlineData(inline));
        List<String> names = List.of("wrId", "wrFlags", "rdmaWrite", "send", "setSge", "setInlineData");
        WrSession s = p.a().startWr();
        s.complete();
        for (int i = 0; i < calls.size(); i++) {
            Consumer<WrSession> call = calls.get(i);
            assertThrows(IllegalStateException.class, () -> call.accept(s), names.get(i) + " after complete()");
        }
        WrSession open = p.a().startWr();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            for (int i = 0; i < calls.size(); i++) {
                Consumer<WrSession> call = calls.get(i);
                Future<?> f = other.submit(() -> call.accept(open));
                ExecutionException e = assertThrows(ExecutionException.class, f::get,
                        names.get(i) + " from a thread that does not own the session");
                assertTrue(e.getCause() instanceof IllegalStateException,
                        names.get(i) + " from another thread threw " + e.getCause());
            }
        } finally {
            other.shutdownNow();
        }
        open.complete();
        Completions.assertNone(p.cqA(), "no WR was built inside a session");
        Data.assertFilled("remote memory", dst.segment(), 0, 64, (byte) 0);
    }

    @Test
    @DisplayName("required_ startWr returns the QP's one session, active until complete() [QueuePair#startWr]")
    void required_sessionIdentity() {
        QpPair p = rc(WrOpcode.SEND);
        WrSession s1 = p.a().startWr();
        assertTrue(s1.isActive());
        assertSame(p.a(), s1.qp());
        s1.complete();
        assertFalse(s1.isActive());
        WrSession s2 = p.a().startWr();
        assertSame(s1, s2, "startWr returns the same session object every time");
        s2.abort();
    }

    @Test
    @DisplayName("required_ complete() or abort() on a session that is not open throws IllegalStateException [WrSession]")
    void required_completeWhenClosed() {
        QpPair p = rc(WrOpcode.SEND);
        WrSession s = p.a().startWr();
        s.complete();
        Expect.thrown("complete() twice", IllegalStateException.class, s::complete);
        Expect.thrown("abort() after complete()", IllegalStateException.class, s::abort);
    }

    @Test
    @DisplayName("required_ complete() of an empty session succeeds and posts nothing [ibv_wr_post(3)]")
    void required_emptyComplete() {
        QpPair p = rc(WrOpcode.SEND);
        p.session(s -> { });
        Completions.assertNone(p.cqA(), "an empty session");
    }

    @Test
    @DisplayName("required_ startWr on a QP created without send_ops_flags throws IllegalStateException [ibv_wr_post(3) USAGE]")
    void required_startWrNeedsSendOps() {
        QpPair p = tb.pair(QpType.RC);
        Expect.thrown("startWr without sendOps", IllegalStateException.class, () -> p.a().startWr());
    }

    @Test
    @DisplayName("required_ startWr by a thread that already has the session open throws IllegalStateException [QueuePair#startWr]")
    void required_noReentrantStart() {
        QpPair p = rc(WrOpcode.SEND);
        WrSession s = p.a().startWr();
        try {
            Expect.thrown("startWr twice on one thread", IllegalStateException.class, () -> p.a().startWr());
        } finally {
            s.abort();
        }
    }

    // ---------------------------------------------------------------- one bad WR fails the batch

    /** Builds a good WRITE, then {@code bad}, then another good WRITE; complete() must fail and nothing may move. */
    private void assertBatchRefused(QpPair p, MemoryRegion dst, Consumer<WrSession> bad, String what) {
        MemoryRegion src = tb.buffer(64);
        MemoryRegion sink = p.remoteBuffer(128);
        Data.fill(src, 23);
        WrSession s = p.a().startWr();
        s.wrFlags(SendFlags.SIGNALED);
        boolean write = p.a().initAttributes().sendOps().contains(WrOpcode.RDMA_WRITE);
        if (write) {
            s.wrId(1);
            s.rdmaWrite(sink.rkey(), sink.address());
            s.setSge(src.lkey(), src.address(), 64);
        }
        s.wrId(2);
        bad.accept(s);
        if (write) {
            s.wrId(3);
            s.rdmaWrite(sink.rkey(), sink.address() + 64);
            s.setSge(src.lkey(), src.address(), 64);
        }
        try {
            s.complete();
            fail(what + ": complete() must fail when any WR of the batch is invalid (ibv_wr_post(3) RETURN VALUE)");
        } catch (VerbsException expected) {
            // the errno is the provider's: EINVAL, ENOMEM or EOPNOTSUPP
        } catch (IllegalArgumentException | IllegalStateException expected) {
            // refused in Java, which the API also allows for misuse
        }
        assertFalse(s.isActive(), what + ": the session is closed after a failed complete()");
        Completions.assertNone(p.cqA(), what + ": the whole batch must be discarded");
        Data.assertFilled(what + ": a good WR of the failed batch moved data", sink.segment(), 0, 128, (byte) 0);
    }

    @Test
    @DisplayName("required_ a builder not requested in send_ops_flags makes complete() fail and discards the batch [ibv_wr_post(3) USAGE, RETURN VALUE]")
    void required_builderNotInSendOps() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        assumeOp(QpType.RC, WrOpcode.SEND);
        MemoryRegion dst = tb.buffer(64);
        assertBatchRefused(p, dst, s -> {
            s.send();
            s.setSge(dst.lkey(), dst.address(), 8);
        }, "SEND on a QP created with only RDMA_WRITE");
    }

    @Test
    @DisplayName("required_ a data WR without a DATA setter makes complete() fail [ibv_wr_post(3) DATA transfer setters]")
    void required_missingDataSetter() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion dst = p.remoteBuffer(64);
        assertBatchRefused(p, dst, s -> s.rdmaWrite(dst.rkey(), dst.address()), "RDMA WRITE without a DATA setter");
    }

    @Test
    @DisplayName("required_ a second DATA setter on one WR makes complete() fail [ibv_wr_post(3): one DATA setter, called once]")
    void required_secondDataSetter() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion dst = tb.buffer(64);
        MemoryRegion target = p.remoteBuffer(64);
        assertBatchRefused(p, dst, s -> {
            s.rdmaWrite(target.rkey(), target.address());
            s.setSge(dst.lkey(), dst.address(), 8);
            s.setSge(dst.lkey(), dst.address(), 8);
        }, "two DATA setters");
    }

    @Test
    @DisplayName("required_ more SGEs than max_send_sge make complete() fail [ibv_wr_post(3) RETURN VALUE, ibv_create_qp(3) max_send_sge]")
    void required_tooManySges() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        int max = p.a().initAttributes().cap().maxSendSge();
        MemoryRegion dst = tb.buffer(64L * (max + 1));
        MemoryRegion target = p.remoteBuffer(64L * (max + 1));
        Sge[] list = new Sge[max + 1];
        for (int i = 0; i <= max; i++) {
            list[i] = Sge.of(dst, 64L * i, 8);
        }
        assertBatchRefused(p, dst, s -> {
            s.rdmaWrite(target.rkey(), target.address());
            s.setSgeList(list, max + 1);
        }, (max + 1) + " SGEs on a QP granted " + max);
    }

    @Test
    @DisplayName("required_ a UD WR without ibv_wr_set_ud_addr makes complete() fail [ibv_wr_post(3) QP Specific setters: mandatory]")
    void required_udAddrMandatory() {
        QpPair p = pair(QpType.UD, WrOpcode.SEND);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(128);
        p.recvB(1, dst, 0, 128);
        assertBatchRefused(p, dst, s -> {
            s.send();
            s.setSge(src.lkey(), src.address(), 8);
        }, "UD SEND without setUdAddr");
        Completions.assertNone(p.cqB(), "no UD message may arrive from the refused batch");
    }

    @Test
    @DisplayName("required_ a session on a QP in INIT fails at complete(): a QP posts sends only from RTS [ibv_wr_post(3) RETURN VALUE, IBA 10.3.1]")
    void required_sessionNeedsRts() {
        assumeSession(QpType.RC, WrOpcode.RDMA_WRITE);
        QueuePair qp = tb.qp(QpType.RC, tb.cq(16), opts(WrOpcode.RDMA_WRITE));
        tb.toInit(qp);
        MemoryRegion buf = tb.buffer(64);
        WrSession s = qp.startWr();
        s.wrId(1);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(buf.rkey(), buf.address());
        s.setSge(buf.lkey(), buf.address() + 32, 8);
        Expect.refused("complete() on a QP in INIT", s::complete);
        assertFalse(s.isActive());
    }

    @Test
    @DisplayName("required_ after a failed complete() the next session works [ibv_wr_post(3)]")
    void required_recoverAfterFailedComplete() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion dst = tb.buffer(64);
        MemoryRegion target = p.remoteBuffer(64);
        assertBatchRefused(p, dst, s -> s.rdmaWrite(target.rkey(), target.address()), "a WRITE without DATA");
        p.session(s -> {
            s.wrId(7);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(target.rkey(), target.address());
            s.setSge(dst.lkey(), dst.address() + 32, 8);
        });
        assertEquals(7, Completions.awaitOne(p.cqA(), "the WR after the failed batch").wrId());
    }

    // ---------------------------------------------------------------- concurrency

    @Test
    @DisplayName("required_ the session is a per-QP critical section: a second thread's startWr waits for complete() [ibv_wr_post(3) CONCURRENCY]")
    void required_criticalSectionBlocks() throws Exception {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion target = p.remoteBuffer(64);
        WrSession s = p.a().startWr();
        AtomicBoolean entered = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<?> other = pool.submit(() -> {
                started.countDown();
                WrSession t = p.a().startWr();
                entered.set(true);
                t.abort();
                return null;
            });
            started.await();
            Thread.sleep(Completions.QUIET_MS); // the other thread must stay blocked for this whole time
            assertFalse(entered.get(), "a second thread entered the session while the first held it");
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(target.rkey(), target.address());
            s.setSge(buf.lkey(), buf.address() + 32, 8);
            s.complete();
            other.get(Completions.timeoutMs(), TimeUnit.MILLISECONDS);
            assertTrue(entered.get(), "the second thread entered after complete()");
        } finally {
            if (s.isActive()) {
                s.abort();
            }
            pool.shutdownNow();
        }
    }

    @Test
    @DisplayName("required_ a postSend and a PreparedSends post from a second thread while the session is open wait for complete() instead of failing, an interrupt does not end that wait, and each posts after the session's WR and returns with its interrupt status set if and only if it was interrupted [ibv_wr_post(3) CONCURRENCY, ibv_post_send(3), QueuePair#startWr]")
    void required_postsFromAnotherThreadWaitForComplete() throws Exception {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion target = p.remoteBuffer(64);
        Data.fill(buf, 61);
        for (long id = 1; id < 9; id += 2) {
            long wrId = id + 1;
            long at = 8 * id;
            boolean interrupt = id == 3 || id == 5;
            if (id % 4 == 1) {
                assertWaitsForComplete(p, buf, target, id, "a postSend", interrupt, () -> p.a().postSend(
                        p.wr(wrId, WrOpcode.RDMA_WRITE, buf, at, 8).rdma(target.address() + at, target.rkey())));
            } else {
                assertWaitsForComplete(p, buf, target, id, "a PreparedSends post", interrupt, () -> {
                    try (PreparedSends ps = p.a().prepareSends(1)) {
                        ps.opcode(0, WrOpcode.RDMA_WRITE).wrId(0, wrId).sendFlags(0, SendFlags.SIGNALED)
                                .sge(0, 0, buf.address() + at, 8, buf.lkey()).numSge(0, 1)
                                .rdma(0, target.address() + at, target.rkey());
                        ps.post(1);
                    }
                });
            }
        }
        Data.assertPattern("the eight WRITEs' bytes", target.segment(), 0, 64, 61, 0);
    }

    /**
     * Opens a's session, starts {@code post} (which posts WR {@code sessionWrId + 1} at byte {@code 8 * sessionWrId})
     * in a second thread, checks that it is still waiting after {@link Completions#QUIET_MS}; if {@code interrupt},
     * interrupts it and checks that it is still waiting after {@code QUIET_MS} more. Then it completes the session
     * with WR {@code sessionWrId} at byte {@code 8 * (sessionWrId - 1)}, and checks that the second thread returned
     * with its interrupt status set if and only if it was interrupted, and that both WRs complete, in order.
     */
    private static void assertWaitsForComplete(QpPair p, MemoryRegion buf, MemoryRegion target, long sessionWrId,
            String kind, boolean interrupt, Runnable post) throws Exception {
        String what = interrupt ? kind + " interrupted while it waited" : kind;
        WrSession s = p.a().startWr();
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean posted = new AtomicBoolean();
        AtomicBoolean interruptedAfter = new AtomicBoolean();
        AtomicReference<Thread> poster = new AtomicReference<>();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<?> other = pool.submit(() -> {
                poster.set(Thread.currentThread());
                started.countDown();
                post.run();
                posted.set(true);
                interruptedAfter.set(Thread.interrupted());
                return null;
            });
            started.await();
            Thread.sleep(Completions.QUIET_MS); // the other thread must stay blocked for this whole time
            assertFalse(posted.get() || other.isDone(),
                    what + " from a second thread ended while the session was open: " + (other.isDone() ? outcome(other) : "posted"));
            if (interrupt) {
                poster.get().interrupt();
                Thread.sleep(Completions.QUIET_MS);
                assertFalse(posted.get() || other.isDone(), what + " from a second thread must keep waiting for the "
                        + "session: " + (other.isDone() ? outcome(other) : "posted"));
            }
            long offset = 8 * (sessionWrId - 1);
            s.wrId(sessionWrId);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(target.rkey(), target.address() + offset);
            s.setSge(buf.lkey(), buf.address() + offset, 8);
            s.complete();
            other.get(Completions.timeoutMs(), TimeUnit.MILLISECONDS);
            assertTrue(posted.get(), what + " posted after complete()");
            assertEquals(interrupt, interruptedAfter.get(), what + ": the interrupt status it returned with "
                    + "(QueuePair#startWr: set again once the thread holds the send queue if it was interrupted)");
        } finally {
            if (s.isActive()) {
                s.abort();
            }
            pool.shutdownNow();
        }
        List<Long> ids = new ArrayList<>();
        for (WorkCompletion wc : Completions.await(p.cqA(), 2, "the session's WR and " + what)) {
            assertEquals(WcStatus.SUCCESS, wc.status(), what + ": " + wc);
            ids.add(wc.wrId());
        }
        assertEquals(List.of(sessionWrId, sessionWrId + 1), ids, "the session's WR, then " + what + "'s");
    }

    /** {@return what a finished task threw, or "no exception"} */
    private static String outcome(Future<?> done) {
        try {
            done.get();
            return "no exception";
        } catch (ExecutionException e) {
            return String.valueOf(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    @Test
    @DisplayName("required_ under several threads no WR is lost or duplicated: each completes once and writes its own bytes [ibv_wr_post(3) CONCURRENCY]")
    void required_multiThreadNoLossNoDuplicate() throws Exception {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        int threads = 4;
        int perThread = 40;
        MemoryRegion src = tb.buffer(8L * threads * perThread);
        MemoryRegion dst = p.remoteBuffer(8L * threads * perThread);
        for (int i = 0; i < threads * perThread; i++) {
            Data.u64(src.segment(), 8L * i, 0x1000_0000L + i);
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int base = t * perThread;
                fs.add(pool.submit(() -> {
                    for (int i = base; i < base + perThread; i++) {
                        WrSession s = p.a().startWr();
                        s.wrId(i);
                        s.wrFlags(SendFlags.SIGNALED);
                        s.rdmaWrite(dst.rkey(), dst.address() + 8L * i);
                        s.setSge(src.lkey(), src.address() + 8L * i, 8);
                        s.complete();
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(Completions.timeoutMs(), TimeUnit.MILLISECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        List<WorkCompletion> wcs = Completions.await(p.cqA(), threads * perThread, "every thread's WRs");
        Set<Long> ids = new HashSet<>();
        for (WorkCompletion wc : wcs) {
            assertEquals(WcStatus.SUCCESS, wc.status(), "completion " + wc);
            assertTrue(ids.add(wc.wrId()), "wr_id " + wc.wrId() + " completed twice");
        }
        for (int i = 0; i < threads * perThread; i++) {
            assertEquals(0x1000_0000L + i, Data.u64(dst.segment(), 8L * i), "the bytes of WR " + i);
        }
    }

    @Test
    @DisplayName("optional_ a QP created with a thread domain posts through its session [ibv_wr_post(3) CONCURRENCY, ibv_alloc_td(3)]")
    void optional_threadDomain() {
        assumeTrue(caps().threadDomains(), "capability: the device has no thread domains");
        assumeSession(QpType.RC, WrOpcode.RDMA_WRITE);
        var td = tb.context().allocTd();
        // A thread domain belongs to one context: b, when on the peer device, gets one of the peer's.
        var tdB = tb.isSplit() ? tb.peer().context().allocTd() : td;
        QpPair p = tb.pair(QpType.RC, opts(WrOpcode.RDMA_WRITE).andThen(b -> b.threadDomain(td)),
                opts(WrOpcode.RDMA_WRITE).andThen(b -> b.threadDomain(tdB)), 7);
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        p.session(s -> {
            s.wrId(3);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSge(buf.lkey(), buf.address() + 32, 8);
        });
        assertEquals(3, Completions.awaitOne(p.cqA(), "the WR on a thread-domain QP").wrId());
    }

    @Test
    @DisplayName("required_ session WRs and postSend WRs interleave on one QP outside each other's critical section [ibv_wr_post(3) DESCRIPTION]")
    void required_interleaveWithPostSend() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion target = p.remoteBuffer(64);
        p.session(s -> {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(target.rkey(), target.address());
            s.setSge(buf.lkey(), buf.address() + 32, 8);
        });
        p.a().postSend(p.wr(2, WrOpcode.RDMA_WRITE, buf, 32, 8).rdma(target.address() + 8, target.rkey()));
        p.session(s -> {
            s.wrId(3);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(target.rkey(), target.address() + 16);
            s.setSge(buf.lkey(), buf.address() + 32, 8);
        });
        List<WorkCompletion> wcs = Completions.await(p.cqA(), 3, "session, postSend, session");
        assertEquals(List.of(1L, 2L, 3L), wcs.stream().map(WorkCompletion::wrId).toList());
    }

    @Test
    @DisplayName("required_ the SOLICITED flag of a session SEND reaches the receiver as a solicited event [ibv_wr_post(3) Flags: IBV_SEND_SOLICITED]")
    void required_sessionSolicited() {
        assumeTrue(caps().completionChannel(), "capability: the device has no completion channels");
        assumeSession(QpType.RC, WrOpcode.SEND);
        Testbed far = tb.peer();
        var ch = far.context().createCompletionChannel();
        var cqB = far.context().createCq(16, ch, 0);
        var cqA = tb.cq(16);
        QueuePair a = tb.qp(QpType.RC, cqA, opts(WrOpcode.SEND));
        QueuePair b = far.qp(QpType.RC, cqB, opts(WrOpcode.SEND));
        tb.bringUp(a, b.qpNum(), 7, far);
        far.bringUp(b, a.qpNum(), 7, tb);
        MemoryRegion buf = tb.buffer(64);
        b.postRecv(new org.verbs4j.RecvWr(1, Sge.of(far.buffer(32), 0, 32)));
        cqB.requestNotify(true);
        try (WrSession s = a.startWr()) {
            s.wrId(2);
            s.wrFlags(SendFlags.SIGNALED | SendFlags.SOLICITED);
            s.send();
            s.setSge(buf.lkey(), buf.address() + 32, 8);
            s.complete();
        }
        assertSame(cqB, ch.awaitEvent(Completions.timeoutMs(), TimeUnit.MILLISECONDS), "the solicited event");
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(cqB, "the receive").status());
    }

    // ---------------------------------------------------------------- limits from both sides

    @Test
    @DisplayName("required_ a batch of exactly max_send_wr WRs on an empty send queue completes, and each WR executes [ibv_create_qp(3) cap.max_send_wr, ibv_wr_post(3) ibv_wr_complete: ENOMEM only when the queue is full]")
    void required_batchOfExactlyMaxSendWr() {
        assumeSession(QpType.RC, WrOpcode.RDMA_WRITE);
        QpPair p = tb.pair(QpType.RC, opts(WrOpcode.RDMA_WRITE).andThen(b -> b.maxSendWr(8)));
        int granted = p.a().initAttributes().cap().maxSendWr();
        assumeTrue(granted <= 200, "the device granted " + granted + " send WRs for 8, more than the CQ's 256 hold");
        MemoryRegion src = tb.buffer(8);
        Data.fill(src, 64);
        MemoryRegion dst = p.remoteBuffer(8L * granted);
        p.session(s -> {
            s.wrFlags(SendFlags.SIGNALED);
            for (int i = 0; i < granted; i++) {
                s.wrId(i);
                s.rdmaWrite(dst.rkey(), dst.address() + 8L * i);
                s.setSge(src.lkey(), src.address(), 8);
            }
        });
        List<WorkCompletion> wcs = Completions.await(p.cqA(), granted, granted + " WRITEs, the send queue's size");
        for (int i = 0; i < granted; i++) {
            assertEquals(i, wcs.get(i).wrId(), "completion " + i);
            assertEquals(WcStatus.SUCCESS, wcs.get(i).status(), "WRITE " + i);
            Data.assertPattern("WRITE " + i, dst.segment(), 8L * i, 8, 64, 0);
        }
    }

    @Test
    @DisplayName("required_ setInlineData of exactly max_inline_data bytes is accepted and lands whole [ibv_wr_post(3) Inline setters, ibv_create_qp(3) cap.max_inline_data]")
    void required_inlineDataOfExactlyMaxInlineData() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        int granted = p.a().initAttributes().cap().maxInlineData();
        assumeTrue(granted >= 1, "the QP was granted no inline data");
        MemoryRegion dst = p.remoteBuffer(granted + 16L);
        MemorySegment data = tb.memory(granted);
        Data.fill(data, 65);
        p.session(s -> {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setInlineData(data);
        });
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "an inline WRITE of max_inline_data (" + granted
                + ") bytes").status());
        Data.assertPattern("the inline data", dst.segment(), 0, granted, 65, 0);
        Data.assertFilled("past the inline data", dst.segment(), granted, 16, (byte) 0);
    }

    @Test
    @DisplayName("required_ setInlineDataList of buffers totalling exactly max_inline_data bytes is accepted and lands whole; one byte more makes complete() fail [ibv_wr_post(3) ibv_wr_set_inline_data_list]")
    void required_inlineDataListOfExactlyMaxInlineData() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        int granted = p.a().initAttributes().cap().maxInlineData();
        assumeTrue(granted >= 2, "the QP was granted less than 2 bytes of inline data");
        MemoryRegion dst = p.remoteBuffer(granted + 16L);
        MemorySegment all = tb.memory(granted + 1);
        Data.fill(all, 66);
        int half = granted / 2;
        MemorySegment[] exact = {all.asSlice(0, half), all.asSlice(half, granted - half)};
        p.session(s -> {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setInlineDataList(exact, 2);
        });
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "an inline-list WRITE of max_inline_data ("
                + granted + ") bytes").status());
        Data.assertPattern("the concatenated inline data", dst.segment(), 0, granted, 66, 0);
        Data.assertFilled("past the inline data", dst.segment(), granted, 16, (byte) 0);
        MemorySegment[] over = {all.asSlice(0, half), all.asSlice(half, granted + 1 - half)};
        MemoryRegion sink = p.remoteBuffer(granted + 16L);
        assertBatchRefused(p, sink, s -> {
            s.rdmaWrite(sink.rkey(), sink.address());
            s.setInlineDataList(over, 2);
        }, "an inline data list of max_inline_data + 1 (" + (granted + 1) + " bytes)");
    }

    @Test
    @DisplayName("required_ setUdAddr with a remote QPN of 2^24 or more makes complete() fail with EINVAL and sends nothing [ibv_wr_post(3) ibv_wr_set_ud_addr, IBA 9.2 BTH DestQP: 24 bits]")
    void required_udRemoteQpnIs24Bits() {
        QpPair p = pair(QpType.UD, WrOpcode.SEND);
        MemoryRegion src = tb.buffer(16);
        MemoryRegion dst = p.remoteBuffer(256);
        p.recvB(1, dst, 0, 256);
        WrSession s = p.a().startWr();
        s.wrId(2);
        s.wrFlags(SendFlags.SIGNALED);
        s.send();
        s.setSge(src.lkey(), src.address(), 16);
        s.setUdAddr(p.ah(), p.b().qpNum() | 1 << 24, Testbed.QKEY);
        Expect.errno("complete() of a UD WR to QPN 2^24 + the peer's", s::complete, Errno.EINVAL);
        assertFalse(s.isActive(), "a session is closed after a failed complete()");
        Completions.assertNone(p.cqA(), "the refused UD WR");
        Completions.assertNone(p.cqB(), "no datagram of the refused WR may arrive");
    }

    /** Moves a, in RTS, to SQD and waits until it is there. */
    private static void toSqd(QpPair p) {
        p.a().modify(QpAttributes.toState(QpState.SQD));
        long deadline = System.nanoTime() + Completions.timeoutMs() * 1_000_000;
        while (p.a().query().state() != QpState.SQD && System.nanoTime() < deadline) {
            Thread.yield();
        }
    }

    @Test
    @DisplayName("required_ a session completed on a QP in SQD is accepted; its WR is not executed until the QP is back in RTS, and then it runs before the WRs posted after it [ibv_wr_post(3) RETURN VALUE, IBA 10.3.1: SQD takes new send WRs but processes none]")
    void required_sessionInSqd() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 74);
        MemoryRegion dst = p.remoteBuffer(64);
        toSqd(p);
        p.session(s -> {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSge(src.lkey(), src.address(), 32);
        });
        Completions.assertNone(p.cqA(), "a WR completed into the send queue in SQD");
        Data.assertFilled("the target of the WRITE posted in SQD", dst.segment(), 0, 64, (byte) 0);
        p.a().modify(QpAttributes.toState(QpState.RTS));
        p.session(s -> {
            s.wrId(2);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address() + 32);
            s.setSge(src.lkey(), src.address() + 32, 32);
        });
        List<WorkCompletion> wcs = Completions.await(p.cqA(), 2, "the WRITEs after the return to RTS");
        assertEquals(List.of(1L, 2L), wcs.stream().map(WorkCompletion::wrId).toList(),
                "the WR posted in SQD completes first");
        wcs.forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), "WRITE " + wc.wrId()));
        Data.assertPattern("both WRITEs", dst.segment(), 0, 64, 74, 0);
    }

    @Test
    @DisplayName("required_ a session completed on a QP in ERR is accepted, and each of its WRs completes with WR_FLUSH_ERR and its wr_id, executing nothing [ibv_wr_post(3), IBA 10.3.1.2: the error state flushes WRs]")
    void required_sessionInErrFlushes() {
        QpPair p = rc(WrOpcode.RDMA_WRITE);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 75);
        MemoryRegion dst = p.remoteBuffer(64);
        p.a().modify(QpAttributes.toState(QpState.ERR));
        p.session(s -> {
            s.wrFlags(SendFlags.SIGNALED);
            for (int i = 0; i < 2; i++) {
                s.wrId(7 + i);
                s.rdmaWrite(dst.rkey(), dst.address() + 32L * i);
                s.setSge(src.lkey(), src.address(), 32);
            }
        });
        List<WorkCompletion> wcs = Completions.await(p.cqA(), 2, "the two WRs completed in ERR");
        for (int i = 0; i < 2; i++) {
            assertEquals(7 + i, wcs.get(i).wrId(), "flushed WR " + i);
            assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(i).status(), "WR " + (7 + i) + " posted in ERR");
        }
        Data.assertFilled("the targets of the flushed WRITEs", dst.segment(), 0, 64, (byte) 0);
    }
}
