package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.AccessFlags;
import org.verbs4j.Errno;
import org.verbs4j.Flush;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QueuePair;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * The WR session at its limits, and the errno of each refusal (issue 26: rules written for the survivors of mutation
 * testing of the shared session, {@code AbstractWrSession}, with the TCK as the only killer; tck/reports/mutation.md).
 * The session's rules assert that {@code complete()} throws; these pin which errno, where a mutant swapped one
 * refusal for another, and the exact fits the area tests only from above.
 * <ul>
 *   <li>A batch that does not fit the send queue is a resource error, never a bad argument: {@code ibv_post_send(3)}
 *       names ENOMEM, and librxe's builders set ENOSPC ({@code check_qp_queue_full}), which {@code ibv_wr_complete}
 *       returns. Without the room check a builder past the room was dropped and the next setter failed the batch
 *       with EINVAL.</li>
 *   <li>A session on a QP that cannot post fails with EINVAL ({@code ibv_post_send(3)}: the QP is in a state that
 *       does not post), not with the ENOMEM of a queue with no room.</li>
 *   <li>{@code setSgeList} of exactly {@code max_send_sge} entries is accepted and gathers them all.</li>
 *   <li>A DATA setter before any builder has no WR to attach to: {@code complete()} fails with EINVAL.</li>
 *   <li>Each refusal {@code postSend} makes has its session twin: IP_CSUM without checksum offload, a type 1
 *       window (bound only by {@code ibv_bind_mw(3)}), a flush of an unknown type or level; and a UD address set
 *       from a thread that does not own the session.</li>
 *   <li>A list setter takes 0 to the array's length entries: 0 is a zero-length WR, one past the array is bad
 *       input.</li>
 * </ul>
 */
