package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpType;
import org.verbs4j.ReregFlags;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;

/**
 * Re-registration, {@code ibv_rereg_mr(3)}: each change (access, translation, PD) seen by a peer or by the
 * objects' lifetimes, every flag at once, the argument rules, and a device without the verb, which leaves the region
 * as it was. Skipped, but for that last rule, where {@link org.verbs4j.Capabilities#reregMr()} is false (rxe, whose
 * librxe has no {@code rereg_mr}).
 */
public abstract class ReregRules extends TckArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected ReregRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private void assumeRereg() {
        assumeTrue(caps().reregMr(), "capability: the device cannot re-register a region (ibv_rereg_mr)");
    }

    @Test
    @DisplayName("required_ a device without ibv_rereg_mr answers EOPNOTSUPP and leaves the region as it was [ibv_rereg_mr(3)]")
    void required_reregUnsupported() {
        assumeTrue(!caps().reregMr(), "the device re-registers regions");
        MemoryRegion mr = tb.buffer(64, AccessFlags.LOCAL_WRITE);
        int lkey = mr.lkey();
        int rkey = mr.rkey();
        Expect.errno("reregister(CHANGE_ACCESS) without the verb", () -> mr.reregister(ReregFlags.CHANGE_ACCESS, null,
                null, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ), Errno.EOPNOTSUPP);
        assertTrue(!mr.isClosed(), "a refused re-registration of access leaves the region open");
        assertEquals(AccessFlags.LOCAL_WRITE, mr.access(), "its access");
        assertEquals(lkey, mr.lkey(), "its lkey");
        assertEquals(rkey, mr.rkey(), "its rkey");
    }

    @Test
    @DisplayName("required_ CHANGE_ACCESS: a region of local write only, given REMOTE_WRITE, takes a peer's RDMA WRITE under its rkey; given local write only again, the next WRITE fails with REM_ACCESS_ERR [ibv_rereg_mr(3)]")
    void required_reregAccess() {
        assumeRereg();
        assumeOp(QpType.RC, WrOpcode.RDMA_WRITE);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = p.remoteBuffer(256, AccessFlags.LOCAL_WRITE);
        int writable = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
        target.reregister(ReregFlags.CHANGE_ACCESS, null, null, writable);
        assertEquals(writable, target.access(), "access() after the change");
        MemoryRegion local = tb.buffer(256);
        Data.fill(local, 31);
        WorkCompletion wc = p.write(1, local, (int) target.length(), target.address(), target.rkey());
        assertEquals(WcStatus.SUCCESS, wc.status(), "a WRITE the new access allows: " + wc);
        Data.assertPattern("the WRITE after the change", target.segment(), 0, 256, 31, 0);

        target.reregister(ReregFlags.CHANGE_ACCESS, null, null, AccessFlags.LOCAL_WRITE);
        wc = p.write(2, local, (int) target.length(), target.address(), target.rkey());
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(), "a WRITE the access no longer allows: " + wc);
    }

    @Test
    @DisplayName("required_ CHANGE_TRANSLATION onto memory of an arena: the region names the new memory, a peer's WRITE lands there and the old memory keeps its bytes, and the region is closed before that arena frees it [ibv_rereg_mr(3)]")
    void required_reregTranslation() {
        assumeRereg();
        assumeOp(QpType.RC, WrOpcode.RDMA_WRITE);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = p.remoteBuffer(128);
        MemorySegment old = target.segment();
        MemoryRegion local = tb.buffer(512);
        Data.fill(local, 32);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment moved = arena.allocate(512);
            target.reregister(ReregFlags.CHANGE_TRANSLATION, null, moved, 0, arena);
            assertSame(moved, target.segment(), "segment() after the move");
            assertEquals(512, target.length(), "length() after the move");
            assertEquals(Testbed.ALL_ACCESS, target.access(), "access() is kept without CHANGE_ACCESS");
            WorkCompletion wc = p.write(1, local, (int) target.length(), target.address(), target.rkey());
            assertEquals(WcStatus.SUCCESS, wc.status(), "a WRITE of the whole moved region: " + wc);
            Data.assertPattern("the moved region", moved, 0, 512, 32, 0);
            Data.assertFilled("the memory the region left", old, 0, 128, (byte) 0);
        }
        assertTrue(target.isClosed(), "the region closes before its new arena frees the memory");
    }

    @Test
    @DisplayName("required_ CHANGE_PD: pd() answers the new PD, the old one can be deallocated and the new one refuses with EBUSY until the region is closed; every flag at once works [ibv_rereg_mr(3), ibv_dealloc_pd(3)]")
    void required_reregPd() {
        assumeRereg();
        Context ctx = tb.context();
        ProtectionDomain first = ctx.allocPd();
        ProtectionDomain second = ctx.allocPd();
        MemoryRegion mr = first.registerMemory(tb.arena().allocate(64), AccessFlags.LOCAL_WRITE, tb.arena());
        mr.reregister(ReregFlags.CHANGE_PD, second, null, 0);
        assertSame(second, mr.pd(), "pd() after the move");
        first.close();
        Expect.errno("deallocating the PD the region moved to", second::close, Errno.EBUSY);

        MemorySegment moved = tb.arena().allocate(128);
        mr.reregister(ReregFlags.ALL, tb.pd(), moved, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ, tb.arena());
        assertSame(tb.pd(), mr.pd(), "pd() after every change");
        assertSame(moved, mr.segment(), "segment() after every change");
        assertEquals(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ, mr.access(), "access() after every change");
        second.close();
        mr.close();
    }

    @Test
    @DisplayName("required_ bad input is refused before the device and leaves the region as it was: flags 0 or past ALL, a missing, closed or foreign PD, heap memory, memory of an arena given without it, a closed arena, unknown access bits [ibv_rereg_mr(3)]")
    void required_reregBadInput() {
        MemoryRegion mr = tb.buffer(64, AccessFlags.LOCAL_WRITE);
        int lkey = mr.lkey();
        Expect.badInput("flags 0", () -> mr.reregister(0, null, null, 0));
        Expect.badInput("flags past ALL", () -> mr.reregister(ReregFlags.ALL + 1, null, null, 0));
        Expect.badInput("CHANGE_PD without a PD", () -> mr.reregister(ReregFlags.CHANGE_PD, null, null, 0));
        ProtectionDomain closed = tb.context().allocPd();
        closed.close();
        Expect.badInput("CHANGE_PD to a closed PD", () -> mr.reregister(ReregFlags.CHANGE_PD, closed, null, 0));
        try (Context other = tb.device().open()) {
            ProtectionDomain foreign = other.allocPd();
            Expect.badInput("CHANGE_PD to a PD of another context",
                    () -> mr.reregister(ReregFlags.CHANGE_PD, foreign, null, 0));
            foreign.close();
        }
        Expect.badInput("CHANGE_TRANSLATION onto heap memory", () -> mr.reregister(ReregFlags.CHANGE_TRANSLATION,
                null, MemorySegment.ofArray(new byte[64]), 0));
        Expect.badInput("CHANGE_TRANSLATION onto arena memory without the arena",
                () -> mr.reregister(ReregFlags.CHANGE_TRANSLATION, null, tb.arena().allocate(64), 0));
        Expect.badInput("an arena without CHANGE_TRANSLATION", () -> mr.reregister(ReregFlags.CHANGE_ACCESS, null,
                tb.arena().allocate(64), AccessFlags.LOCAL_WRITE, tb.arena()));
        Arena gone = Arena.ofShared();
        MemorySegment freed = gone.allocate(64);
        gone.close();
        Expect.thrown("CHANGE_TRANSLATION onto a closed arena's memory", IllegalStateException.class,
                () -> mr.reregister(ReregFlags.CHANGE_TRANSLATION, null, freed, 0));
        Expect.badInput("unknown access bits", () -> mr.reregister(ReregFlags.CHANGE_ACCESS, null, null, 1 << 30));
        assertTrue(!mr.isClosed(), "refused re-registrations leave the region open");
        assertEquals(AccessFlags.LOCAL_WRITE, mr.access(), "its access");
        assertEquals(lkey, mr.lkey(), "its lkey");
        assertEquals(64, mr.length(), "its length");
    }
}
