package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.DeviceMemory;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.PostSendException;
import org.verbs4j.PreparedSends;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpType;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.VerbsException;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;

/**
 * The scenarios of the rules in which one thread closes an object that another thread's calls name: an address
 * handle under UD posts, a PD under registrations, a context under queries and creations, device memory under
 * copies, an XRC SRQ under the SENDs that name it, a {@code PreparedSends} under its owner's setters and posts.
 * They run in the kit's child JVM ({@link ForkedScenario}): a provider whose library reads the destroyed object
 * crashes or fails there.
 * Each ends when the looping thread's first call after the close is refused.
 */
final class CloseRaceScenarios {
    private CloseRaceScenarios() {}

    /** One step of a looping thread; any exception ends the loop. */
    interface Step {
        void run() throws Exception;
    }

    /** A thread that runs a step until it throws or the kit's timeout passes. */
    static final class Loop {
        private final AtomicInteger steps = new AtomicInteger();
        private final AtomicReference<Throwable> ended = new AtomicReference<>();
        private final Thread thread;

        Loop(String name, Step step) {
            thread = new Thread(() -> {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Completions.timeoutMs());
                try {
                    while (System.nanoTime() < deadline) {
                        step.run();
                        steps.incrementAndGet();
                    }
                } catch (Throwable t) {
                    ended.set(t);
                }
            }, name);
            thread.setDaemon(true);
            thread.start();
        }

