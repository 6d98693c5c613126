package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.PostSendException;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.VerbsException;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;

/**
 * The bounds of a type 2 window's bind (issue 26, item 3): a window must lie inside its region, and a bind one byte
 * past the region's end fails. Where it fails: {@code ibv_post_send(3)} returns an errno for a WR it refuses, and
 * {@code ibv_bind_mw(3)} says a bind "does not complete when the function returns - it is merely posted", the user
 * learning of a failure from the bind's completion. rxe, the arbiter, accepts the post and checks the range when it
 * executes the bind ({@code rxe_check_bind_mw}, C10-75: "attempt to bind a VA MW outside of the MR"), which completes
 * with {@code IBV_WC_MW_BIND_ERR}; the emulated provider does the same. A provider that checks at the post instead
 * (EINVAL, as every verbs4j provider does for a type 1 bind) follows the man pages too, so the rule takes either.
 * A bind of length 0 unbinds the window: it spans no byte, so its address need not lie in the region.
 */
public abstract class WindowBoundRules extends TckArea {
    private static final int WINDOW_ACCESS = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

    /**
     * The area, for the kit's subclass.
     *
     * @param kit the vendor's kit
     */
    protected WindowBoundRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    @Test
    @DisplayName("required_ a type 2 window bound by a BIND_MW WR up to its region's last byte binds (SUCCESS) and is written through at its last byte; one byte longer fails, by postSend's EINVAL or by a bind completion with MW_BIND_ERR (rxe: checked when the bind executes), never SUCCESS [ibv_post_send(3) bind_mw, ibv_bind_mw(3) NOTES, rxe_mw.c C10-75, issue 26]")
    void required_type2BindAtRegionEnd() {
        assumeMw(MwType.TYPE_2);
        assumeOp(QpType.RC, WrOpcode.BIND_MW);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = p.remote().buffer(4096, Testbed.ALL_ACCESS | AccessFlags.MW_BIND);
        MemoryWindow fits = p.remote().pd().allocMw(MwType.TYPE_2);
        int rkey = MemoryWindow.incRkey(fits.rkey());
        p.b().postSend(new SendWr().wrId(1).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                .bindMw(fits, rkey, new MwBindInfo(target, target.address() + 3072, 1024, WINDOW_ACCESS)));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "the type 2 bind up to the region's end").status(),
                "a type 2 bind whose window ends at the region's last byte");
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 74);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, 64, target.address() + 4096 - 64, rkey).status(),
                "a write of the type 2 window's (and the region's) last 64 bytes");
        Data.assertPattern("the region's last 64 bytes", target.segment(), 4096 - 64, 64, 74, 0);

        MemoryWindow past = p.remote().pd().allocMw(MwType.TYPE_2);
        SendWr bind = new SendWr().wrId(2).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                .bindMw(past, MemoryWindow.incRkey(past.rkey()), new MwBindInfo(target, target.address() + 3072, 1025,
                        WINDOW_ACCESS));
        try {
            p.b().postSend(bind);
        } catch (PostSendException e) {
            assertEquals(Errno.EINVAL, e.errno(), "a type 2 bind one byte past the region's end, refused at the post");
            assertEquals(0, e.badWrIndex(), "bad_wr of a one-WR list");
            Completions.assertNone(p.cqB(), "a refused bind must not execute");
            return;
        } catch (IllegalArgumentException e) {
            fail("a type 2 bind one byte past the region's end must be refused with EINVAL (or complete with "
                    + "MW_BIND_ERR), not with an unchecked exception: " + e, e);
        }
        assertEquals(WcStatus.MW_BIND_ERR, Completions.awaitOne(p.cqB(), "the type 2 bind one byte past the region's "
                + "end").status(), "a type 2 bind one byte past the region's end, accepted by postSend, completes "
                + "with MW_BIND_ERR (rxe_check_bind_mw: a VA window outside its MR)");
    }

    @Test
    @DisplayName("required_ a type 1 bind of length 0 (an unbind) at an address past its region's end is accepted and completes SUCCESS, as it spans no byte; the same bind of length 1 is refused with EINVAL [ibv_bind_mw(3) bind_info, rxe_mw.c: a zero-length bind takes no MR, issue 26]")
    void required_type1UnbindNeedsNoRange() {
        assumeMw(MwType.TYPE_1);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = p.remote().buffer(4096, Testbed.ALL_ACCESS | AccessFlags.MW_BIND);
        MemoryWindow mw = p.remote().pd().allocMw(MwType.TYPE_1);
        p.b().bindMw(mw, 1, SendFlags.SIGNALED, new MwBindInfo(target, target.address(), 4096, WINDOW_ACCESS));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "the type 1 bind over the region").status());
        long past = target.address() + 4096 + 4096;
        p.b().bindMw(mw, 2, SendFlags.SIGNALED, new MwBindInfo(target, past, 0, WINDOW_ACCESS));
        WorkCompletion unbind = Completions.awaitOne(p.cqB(), "the type 1 bind of length 0 past the region's end");
        assertEquals(2, unbind.wrId());
        assertEquals(WcStatus.SUCCESS, unbind.status(), "a zero-length type 1 bind spans no byte of any region");
        VerbsException e = Expect.errno("a type 1 bind of 1 byte past the region's end",
                () -> p.b().bindMw(mw, 3, SendFlags.SIGNALED, new MwBindInfo(target, past, 1, WINDOW_ACCESS)),
                Errno.EINVAL);
        assertEquals("ibv_bind_mw", e.verb(), "the refused call");
        Completions.assertNone(p.cqB(), "a refused bind must not execute");
    }
}
