package org.verbs4j.tck;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.MwType;
import org.verbs4j.QpType;
import org.verbs4j.WrOpcode;

/**
 * Misuse of object lifetimes across threads: an object closed while another thread's post names it. A post hands
 * the native address of the address handles, windows and regions its WRs name to the library, which reads them
 * during the call, so the provider holds each from its check until the call returns (issue 26). A provider that
 * lets the close run first makes the library read a destroyed object: a crash, or over the forwarding test library
 * (emuverbs), a post failing with EFAULT. Each rule runs its scenario ({@link PostHoldRaceScenarios}) for a bounded
 * number of rounds in the kit's child JVM ({@link ForkedScenario}).
 */
public abstract class LifetimeMisuseRules extends TckArea {
    /**
     * The area, for the kit's subclass.
     *
     * @param kit the vendor's kit
     */
    protected LifetimeMisuseRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    @Test
    @DisplayName("required_ the careless sequence: a segment of a shared arena registered with the plain registerMemory(segment, access), its arena closed, a peer's RDMA WRITE through its rkey; the registration is refused with IllegalArgumentException naming registerMemory(segment, access, arena), so no rkey of the memory exists once it is freed and no remote WRITE can reach it [ProtectionDomain.registerMemory(segment, access), ibv_reg_mr(3), issue 26]")
    void required_carelessPlainRegistrationNeverReachesFreedMemory() {
        CarelessRegistration.run(tb);
    }

    @Test
    @DisplayName("required_ a context dropped without close(), with a live PD, CQ, QP and region, is collected: the provider keeps no reference to it, its objects are released (a native provider's Cleaner destroys them, QPs before CQs and PDs, and closes the device), and the device and the other contexts on it work on [ibv_close_device(3), Context, issue 26]")
    void required_contextDroppedUnclosedIsCollected() throws Exception {
        ForkedScenario.assertHolds(kit(), "contextDroppedUnclosed", "a context dropped unclosed with live objects");
    }

    @Test
    @DisplayName("required_ a context dropped without close(), with a UD QP attached to a multicast group, is collected: the device's group does not keep the QP reachable, and the group is the device's to give again [ibv_attach_mcast(3), ibv_close_device(3), issue 29]")
    void required_contextDroppedWithMulticastIsCollected() throws Exception {
        assumeQp(QpType.UD);
        assumeTrue(tb.deviceAttributes().maxMcastGrp() > 0, "capability: the device has no multicast groups");
        ForkedScenario.assertHolds(kit(), "contextDroppedWithMulticast",
                "a context dropped unclosed with a multicast attachment");
    }

    @Test
    @DisplayName("required_ UD sends naming an address handle, posted in lists while another thread destroys the handle (24 rounds): the destroy returns, later posts fail with EINVAL, every accepted SEND completes SUCCESS, and the library never reads the destroyed handle [ibv_destroy_ah(3), ibv_post_send(3), issue 26]")
    void required_udPostsRaceAhClose() throws Exception {
        assumeQp(QpType.UD);
        ForkedScenario.assertHolds(kit(), "udPostsRaceAhClose", "UD posts racing the close of their address handle");
    }

    @Test
    @DisplayName("required_ BIND_MW WRs naming a type 2 window, posted while another thread deallocates the window (24 rounds): the dealloc returns, later binds fail with EINVAL, and the library never reads the deallocated window [ibv_post_send(3) bind_mw, ibv_alloc_mw(3), issue 26]")
    void required_bindPostsRaceWindowClose() throws Exception {
        assumeMw(MwType.TYPE_2);
        assumeOp(QpType.RC, WrOpcode.BIND_MW);
        assumeOp(QpType.RC, WrOpcode.LOCAL_INV);
        ForkedScenario.assertHolds(kit(), "bindPostsRaceWindowClose", "BIND_MW posts racing the close of their window");
    }

    @Test
    @DisplayName("required_ INLINE RDMA WRITEs whose data lies in a region, posted while another thread deregisters the region (24 rounds): the dereg returns, later INLINE posts fail with EINVAL, every accepted WRITE completes SUCCESS, and the library never copies data of a deregistered region [ibv_post_send(3) IBV_SEND_INLINE, ibv_dereg_mr(3), issue 26]")
    void required_inlinePostsRaceRegionClose() throws Exception {
        assumeTrue(caps().maxInlineData() >= 16, "capability: less than 16 bytes of inline data");
        ForkedScenario.assertHolds(kit(), "inlinePostsRaceRegionClose",
                "INLINE posts racing the deregistration of their data's region");
    }
}