        /** Waits until the step ran {@code n} times, so that the close races calls under way. */
        void awaitSteps(int n) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Completions.timeoutMs());
            while (steps.get() < n) {
                assertTrue(System.nanoTime() < deadline, thread.getName() + " made no progress: " + ended.get());
                assertTrue(thread.isAlive(), thread.getName() + " ended before the close: " + ended.get());
                Thread.sleep(1);
            }
        }

        /** {@return what ended the loop, once it ended} */
        Throwable join() throws InterruptedException {
            thread.join(Completions.timeoutMs());
            assertFalse(thread.isAlive(), thread.getName() + " must stop once the object is closed");
            return ended.get();
        }
    }

    /** UD SENDs naming an address handle, posted in a loop while this thread closes the handle. */
    static void udPostsWhileAhClosedScenario(Testbed tb) throws Exception {
        QpPair p = tb.pair(QpType.UD);
        AddressHandle ah = tb.ah();
        MemoryRegion src = tb.buffer(64);
        SendWr wr = new SendWr().opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(Sge.of(src, 0, 16))
                .ud(ah, p.b().qpNum(), Testbed.QKEY);
        List<SendWr> batch = List.of(wr, wr, wr, wr);
        WorkCompletionBatch wcs = new WorkCompletionBatch(16);
        Loop poster = new Loop("tck-ud-post", () -> {
            try {
                p.a().postSend(batch);
            } catch (PostSendException e) {
                if (e.errno() != Errno.ENOMEM) {
                    throw e;
                }
            }
            p.cqA().poll(wcs);
        });
        poster.awaitSteps(8);
        ah.close();
        Throwable end = poster.join();
        if (end instanceof VerbsException v) {
            assertEquals(Errno.EINVAL, v.errno(), "a UD post naming the address handle closed under it: " + v);
        } else if (!(end instanceof IllegalArgumentException || end instanceof IllegalStateException)) {
            fail("a UD post naming an address handle closed by another thread must be refused (EINVAL, or "
                    + "IllegalArgumentException/IllegalStateException), but ended with " + end, end);
        }
    }

    /**
     * A {@link PreparedSends} whose owner thread rewrites every field of its 4 slots and posts them in a loop, each
     * post's completions collected, while this thread closes the array. The close may not free the slots under the
     * owner's setters or its post: every completion is SUCCESS with its own wr_id, and the loop ends at the owner's
     * first call after the close, which throws IllegalStateException.
     */
    static void preparedSendsWhileClosedScenario(Testbed tb) throws Exception {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        AtomicReference<PreparedSends> made = new AtomicReference<>();
        WorkCompletionBatch wcs = new WorkCompletionBatch(4);
        long[] next = {0};
        Loop poster = new Loop("tck-prepared-post", () -> {
            PreparedSends a = made.get();
            if (a == null) {
                a = p.a().prepareSends(4);
                made.set(a);
            }
            long first = next[0];
            for (int i = 0; i < 4; i++) {
                PreparedSendRules.write(a, i, next[0]++, src, dst, 16L * i);
            }
            a.post(4);
            List<WorkCompletion> got = Completions.await(p.cqA(), 4, wcs, Completions.timeoutMs(),
                    "the prepared WRITEs " + first + " to " + (first + 3));
            for (int i = 0; i < 4; i++) {
                assertEquals(WcStatus.SUCCESS, got.get(i).status(), "WRITE " + (first + i));
                assertEquals(first + i, got.get(i).wrId(), "the wr_id of WRITE " + (first + i));
            }
        });
        poster.awaitSteps(8);
        made.get().close();
        Throwable end = poster.join();
        if (!(end instanceof IllegalStateException)) {
            fail("the owner's calls on a PreparedSends closed by another thread must end in IllegalStateException, "
                    + "but ended with " + end, end);
        }
    }

    /** Registrations and address handles made and closed in a loop while this thread closes their PD. */
    static void creationsWhilePdClosedScenario(Testbed tb) throws Exception {
        ProtectionDomain pd = tb.context().allocPd();
        MemorySegment memory = tb.memory(4096);
        Loop creator = new Loop("tck-pd-create", () -> {
            pd.registerMemory(memory, AccessFlags.LOCAL_WRITE, tb.arena()).close();
            pd.createAh(tb.av()).close();
        });
        creator.awaitSteps(8);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Completions.timeoutMs());
        while (!pd.isClosed()) {
            try {
                pd.close();
            } catch (VerbsException e) {
                // A region or handle of the loop is open at this instant: the PD refuses to go.
                assertEquals(Errno.EBUSY, e.errno(), "closing a PD whose objects come and go: " + e);
                assertTrue(System.nanoTime() < deadline, "the PD refused to close until the timeout: " + e);
                Thread.onSpinWait();
            }
        }
        Throwable end = creator.join();
        assertTrue(end instanceof IllegalStateException, "a creation on a PD closed by another thread must throw "
                + "IllegalStateException, but ended with " + end);
    }

    /** Queries and creations on a context in a loop while this thread closes it. */
    static void callsWhileContextClosedScenario(Testbed tb) throws Exception {
        Context ctx = tb.device().open();
        Loop caller = new Loop("tck-context-calls", () -> {
            ctx.queryPort(1);
            ctx.queryGid(1, 0);
            ctx.allocPd().close();
            ctx.createCq(4).close();
        });
        caller.awaitSteps(8);
        ctx.close();
        Throwable end = caller.join();
        assertTrue(end instanceof IllegalStateException, "a call on a context closed by another thread must throw "
                + "IllegalStateException, but ended with " + end);
    }

    /**
     * Copies to and from a buffer of device memory (up to 128 KiB) in a loop, each read back and compared, while
     * this thread frees the buffer. Nothing here when the device has no device memory (the rule assumes it).
     */
    static void copiesWhileDmClosedScenario(Testbed tb) throws Exception {
        // Long copies, so that the close most likely comes while one is under way.
        long length = Math.min(128 * 1024, tb.caps().maxDmSize() & ~3L);
        if (length < 128) {
            return;
        }
        DeviceMemory dm = tb.context().allocDm(length, 0);
        MemorySegment out = tb.memory(length);
        MemorySegment back = tb.memory(length);
        AtomicInteger round = new AtomicInteger();
        Loop copier = new Loop("tck-dm-copy", () -> {
            int seed = round.incrementAndGet();
            Data.fill(out, seed);
            dm.copyToDm(0, out);
            dm.copyFromDm(0, back);
            Data.assertPattern("device memory read back in round " + seed, back, 0, length, seed, 0);
        });
        copier.awaitSteps(8);
        dm.close();
        Throwable end = copier.join();
        assertTrue(end instanceof IllegalStateException, "a copy to or from device memory freed by another thread "
                + "must throw IllegalStateException, but ended with " + end);
        assertTrue(dm.isClosed(), "the buffer is freed once close returned");
    }

    /**
     * SENDs naming an XRC SRQ in a loop, each completed and its receive posted again, while this thread destroys
     * the SRQ; the loop goes on sending once its receive is refused, until a SEND fails. Nothing here when the device
     * has no XRC (the rule assumes it).
     */
    static void xrcSendsWhileSrqClosedScenario(Testbed tb) throws Exception {
        if (!tb.caps().xrc()) {
            return;
        }
        XrcLink link = XrcLink.open(tb, tb.peer().context().openXrcd(), 1);
        Testbed far = link.recvSide();
        CompletionQueue recvCq = far.cq(32);
        SharedReceiveQueue srq = link.srq(recvCq);
        MemoryRegion in = far.buffer(64);
        MemoryRegion src = tb.buffer(64);
        for (int i = 0; i < 8; i++) {
            srq.postRecv(new RecvWr(i, Sge.of(in, 0, 64)));
        }
        int srqn = srq.srqNum();
        WorkCompletionBatch received = new WorkCompletionBatch(16);
        AtomicReference<Throwable> refusal = new AtomicReference<>();
        Loop sender = new Loop("tck-xrc-send", () -> {
            WorkCompletion wc = link.post(new SendWr().opcode(WrOpcode.SEND).sgList(Sge.of(src, 0, 16)), srqn);
            if (wc.status() != WcStatus.SUCCESS) {
                throw new CompletionStatus(wc);
            }
            assertTrue(refusal.get() == null, "a SEND landed in an XRC SRQ after a receive was refused by its close: "
                    + refusal.get());
            try {
                for (int n = recvCq.poll(received); n > 0; n = recvCq.poll(received)) {
                    for (int i = 0; i < n; i++) {
                        srq.postRecv(new RecvWr(received.wrId(i), Sge.of(in, 0, 64)));
                    }
                }
            } catch (IllegalStateException e) {
                refusal.set(e);
            }
        });
        sender.awaitSteps(8);
        srq.close();
        Throwable end = sender.join();
        if (!(end instanceof CompletionStatus c)) {
            fail("SENDs naming an XRC SRQ destroyed by another thread must end in a failed completion, but the loop"
                    + " ended with " + end, end);
            return;
        }
        // The responder has no SRQ by that number any more.
        assertEquals(WcStatus.REM_INV_REQ_ERR, c.wc.status(), "a SEND naming an XRC SRQ destroyed meanwhile: " + c.wc);
    }

    /** The end of a loop whose SEND did not complete SUCCESS. */
    private static final class CompletionStatus extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient WorkCompletion wc;

        CompletionStatus(WorkCompletion wc) {
            super("the SEND completed " + wc.status() + ": " + wc, null, false, false);
            this.wc = wc;
        }
    }
}
