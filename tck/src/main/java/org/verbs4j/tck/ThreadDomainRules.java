package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.MemoryRegion;
import org.verbs4j.PostSendException;
import org.verbs4j.PreparedSends;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.ThreadDomain;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * QPs created with a thread domain ({@code ibv_alloc_td(3)}): the application's promise that one thread uses the
 * QP, which the library keeps by confining the QP's send queue to the first thread that posts to it (or closes it),
 * as {@code Arena.ofConfined()} confines memory. Any other thread's post, WR session, prepared post or close throws
 * {@link WrongThreadException} while the owner lives, and changes nothing; once the owner has ended, another
 * thread takes the QP over. Skipped on a device without thread domains.
 */
public abstract class ThreadDomainRules extends TckArea {
    /** How long a rule waits for its second thread's step, in seconds. */
    private static final long STEP_SECONDS = 60;

    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected ThreadDomainRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    /** A connected RC pair whose a was created with a thread domain, with RDMA WRITE in its sendOps. */
    private QpPair confinedPair() {
        assumeTrue(caps().threadDomains(), "capability: the device has no thread domains");
        ThreadDomain td = tb.context().allocTd();
        Consumer<QpInitAttributes.Builder> ops = b -> b.sendOps(WrOpcode.RDMA_WRITE).maxSendWr(16);
        return tb.pair(QpType.RC, ops.andThen(b -> b.threadDomain(td)), ops, 7);
    }

    /** Posts one signaled 8-byte RDMA WRITE from a to b. */
    private static void write(QpPair p, MemoryRegion src, MemoryRegion dst, long wrId) {
        p.a().postSend(p.wr(wrId, WrOpcode.RDMA_WRITE, src, 0, 8).rdma(dst.address(), dst.rkey()));
    }

    /** The wrIds of the next {@code n} completions of a's CQ, which must all be successful (and no more come). */
    private static List<Long> completed(QpPair p, int n, String what) {
        List<Long> ids = new ArrayList<>();
        for (WorkCompletion wc : Completions.await(p.cqA(), n, what)) {
            assertEquals(WcStatus.SUCCESS, wc.status(), what + ": " + wc);
            ids.add(wc.wrId());
        }
        return ids;
    }

    /**
     * A second thread that runs steps handed to it, one at a time, and stays alive between them.
     */
    private static final class Other implements AutoCloseable {
        private final BlockingQueue<Runnable> steps = new ArrayBlockingQueue<>(1);
        private final BlockingQueue<Object> results = new ArrayBlockingQueue<>(1);
        private final Thread thread = new Thread(this::loop, "tck-thread-domain-other");

        Other() {
            thread.setDaemon(true);
            thread.start();
        }

