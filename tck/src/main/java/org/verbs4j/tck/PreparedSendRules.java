package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.PostSendException;
import org.verbs4j.PreparedSends;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.VerbsException;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;

/**
 * {@link PreparedSends}, a QP's reusable send WR array ({@link org.verbs4j.QueuePair#prepareSends(int)}), posted
 * with one {@code ibv_post_send(3)}: it posts and completes as {@code postSend} does, stops at the first refused
 * slot with the slots before it posted, refuses every WR that {@code postSend} refuses in the same way, keeps its
 * slots from post to post, and after {@code close()} of the array or of its QP throws instead of crashing.
 */
public abstract class PreparedSendRules extends TckArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected PreparedSendRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    /** Sets slot {@code slot} to a 16-byte signaled RDMA WRITE from {@code src + 16 * slot} to {@code dst}. */
    static void write(PreparedSends a, int slot, long wrId, MemoryRegion src, MemoryRegion dst, long dstOffset) {
        a.opcode(slot, WrOpcode.RDMA_WRITE).wrId(slot, wrId).sendFlags(slot, SendFlags.SIGNALED)
                .sge(slot, 0, src.address() + 16L * slot, 16, src.lkey()).numSge(slot, 1)
                .rdma(slot, dst.address() + dstOffset, dst.rkey());
    }

    /**
     * Sets slot 0 to a signaled {@code op} (a SEND kind) of the first 16 bytes of {@code src}; the caller adds what
     * the opcode needs ({@code immData}, {@code invalidateRkey}, {@code ud}).
     *
     * @return the array, to chain that setter
     */
    private static PreparedSends send(PreparedSends a, WrOpcode op, long wrId, MemoryRegion src) {
        return a.opcode(0, op).wrId(0, wrId).sendFlags(0, SendFlags.SIGNALED)
                .sge(0, 0, src.address(), 16, src.lkey()).numSge(0, 1);
    }

    private static PostSendException postError(String rule, Runnable call, int errno) {
        VerbsException e = Expect.errno(rule, call::run, errno);
        assertInstanceOf(PostSendException.class, e, rule + ": a post reports a PostSendException with bad_wr");
        return (PostSendException) e;
    }

    @Test
    @DisplayName("required_ a prepared array of RDMA WRITEs posts with one post and each slot completes with its wrId and data, as postSend's list does [ibv_post_send(3)]")
    void required_postsAndCompletes() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 41);
        MemoryRegion dst = p.remoteBuffer(64);
        try (PreparedSends a = p.a().prepareSends(4)) {
            assertEquals(4, a.capacity());
            assertTrue(a.maxSge() >= 1, "a slot has room for at least one SGE");
            for (int i = 0; i < 4; i++) {
                write(a, i, 100 + i, src, dst, 16L * i);
            }
            a.post(4);
            List<WorkCompletion> wcs = Completions.await(p.cqA(), 4, "four prepared WRITEs");
            assertEquals(List.of(100L, 101L, 102L, 103L), wcs.stream().map(WorkCompletion::wrId).toList());
            wcs.forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), "prepared WRITE " + wc.wrId()));
            Data.assertPattern("the four WRITEs' data", dst.segment(), 0, 64, 41, 0);
        }
    }

    @Test
    @DisplayName("required_ a prepared array keeps its slots from post to post: a second post with only new wrIds and a new remote address posts them [ibv_post_send(3)]")
    void required_reuseAfterPost() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(32);
        Data.fill(src, 43);
        MemoryRegion dst = p.remoteBuffer(64);
        try (PreparedSends a = p.a().prepareSends(2)) {
            write(a, 0, 1, src, dst, 0);
            write(a, 1, 2, src, dst, 16);
            a.post(2);
            Completions.await(p.cqA(), 2, "the first post");
            a.wrId(0, 3).wrId(1, 4).rdma(0, dst.address() + 32, dst.rkey()).rdma(1, dst.address() + 48, dst.rkey());
            a.post(2);
            List<WorkCompletion> wcs = Completions.await(p.cqA(), 2, "the second post of the same slots");
            assertEquals(List.of(3L, 4L), wcs.stream().map(WorkCompletion::wrId).toList());
            Data.assertPattern("the second post's data", dst.segment(), 32, 32, 43, 0);
            a.sendFlags(0, 0).wrId(0, 5).wrId(1, 6);
            a.post(2);
            WorkCompletion wc = Completions.awaitOne(p.cqA(), "the third post, slot 0 unsignaled");
            assertEquals(6L, wc.wrId(), "only the signaled slot completes");
            a.post(1);
            Completions.assertNone(p.cqA(), "a post of slot 0 alone, unsignaled, makes no completion");
        }
    }

    @Test
    @DisplayName("required_ a prepared array stores what changed between posts in each slot's own WR: a second post with new SGEs (slot 0's two, slot 1's one, in another local region: address, length and lkey), another remote region (address and rkey) and slot 1 made unsignaled writes the new bytes to the new region, and only slot 0 completes [ibv_post_send(3)]")
    void required_reuseWithNewSgesAndRegions() {
        QpPair p = tb.pair(QpType.RC, b -> b.maxSendSge(2));
        MemoryRegion first = tb.buffer(64);
        MemoryRegion second = tb.buffer(64);
        Data.fill(first, 44);
        Data.fill(second, 45);
        MemoryRegion dst1 = p.remoteBuffer(64);
        MemoryRegion dst2 = p.remoteBuffer(64);
        try (PreparedSends a = p.a().prepareSends(2)) {
            assumeTrue(a.maxSge() >= 2, "capability: fewer than 2 send SGEs");
            // Slot 0 gathers first[0, 16) and first[32, 40) to dst1 at 0; slot 1 first[16, 32) to dst1 at 32.
            write(a, 0, 1, first, dst1, 0);
            a.sge(0, 1, first.address() + 32, 8, first.lkey()).numSge(0, 2);
            write(a, 1, 2, first, dst1, 32);
            a.post(2);
            Completions.await(p.cqA(), 2, "the first post");
            Data.assertPattern("slot 0's first SGE", dst1.segment(), 0, 16, 44, 0);
            Data.assertPattern("slot 0's second SGE", dst1.segment(), 16, 8, 44, 32);
            Data.assertPattern("slot 1", dst1.segment(), 32, 16, 44, 16);
            // Each SGE changed to the second region (address, length, lkey), each slot to dst2 (address, rkey), and
            // slot 1 unsignaled; the number of SGEs, the opcode and slot 0's flags as the first post left them.
            a.wrId(0, 3).sge(0, 0, second.address() + 8, 24, second.lkey()).sge(0, 1, second.address() + 56, 8,
                    second.lkey()).rdma(0, dst2.address(), dst2.rkey());
            a.wrId(1, 4).sendFlags(1, 0).sge(1, 0, second.address() + 40, 8, second.lkey())
                    .rdma(1, dst2.address() + 40, dst2.rkey());
            a.post(2);
            WorkCompletion wc = Completions.awaitOne(p.cqA(), "the second post: slot 0 signaled, slot 1 not");
            assertEquals(3L, wc.wrId(), "only slot 0 is signaled: " + wc);
            assertEquals(WcStatus.SUCCESS, wc.status(), "slot 0 of the second post: " + wc);
            // A signaled WRITE behind slot 1 completes after it (RC executes in order), so slot 1 has landed.
            assertEquals(WcStatus.SUCCESS, p.write(5, second, 8, dst2.address() + 56, dst2.rkey()).status());
            Data.assertPattern("slot 0's new first SGE at the new region", dst2.segment(), 0, 24, 45, 8);
            Data.assertPattern("slot 0's new second SGE", dst2.segment(), 24, 8, 45, 56);
            Data.assertFilled("dst2 between the two slots' bytes", dst2.segment(), 32, 8, (byte) 0);
            Data.assertPattern("slot 1's new bytes at the new region", dst2.segment(), 40, 8, 45, 40);
            Data.assertFilled("dst2 after slot 1's bytes", dst2.segment(), 48, 8, (byte) 0);
            Data.assertPattern("the first post's bytes, left alone", dst1.segment(), 0, 16, 44, 0);
        }
    }

    @Test
    @DisplayName("required_ a post stops at the first refused slot: its index is reported, the slots before it are posted and complete, the ones after are not [ibv_post_send(3) bad_wr]")
    void required_stopsAtFirstRefusedSlot() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 47);
        MemoryRegion dst = p.remoteBuffer(64);
        try (PreparedSends a = p.a().prepareSends(4)) {
            for (int i = 0; i < 4; i++) {
                write(a, i, 200 + i, src, dst, 16L * i);
            }
            a.sendFlags(2, SendFlags.SIGNALED | 1 << 30);
            PostSendException e = postError("slot 2 with an unknown send flag", () -> a.post(4), Errno.EINVAL);
            assertEquals(2, e.badWrIndex(), "bad_wr must be slot 2");
            List<WorkCompletion> wcs = Completions.await(p.cqA(), 2, "the two slots before bad_wr");
            assertEquals(List.of(200L, 201L), wcs.stream().map(WorkCompletion::wrId).toList());
            Completions.assertNone(p.cqA(), "slots after bad_wr were not posted");
            Data.assertFilled("slot 3 (after bad_wr) must not execute", dst.segment(), 32, 32, (byte) 0);
            a.sendFlags(2, SendFlags.SIGNALED);
            a.post(4); // post(n) posts slots 0 to n - 1: all four again
            List<WorkCompletion> again = Completions.await(p.cqA(), 4, "slots 0 to 3 once slot 2 is mended");
            assertEquals(List.of(200L, 201L, 202L, 203L), again.stream().map(WorkCompletion::wrId).toList());
            Data.assertPattern("slot 3 executes once slot 2 is mended", dst.segment(), 48, 16, 47, 48);
        }
    }

    /** Makes a WR from a to b, with {@code src} (1 KiB, registered) at hand. */
    private interface WrMaker {
        SendWr make(QpPair p, MemoryRegion src, Testbed tb);
    }

    /** A refused WR of postSend, made for a pair and its buffers. */
    private record BadWr(String name, WrMaker make) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> refusedWrs() {
        return Stream.of(
                new BadWr("an unknown send flag", (p, src, tb) -> p.wr(9, WrOpcode.RDMA_WRITE, src, 0, 16)
                        .sendFlags(SendFlags.SIGNALED | 1 << 29)),
                new BadWr("IP_CSUM on a device without checksum offload", (p, src, tb) -> p.wr(9, WrOpcode.RDMA_WRITE, src, 0, 16)
                        .sendFlags(SendFlags.SIGNALED | SendFlags.IP_CSUM)),
                new BadWr("RDMA_READ on a UC QP", (p, src, tb) -> p.wr(9, WrOpcode.RDMA_READ, src, 0, 16)),
                new BadWr("more inline bytes than max_inline_data", (p, src, tb) -> p.wr(9, WrOpcode.RDMA_WRITE, src, 0,
                        p.a().initAttributes().cap().maxInlineData() + 1).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)),
                new BadWr("inline data outside the PD's registered regions", (p, src, tb) -> new SendWr().wrId(9)
                        .opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)
                        .sgList(new Sge(tb.memory(16).address(), 8, 0))))
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedWrs")
    @DisplayName("required_ a prepared array refuses a WR that postSend refuses, the same way: the same errno at the same index, the slot before it posted [ibv_post_send(3)]")
    void required_refusesWhatPostSendRefuses(BadWr bad) {
        QpType type = bad.name().contains("UC") ? QpType.UC : QpType.RC;
        assumeQp(type);
        if (bad.name().startsWith("IP_CSUM")) {
            assumeFalse(caps().ipCsum(), "capability: the device offloads checksums, so IP_CSUM is valid");
        }
        boolean inline = bad.name().contains("inline");
        if (inline) {
            assumeTrue(caps().maxInlineData() >= 16, "capability: less than 16 bytes of inline data");
        }
        QpPair p = inline ? tb.pair(type, b -> b.maxInlineData(16)) : tb.pair(type);
        MemoryRegion src = tb.buffer(1024);
        MemoryRegion dst = p.remoteBuffer(1024);
        assumeTrue(p.a().initAttributes().cap().maxInlineData() < 1024, "the QP was granted 1 KiB of inline data");
        SendWr good = p.wr(1, WrOpcode.RDMA_WRITE, src, 0, 16).rdma(dst.address(), dst.rkey());
        SendWr wr = bad.make().make(p, src, tb);
        if (wr.opcode() != WrOpcode.SEND) {
            wr.rdma(dst.address() + 16, dst.rkey());
        }
        PostSendException byList = postError("postSend of [valid, " + bad + "]", () -> p.a().postSend(List.of(good, wr)),
                Errno.EINVAL);
        assertEquals(1, byList.badWrIndex(), "postSend: bad_wr");
        assertEquals(1L, Completions.awaitOne(p.cqA(), "postSend's valid WR").wrId());
        try (PreparedSends a = p.a().prepareSends(2)) {
            a.set(0, good.wrId(2)).set(1, wr);
            PostSendException bySlots = postError("post of slots [valid, " + bad + "]", () -> a.post(2), byList.errno());
            assertEquals(1, bySlots.badWrIndex(), "the prepared array: bad_wr");
            assertEquals(2L, Completions.awaitOne(p.cqA(), "the prepared array's valid slot").wrId());
            Completions.assertNone(p.cqA(), "the refused slot must not execute");
        }
    }

    @Test
    @DisplayName("required_ inline data is checked at every post: a slot whose region was deregistered after it was set is refused with EINVAL [ibv_post_send(3) IBV_SEND_INLINE, DESIGN.md Errors]")
    void required_inlineRegionCheckedAtPost() {
        assumeTrue(caps().maxInlineData() >= 16, "capability: less than 16 bytes of inline data");
        QpPair p = tb.pair(QpType.RC, b -> b.maxInlineData(16));
        MemoryRegion src = tb.buffer(16);
        Data.fill(src, 53);
        MemoryRegion dst = p.remoteBuffer(32);
        try (PreparedSends a = p.a().prepareSends(1)) {
            a.opcode(0, WrOpcode.RDMA_WRITE).wrId(0, 1).sendFlags(0, SendFlags.SIGNALED | SendFlags.INLINE)
                    .sge(0, 0, src.address(), 16, 0).numSge(0, 1).rdma(0, dst.address(), dst.rkey());
            a.post(1);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the inline slot").status());
            Data.assertPattern("inline data", dst.segment(), 0, 16, 53, 0);
            src.close();
            a.wrId(0, 2);
            assertEquals(0, postError("the inline slot after its region was deregistered", () -> a.post(1),
                    Errno.EINVAL).badWrIndex());
            Completions.assertNone(p.cqA(), "the refused inline slot must not execute");
        }
    }

    @Test
    @DisplayName("required_ after close() of the array every setter and post throws IllegalStateException, and close() again does nothing [DESIGN.md Errors]")
    void required_closedArray() {
        QpPair p = tb.pair(QpType.RC);
        PreparedSends a = p.a().prepareSends(2);
        a.close();
        assertTrue(a.isClosed());
        Expect.closed("wrId", () -> a.wrId(0, 1));
        Expect.closed("sge", () -> a.sge(0, 0, 0, 1, 0));
        Expect.closed("opcode", () -> a.opcode(0, WrOpcode.RDMA_WRITE));
        Expect.closed("post", () -> a.post(1));
        a.close();
    }

    @Test
    @DisplayName("required_ after close() of the QP a post throws IllegalStateException and nothing executes [DESIGN.md Errors]")
    void required_closedQp() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(16);
        MemoryRegion dst = p.remoteBuffer(16);
        try (PreparedSends a = p.a().prepareSends(1)) {
            write(a, 0, 1, src, dst, 0);
            p.a().close();
            Expect.closed("post on a closed QP", () -> a.post(1));
            a.wrId(0, 2);
            Expect.closed("post on a closed QP, again", () -> a.post(1));
        }
    }

    @Test
    @DisplayName("required_ the array belongs to the thread that made it: setters and post from another thread throw IllegalStateException; close() from another thread releases it [DESIGN.md Errors]")
    void required_ownerThread() throws InterruptedException {
        QpPair p = tb.pair(QpType.RC);
        PreparedSends a = p.a().prepareSends(1);
        AtomicReference<Throwable> wrId = new AtomicReference<>();
        AtomicReference<Throwable> post = new AtomicReference<>();
        Thread t = new Thread(() -> {
            wrId.set(assertThrows(IllegalStateException.class, () -> a.wrId(0, 1)));
            post.set(assertThrows(IllegalStateException.class, () -> a.post(1)));
            a.close();
        }, "tck-prepared-other");
        t.start();
        t.join(Completions.timeoutMs());
        assertTrue(wrId.get() != null && post.get() != null, "the other thread's calls were refused");
        assertTrue(a.isClosed(), "close() from another thread");
        Expect.closed("post after another thread's close()", () -> a.post(1));
    }

    @Test
    @DisplayName("required_ the owner rewriting and posting an array in a loop while another thread closes it: every post completes SUCCESS with its own wr_id, the slots are not freed under the owner, and its first call after the close throws IllegalStateException; run in a child JVM, which must not crash [DESIGN.md Errors]")
    void required_closedFromOtherThreadWhilePosting() throws Exception {
        ForkedScenario.assertHolds(kit(), "preparedSendsWhileClosed",
                "a PreparedSends posted by its owner while another thread closes it");
    }

    @Test
    @DisplayName("required_ bad arguments are refused at the setter: slot and SGE index out of range, numSge past the slot's room, BIND_MW and TSO, n outside [1, capacity] [DESIGN.md Errors]")
    void required_badArguments() {
        QpPair p = tb.pair(QpType.RC);
        assertThrows(IllegalArgumentException.class, () -> p.a().prepareSends(0));
        try (PreparedSends a = p.a().prepareSends(2)) {
            assertThrows(IndexOutOfBoundsException.class, () -> a.wrId(2, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> a.wrId(-1, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> a.sge(0, a.maxSge(), 0, 1, 0));
            assertThrows(IllegalArgumentException.class, () -> a.numSge(0, a.maxSge() + 1));
            assertThrows(IllegalArgumentException.class, () -> a.opcode(0, WrOpcode.BIND_MW));
            assertThrows(IllegalArgumentException.class, () -> a.opcode(0, WrOpcode.TSO));
            assertThrows(NullPointerException.class, () -> a.opcode(0, null));
            assertThrows(IllegalArgumentException.class, () -> a.post(0));
            assertThrows(IllegalArgumentException.class, () -> a.post(3));
            Completions.assertNone(p.cqA(), "nothing was posted");
        }
    }

    // ---------------------------------------------------------------- limits from both sides

    @Test
    @DisplayName("required_ prepareSends takes a capacity of exactly 65536 slots, each addressable, and refuses 65537 with IllegalArgumentException [QueuePair#prepareSends]")
    void required_capacityFromBothSides() {
        QpPair p = tb.pair(QpType.RC);
        int max = 65536;
        try (PreparedSends a = p.a().prepareSends(max)) {
            assertEquals(max, a.capacity(), "capacity()");
            a.wrId(max - 1, 7);
            assertThrows(IndexOutOfBoundsException.class, () -> a.wrId(max, 7), "slot 65536 of 65536");
        }
        assertThrows(IllegalArgumentException.class, () -> p.a().prepareSends(max + 1), "65537 slots");
        Completions.assertNone(p.cqA(), "nothing was posted");
    }

    @Test
    @DisplayName("required_ a slot takes exactly maxSge() SGEs: numSge(maxSge()) is accepted, and the slot gathers each SGE in order into one RDMA WRITE; maxSge() + 1 is refused by required_badArguments [ibv_post_send(3) num_sge, ibv_create_qp(3) cap.max_send_sge]")
    void required_slotOfExactlyMaxSge() {
        int asked = Math.min(4, caps().maxSendSge());
        QpPair p = tb.pair(QpType.RC, b -> b.maxSendSge(asked));
        try (PreparedSends a = p.a().prepareSends(1)) {
            assertFalse(a.isClosed(), "a new array is open");
            int n = a.maxSge();
            assertTrue(n >= asked, "maxSge() " + n + " is below the " + asked + " send SGEs the QP was created with");
            MemoryRegion src = tb.buffer(16L * n);
            Data.fill(src, 77);
            MemoryRegion dst = p.remoteBuffer(8L * n + 8);
            a.opcode(0, WrOpcode.RDMA_WRITE).wrId(0, 1).sendFlags(0, SendFlags.SIGNALED).rdma(0, dst.address(), dst.rkey());
            // SGE i takes the 8 bytes at 16 * (n - 1 - i): the gather order is visible in the target.
            for (int i = 0; i < n; i++) {
                a.sge(0, i, src.address() + 16L * (n - 1 - i), 8, src.lkey());
            }
            a.numSge(0, n);
            a.post(1);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "a slot of " + n + " SGEs").status());
            for (int i = 0; i < n; i++) {
                Data.assertPattern("SGE " + i + " of " + n, dst.segment(), 8L * i, 8, 77, 16L * (n - 1 - i));
            }
            Data.assertFilled("the target past the gathered bytes", dst.segment(), 8L * n, 8, (byte) 0);
            assertFalse(a.isClosed(), "an array is open after a post");
        }
    }

    @Test
    @DisplayName("required_ every setter of a prepared array returns the array itself, so calls chain [PreparedSends: @return this array]")
    void required_settersReturnTheArray() {
        QpPair p = tb.pair(QpType.RC);
        try (PreparedSends a = p.a().prepareSends(1)) {
            assertSame(a, a.wrId(0, 1), "wrId");
            assertSame(a, a.opcode(0, WrOpcode.SEND), "opcode");
            assertSame(a, a.sendFlags(0, SendFlags.SIGNALED), "sendFlags");
            assertSame(a, a.immData(0, 0x01020304), "immData");
            assertSame(a, a.invalidateRkey(0, 0x05060708), "invalidateRkey");
            assertSame(a, a.sge(0, 0, 0, 0, 0), "sge");
            assertSame(a, a.numSge(0, 0), "numSge");
            assertSame(a, a.rdma(0, 0, 0), "rdma");
            assertSame(a, a.atomic(0, 0, 0, 0, 0), "atomic");
            assertSame(a, a.ud(0, tb.ah(), 0, 0), "ud");
            assertSame(a, a.remoteSrqn(0, 0), "remoteSrqn");
            assertSame(a, a.set(0, new SendWr().wrId(2).opcode(WrOpcode.SEND)), "set");
        }
        Completions.assertNone(p.cqA(), "nothing was posted");
    }

    @Test
    @DisplayName("required_ a post of exactly max_send_wr slots on an empty send queue is accepted whole, and each slot completes [ibv_create_qp(3) cap.max_send_wr, ibv_post_send(3) ENOMEM only when the queue is full]")
    void required_postOfExactlyMaxSendWr() {
        QpPair p = tb.pair(QpType.RC, b -> b.maxSendWr(8));
        int granted = p.a().initAttributes().cap().maxSendWr();
        assumeTrue(granted <= 200, "the device granted " + granted + " send WRs for 8, more than the CQ's 256 hold");
        MemoryRegion src = tb.buffer(8);
        Data.fill(src, 67);
        MemoryRegion dst = p.remoteBuffer(8L * granted);
        try (PreparedSends a = p.a().prepareSends(granted)) {
            for (int i = 0; i < granted; i++) {
                a.opcode(i, WrOpcode.RDMA_WRITE).wrId(i, i).sendFlags(i, SendFlags.SIGNALED)
                        .sge(i, 0, src.address(), 8, src.lkey()).numSge(i, 1).rdma(i, dst.address() + 8L * i, dst.rkey());
            }
            a.post(granted);
            List<WorkCompletion> wcs = Completions.await(p.cqA(), granted, granted + " slots, the send queue's size");
            for (int i = 0; i < granted; i++) {
                assertEquals(i, wcs.get(i).wrId(), "completion " + i);
                assertEquals(WcStatus.SUCCESS, wcs.get(i).status(), "slot " + i);
                Data.assertPattern("slot " + i, dst.segment(), 8L * i, 8, 67, 0);
            }
        }
    }

    @Test
    @DisplayName("required_ a prepared SEND_WITH_IMM delivers its immediate data unchanged, in host order, also after a change of imm_data only [ibv_post_send(3) imm_data, ibv_poll_cq(3)]")
    void required_immDataByteOrder() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(16);
        MemoryRegion dst = p.remoteBuffer(64);
        try (PreparedSends a = p.a().prepareSends(1)) {
            send(a, WrOpcode.SEND_WITH_IMM, 1, src).immData(0, 0x12345678);
            for (int imm : new int[] {0x12345678, 0x8091A2B3}) {
                a.immData(0, imm);
                p.recvB(2, dst, 0, 64);
                a.post(1);
                assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the prepared SEND_WITH_IMM").status());
                WorkCompletion r = Completions.awaitOne(p.cqB(), "the receive of imm 0x" + Integer.toHexString(imm));
                assertTrue(r.hasImm(), "IBV_WC_WITH_IMM");
                assertEquals(imm, r.immData(), "immediate data, host order");
            }
        }
    }

    @Test
    @DisplayName("required_ INLINE turned on in a slot that was already posted is checked at the next post: with its region deregistered it is refused with EINVAL, and with a live region it sends the data [ibv_post_send(3) IBV_SEND_INLINE, DESIGN.md Memory]")
    void required_inlineTurnedOnInPostedSlot() {
        assumeTrue(caps().maxInlineData() >= 16, "capability: less than 16 bytes of inline data");
        QpPair p = tb.pair(QpType.RC, b -> b.maxInlineData(16));
        MemoryRegion gone = tb.buffer(16);
        MemoryRegion live = tb.buffer(16);
        Data.fill(gone, 68);
        Data.fill(live, 69);
        MemoryRegion dst = p.remoteBuffer(64);
        try (PreparedSends a = p.a().prepareSends(1)) {
            write(a, 0, 1, gone, dst, 0);
            a.post(1);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the slot, not inline").status());
            gone.close();
            a.wrId(0, 2).rdma(0, dst.address() + 16, dst.rkey()).sendFlags(0, SendFlags.SIGNALED | SendFlags.INLINE);
            assertEquals(0, postError("INLINE turned on in a posted slot whose region was deregistered",
                    () -> a.post(1), Errno.EINVAL).badWrIndex());
            Completions.assertNone(p.cqA(), "the refused inline slot must not execute");
            Data.assertFilled("the refused inline slot's target", dst.segment(), 16, 16, (byte) 0);
        }
        try (PreparedSends a = p.a().prepareSends(1)) {
            write(a, 0, 3, live, dst, 32);
            a.post(1);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the slot, not inline").status());
            a.wrId(0, 4).rdma(0, dst.address() + 48, dst.rkey()).sendFlags(0, SendFlags.SIGNALED | SendFlags.INLINE);
            Data.fill(live, 70);
            a.post(1);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the slot, now inline").status());
            Data.assertPattern("the inline slot's data as it was at post", dst.segment(), 48, 16, 70, 0);
        }
    }

    @Test
    @DisplayName("required_ a UD slot whose address handle was closed after a successful post is refused at the next post, as postSend refuses a closed handle (EINVAL), and nothing is sent: a prepared slot never reaches a destroyed AH [ibv_destroy_ah(3), ibv_post_send(3)]")
    void required_udSlotWithAhClosedAfterPost() {
        assumeQp(QpType.UD);
        QpPair p = tb.pair(QpType.UD);
        AddressHandle ah = tb.pd().createAh(tb.avTo(p.remote())); // to b's port, on b's device when the pair is split
        MemoryRegion src = tb.buffer(16);
        MemoryRegion dst = p.remoteBuffer(512);
        p.recvB(1, dst, 0, 256);
        p.recvB(2, dst, 256, 256);
        try (PreparedSends a = p.a().prepareSends(1)) {
            send(a, WrOpcode.SEND, 1, src).ud(0, ah, p.b().qpNum(), Testbed.QKEY);
            a.post(1);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the slot's first send").status());
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "the first datagram").status());
            ah.close();
            a.wrId(0, 2); // a field stored at once: the slot's shape, and its checks, are as they were at the post
            Throwable t = Expect.refused("the post of a slot whose address handle was closed", () -> a.post(1));
            if (t instanceof VerbsException v) {
                assertEquals(Errno.EINVAL, v.errno(), "the post of a slot whose address handle was closed: " + v);
            }
            Completions.assertNone(p.cqA(), "a slot with a closed address handle must not execute");
            Completions.assertNone(p.cqB(), "no datagram of a slot with a closed address handle may arrive");
        }
    }

    @Test
    @DisplayName("required_ the atomic setter: a slot posts a CMP_SWP, then a FETCH_ADD, then the same FETCH_ADD with only its operand changed; each returns the remote value and leaves the right one [ibv_post_send(3) wr.atomic]")
    void required_atomicsThroughASlot() {
        assumeAtomics();
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion remote = p.remoteBuffer(16);
        MemoryRegion local = tb.buffer(16);
        Data.u64(remote.segment(), 8, 0x1111_2222_3333_4444L);
        try (PreparedSends a = p.a().prepareSends(1)) {
            a.opcode(0, WrOpcode.ATOMIC_CMP_AND_SWP).wrId(0, 1).sendFlags(0, SendFlags.SIGNALED)
                    .sge(0, 0, local.address(), 8, local.lkey()).numSge(0, 1)
                    .atomic(0, remote.address() + 8, 0x1111_2222_3333_4444L, 0x5555_6666_7777_8888L, remote.rkey());
            a.post(1);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the CMP_SWP").status());
            assertEquals(0x5555_6666_7777_8888L, Data.u64(remote.segment(), 8), "swapped");
            assertEquals(0x1111_2222_3333_4444L, Data.u64(local.segment(), 0), "the CMP_SWP's original value");
            a.opcode(0, WrOpcode.ATOMIC_FETCH_AND_ADD).sge(0, 0, local.address() + 8, 8, local.lkey())
                    .atomic(0, remote.address() + 8, 3, 0, remote.rkey()).wrId(0, 2);
            a.post(1);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the FETCH_ADD").status());
            assertEquals(0x5555_6666_7777_888BL, Data.u64(remote.segment(), 8), "added");
            assertEquals(0x5555_6666_7777_8888L, Data.u64(local.segment(), 8), "the FETCH_ADD's original value");
            // Only the operand changes: the slot was posted as it is, so the new value must reach the device.
            a.atomic(0, remote.address() + 8, 0x100, 0, remote.rkey());
            a.post(1);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the FETCH_ADD with a new operand").status());
            assertEquals(0x5555_6666_7777_898BL, Data.u64(remote.segment(), 8), "the new operand added");
            assertEquals(0x5555_6666_7777_888BL, Data.u64(local.segment(), 8), "the second FETCH_ADD's original value");
            Data.assertFilled("the remote word before the target", remote.segment(), 0, 8, (byte) 0);
        }
    }

    @Test
    @DisplayName("required_ a prepared SEND_WITH_INV invalidates the peer's type 2 window whose rkey the slot carries; with only invalidateRkey changed, the next post invalidates the second window, which until then took a write [ibv_post_send(3) invalidate_rkey, IBA 10.6.7.2.3]")
    void required_sendWithInvalidateThroughASlot() {
        assumeMw(MwType.TYPE_2);
        assumeOp(QpType.RC, WrOpcode.BIND_MW);
        assumeOp(QpType.RC, WrOpcode.SEND_WITH_INV);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = p.remote().buffer(4096, Testbed.ALL_ACCESS | AccessFlags.MW_BIND);
        int[] rkeys = new int[2];
        for (int w = 0; w < 2; w++) {
            MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_2);
            rkeys[w] = MemoryWindow.incRkey(mw.rkey());
            p.b().postSend(new SendWr().wrId(10 + w).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                    .bindMw(mw, rkeys[w], new MwBindInfo(target, target.address() + 2048L * w, 2048,
                            AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE)));
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "BIND_MW of window " + w).status());
        }
        MemoryRegion src = tb.buffer(64);
        MemoryRegion rbuf = p.remoteBuffer(64);
        p.recvB(20, rbuf, 0, 32);
        p.recvB(21, rbuf, 32, 32);
        try (PreparedSends a = p.a().prepareSends(1)) {
            send(a, WrOpcode.SEND_WITH_INV, 1, src).invalidateRkey(0, rkeys[0]);
            a.post(1);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the slot's SEND_WITH_INV of window 0").status());
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "its receive").status());
            assertEquals(WcStatus.SUCCESS, p.write(2, src, 16, target.address() + 2048, rkeys[1]).status(),
                    "a write through window 1, which the first post left valid");
            a.wrId(0, 3).invalidateRkey(0, rkeys[1]);
            a.post(1);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the slot's SEND_WITH_INV of window 1").status());
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "its receive").status());
        }
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(4, src, 16, target.address() + 2048, rkeys[1]).status(),
                "a write through window 1 after the slot, with only invalidateRkey changed, invalidated it");
    }

    @Test
    @DisplayName("required_ a prepared UD slot with a remote QPN of 2^24 or more is refused with EINVAL at post and sends nothing [ibv_post_send(3) remote_qpn, IBA 9.2 BTH DestQP: 24 bits]")
    void required_udRemoteQpnIs24Bits() {
        assumeQp(QpType.UD);
        QpPair p = tb.pair(QpType.UD);
        MemoryRegion src = tb.buffer(16);
        MemoryRegion dst = p.remoteBuffer(256);
        p.recvB(1, dst, 0, 256);
        try (PreparedSends a = p.a().prepareSends(1)) {
            send(a, WrOpcode.SEND, 2, src).ud(0, p.ah(), p.b().qpNum() | 1 << 24, Testbed.QKEY);
            assertEquals(0, postError("a UD slot to QPN 2^24 + the peer's", () -> a.post(1), Errno.EINVAL).badWrIndex());
            Completions.assertNone(p.cqA(), "the refused UD slot");
            Completions.assertNone(p.cqB(), "no datagram of the refused slot may arrive");
            a.ud(0, p.ah(), p.b().qpNum(), Testbed.QKEY);
            a.post(1);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the slot to the peer's QPN").status());
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "the datagram to the peer's QPN").status());
        }
    }

    @Test
    @DisplayName("required_ a prepared array posted on a QP in SQD is accepted, and its slots execute once the QP is back in RTS, before the WRs posted after them; posted on a QP in ERR, each slot completes with WR_FLUSH_ERR and its wrId [ibv_post_send(3), IBA 10.3.1, 10.3.1.2]")
    void required_postInSqdAndErr() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 76);
        MemoryRegion dst = p.remoteBuffer(96);
        try (PreparedSends a = p.a().prepareSends(2)) {
            write(a, 0, 1, src, dst, 0);
            write(a, 1, 2, src, dst, 16);
            p.a().modify(QpAttributes.toState(QpState.SQD));
            long deadline = System.nanoTime() + Completions.timeoutMs() * 1_000_000;
            while (p.a().query().state() != QpState.SQD && System.nanoTime() < deadline) {
                Thread.yield();
            }
            a.post(2);
            Completions.assertNone(p.cqA(), "slots posted in SQD");
            p.a().modify(QpAttributes.toState(QpState.RTS));
            p.a().postSend(new SendWr().wrId(9).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(src, 0, 16)).rdma(dst.address() + 64, dst.rkey()));
            List<WorkCompletion> wcs = Completions.await(p.cqA(), 3, "the slots posted in SQD, after the return to RTS");
            assertEquals(List.of(1L, 2L, 9L), wcs.stream().map(WorkCompletion::wrId).toList(),
                    "the slots posted in SQD complete before the WR posted after them");
            wcs.forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), "WR " + wc.wrId()));
            Data.assertPattern("the slots posted in SQD", dst.segment(), 0, 32, 76, 0);
            p.a().modify(QpAttributes.toState(QpState.ERR));
            a.wrId(0, 3).wrId(1, 4).rdma(0, dst.address() + 32, dst.rkey()).rdma(1, dst.address() + 48, dst.rkey());
            a.post(2);
            List<WorkCompletion> flushed = Completions.await(p.cqA(), 2, "the slots posted in ERR");
            assertEquals(List.of(3L, 4L), flushed.stream().map(WorkCompletion::wrId).toList());
            flushed.forEach(wc -> assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), "slot " + wc.wrId() + " in ERR"));
            Data.assertFilled("the targets of the flushed slots", dst.segment(), 32, 32, (byte) 0);
        }
    }
}
