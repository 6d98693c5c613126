package org.verbs4j.benchmarks;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import org.verbs4j.SendFlags;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.nativecommon.IbverbsHandle;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_sge;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_send_wr;

/**
 * The floor of any FFM binding for {@link WriteStream#preparedBatch()}'s work: the same linked list of RDMA WRITEs
 * (wr_id and send_flags rewritten per WR, the addresses kept), posted by one critical FFM downcall of the QP's
 * {@code ops.post_send}, as C's {@code post_rate} {@code prepared} loop does, with no check, lock, hold or
 * bad-WR handling. Not a way to post: it is the row that tells the downcall's own cost (and C's) from what verbs4j
 * adds on top ({@code benchmarks/reports}). The QP is an ffm provider's on the null libibverbs; its address and its
 * context's are borrowed once through {@link IbverbsHandle}, and the stream's CQ is polled through verbs4j as for
 * every row.
 */
final class RawFfmPost {
    private static final MethodHandle POST_SEND = Linker.nativeLinker().downcallHandle(
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private final WriteStream stream;
    private final int batch;
    private final MemorySegment fn;
    private final long qp;
    private final long wrs;
    private final long badWr;
    private long posted;

    /**
     * Writes {@code batch} linked WRITEs of the stream's slots into {@code arena}.
     *
     * @param stream the stream, whose QP is the ffm provider's
     * @param lb its loopback, for the buffers' addresses and keys
     * @param batch WRs per post
     * @param arena where the WR list lives; it outlives every post
     */
    RawFfmPost(WriteStream stream, Loopback lb, int batch, Arena arena) {
        this.stream = stream;
        this.batch = batch;
        this.qp = stream.qp().unwrap(IbverbsHandle.class).call(MemorySegment::address);
        long context = lb.ctx.unwrap(IbverbsHandle.class).call(MemorySegment::address);
        this.fn = MemorySegment.ofAddress(ALL.get(JAVA_LONG, context + ibv_context.ops$post_send$off));
        MemorySegment list = arena.allocate(ibv_send_wr.SIZEOF * batch, 8);
        MemorySegment sges = arena.allocate(ibv_sge.SIZEOF * batch, 8);
        this.wrs = list.address();
        this.badWr = arena.allocate(8, 8).address();
        for (int i = 0; i < batch; i++) {
            long w = wrs + i * ibv_send_wr.SIZEOF;
            long g = sges.address() + i * ibv_sge.SIZEOF;
            long offset = (long) (i % WriteStream.SLOTS) * WriteStream.MESSAGE;
            ALL.set(JAVA_LONG, g + ibv_sge.addr$off, lb.src.address() + offset);
            ALL.set(JAVA_INT, g + ibv_sge.length$off, WriteStream.MESSAGE);
            ALL.set(JAVA_INT, g + ibv_sge.lkey$off, lb.src.lkey());
            ALL.set(JAVA_LONG, w + ibv_send_wr.next$off, i + 1 < batch ? w + ibv_send_wr.SIZEOF : 0);
            ALL.set(JAVA_LONG, w + ibv_send_wr.sg_list$off, g);
            ALL.set(JAVA_INT, w + ibv_send_wr.num_sge$off, 1);
            ALL.set(JAVA_INT, w + ibv_send_wr.opcode$off, WrOpcode.RDMA_WRITE.value());
            ALL.set(JAVA_LONG, w + ibv_send_wr.wr$rdma$remote_addr$off, lb.dst.address() + offset);
            ALL.set(JAVA_INT, w + ibv_send_wr.wr$rdma$rkey$off, lb.dst.rkey());
        }
    }

    /** Posts the next batch after making room, wr_id and flags rewritten as {@link WriteStream#preparedBatch()}. */
    void batch() {
        while (posted - stream.retired() + batch > WriteStream.SQ_DEPTH) {
            stream.pollOnce();
        }
        long n = posted;
        for (int i = 0; i < batch; i++, n++) {
            long w = wrs + i * ibv_send_wr.SIZEOF;
            ALL.set(JAVA_LONG, w + ibv_send_wr.wr_id$off, n);
            ALL.set(JAVA_INT, w + ibv_send_wr.send_flags$off,
                    n % WriteStream.SIGNAL_EVERY == WriteStream.SIGNAL_EVERY - 1 ? SendFlags.SIGNALED : 0);
        }
        int rc;
        try {
            rc = (int) POST_SEND.invokeExact(fn, qp, wrs, badWr);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
        if (rc != 0) {
            throw new IllegalStateException("post_send returned " + rc);
        }
        posted = n;
    }

    /** Polls until every signaled WR posted has completed. */
    void drain() {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (stream.retired() < posted - posted % WriteStream.SIGNAL_EVERY) {
            stream.pollOnce();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("raw WRITEs did not complete within 60 s");
            }
        }
    }
}
