package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.foreign.Arena;
import java.lang.ref.WeakReference;
import java.util.concurrent.TimeUnit;
import org.verbs4j.AccessFlags;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Gid;
import org.verbs4j.MemoryRegion;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.VerbsException;
import org.verbs4j.WcStatus;

/**
 * A context dropped without {@code close()}, with a live PD, CQ, QP (in INIT) and region, and then collected
 * (issue 26): the provider keeps no reference to it, a native provider's Cleaner destroys what is left and closes
 * the device, and the device and the other contexts on it work on. Runs in the kit's child JVM
 * ({@link ForkedScenario}): a Cleaner that destroys objects out of order, twice, or under a live call would crash
 * there.
 */
final class DroppedContextScenario {
    /** How many times the scenario asks for a collection, {@value} ms apart, before it calls the context leaked. */
    static final int GC_ROUNDS = 100;
    private static final long GC_PAUSE_MS = 20;

    private DroppedContextScenario() {}

    /** A QP of {@code type} in INIT, on a new PD and CQ of {@code ctx}. */
    private static QueuePair qpInInit(Testbed tb, Context ctx, QpType type) {
        ProtectionDomain pd = ctx.allocPd();
        CompletionQueue cq = ctx.createCq(16);
        QueuePair qp = pd.createQp(QpInitAttributes.builder(type).sendCq(cq).recvCq(cq).maxSendWr(4)
                .maxRecvWr(4).maxSendSge(1).maxRecvSge(1).build());
        tb.toInit(qp);
        return qp;
    }

    /** Opens a context with one of each object and returns only a weak reference to it. */
    private static WeakReference<Context> openAndDrop(Testbed tb) {
        Context ctx = tb.device().open();
        QueuePair qp = qpInInit(tb, ctx, QpType.RC);
        // Memory that is never freed, as a plain registration requires: 4 KiB per run of the rule.
        qp.pd().registerMemory(Arena.global().allocate(4096, 64), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
        return new WeakReference<>(ctx);
    }

    /**
     * Opens a context whose UD QP is attached to a multicast group, and returns only a weak reference to it: the
     * device's group table must not keep the QP, and through it the context, reachable.
     */
    private static WeakReference<Context> openAttachAndDrop(Testbed tb) {
        Context ctx = tb.device().open();
        qpInInit(tb, ctx, QpType.UD).attachMulticast(DROPPED_GROUP, 0xc0de);
        return new WeakReference<>(ctx);
    }

    /** The group of {@link #openAttachAndDrop}, IPv4-mapped (RoCE v2 over IPv4): 239.255.0.77. */
    private static final Gid DROPPED_GROUP = Gid.ofIpv4(new byte[] {(byte) 239, (byte) 255, 0, 77});

    static void contextDroppedUnclosedScenario(Testbed tb) throws Exception {
        collectAndUseDevice(tb, openAndDrop(tb), "a PD, CQ, QP and region");
    }

    /**
     * As {@link #contextDroppedUnclosedScenario}, with a UD QP attached to a multicast group. Then as many of the
     * testbed's QPs as one group takes ({@code max_mcast_qp_attach}) attach to that group: the last one fails with
     * ENOMEM if the dropped context's QP still counts as a member.
     */
    static void contextDroppedWithMulticastScenario(Testbed tb) throws Exception {
        collectAndUseDevice(tb, openAttachAndDrop(tb), "a UD QP attached to a multicast group");
        CompletionQueue cq = tb.cq(4);
        int room = tb.deviceAttributes().maxMcastQpAttach();
        for (int i = 0; i < room; i++) {
            QueuePair ud = tb.qp(QpType.UD, cq, b -> b.maxSendWr(1).maxRecvWr(1));
            tb.toInit(ud);
            int n = i + 1;
            try {
                ud.attachMulticast(DROPPED_GROUP, 0xc0de);
            } catch (VerbsException e) {
                throw new AssertionError("attach " + n + " of max_mcast_qp_attach " + room + " to the dropped context's"
                        + " group: " + e.getMessage() + "; the dropped QP still counts as a member", e);
            }
        }
    }

    private static void collectAndUseDevice(Testbed tb, WeakReference<Context> dropped, String what)
            throws Exception {
        for (int i = 0; i < GC_ROUNDS && dropped.get() != null; i++) {
            System.gc();
            TimeUnit.MILLISECONDS.sleep(GC_PAUSE_MS);
        }
        assertNull(dropped.get(), "a context dropped unclosed with " + what + " must not stay reachable: "
                + "the provider keeps it (and every object made from it) for good, a leak");
        // The Cleaner of a native provider runs on its own thread once the context is collected; give it time to
        // destroy the objects and close the device, then use the device and the testbed's context.
        TimeUnit.MILLISECONDS.sleep(10 * GC_PAUSE_MS);
        try (Context again = tb.device().open()) {
            ProtectionDomain pd = again.allocPd();
            CompletionQueue cq = again.createCq(16);
            pd.createQp(QpInitAttributes.builder(QpType.RC).sendCq(cq).recvCq(cq).maxSendWr(4).maxRecvWr(4)
                    .maxSendSge(1).maxRecvSge(1).build());
        }
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        Data.fill(src, 31);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, 64, dst.address(), dst.rkey()).status(),
                "a WRITE between the testbed's QPs after another context on the device was dropped and collected");
        Data.assertPattern("the WRITE's target", dst.segment(), 0, 64, 31, 0);
    }
}