public abstract class SessionLimitRules extends TckArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected SessionLimitRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private QpPair pair(int maxSendWr, int rnrRetry) {
        assumeSession(QpType.RC, WrOpcode.SEND, WrOpcode.RDMA_WRITE);
        return tb.pair(QpType.RC, smallQps(WrOpcode.SEND, WrOpcode.RDMA_WRITE).andThen(b -> b.maxSendWr(maxSendWr)),
                rnrRetry);
    }

    /** QPs whose sendOps are {@code ops}, with 8 WRs and one SGE in each queue. */
    private static Consumer<QpInitAttributes.Builder> smallQps(WrOpcode... ops) {
        return b -> b.sendOps(ops).maxSendWr(8).maxRecvWr(8).maxSendSge(1).maxRecvSge(1);
    }

    /** A connected pair of {@link #smallQps}, skipped unless the device has a {@code type} session of {@code ops}. */
    private QpPair sessionPair(QpType type, WrOpcode... ops) {
        assumeSession(type, ops);
        return tb.pair(type, smallQps(ops));
    }

    @Test
    @DisplayName("required_ a session batch of more WRs than an empty send queue holds fails at complete() with ENOMEM or ENOSPC (the queue is full), not EINVAL, and executes nothing [ibv_wr_post(3) ibv_wr_complete RETURN VALUE, ibv_post_send(3) ENOMEM]")
    void required_batchBeyondEmptyQueueIsAResourceError() {
        QpPair p = pair(8, 7);
        int granted = p.a().initAttributes().cap().maxSendWr();
        // Twice the queue and one more: beyond any rounding up of max_send_wr a device may make.
        int n = 2 * granted + 1;
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        Data.fill(src, 31);
        WrSession s = p.a().startWr();
        s.wrFlags(SendFlags.SIGNALED);
        for (int i = 0; i < n; i++) {
            s.wrId(i);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSge(src.lkey(), src.address(), 64);
        }
        Expect.errno(n + " WRs in one batch on a send queue of max_send_wr " + granted, s::complete, Errno.ENOMEM,
                Errno.ENOSPC);
        assertFalse(s.isActive(), "a session is closed after a failed complete()");
        Completions.assertNone(p.cqA(), "the batch that did not fit");
        Data.assertFilled("remote memory after the failed complete()", dst.segment(), 0, 64, (byte) 0);
    }

    @Test
    @DisplayName("required_ with max_send_wr WRs outstanding, a session batch of one more fails at complete() with ENOMEM or ENOSPC, not EINVAL, and executes nothing [ibv_create_qp(3) cap.max_send_wr, ibv_wr_post(3) ibv_wr_complete RETURN VALUE]")
    void required_batchBeyondOutstandingWrsIsAResourceError() {
        // No receive is ever posted at b and rnr_retry 7 retries forever: the first SEND waits on RNR NAKs and every
        // WR behind it stays outstanding.
        QpPair p = pair(8, 7);
        int n = p.a().initAttributes().cap().maxSendWr();
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = tb.buffer(64);
        for (int i = 0; i < n; i++) {
            p.a().postSend(new SendWr().wrId(100 + i).opcode(WrOpcode.SEND).sendFlags(0).sgList(Sge.of(src, 0, 8)));
        }
        WrSession s = p.a().startWr();
        s.wrId(1);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(dst.rkey(), dst.address());
        s.setSge(src.lkey(), src.address(), 64);
        Expect.errno("one WR more than the " + n + " outstanding in a send queue of max_send_wr " + n, s::complete,
                Errno.ENOMEM, Errno.ENOSPC);
        assertFalse(s.isActive(), "a session is closed after a failed complete()");
        Completions.assertNone(p.cqA(), "the batch that did not fit, and the waiting unsignaled SENDs");
        Data.assertFilled("the target of the WRITE that did not fit", dst.segment(), 0, 64, (byte) 0);
    }

    @Test
    @DisplayName("required_ a session on a QP in INIT fails at complete() with EINVAL (a QP in that state does not post), not ENOMEM, and the QP is unchanged [ibv_wr_post(3) RETURN VALUE, ibv_post_send(3) EINVAL, IBA 10.3.1]")
    void required_sessionInInitIsEinval() {
        assumeSession(QpType.RC, WrOpcode.RDMA_WRITE);
        QueuePair qp = tb.qp(QpType.RC, tb.cq(16), b -> b.sendOps(WrOpcode.RDMA_WRITE).maxSendWr(8).maxSendSge(1));
        tb.toInit(qp);
        MemoryRegion buf = tb.buffer(64);
        WrSession s = qp.startWr();
        s.wrId(1);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(buf.rkey(), buf.address());
        s.setSge(buf.lkey(), buf.address() + 32, 8);
        Expect.errno("complete() on a QP in INIT", s::complete, Errno.EINVAL);
        assertFalse(s.isActive(), "a session is closed after a failed complete()");
        assertEquals(QpState.INIT, qp.state(), "a refused batch leaves the QP's state alone");
    }

    @Test
    @DisplayName("required_ setSgeList with exactly max_send_sge entries (the QP's granted cap, the whole list) is accepted and gathers every entry in order [ibv_wr_post(3) ibv_wr_set_sge_list, ibv_create_qp(3) cap.max_send_sge]")
    void required_sgeListOfExactlyMaxSendSge() {
        QpPair p = pair(8, 7);
        int n = p.a().initAttributes().cap().maxSendSge();
        MemoryRegion src = tb.buffer(8L * n);
        MemoryRegion dst = p.remoteBuffer(8L * n + 8);
        Data.fill(src, 33);
        // The entries in reverse order, so that a list cut short or gathered out of order shows in the bytes.
        Sge[] list = new Sge[n];
        for (int i = 0; i < n; i++) {
            list[i] = Sge.of(src, 8L * (n - 1 - i), 8);
        }
        p.session(s -> {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSgeList(list, n);
        });
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the WRITE of " + n + " SGEs").status());
        for (int i = 0; i < n; i++) {
            Data.assertPattern("SGE #" + i + " of " + n, dst.segment(), 8L * i, 8, 33, 8L * (n - 1 - i));
        }
        Data.assertFilled("past the " + n + " SGEs", dst.segment(), 8L * n, 8, (byte) 0);
    }

    @Test
    @DisplayName("required_ a DATA setter called before any builder (in a session opened after one aborted between a builder and its DATA setter) makes complete() fail with EINVAL, and the WR built after it executes nothing [ibv_wr_post(3) DATA transfer setters: they set the data of the current WR]")
    void required_dataSetterBeforeAnyBuilderIsEinval() {
        QpPair p = pair(8, 7);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        Data.fill(src, 34);
        // First a session aborted after a builder and before its DATA setter: the session must not take the
        // setter of the next session's first call as that WR's data.
        WrSession aborted = p.a().startWr();
        aborted.wrId(0);
        aborted.rdmaWrite(dst.rkey(), dst.address());
        aborted.abort();
        WrSession s = p.a().startWr();
        s.setSge(src.lkey(), src.address(), 64);
        s.wrId(1);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(dst.rkey(), dst.address());
        s.setSge(src.lkey(), src.address(), 64);
        Expect.errno("complete() after a setSge before any builder", s::complete, Errno.EINVAL);
        assertFalse(s.isActive(), "a session is closed after a failed complete()");
        Completions.assertNone(p.cqA(), "the discarded batch");
        Data.assertFilled("remote memory after the failed complete()", dst.segment(), 0, 64, (byte) 0);
    }

    @Test
    @DisplayName("required_ a session WR flagged IP_CSUM on a device without checksum offload makes complete() fail with EINVAL and sends nothing, as postSend does [ibv_wr_post(3) ibv_wr_set_flags, ibv_post_send(3) IBV_SEND_IP_CSUM: valid only when device_cap_flags indicates]")
    void required_sessionIpCsumNeedsCapability() {
        assumeFalse(caps().ipCsum(), "capability: the device offloads checksums, so IP_CSUM is valid");
        QpPair p = sessionPair(QpType.UD, WrOpcode.SEND);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(40 + 64);
        p.recvB(1, dst, 0, 40 + 64);
        WrSession s = p.a().startWr();
        s.wrId(1);
        s.wrFlags(SendFlags.SIGNALED | SendFlags.IP_CSUM);
        s.send();
        p.address(s);
        s.setSge(src.lkey(), src.address(), 16);
        Expect.errno("a session SEND flagged IP_CSUM without the capability", s::complete, Errno.EINVAL);
        assertFalse(s.isActive(), "a session is closed after a failed complete()");
        // The same WR without the flag is accepted: the refusal was the flag's.
        p.session(t -> {
            t.wrId(2);
            t.wrFlags(SendFlags.SIGNALED);
            t.send();
            p.address(t);
            t.setSge(src.lkey(), src.address(), 16);
        });
        WorkCompletion sent = Completions.awaitOne(p.cqA(), "the SEND without IP_CSUM");
        assertEquals(2, sent.wrId(), "only the WR without IP_CSUM completes");
        assertEquals(WcStatus.SUCCESS, sent.status());
        assertEquals(40 + 16, Completions.awaitOne(p.cqB(), "the receive of the SEND without IP_CSUM").byteLen());
    }

    @Test
    @DisplayName("required_ a session bindMw of a type 1 window makes complete() fail with EINVAL, and the window still binds through QueuePair.bindMw [ibv_wr_post(3) ibv_wr_bind_mw: type 2 windows, ibv_bind_mw(3): type 1 windows]")
    void required_sessionBindsType2WindowsOnly() {
        assumeMw(MwType.TYPE_1);
        QpPair p = sessionPair(QpType.RC, WrOpcode.BIND_MW, WrOpcode.RDMA_WRITE);
        MemoryRegion target = p.remoteBuffer(4096, Testbed.ALL_ACCESS | AccessFlags.MW_BIND);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_1);
        MwBindInfo info = new MwBindInfo(target, target.address(), 4096, AccessFlags.REMOTE_WRITE);
        WrSession s = p.b().startWr();
        s.wrId(1);
        s.wrFlags(SendFlags.SIGNALED);
        s.bindMw(mw, MemoryWindow.incRkey(mw.rkey()), info);
        Expect.errno("a session bindMw of a type 1 window", s::complete, Errno.EINVAL);
        assertFalse(s.isActive(), "a session is closed after a failed complete()");
        Completions.assertNone(p.cqB(), "the refused bind");
        int rkey = p.b().bindMw(mw, 2, SendFlags.SIGNALED, info);
        WorkCompletion bound = Completions.awaitOne(p.cqB(), "the type 1 bind through QueuePair.bindMw");
        assertEquals(WcStatus.SUCCESS, bound.status());
        assertEquals(2, bound.wrId());
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 35);
        assertEquals(WcStatus.SUCCESS, p.write(3, src, 64, target.address(), rkey).status(),
                "a WRITE through the type 1 window once it is bound");
        Data.assertPattern("the WRITE through the window", target.segment(), 0, 64, 35, 0);
    }

    static Stream<Arguments> badFlushes() {
        return Stream.of(
                Arguments.of("type 0", 0, Flush.LEVEL_RANGE, 64L),
                Arguments.of("a type bit ibv_wr_flush does not define", Flush.TYPE_GLOBAL | 1 << 2, Flush.LEVEL_RANGE,
                        64L),
                Arguments.of("level 2", Flush.TYPE_GLOBAL, 2, 64L),
                Arguments.of("a negative length", Flush.TYPE_GLOBAL, Flush.LEVEL_RANGE, -1L));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFlushes")
    @DisplayName("optional_ ibv_wr_flush with no type, an unknown type bit, an unknown level or a negative length makes complete() fail with EINVAL and executes nothing; GLOBAL over the same range completes [ibv_wr_post(3) ibv_wr_flush: type IBV_FLUSH_GLOBAL/PERSISTENT, level IBV_FLUSH_RANGE/MR]")
    void optional_flushArgumentsAreChecked(String name, int type, int level, long length) {
        QpPair p = sessionPair(QpType.RC, WrOpcode.FLUSH);
        MemoryRegion remote = p.remoteBuffer(4096, Testbed.ALL_ACCESS | AccessFlags.FLUSH_GLOBAL);
        WrSession s = p.a().startWr();
        s.wrId(1);
        s.wrFlags(SendFlags.SIGNALED);
        s.flush(remote.rkey(), remote.address(), length, type, level);
        Expect.errno("a flush with " + name, s::complete, Errno.EINVAL);
        assertFalse(s.isActive(), "a session is closed after a failed complete()");
        Completions.assertNone(p.cqA(), "the refused flush");
        p.session(t -> {
            t.wrId(2);
            t.wrFlags(SendFlags.SIGNALED);
            t.flush(remote.rkey(), remote.address(), 64, Flush.TYPE_GLOBAL, Flush.LEVEL_RANGE);
        });
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the valid flush");
        assertEquals(2, wc.wrId(), "only the valid flush completes");
        assertEquals(WcStatus.SUCCESS, wc.status());
    }

    @Test
    @DisplayName("required_ setSgeList and setInlineDataList take 0 to the array's length entries: 0 makes a zero-length WRITE that completes and writes nothing, the whole array gathers every entry, and a count of -1 or one past the array is bad input [ibv_wr_post(3) ibv_wr_set_sge_list, ibv_wr_set_inline_data_list: num_sge, num_buf]")
    void required_listSettersTakeZeroToLengthEntries() {
        assumeSession(QpType.RC, WrOpcode.RDMA_WRITE);
        assumeTrue(caps().maxInlineData() >= 16, "capability: less than 16 bytes of inline data");
        QpPair p = tb.pair(QpType.RC, smallQps(WrOpcode.RDMA_WRITE).andThen(b -> b.maxInlineData(16)));
        MemoryRegion src = tb.buffer(16);
        Data.fill(src, 36);
        MemoryRegion dst = p.remoteBuffer(32);
        Sge[] sges = {Sge.of(src, 0, 8)};
        MemorySegment[] buffers = {src.segment().asSlice(0, 8), src.segment().asSlice(8, 8)};
        p.session(s -> {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSgeList(sges, 0);
            s.wrId(2);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address() + 8);
            s.setInlineDataList(buffers, 0);
        });
        for (int id = 1; id <= 2; id++) {
            WorkCompletion wc = Completions.awaitOne(p.cqA(), "zero-length WRITE " + id);
            assertEquals(id, wc.wrId());
            assertEquals(WcStatus.SUCCESS, wc.status(), "a list of 0 entries is a zero-length WRITE");
        }
        Data.assertFilled("the targets of the zero-length WRITEs", dst.segment(), 0, 32, (byte) 0);

        p.session(s -> {
            s.wrId(3);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address() + 16);
            s.setInlineDataList(buffers, buffers.length);
        });
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the WRITE of the whole inline list").status());
        Data.assertPattern("the whole inline list", dst.segment(), 16, 16, 36, 0);

        WrSession s = p.a().startWr();
        s.wrId(4);
        s.rdmaWrite(dst.rkey(), dst.address());
        for (int count : new int[] {-1, sges.length + 1}) {
            Expect.thrown("setSgeList of " + count + " entries of a 1-entry array", IllegalArgumentException.class,
                    () -> s.setSgeList(sges, count));
        }
        for (int count : new int[] {-1, buffers.length + 1}) {
            Expect.thrown("setInlineDataList of " + count + " entries of a 2-entry array",
                    IllegalArgumentException.class, () -> s.setInlineDataList(buffers, count));
        }
        s.abort();
        Completions.assertNone(p.cqA(), "the aborted session");
        Data.assertFilled("the first 16 bytes, which only the zero-length and refused WRITEs targeted", dst.segment(), 0,
                16, (byte) 0);
    }

    @Test
    @DisplayName("required_ setUdAddr from a thread that does not own the open session throws IllegalStateException and changes nothing; the owner then completes the SEND [ibv_wr_post(3) CONCURRENCY, ibv_wr_set_ud_addr]")
    void required_udAddressFromAnotherThreadIsRefused() throws Exception {
        QpPair p = sessionPair(QpType.UD, WrOpcode.SEND);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 37);
        MemoryRegion dst = p.remoteBuffer(40 + 64);
        p.recvB(1, dst, 0, 40 + 64);
        WrSession s = p.a().startWr();
        s.wrId(5);
        s.wrFlags(SendFlags.SIGNALED);
        s.send();
        CompletableFuture<Void> other = CompletableFuture.runAsync(() -> p.address(s));
        ExecutionException e = assertThrows(ExecutionException.class, () -> other.get(60, TimeUnit.SECONDS),
                "setUdAddr from a thread that does not own the session");
        assertInstanceOf(IllegalStateException.class, e.getCause(), "setUdAddr from another thread");
        p.address(s);
        s.setSge(src.lkey(), src.address(), 32);
        s.complete();
        WorkCompletion sent = Completions.awaitOne(p.cqA(), "the owner's UD SEND");
        assertEquals(5, sent.wrId());
        assertEquals(WcStatus.SUCCESS, sent.status());
        assertEquals(40 + 32, Completions.awaitOne(p.cqB(), "the UD receive").byteLen());
        Data.assertPattern("the UD payload after the GRH", dst.segment(), 40, 32, 37, 0);
    }

    @Test
    @DisplayName("required_ setUdAddr and setXrcSrqn in a session of an RC QP have no effect: the RDMA WRITE completes and lands (ibv_wr_set_ud_addr and ibv_wr_set_xrc_srqn are for UD and XRC_SEND QPs; a library that passed them on would call an op an RC QP may not have) [ibv_wr_post(3) ibv_wr_set_ud_addr, ibv_wr_set_xrc_srqn]")
    void required_addressSettersOfOtherTypesAreIgnored() {
        QpPair p = sessionPair(QpType.RC, WrOpcode.RDMA_WRITE);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 39);
        MemoryRegion dst = p.remoteBuffer(64);
        WrSession s = p.a().startWr();
        s.wrId(7);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(dst.rkey(), dst.address());
        s.setUdAddr(tb.ah(), p.b().qpNum(), Testbed.QKEY);
        s.setXrcSrqn(p.b().qpNum());
        s.setSge(src.lkey(), src.address(), 48);
        s.complete();
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the RDMA WRITE with the other types' setters");
        assertEquals(7, wc.wrId(), "its wr_id");
        assertEquals(WcStatus.SUCCESS, wc.status(), "the RDMA WRITE: " + wc);
        Data.assertPattern("the bytes written", dst.segment(), 0, 48, 39, 0);
    }
}