        private void loop() {
            try {
                for (Runnable r = steps.take(); r != NONE; r = steps.take()) {
                    Object result;
                    try {
                        r.run();
                        result = "ok";
                    } catch (RuntimeException | Error e) {
                        result = e;
                    }
                    results.put(result);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Runs {@code step} in the other thread; returns what it threw, or null. */
        Throwable run(Runnable step) throws InterruptedException {
            steps.put(step);
            Object r = results.poll(STEP_SECONDS, TimeUnit.SECONDS);
            assertTrue(r != null, "the other thread's step did not end within " + STEP_SECONDS + " s");
            return r instanceof Throwable t ? t : null;
        }

        /** Ends the thread and waits until it has terminated. */
        @Override
        public void close() throws InterruptedException {
            steps.put(NONE);
            thread.join(TimeUnit.SECONDS.toMillis(STEP_SECONDS));
            assertFalse(thread.isAlive(), "the other thread did not end");
        }

        private static final Runnable NONE = () -> { };
    }

    private static void assertWrongThread(String rule, Throwable t) {
        assertTrue(t instanceof WrongThreadException, rule + ": expected WrongThreadException, got " + t);
    }

    @Test
    @DisplayName("optional_ a thread-domain QP is confined to its first poster: postSend, startWr and a PreparedSends post from another live thread throw WrongThreadException and post nothing, and the owner's WRs before and after all complete [ibv_alloc_td(3)]")
    void optional_otherThreadCannotPost() throws InterruptedException {
        QpPair p = confinedPair();
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        write(p, src, dst, 1);
        try (Other other = new Other()) {
            assertWrongThread("postSend from another thread", other.run(() -> write(p, src, dst, 90)));
            assertWrongThread("startWr from another thread", other.run(() -> p.a().startWr().close()));
            assertWrongThread("a PreparedSends post from another thread", other.run(() -> {
                try (PreparedSends s = p.a().prepareSends(1)) {
                    s.opcode(0, WrOpcode.RDMA_WRITE).wrId(0, 91).sendFlags(0, SendFlags.SIGNALED)
                            .sge(0, 0, src.address(), 8, src.lkey()).numSge(0, 1).rdma(0, dst.address(), dst.rkey());
                    s.post(1);
                }
            }));
            write(p, src, dst, 2);
            p.session(s -> {
                s.wrId(3);
                s.wrFlags(SendFlags.SIGNALED);
                s.rdmaWrite(dst.rkey(), dst.address());
                s.setSge(src.lkey(), src.address(), 8);
            });
        }
        assertEquals(List.of(1L, 2L, 3L), completed(p, 3, "the owner's three WRITEs"));
    }

    @Test
    @DisplayName("optional_ the owner of a thread-domain QP opens its WR session once: a second startWr, a postSend or a PreparedSends post by the owner while it is open throws IllegalStateException, another thread's startWr throws WrongThreadException, and none loses the open session's WRs [ibv_alloc_td(3), ibv_wr_post(3)]")
    void optional_sessionOpenedOnceByItsOwner() throws InterruptedException {
        QpPair p = confinedPair();
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        try (PreparedSends prepared = p.a().prepareSends(1); WrSession s = p.a().startWr()) {
            prepared.opcode(0, WrOpcode.RDMA_WRITE).wrId(0, 4).sendFlags(0, SendFlags.SIGNALED)
                    .sge(0, 0, src.address(), 8, src.lkey()).numSge(0, 1).rdma(0, dst.address(), dst.rkey());
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSge(src.lkey(), src.address(), 8);
            Expect.thrown("the owner's second startWr while its session is open", IllegalStateException.class,
                    () -> p.a().startWr());
            Expect.thrown("the owner's postSend inside its session", IllegalStateException.class,
                    () -> write(p, src, dst, 90));
            Expect.thrown("the owner's PreparedSends post inside its session", IllegalStateException.class,
                    () -> prepared.post(1));
            try (Other other = new Other()) {
                assertWrongThread("startWr from another thread while the owner's session is open",
                        other.run(() -> p.a().startWr().close()));
            }
            assertTrue(s.isActive(), "the refused calls leave the owner's session open");
            s.wrId(2);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address() + 8);
            s.setSge(src.lkey(), src.address() + 8, 8);
            s.complete();
        }
        assertEquals(List.of(1L, 2L), completed(p, 2, "the session's two WRITEs"));
        write(p, src, dst, 3);
        assertEquals(List.of(3L), completed(p, 1, "a postSend after the session"));
        Completions.assertNone(p.cqA(), "the refused posts inside the session post nothing");
    }

    @Test
    @DisplayName("optional_ closing a thread-domain QP from another thread while its owner lives throws WrongThreadException and leaves it open; the owner then posts and closes it [ibv_destroy_qp(3), ibv_alloc_td(3)]")
    void optional_otherThreadCannotClose() throws InterruptedException {
        QpPair p = confinedPair();
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        try (Other owner = new Other()) {
            assertEquals(null, owner.run(() -> write(p, src, dst, 1)), "the owner's first post");
            Expect.thrown("close from another thread", WrongThreadException.class, () -> p.a().close());
            assertFalse(p.a().isClosed(), "a refused close leaves the QP open");
            assertEquals(null, owner.run(() -> write(p, src, dst, 2)), "the owner's post after the refused close");
            assertEquals(List.of(1L, 2L), completed(p, 2, "the owner's WRITEs"));
            assertEquals(null, owner.run(() -> p.a().close()), "the owner's close");
        }
        assertTrue(p.a().isClosed(), "closed by its owner");
    }

    @Test
    @DisplayName("optional_ a PreparedSends of a thread-domain QP closed by another thread while the owner lives is closed at once: the owner's next post of it throws IllegalStateException and posts nothing, and the owner's other posts on the QP complete [ibv_alloc_td(3), ibv_post_send(3)]")
    void optional_preparedSendsClosedByAnotherThread() throws InterruptedException {
        QpPair p = confinedPair();
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        Data.fill(src, 47);
        try (Other owner = new Other()) {
            PreparedSends[] made = new PreparedSends[1];
            assertEquals(null, owner.run(() -> {
                PreparedSends s = p.a().prepareSends(1);
                s.opcode(0, WrOpcode.RDMA_WRITE).wrId(0, 1).sendFlags(0, SendFlags.SIGNALED)
                        .sge(0, 0, src.address(), 8, src.lkey()).numSge(0, 1).rdma(0, dst.address(), dst.rkey());
                s.post(1);
                made[0] = s;
            }), "the owner makes the array and posts it once");
            assertEquals(List.of(1L), completed(p, 1, "the owner's prepared WRITE"));
            // Not the owner, and the owner is alive (parked in its step loop): the close must not wait for it.
            made[0].close();
            assertTrue(made[0].isClosed(), "closed by another thread");
            Throwable refused = owner.run(() -> made[0].post(1));
            assertTrue(refused instanceof IllegalStateException,
                    "the owner's post of the closed array: expected IllegalStateException, got " + refused);
            Completions.assertNone(p.cqA(), "the refused post of the closed array");
            assertEquals(null, owner.run(() -> write(p, src, dst, 2)), "the owner's postSend after the close");
            assertEquals(List.of(2L), completed(p, 1, "the owner's WRITE after the close"));
        }
        Data.assertPattern("the WRITEs' bytes", dst.segment(), 0, 8, 47, 0);
    }

    @Test
    @DisplayName("optional_ a thread-domain QP goes to the first thread that posts, not to the one that made it, and to another thread once that owner has ended: it posts and closes it [ibv_alloc_td(3)]")
    void optional_takeOverFromEndedOwner() throws InterruptedException {
        QpPair p = confinedPair();
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        Other owner = new Other();
        assertEquals(null, owner.run(() -> write(p, src, dst, 1)), "the first post, from a thread that did not make the QP");
        Expect.thrown("postSend from the creating thread while the owner lives", WrongThreadException.class,
                () -> write(p, src, dst, 90));
        owner.close();
        write(p, src, dst, 2);
        assertEquals(List.of(1L, 2L), completed(p, 2, "a WRITE of each owner"));
        p.a().close();
        assertTrue(p.a().isClosed());
    }

    @Test
    @DisplayName("optional_ closing a context from another thread while a thread-domain QP's owner lives throws WrongThreadException and closes nothing; once the owner has ended it closes everything [ibv_close_device(3), ibv_alloc_td(3)]")
    void optional_contextCloseWaitsForNoOwner() throws InterruptedException {
        assumeTrue(caps().threadDomains(), "capability: the device has no thread domains");
        Context ctx = tb.context().device().open();
        ProtectionDomain pd;
        QueuePair qp;
        try {
            pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(8);
            qp = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(4).maxRecvWr(4)
                    .threadDomain(ctx.allocTd()).build());
        } catch (RuntimeException | Error e) {
            ctx.close();
            throw e;
        }
        try (Other owner = new Other()) {
            // A post in RESET fails (EINVAL), but it is this thread's: the QP is now its own.
            Throwable first = owner.run(() -> qp.postSend(new SendWr().wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE)));
            assertTrue(first instanceof PostSendException, "a post in RESET fails with EINVAL: " + first);
            Expect.thrown("the context's close from another thread", WrongThreadException.class, ctx::close);
            assertFalse(ctx.isClosed() || pd.isClosed() || qp.isClosed(),
                    "a refused close leaves the context, its PD and its QP open");
        } finally {
            // The owner has ended here (or the rule failed): the close takes the QP over.
            ctx.close();
        }
        assertTrue(ctx.isClosed() && pd.isClosed() && qp.isClosed(), "closed with the context");
    }
}
