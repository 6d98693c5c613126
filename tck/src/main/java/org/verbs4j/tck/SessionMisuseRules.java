package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.PreparedSends;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.VerbsException;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * Misuse of WR sessions and of {@code close()} across threads: what a hostile or careless caller may do, and the
 * defined outcome each must have. None may crash the JVM, lose or corrupt a batch, or hang a thread that did
 * nothing wrong.
 *
 * <p>The rules that close a QP, an address handle, a PD or a context under another thread's calls run their
 * scenario in the kit's child JVM ({@link ForkedScenario}), since a provider that destroys an object under a
 * running call crashes there (FFM did before issue 13): such a crash fails that rule instead of ending the run.
 */
public abstract class SessionMisuseRules extends TckArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected SessionMisuseRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private QpPair writers() {
        assumeSession(QpType.RC, WrOpcode.RDMA_WRITE);
        return writers(tb);
    }

    private static QpPair writers(Testbed tb) {
        int sge = Math.min(4, tb.caps().maxSendSge());
        return tb.pair(QpType.RC, b -> b.sendOps(WrOpcode.RDMA_WRITE).maxSendSge(sge).maxSendWr(256)
                .maxRecvWr(16));
    }

    /** Builds one signaled 8-byte RDMA WRITE of {@code src} into {@code dst}. */
    private static void buildWrite(WrSession s, long wrId, MemoryRegion src, MemoryRegion dst) {
        s.wrId(wrId);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(dst.rkey(), dst.address());
        s.setSge(src.lkey(), src.address(), 8);
    }

    private static <T> T inOtherThread(java.util.concurrent.Callable<T> body) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            return pool.submit(body).get(Completions.timeoutMs(), TimeUnit.MILLISECONDS);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @DisplayName("required_ complete() and abort() from a thread that does not own the open session throw IllegalStateException and change nothing: the owner's complete() then posts the batch [ibv_wr_post(3) CONCURRENCY]")
    void required_nonOwnerCannotEndSession() throws Exception {
        QpPair p = writers();
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        Data.u64(src.segment(), 0, 0x5ca1ab1eL);
        WrSession s = p.a().startWr();
        try {
            buildWrite(s, 41, src, dst);
            Throwable completeErr = inOtherThread(() -> catching(s::complete));
            Throwable abortErr = inOtherThread(() -> catching(s::abort));
            Throwable buildErr = inOtherThread(() -> catching(() -> s.wrId(7)));
            assertTrue(completeErr instanceof IllegalStateException,
                    "complete() from another thread must throw IllegalStateException, got " + completeErr);
            assertTrue(abortErr instanceof IllegalStateException,
                    "abort() from another thread must throw IllegalStateException, got " + abortErr);
            assertTrue(buildErr instanceof IllegalStateException,
                    "wrId() from another thread must throw IllegalStateException, got " + buildErr);
            assertTrue(s.isActive(), "the owner's session must still be open after the other thread's calls");
            Completions.assertNone(p.cqA(), "no WR may run before the owner's complete()");
            s.complete();
        } finally {
            if (s.isActive()) {
                s.abort();
            }
        }
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the owner's WRITE");
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(41, wc.wrId(), "the WR keeps the owner's wr_id, not the other thread's wrId(7)");
        assertEquals(0x5ca1ab1eL, Data.u64(dst.segment(), 0));
        WrSession again = inOtherThread(() -> {
            WrSession t = p.a().startWr();
            t.abort();
            return t;
        });
        assertFalse(again.isActive(), "the session opens and closes normally afterwards");
    }

    @Test
    @DisplayName("required_ a wr_flags value with unknown bits makes complete() fail with EINVAL and posts nothing [ibv_wr_post(3) Flags, ibv_post_send(3) send_flags]")
    void required_unknownWrFlagsRefused() {
        QpPair p = writers();
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion target = p.remoteBuffer(64);
        WrSession s = p.a().startWr();
        try {
            s.wrId(1);
            s.wrFlags(-1);
            s.rdmaWrite(target.rkey(), target.address());
            s.setSge(buf.lkey(), buf.address() + 32, 8);
            VerbsException e = assertThrows(VerbsException.class, s::complete);
            assertEquals(Errno.EINVAL, e.errno(), "errno of complete() with wr_flags -1");
        } finally {
            if (s.isActive()) {
                s.abort();
            }
        }
        Completions.assertNone(p.cqA(), "a refused batch completes nothing");
    }

    @Test
    @DisplayName("required_ postSend (one WR or a list) and a PreparedSends post from the thread that has the QP's session open throw IllegalStateException instead of waiting forever on the send queue; the session stays open, and once it ends the same PreparedSends posts [ibv_wr_post(3) CONCURRENCY]")
    void required_postSendInsideOwnSessionRefused() {
        QpPair p = writers();
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion target = p.remoteBuffer(64);
        try (PreparedSends prepared = p.a().prepareSends(1)) {
            prepared.opcode(0, WrOpcode.RDMA_WRITE).wrId(0, 5).sendFlags(0, SendFlags.SIGNALED)
                    .sge(0, 0, buf.address(), 8, buf.lkey()).numSge(0, 1).rdma(0, target.address(), target.rkey());
            WrSession s = p.a().startWr();
            try {
                SendWr wr = new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                        .sgList(org.verbs4j.Sge.of(buf, 0, 8)).rdma(target.address() + 32, target.rkey());
                assertThrows(IllegalStateException.class, () -> p.a().postSend(wr), "postSend of one WR");
                assertThrows(IllegalStateException.class, () -> p.a().postSend(List.of(wr)), "postSend of a list");
                assertThrows(IllegalStateException.class, () -> prepared.post(1), "a PreparedSends post");
                assertTrue(s.isActive(), "the session stays open");
            } finally {
                s.abort();
            }
            Completions.assertNone(p.cqA(), "neither the refused posts nor the aborted session complete");
            prepared.post(1);
            assertEquals(WcStatus.SUCCESS, Completions.await(p.cqA(), 1, "the prepared WRITE after the session")
                    .getFirst().status(), "the prepared WRITE posted once the session ended");
        }
    }

    @Test
    @DisplayName("required_ closing a QP from another thread while its session is open waits for the owner's complete(), and the owner's batch is posted or flushed, never run on a destroyed QP [ibv_destroy_qp(3), ibv_wr_post(3)]")
    void required_closeFromOtherThreadWaitsForSession() throws Exception {
        assumeSession(QpType.RC, WrOpcode.RDMA_WRITE);
        ForkedScenario.assertHolds(kit(), "closeFromOtherThreadWaitsForSession",
                "closing a QP from another thread while its session is open");
    }

    /**
     * The scenario of {@link #required_closeFromOtherThreadWaitsForSession}, run by the child JVM: a faulty
     * provider crashes here.
     */
    static void closeFromOtherThreadWaitsForSessionScenario(Testbed tb) throws Exception {
        QpPair p = writers(tb);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        QueuePair qp = p.a();
        WrSession s = qp.startWr();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            buildWrite(s, 5, src, dst);
            Future<Throwable> closing = pool.submit(() -> catching(qp::close));
            Thread.sleep(Completions.QUIET_MS);
            assertFalse(closing.isDone(), "close() from another thread returned while the owner's session was "
                    + "open: it must wait for complete() or abort()");
            assertFalse(qp.isClosed(), "the QP must stay open while its session is open in another thread");
            s.complete();
            Throwable closeErr = closing.get(Completions.timeoutMs(), TimeUnit.MILLISECONDS);
            assertEquals(null, closeErr, "close() after the owner's complete() must succeed");
            assertTrue(qp.isClosed());
            assertThrows(IllegalStateException.class, qp::startWr, "startWr on the closed QP");
        } finally {
            if (s.isActive()) {
                s.abort();
            }
            pool.shutdownNow();
        }
    }

    @Test
    @DisplayName("required_ while a close() waits for another thread's session, the context still creates objects: no context-wide lock is held while waiting [ibv_wr_post(3) CONCURRENCY]")
    void required_waitingCloseDoesNotBlockContext() throws Exception {
        QpPair p = writers();
        QueuePair qp = p.a();
        WrSession s = qp.startWr();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Throwable> closing = pool.submit(() -> catching(qp::close));
            Thread.sleep(Completions.QUIET_MS);
            assertFalse(closing.isDone(), "close() must wait for the open session");
            // The session owner itself uses the context meanwhile: with a context-wide lock held by the waiting
            // close, this would never return.
            CompletableFuture<ProtectionDomain> pd = CompletableFuture.supplyAsync(() -> tb.context().allocPd());
            ProtectionDomain made = pd.get(Completions.timeoutMs(), TimeUnit.MILLISECONDS);
            made.close();
            tb.context().createCq(4).close();
            s.abort();
            assertEquals(null, closing.get(Completions.timeoutMs(), TimeUnit.MILLISECONDS), "close() after abort()");
        } finally {
            if (s.isActive()) {
                s.abort();
            }
            pool.shutdownNow();
        }
    }

    @Test
    @DisplayName("required_ sessions posted in a loop while another thread closes the QP end only in IllegalStateException, and every posted WR completes or is flushed [ibv_destroy_qp(3), ibv_wr_post(3)]")
    void required_postingWhileClosedFromOtherThread() throws Exception {
        assumeSession(QpType.RC, WrOpcode.RDMA_WRITE);
        ForkedScenario.assertHolds(kit(), "postingWhileClosedFromOtherThread",
                "posting sessions while another thread closes the QP");
    }

    /**
     * The scenario of {@link #required_postingWhileClosedFromOtherThread}, run by the child JVM: a faulty
     * provider crashes here.
     */
    static void postingWhileClosedFromOtherThreadScenario(Testbed tb) throws Exception {
        QpPair p = writers(tb);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        QueuePair qp = p.a();
        AtomicReference<Throwable> unexpected = new AtomicReference<>();
        AtomicBoolean stopped = new AtomicBoolean();
        CountDownLatch posting = new CountDownLatch(8);
        Thread poster = new Thread(() -> {
            long id = 0;
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Completions.timeoutMs());
            while (System.nanoTime() < deadline) {
                try {
                    WrSession s = qp.startWr();
                    try {
                        s.wrId(id++);
                        s.wrFlags(0);
                        s.rdmaWrite(dst.rkey(), dst.address());
                        s.setSge(src.lkey(), src.address(), 8);
                        s.complete();
                    } finally {
                        s.close();
                    }
                    posting.countDown();
                    drain(p);
                } catch (IllegalStateException closed) {
                    stopped.set(true);
                    return;
                } catch (VerbsException e) {
                    // A full send queue (ENOMEM) is a defined outcome under load; anything else is not.
                    if (e.errno() != Errno.ENOMEM) {
                        unexpected.set(e);
                        return;
                    }
                } catch (Throwable t) {
                    unexpected.set(t);
                    return;
                }
            }
        }, "tck-poster");
        poster.start();
        try {
            assertTrue(posting.await(Completions.timeoutMs(), TimeUnit.MILLISECONDS), "the poster made no progress");
            qp.close();
            poster.join(Completions.timeoutMs());
            assertFalse(poster.isAlive(), "the poster must stop once the QP is closed");
            if (unexpected.get() != null) {
                fail("posting while another thread closed the QP threw " + unexpected.get());
            }
            assertTrue(stopped.get(), "the poster must end with IllegalStateException from the closed QP");
        } finally {
            poster.interrupt();
        }
    }

    @Test
    @DisplayName("required_ postSend in a loop while another thread closes the QP ends only in IllegalStateException [ibv_destroy_qp(3), ibv_post_send(3)]")
    void required_postSendWhileClosedFromOtherThread() throws Exception {
        assumeSession(QpType.RC, WrOpcode.RDMA_WRITE);
        ForkedScenario.assertHolds(kit(), "postSendWhileClosedFromOtherThread",
                "postSend while another thread closes the QP");
    }

    /**
     * The scenario of {@link #required_postSendWhileClosedFromOtherThread}, run by the child JVM: a faulty
     * provider crashes here.
     */
    static void postSendWhileClosedFromOtherThreadScenario(Testbed tb) throws Exception {
        QpPair p = writers(tb);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        QueuePair qp = p.a();
        SendWr wr = new SendWr().opcode(WrOpcode.RDMA_WRITE).sgList(org.verbs4j.Sge.of(src, 0, 8))
                .rdma(dst.address(), dst.rkey());
        List<SendWr> batch = List.of(wr, wr, wr, wr);
        AtomicReference<Throwable> ended = new AtomicReference<>();
        CountDownLatch posting = new CountDownLatch(8);
        Thread poster = new Thread(() -> {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Completions.timeoutMs());
            while (System.nanoTime() < deadline) {
                try {
                    qp.postSend(batch);
                    posting.countDown();
                    drain(p);
                } catch (org.verbs4j.PostSendException e) {
                    if (e.errno() != Errno.ENOMEM) {
                        ended.set(e);
                        return;
                    }
                } catch (Throwable t) {
                    ended.set(t);
                    return;
                }
            }
        }, "tck-postsend");
        poster.start();
        try {
            assertTrue(posting.await(Completions.timeoutMs(), TimeUnit.MILLISECONDS), "the poster made no progress");
            qp.close();
            poster.join(Completions.timeoutMs());
            assertFalse(poster.isAlive(), "the poster must stop once the QP is closed");
            assertTrue(ended.get() instanceof IllegalStateException,
                    "postSend on a QP closed by another thread must throw IllegalStateException, got " + ended.get());
        } finally {
            poster.interrupt();
        }
    }

    @Test
    @DisplayName("required_ UD sends naming an address handle, posted in a loop while another thread closes the handle, end in a refusal (EINVAL), and the library never reads the destroyed handle [ibv_destroy_ah(3), ibv_post_send(3)]")
    void required_udPostsWhileAhClosed() throws Exception {
        assumeQp(QpType.UD);
        ForkedScenario.assertHolds(kit(), "udPostsWhileAhClosed", "UD posts while another thread closes their AH");
    }

    @Test
    @DisplayName("required_ registrations and address handles made in a loop while another thread closes their PD: the close waits or refuses (EBUSY), and the first creation after it throws IllegalStateException [ibv_dealloc_pd(3), ibv_reg_mr(3), ibv_create_ah(3)]")
    void required_creationsWhilePdClosed() throws Exception {
        ForkedScenario.assertHolds(kit(), "creationsWhilePdClosed", "creations while another thread closes the PD");
    }

    @Test
    @DisplayName("required_ queries and creations on a context in a loop while another thread closes it end only in IllegalStateException [ibv_close_device(3)]")
    void required_callsWhileContextClosed() throws Exception {
        ForkedScenario.assertHolds(kit(), "callsWhileContextClosed", "calls while another thread closes the context");
    }

    /** Polls whatever the pair's CQs hold, so a long loop never overruns them. */
    private static void drain(QpPair p) {
        p.cqA().poll(new org.verbs4j.WorkCompletionBatch(16));
        p.cqB().poll(new org.verbs4j.WorkCompletionBatch(16));
    }

    private static Throwable catching(Runnable r) {
        try {
            r.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }
}
