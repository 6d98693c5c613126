package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AsyncEvent;
import org.verbs4j.AsyncEventType;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.CqInitAttributes;
import org.verbs4j.DeviceAttributesEx;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.VerbsException;
import org.verbs4j.WcFlags;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;

/** Completion queues: polling into a batch, ordering, overflow, completion channels and solicited events. */
public abstract class CqRules extends TckArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected CqRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private static final long EVENT_WAIT_MS = 10_000;

    @Test
    @DisplayName("required_ a CQ grants at least the entries asked for [ibv_create_cq(3) cqe]")
    void required_capacityAtLeastRequested() {
        CompletionQueue cq = tb.context().createCq(100);
        assertTrue(cq.capacity() >= 100, "capacity " + cq.capacity() + " < 100");
        assertSame(tb.context(), cq.context());
        assertNull(cq.channel(), "a CQ created without a channel has none");
    }

    @Test
    @DisplayName("required_ a CQ of 0 or fewer entries is refused with IllegalArgumentException [ibv_create_cq(3)]")
    void required_nonPositiveCqeRefused() {
        Expect.badInput("createCq(0)", () -> tb.context().createCq(0));
        Expect.badInput("createCq(-1)", () -> tb.context().createCq(-1));
    }

    @Test
    @DisplayName("required_ a CQ larger than max_cqe fails with EINVAL [ibv_create_cq(3), ibv_query_device(3) max_cqe]")
    void required_tooLargeCqRefused() {
        int max = tb.deviceAttributes().maxCqe();
        assumeTrue(max < Integer.MAX_VALUE, "max_cqe is unbounded");
        Expect.errno("createCq(max_cqe + 1)", () -> tb.context().createCq(max + 1), Errno.EINVAL);
    }

    @Test
    @DisplayName("required_ polling an empty CQ returns 0 and leaves the batch empty [ibv_poll_cq(3) RETURN VALUE]")
    void required_pollEmpty() {
        CompletionQueue cq = tb.cq(16);
        WorkCompletionBatch batch = new WorkCompletionBatch(8);
        assertEquals(0, cq.poll(batch));
        assertEquals(0, batch.size());
    }

    private QpPair pairWithReceives(int n, MemoryRegion rbuf) {
        QpPair p = tb.pair(QpType.RC);
        for (int i = 0; i < n; i++) {
            p.recvB(100 + i, rbuf, 0, 64);
        }
        return p;
    }

    private void sendUnawaited(QpPair p, MemoryRegion src, int n) {
        for (int i = 0; i < n; i++) {
            p.a().postSend(p.wr(i, WrOpcode.SEND, src, 0, 8));
        }
    }

    @Test
    @DisplayName("required_ a poll returns at most the batch's capacity and the rest on the next poll, oldest first [ibv_poll_cq(3) num_entries]")
    void required_pollBoundedByBatch() {
        MemoryRegion rbuf = tb.peer().buffer(64);
        MemoryRegion src = tb.buffer(64);
        QpPair p = pairWithReceives(5, rbuf);
        sendUnawaited(p, src, 5);
        Completions.await(p.cqB(), 5, "5 receives"); // the receives prove all 5 sends executed
        WorkCompletionBatch batch = new WorkCompletionBatch(2);
        List<Long> ids = new java.util.ArrayList<>();
        long deadline = System.nanoTime() + Completions.timeoutMs() * 1_000_000;
        while (ids.size() < 5 && System.nanoTime() < deadline) {
            int k = p.cqA().poll(batch);
            assertTrue(k <= 2, "poll returned " + k + " completions into a 2-entry batch");
            for (int i = 0; i < k; i++) {
                ids.add(batch.wrId(i));
            }
        }
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), ids, "send completions, oldest first");
    }

    @Test
    @DisplayName("required_ 150 queued receive completions polled into a 100-entry batch come back each once, oldest first, each with its own wr_id, byte_len, opcode, flags and imm_data, and the CQ is then empty [ibv_poll_cq(3) num_entries]")
    void required_pollOfManyCompletions() {
        int n = 150;
        MemoryRegion rbuf = tb.peer().buffer(64);
        MemoryRegion src = tb.buffer(64);
        QpPair p = tb.pair(QpType.RC, b -> b.maxRecvWr(n));
        for (int i = 0; i < n; i++) {
            p.recvB(1000 + i, rbuf, 0, 64);
        }
        // a's send queue holds 32 WRs: the SENDs go in rounds of 30, each awaited on a's CQ, while b's CQ is left
        // unpolled, so its completions queue up (150 of them, more than two 64-entry arrays of ibv_wc).
        for (int i = 0; i < n; ) {
            int round = Math.min(30, n - i);
            for (int j = 0; j < round; j++, i++) {
                boolean imm = i % 2 == 1;
                SendWr wr = p.wr(i, imm ? WrOpcode.SEND_WITH_IMM : WrOpcode.SEND, src, 0, 1 + i % 64);
                p.a().postSend(imm ? wr.immData(0x0A0B_0C00 + i) : wr);
            }
            Completions.await(p.cqA(), round, "a round of " + round + " SENDs");
        }
        // 100 entries: more than a 64-entry ibv_wc array, fewer than the completions, so a poll may span two arrays and
        // must stop at the batch's end without consuming a completion it has no room for.
        WorkCompletionBatch batch = new WorkCompletionBatch(100);
        List<WorkCompletion> got = Completions.await(p.cqB(), n, batch, Completions.timeoutMs(),
                n + " receive completions polled 100 at a time");
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = got.get(i);
            boolean imm = i % 2 == 1;
            String which = "receive completion " + i;
            assertEquals(1000 + i, wc.wrId(), which + ": wr_id, in the order posted");
            assertEquals(WcStatus.SUCCESS, wc.status(), which);
            assertEquals(WcOpcode.RECV, wc.opcode(), which + ": opcode");
            assertEquals(1 + i % 64, wc.byteLen(), which + ": byte_len, the bytes its SEND carried");
            assertEquals(imm, (wc.wcFlags() & WcFlags.WITH_IMM) != 0, which + ": IBV_WC_WITH_IMM");
            assertEquals(imm ? 0x0A0B_0C00 + i : 0, wc.immData(), which + ": imm_data, in host order");
            assertEquals(p.b().qpNum(), wc.qpNum(), which + ": qp_num");
        }
        assertEquals(0, p.cqB().poll(batch), "the CQ after its 150 completions were polled");
    }

    @Test
    @DisplayName("required_ receive completions arrive in the order the receives were posted [IBA 10.8.1: RQ processed in order]")
    void required_receivesInOrder() {
        MemoryRegion rbuf = tb.peer().buffer(64);
        MemoryRegion src = tb.buffer(64);
        QpPair p = pairWithReceives(6, rbuf);
        sendUnawaited(p, src, 6);
        List<WorkCompletion> r = Completions.await(p.cqB(), 6, "6 receives");
        for (int i = 0; i < 6; i++) {
            assertEquals(100 + i, r.get(i).wrId(), "receive completion " + i);
            assertEquals(WcOpcode.RECV, r.get(i).opcode());
        }
    }

    @Test
    @DisplayName("required_ a completion reports the local QP number [ibv_poll_cq(3) qp_num]")
    void required_qpNumInCompletion() {
        MemoryRegion rbuf = tb.peer().buffer(64);
        MemoryRegion src = tb.buffer(64);
        QpPair p = pairWithReceives(1, rbuf);
        WorkCompletion s = p.send(1, src, 0, 8);
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the receive");
        assertEquals(p.a().qpNum(), s.qpNum(), "the send completion's qp_num");
        assertEquals(p.b().qpNum(), r.qpNum(), "the receive completion's qp_num");
    }

    @Test
    @DisplayName("required_ one CQ may serve as send and receive CQ of several QPs, keeping each completion's qp_num [ibv_create_qp(3)]")
    void required_sharedCq() {
        SendAndReceive s = sendAndReceiveOn(tb.cq(64));
        for (WorkCompletion w : s.completions()) {
            assertEquals(w.wrId() == 8 ? s.a().qpNum() : s.b().qpNum(), w.qpNum(), "qp_num of " + w);
        }
    }

    @Test
    @DisplayName("required_ an overflowing CQ is reported as a CQ_ERR asynchronous event [ibv_create_cq(3), ibv_get_async_event(3)]")
    void required_overflowRaisesCqErr() {
        overflowOneCq(false);
    }

    @Test
    @DisplayName("required_ a receive CQ that overflows is reported as a CQ_ERR asynchronous event naming it, and the receiving QP goes to ERR [ibv_create_cq(3), ibv_get_async_event(3) IBV_EVENT_CQ_ERR; rxe moves the QP to ERR]")
    void required_receiveOverflowRaisesCqErr() {
        QueuePair b = overflowOneCq(true);
        long deadline = System.nanoTime() + EVENT_WAIT_MS * 1_000_000;
        while (b.query().state() != org.verbs4j.QpState.ERR && System.nanoTime() < deadline) {
            Thread.yield();
        }
        assertEquals(org.verbs4j.QpState.ERR, b.query().state(), "a QP whose receive CQ overflowed");
    }

    /**
     * Sends {@code capacity + 2} messages from an RC QP on the testbed to one on its peer, where one CQ has the
     * entries a 1-entry request grants: the sender's (all sends signaled) or, with {@code receiveSide}, the
     * receiver's. Asserts the CQ_ERR event naming it, and returns the receiving QP.
     */
    private QueuePair overflowOneCq(boolean receiveSide) {
        Testbed far = tb.peer();
        Testbed owner = receiveSide ? far : tb;
        CompletionQueue small = owner.context().createCq(1);
        int capacity = small.capacity();
        assumeTrue(capacity <= 256, "the device grants " + capacity + " entries for a 1-entry CQ; too many to overflow quickly");
        CompletionQueue other = (receiveSide ? tb : far).cq(capacity * 2 + 8);
        QueuePair a = tb.qp(QpType.RC, receiveSide ? other : small, b -> b.maxSendWr(capacity + 4).sqSigAll(!receiveSide));
        QueuePair b = far.qp(QpType.RC, receiveSide ? small : other, b2 -> b2.maxRecvWr(capacity + 4));
        tb.bringUp(a, b.qpNum(), 7, far);
        far.bringUp(b, a.qpNum(), 7, tb);
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion rbuf = far.buffer(64);
        for (int i = 0; i < capacity + 2; i++) {
            b.postRecv(new org.verbs4j.RecvWr(i, org.verbs4j.Sge.of(rbuf, 0, 8)));
        }
        for (int i = 0; i < capacity + 2; i++) {
            try {
                a.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sgList(org.verbs4j.Sge.of(buf, 8, 8)));
            } catch (org.verbs4j.PostSendException e) {
                break; // the QP may already be in ERR after the overflow
            }
        }
        awaitCqErr(owner.context(), small, capacity);
        return b;
    }

    private void awaitCqErr(Context ctx, CompletionQueue small, int capacity) {
        long deadline = System.nanoTime() + EVENT_WAIT_MS * 1_000_000;
        while (System.nanoTime() < deadline) {
            AsyncEvent ev = ctx.pollAsyncEvent(100, TimeUnit.MILLISECONDS);
            if (ev != null && ev.type() == AsyncEventType.CQ_ERR) {
                assertSame(small, ev.cq(), "the CQ_ERR event names the overflowing CQ");
                return;
            }
        }
        fail("no CQ_ERR event after " + (capacity + 2) + " completions into a CQ of " + capacity + " entries");
    }

    private void assumeChannel() {
        assumeTrue(caps().completionChannel(), "capability: the device has no completion channels");
    }

    @Test
    @DisplayName("required_ a CQ created with a channel reports that channel [ibv_create_cq(3) channel]")
    void required_cqKnowsChannel() {
        assumeChannel();
        CompletionChannel ch = tb.context().createCompletionChannel();
        CompletionQueue cq = tb.context().createCq(16, ch, 0);
        assertSame(ch, cq.channel());
        assertSame(tb.context(), ch.context());
    }

    private record Armed(QpPair p, CompletionChannel channel, CompletionQueue recvCq) {}

    /** A pair whose b has a receive CQ with a completion channel; b is on the testbed's peer. */
    private Armed armedPair() {
        Testbed far = tb.peer();
        CompletionChannel ch = far.context().createCompletionChannel();
        CompletionQueue cqA = tb.cq(64);
        CompletionQueue cqB = far.context().createCq(64, ch, 0);
        QueuePair a = tb.qp(QpType.RC, cqA, null);
        QueuePair b = far.qp(QpType.RC, cqB, null);
        tb.bringUp(a, b.qpNum(), 7, far);
        far.bringUp(b, a.qpNum(), 7, tb);
        return new Armed(new QpPair(tb, a, b, cqA, cqB, null, far), ch, cqB);
    }

    @Test
    @DisplayName("required_ an armed CQ delivers one event on its channel when a completion arrives [ibv_req_notify_cq(3), ibv_get_cq_event(3)]")
    void required_notifyOnCompletion() {
        assumeChannel();
        Armed x = armedPair();
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion rbuf = x.p().remoteBuffer(64);
        x.p().recvB(1, rbuf, 0, 32);
        x.recvCq().requestNotify(false);
        x.p().send(2, buf, 32, 8);
        assertSame(x.recvCq(), x.channel().awaitEvent(EVENT_WAIT_MS, TimeUnit.MILLISECONDS),
                "the armed CQ's event on its channel");
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(x.recvCq(), "the receive").status());
    }

    @Test
    @DisplayName("required_ a CQ that was not armed delivers no event [ibv_req_notify_cq(3)]")
    void required_noEventWithoutArming() {
        assumeChannel();
        Armed x = armedPair();
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion rbuf = x.p().remoteBuffer(64);
        x.p().recvB(1, rbuf, 0, 32);
        x.p().send(2, buf, 32, 8);
        Completions.awaitOne(x.recvCq(), "the receive");
        assertNull(x.channel().awaitEvent(Completions.QUIET_MS, TimeUnit.MILLISECONDS), "an event without requestNotify");
    }

    @Test
    @DisplayName("required_ an event disarms the CQ: a second completion gives no second event until re-armed [ibv_get_cq_event(3)]")
    void required_oneEventPerArming() {
        assumeChannel();
        Armed x = armedPair();
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion rbuf = x.p().remoteBuffer(64);
        x.p().recvB(1, rbuf, 0, 16);
        x.p().recvB(2, rbuf, 16, 16);
        x.recvCq().requestNotify(false);
        x.p().send(3, buf, 32, 8);
        assertSame(x.recvCq(), x.channel().awaitEvent(EVENT_WAIT_MS, TimeUnit.MILLISECONDS));
        x.p().send(4, buf, 40, 8);
        Completions.await(x.recvCq(), 2, "both receives");
        assertNull(x.channel().awaitEvent(Completions.QUIET_MS, TimeUnit.MILLISECONDS), "a second event without re-arming");
    }

    @Test
    @DisplayName("required_ a CQ armed for solicited events ignores an unsolicited SEND and signals a SOLICITED one [ibv_req_notify_cq(3) solicited_only]")
    void required_solicitedOnly() {
        assumeChannel();
        Armed x = armedPair();
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion rbuf = x.p().remoteBuffer(64);
        x.p().recvB(1, rbuf, 0, 16);
        x.p().recvB(2, rbuf, 16, 16);
        x.recvCq().requestNotify(true);
        x.p().send(3, buf, 32, 8);
        Completions.awaitOne(x.recvCq(), "the unsolicited receive");
        assertNull(x.channel().awaitEvent(Completions.QUIET_MS, TimeUnit.MILLISECONDS),
                "an unsolicited SEND woke a solicited-only CQ");
        x.p().postA(x.p().wr(4, WrOpcode.SEND, buf, 40, 8).sendFlags(SendFlags.SIGNALED | SendFlags.SOLICITED));
        assertSame(x.recvCq(), x.channel().awaitEvent(EVENT_WAIT_MS, TimeUnit.MILLISECONDS),
                "a SOLICITED SEND must produce an event on a solicited-only CQ");
    }

    @Test
    @DisplayName("required_ a CQ armed for solicited events is signalled by an error completion [ibv_req_notify_cq(3): solicited or error]")
    void required_solicitedOnlyWakesOnError() {
        assumeChannel();
        Armed x = armedPair();
        MemoryRegion rbuf = x.p().remoteBuffer(64);
        x.p().recvB(1, rbuf, 0, 16);
        x.recvCq().requestNotify(true);
        x.p().b().modify(org.verbs4j.QpAttributes.toState(org.verbs4j.QpState.ERR));
        assertSame(x.recvCq(), x.channel().awaitEvent(EVENT_WAIT_MS, TimeUnit.MILLISECONDS),
                "a flushed receive (an error completion) must wake a solicited-only CQ");
        assertEquals(WcStatus.WR_FLUSH_ERR, Completions.awaitOne(x.recvCq(), "the flushed receive").status());
    }

    @Test
    @DisplayName("required_ requestNotify on a CQ without a channel throws IllegalStateException [CompletionQueue#requestNotify]")
    void required_notifyWithoutChannel() {
        CompletionQueue cq = tb.cq(8);
        Expect.thrown("requestNotify without channel", IllegalStateException.class, () -> cq.requestNotify(false));
    }

    @Test
    @DisplayName("required_ awaitEvent with a negative timeout is refused and a zero timeout returns at once [CompletionChannel#awaitEvent]")
    void required_awaitEventTimeouts() {
        assumeChannel();
        CompletionChannel ch = tb.context().createCompletionChannel();
        Expect.badInput("awaitEvent(-1)", () -> ch.awaitEvent(-1, TimeUnit.MILLISECONDS));
        assertNull(ch.awaitEvent(0, TimeUnit.MILLISECONDS));
    }

    @Test
    @DisplayName("required_ a CQ cannot take a channel of another context [ibv_create_cq(3)]")
    void required_channelOfOtherContext() {
        assumeChannel();
        try (Context other = tb.device().open()) {
            CompletionChannel foreign = other.createCompletionChannel();
            Expect.badInput("createCq(channel of another context)", () -> tb.context().createCq(8, foreign, 0));
        }
    }

    @Test
    @DisplayName("required_ a completion vector outside 0..num_comp_vectors-1 is refused [ibv_create_cq(3) comp_vector]")
    void required_badCompVector() {
        Expect.refused("createCq(comp_vector -1)", () -> tb.context().createCq(8, null, -1));
    }

    @Test
    @DisplayName("required_ a send completion reports the WR's opcode class and ID [ibv_poll_cq(3) opcode, wr_id]")
    void required_sendCompletionFields() {
        MemoryRegion buf = tb.buffer(64);
        QpPair p = pairWithReceives(1, tb.peer().buffer(64));
        WorkCompletion wc = p.send(0xFEEDFACECAFEL, buf, 32, 8);
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.SEND, wc.opcode());
        assertEquals(0xFEEDFACECAFEL, wc.wrId(), "the full 64-bit wr_id comes back");
    }

    @Test
    @DisplayName("required_ CQ moderation up to cq_mod_caps is accepted; one past either cap, or below 0, fails with EINVAL [ibv_modify_cq(3), ibv_query_device_ex(3) cq_mod_caps]")
    void required_moderationWithinCaps() {
        assumeTrue(caps().cqModeration(), "capability: the device has no CQ moderation (cq_mod_caps, modify_cq)");
        int count = caps().maxCqModerationCount();
        int period = caps().maxCqModerationPeriod();
        CompletionQueue cq = tb.cq(16);
        cq.modifyModeration(count, period);
        cq.modifyModeration(0, 0);
        cq.modifyModeration(1, 0);
        Expect.errno("modifyModeration(max_cq_count + 1, 0)", () -> cq.modifyModeration(count + 1, 0), Errno.EINVAL);
        Expect.errno("modifyModeration(0, max_cq_period + 1)", () -> cq.modifyModeration(0, period + 1), Errno.EINVAL);
        Expect.errno("modifyModeration(-1, 0)", () -> cq.modifyModeration(-1, 0), Errno.EINVAL);
        Expect.errno("modifyModeration(0, -1)", () -> cq.modifyModeration(0, -1), Errno.EINVAL);
        assertEquals(0, cq.poll(new WorkCompletionBatch(4)), "the CQ still polls after a refused moderation");
    }

    @Test
    @DisplayName("required_ a device without CQ moderation refuses modifyModeration with EOPNOTSUPP [ibv_modify_cq(3)]")
    void required_moderationUnsupported() {
        assumeTrue(!caps().cqModeration(), "the device has CQ moderation");
        CompletionQueue cq = tb.cq(16);
        Expect.errno("modifyModeration(1, 0)", () -> cq.modifyModeration(1, 0), Errno.EOPNOTSUPP);
    }

    @Test
    @DisplayName("required_ modifyModeration on a closed CQ throws IllegalStateException [ibv_modify_cq(3)]")
    void required_moderationOfClosedCq() {
        CompletionQueue cq = tb.context().createCq(8);
        cq.close();
        Expect.closed("CompletionQueue.modifyModeration", () -> cq.modifyModeration(0, 0));
    }

    // ---- completion timestamps: ibv_create_cq_ex wc_flags, ibv_query_rt_values_ex (issue 29, item 3)

    /** Two RC QPs of this device on one CQ, and the completions of a send (wr_id 8) from A and its receive (9) at B. */
    private record SendAndReceive(QueuePair a, QueuePair b, List<WorkCompletion> completions) {}

    /** A send and its receive on one CQ, between two RC QPs of this device; both polled. */
    private SendAndReceive sendAndReceiveOn(CompletionQueue cq) {
        QueuePair a = tb.qp(QpType.RC, cq, null);
        QueuePair b = tb.qp(QpType.RC, cq, null);
        tb.bringUp(a, b.qpNum(), 7);
        tb.bringUp(b, a.qpNum(), 7);
        MemoryRegion buf = tb.buffer(64);
        b.postRecv(new org.verbs4j.RecvWr(9, org.verbs4j.Sge.of(buf, 0, 32)));
        a.postSend(new SendWr().wrId(8).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(org.verbs4j.Sge.of(buf, 32, 32)));
        return new SendAndReceive(a, b, Completions.await(cq, 2, "a send and its receive on one CQ"));
    }

    /** The raw clock, or null where the device has none (EOPNOTSUPP). */
    private Long rawClockOrNull() {
        try {
            return tb.context().queryRawClock();
        } catch (VerbsException e) {
            if (e.errno() != Errno.EOPNOTSUPP) {
                throw e;
            }
            return null;
        }
    }

    @Test
    @DisplayName("required_ a CQ created with COMPLETION_TIMESTAMP stamps each completion with the raw clock, within completion_timestamp_mask and between two ibv_query_rt_values_ex readings; a CQ without it stamps none [ibv_create_cq_ex(3), ibv_query_rt_values_ex(3)]")
    void required_completionTimestamps() {
        DeviceAttributesEx ex = tb.context().queryDeviceEx();
        assumeTrue(ex.completionTimestampMask() != 0, "capability: completion_timestamp_mask is 0");
        long mask = ex.completionTimestampMask();
        CompletionQueue cq = tb.context().createCq(
                CqInitAttributes.of(16, CqInitAttributes.STANDARD_FLAGS | CqInitAttributes.WITH_COMPLETION_TIMESTAMP));
        Long before = rawClockOrNull();
        List<WorkCompletion> both = sendAndReceiveOn(cq).completions();
        Long after = rawClockOrNull();
        for (WorkCompletion w : both) {
            long ts = w.completionTimestamp();
            assertTrue(ts != 0, "no timestamp in " + w);
            assertEquals(ts & mask, ts, "timestamp 0x" + Long.toHexString(ts) + " beyond mask 0x" + Long.toHexString(mask));
            if (before != null && after != null) {
                assertTrue(Long.compareUnsigned(before & mask, ts) <= 0 && Long.compareUnsigned(ts, after & mask) <= 0,
                        "timestamp " + ts + " outside the raw clock's " + before + " .. " + after);
            }
            assertEquals(0, w.completionWallclockNs(), "a wall-clock stamp nobody asked for");
        }
        for (WorkCompletion w : sendAndReceiveOn(tb.cq(16)).completions()) {
            assertEquals(0, w.completionTimestamp(), "a CQ without COMPLETION_TIMESTAMP stamped " + w);
        }
    }

    @Test
    @DisplayName("required_ a CQ created with COMPLETION_TIMESTAMP_WALLCLOCK stamps each completion with wall-clock nanoseconds near the host's clock (within 10 s), unless the device refuses that kind with EOPNOTSUPP [ibv_create_cq_ex(3)]")
    void required_completionWallclock() {
        assumeTrue(tb.context().queryDeviceEx().completionTimestampMask() != 0,
                "capability: completion_timestamp_mask is 0");
        CompletionQueue cq;
        try {
            cq = tb.context().createCq(CqInitAttributes.of(16, CqInitAttributes.WITH_COMPLETION_TIMESTAMP_WALLCLOCK));
        } catch (VerbsException e) {
            assumeTrue(e.errno() != Errno.EOPNOTSUPP, "the device stamps no wall-clock time (EOPNOTSUPP)");
            throw e;
        }
        long before = hostNs();
        List<WorkCompletion> both = sendAndReceiveOn(cq).completions();
        long after = hostNs();
        long slack = TimeUnit.SECONDS.toNanos(10);
        for (WorkCompletion w : both) {
            long ns = w.completionWallclockNs();
            assertTrue(ns >= before - slack && ns <= after + slack,
                    "wall clock " + ns + " ns far from the host's " + before + " .. " + after);
            assertEquals(0, w.completionTimestamp(), "a raw stamp nobody asked for");
        }
    }

    private static long hostNs() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    @Test
    @DisplayName("required_ a device whose completion_timestamp_mask is 0 refuses either timestamp with EOPNOTSUPP [ibv_create_cq_ex(3)]")
    void required_completionTimestampsUnsupported() {
        assumeTrue(tb.context().queryDeviceEx().completionTimestampMask() == 0, "the device stamps completions");
        Expect.errno("createCq(COMPLETION_TIMESTAMP)", () -> tb.context().createCq(
                CqInitAttributes.of(4, CqInitAttributes.WITH_COMPLETION_TIMESTAMP)), Errno.EOPNOTSUPP);
        Expect.errno("createCq(COMPLETION_TIMESTAMP_WALLCLOCK)", () -> tb.context().createCq(
                CqInitAttributes.of(4, CqInitAttributes.WITH_COMPLETION_TIMESTAMP_WALLCLOCK)), Errno.EOPNOTSUPP);
        assertEquals(0, tb.context().createCq(CqInitAttributes.of(4, CqInitAttributes.STANDARD_FLAGS))
                .poll(new WorkCompletionBatch(1)), "the standard flags still make a CQ");
    }

    @Test
    @DisplayName("required_ the raw clock never goes back between two readings, or the device has none (EOPNOTSUPP) [ibv_query_rt_values_ex(3)]")
    void required_rawClockMonotonic() {
        Long first = rawClockOrNull();
        assumeTrue(first != null, "the device has no raw clock (EOPNOTSUPP)");
        long second = tb.context().queryRawClock();
        assertTrue(Long.compareUnsigned(first, second) <= 0, "raw clock went from " + first + " to " + second);
    }

    // ---- ibv_resize_cq (issue 29)

    /**
     * Resizes, or skips the rule when the device cannot resize a CQ at all: {@code EOPNOTSUPP} (libibverbs'
     * answer for a driver without the op) or {@code ENOSYS}, probed by the call itself.
     */
    private static int resizeOrSkip(CompletionQueue cq, int cqe) {
        try {
            return cq.resize(cqe);
        } catch (org.verbs4j.VerbsException e) {
            assumeTrue(e.errno() != Errno.EOPNOTSUPP && e.errno() != Errno.ENOSYS,
                    "the device cannot resize a CQ (" + e.getMessage() + ")");
            throw e;
        }
    }

    /** Queues {@code n} receive completions on the pair's B side, wr_id 100 + i; a's send completions are polled. */
    private QpPair queueReceives(int n) {
        MemoryRegion rbuf = tb.peer().buffer(64);
        MemoryRegion src = tb.buffer(64);
        QpPair p = pairWithReceives(n, rbuf);
        for (int i = 0; i < n; i++) {
            // RC: the responder completes the receive before it acknowledges, so a's completion proves b's.
            assertEquals(WcStatus.SUCCESS, p.send(i, src, 0, 8).status(), "send " + i);
        }
        return p;
    }

    private static void assertReceivesInOrder(CompletionQueue cq, int first, int n, String what) {
        List<WorkCompletion> r = Completions.await(cq, n, what);
        for (int i = 0; i < n; i++) {
            assertEquals(first + i, r.get(i).wrId(), what + ": receive completion " + i + " (oldest first)");
            assertEquals(WcStatus.SUCCESS, r.get(i).status(), what + ": receive completion " + i);
        }
        Completions.assertNone(cq, what + ": no completion beyond the " + n + " queued");
    }

    @Test
    @DisplayName("required_ a resized CQ keeps its completions in order, grants at least the size asked and keeps serving its QP [ibv_resize_cq(3)]")
    void required_resizeKeepsCompletions() {
        QpPair p = queueReceives(5);
        int before = p.cqB().capacity();
        int granted = resizeOrSkip(p.cqB(), before + 100);
        assertTrue(granted >= before + 100, "resize(" + (before + 100) + ") granted " + granted);
        assertEquals(granted, p.cqB().capacity(), "capacity() after the resize");
        assertReceivesInOrder(p.cqB(), 100, 5, "after growing");

        MemoryRegion src = tb.buffer(64);
        for (int i = 0; i < 3; i++) {
            p.recvB(200 + i, tb.peer().buffer(64), 0, 64);
        }
        int shrunk = p.cqB().resize(8);
        assertTrue(shrunk >= 8, "resize(8) granted " + shrunk);
        for (int i = 0; i < 3; i++) {
            p.send(10 + i, src, 0, 8);
        }
        assertReceivesInOrder(p.cqB(), 200, 3, "after shrinking");
    }

    @Test
    @DisplayName("required_ a resize to the number of queued completions works; one fewer fails with EINVAL and loses none [ibv_resize_cq(3), rxe_cq_chk_attr]")
    void required_resizeBelowQueuedRefused() {
        QpPair p = queueReceives(5);
        resizeOrSkip(p.cqB(), 64);
        Expect.errno("resize(4) with 5 completions queued", () -> p.cqB().resize(4), Errno.EINVAL);
        int granted = p.cqB().resize(5);
        assertTrue(granted >= 5, "resize(5) granted " + granted);
        assertReceivesInOrder(p.cqB(), 100, 5, "after the refused and the exact resize");
    }

    @Test
    @DisplayName("required_ a resize to max_cqe works; max_cqe + 1 fails with EINVAL and 0 is refused [ibv_resize_cq(3), ibv_query_device(3) max_cqe]")
    void required_resizeLimits() {
        int max = tb.deviceAttributes().maxCqe();
        CompletionQueue cq = tb.cq(4);
        resizeOrSkip(cq, 8);
        Expect.badInput("resize(0)", () -> cq.resize(0));
        Expect.badInput("resize(-1)", () -> cq.resize(-1));
        if (max < Integer.MAX_VALUE) {
            Expect.errno("resize(max_cqe + 1)", () -> cq.resize(max + 1), Errno.EINVAL);
        }
        assertTrue(cq.capacity() >= 8, "a refused resize keeps the CQ as it was: capacity " + cq.capacity());
        int granted = cq.resize(max);
        assertTrue(granted >= max, "resize(max_cqe " + max + ") granted " + granted);
        cq.resize(4);
    }

    @Test
    @DisplayName("required_ a closed CQ refuses resize with IllegalStateException [VerbsObject, ibv_resize_cq(3)]")
    void required_resizeClosed() {
        CompletionQueue cq = tb.cq(4);
        cq.close();
        Expect.closed("CompletionQueue.resize", () -> cq.resize(8));
    }
}
