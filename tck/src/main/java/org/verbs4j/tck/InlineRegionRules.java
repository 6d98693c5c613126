package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.PostSendException;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.VerbsException;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;

/**
 * Which registered regions an INLINE WR may read after others were deregistered (issue 26: a rule written for the
 * survivors of mutation testing of the shared region table, {@code RegionTable.remove}; tck/reports/mutation.md).
 * The library reads inline data on the CPU, so it must find each SGE inside a live region of the QP's protection
 * domain: deregistering one region must take exactly that region out of the set, and leave the ones registered
 * before and after it readable. The kit's inline rules deregistered nothing, so a table that dropped the wrong
 * entry, or kept the deregistered one, passed them. An SGE of length 0 carries no byte for the library to read, so
 * it needs no region: a table asked about empty ranges would refuse an INLINE WR that C posts.
 */
public abstract class InlineRegionRules extends TckArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected InlineRegionRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private static SendWr inlineWrite(long id, MemoryRegion src, MemoryRegion dst, long dstOffset) {
        return new SendWr().wrId(id).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)
                .sgList(Sge.of(src, 0, 16)).rdma(dst.address() + dstOffset, dst.rkey());
    }

    @Test
    @DisplayName("required_ with three regions registered and the middle one deregistered, INLINE WRs from the first and the last still land, and one from the deregistered region fails with EINVAL and is never read [ibv_post_send(3) IBV_SEND_INLINE, ibv_dereg_mr(3), DESIGN.md Errors]")
    void required_inlineAfterAnotherRegionIsDeregistered() {
        assumeTrue(caps().maxInlineData() >= 16, "capability: less than 16 bytes of inline data");
        assumeOp(QpType.RC, WrOpcode.RDMA_WRITE);
        QpPair p = tb.pair(QpType.RC, b -> b.maxInlineData(16));
        MemoryRegion first = tb.buffer(16);
        MemoryRegion middle = tb.buffer(16);
        MemoryRegion last = tb.buffer(16);
        Data.fill(first, 41);
        Data.fill(last, 43);
        MemoryRegion dst = p.remoteBuffer(48);
        long middleAddress = middle.address();
        middle.close();

        p.a().postSend(inlineWrite(1, first, dst, 0));
        assertEquals(WcStatus.SUCCESS,
                Completions.awaitOne(p.cqA(), "the INLINE WRITE from the first region").status());
        p.a().postSend(inlineWrite(2, last, dst, 32));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the INLINE WRITE from the last region").status());
        Data.assertPattern("the first region's bytes", dst.segment(), 0, 16, 41, 0);
        Data.assertPattern("the last region's bytes", dst.segment(), 32, 16, 43, 0);

        SendWr fromMiddle = new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE)
                .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE).sgList(new Sge(middleAddress, 16, 0))
                .rdma(dst.address() + 16, dst.rkey());
        VerbsException e = Expect.errno("an INLINE WR from the deregistered region", () -> p.a().postSend(fromMiddle),
                Errno.EINVAL);
        assertInstanceOf(PostSendException.class, e, "postSend reports a PostSendException with bad_wr");
        assertEquals(0, ((PostSendException) e).badWrIndex(), "bad_wr of a one-WR list");
        Completions.assertNone(p.cqA(), "the refused WR must not execute");
        Data.assertFilled("between the two WRITEs", dst.segment(), 16, 16, (byte) 0);
    }

    @Test
    @DisplayName("required_ an INLINE WR whose SGEs include one of length 0 at memory no region covers is accepted, and the bytes of its other SGE land; the same SGE with length 1 fails with EINVAL [ibv_post_send(3) IBV_SEND_INLINE: the library reads each SGE's length bytes]")
    void required_emptyInlineSgeNeedsNoRegion() {
        assumeTrue(caps().maxInlineData() >= 16, "capability: less than 16 bytes of inline data");
        assumeTrue(caps().maxSendSge() >= 2, "capability: fewer than 2 send SGEs");
        assumeOp(QpType.RC, WrOpcode.RDMA_WRITE);
        QpPair p = tb.pair(QpType.RC, b -> b.maxInlineData(16).maxSendSge(2));
        MemoryRegion src = tb.buffer(16);
        Data.fill(src, 45);
        MemoryRegion dst = p.remoteBuffer(32);
        // Live memory of this process that no region covers: reading it would not fault, so only the rule can tell.
        long unregistered = tb.memory(16).address();

        p.a().postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)
                .sgList(new Sge(unregistered, 0, 0), Sge.of(src, 0, 16)).rdma(dst.address(), dst.rkey()));
        assertEquals(WcStatus.SUCCESS,
                Completions.awaitOne(p.cqA(), "the INLINE WRITE with an empty SGE first").status());
        Data.assertPattern("the second SGE's bytes", dst.segment(), 0, 16, 45, 0);

        SendWr oneByte = new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE)
                .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE).sgList(new Sge(unregistered, 1, 0), Sge.of(src, 0, 8))
                .rdma(dst.address() + 16, dst.rkey());
        Expect.errno("an INLINE SGE of 1 byte at unregistered memory", () -> p.a().postSend(oneByte), Errno.EINVAL);
        Completions.assertNone(p.cqA(), "the refused WR must not execute");
        Data.assertFilled("the refused WR's target", dst.segment(), 16, 16, (byte) 0);
    }

    @Test
    @DisplayName("required_ once its arena's close has begun, a region's memory is not read for an INLINE WR: one posted from a cleanup of that arena that runs before the region's deregistration fails with EINVAL and never executes, after the same WR landed before the close; a plain WR from the region posted there either completes or fails, and the region is closed when the arena's close returns [ibv_post_send(3) IBV_SEND_INLINE, ProtectionDomain.registerMemory(segment, access, owner), Arena.close()]")
    void required_inlineFromAClosingArenaIsRefused() {
        assumeTrue(caps().maxInlineData() >= 16, "capability: less than 16 bytes of inline data");
        assumeOp(QpType.RC, WrOpcode.RDMA_WRITE);
        QpPair p = tb.pair(QpType.RC, b -> b.maxInlineData(16));
        MemoryRegion dst = p.remoteBuffer(48);
        Arena arena = Arena.ofConfined();
        MemorySegment memory = arena.allocate(16, 16);
        Data.fill(memory, 47);
        MemoryRegion src = tb.pd().registerMemory(memory, AccessFlags.LOCAL_WRITE, arena);
        p.a().postSend(inlineWrite(1, src, dst, 0));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the INLINE WRITE before the close").status());
        Data.assertPattern("the bytes written before the close", dst.segment(), 0, 16, 47, 0);

        // An arena runs its cleanups last added first, after its scope is closed: this one runs before the cleanup
        // that registerMemory added, so the region is still open and its memory still allocated.
        SendWr inline = inlineWrite(2, src, dst, 16);
        SendWr plain = new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(src, 0, 16)).rdma(dst.address() + 32, dst.rkey());
        AtomicReference<Object> inlineOutcome = new AtomicReference<>("the cleanup did not run");
        AtomicReference<Object> plainOutcome = new AtomicReference<>("the cleanup did not run");
        AtomicReference<Boolean> openInCleanup = new AtomicReference<>();
        memory.reinterpret(arena, ignored -> {
            openInCleanup.set(!src.isClosed());
            inlineOutcome.set(attempt(() -> p.a().postSend(inline)));
            plainOutcome.set(attempt(() -> p.a().postSend(plain)));
        });
        arena.close();

        assertEquals(Boolean.TRUE, openInCleanup.get(), "the region is still open in a cleanup added after it");
        VerbsException e = assertInstanceOf(VerbsException.class, inlineOutcome.get(),
                "an INLINE WR from memory whose arena is closing must fail; got " + inlineOutcome.get());
        assertEquals(Errno.EINVAL, e.errno(), "errno of the INLINE WR from the closing arena: " + e.getMessage());
        assertEquals(Boolean.TRUE, src.isClosed(), "the region is closed once its arena's close returned");
        if (plainOutcome.get() == null) {
            WorkCompletion wc = Completions.awaitOne(p.cqA(), "the plain WRITE posted while the arena closed");
            assertEquals(3, wc.wrId(), "the only completion is the plain WRITE's");
        } else {
            assertInstanceOf(VerbsException.class, plainOutcome.get(),
                    "a plain WR refused while its region closes fails with a VerbsException");
        }
        Completions.assertNone(p.cqA(), "the refused INLINE WR must not execute");
        Data.assertFilled("the refused INLINE WR's target", dst.segment(), 16, 16, (byte) 0);
    }

    /** Runs {@code post}: null if it returned, else what it threw. */
    private static Object attempt(Runnable post) {
        try {
            post.run();
            return null;
        } catch (RuntimeException | Error t) {
            return t;
        }
    }
}
