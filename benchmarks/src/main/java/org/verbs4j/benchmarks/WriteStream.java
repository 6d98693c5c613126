package org.verbs4j.benchmarks;

import java.util.ArrayList;
import java.util.List;

import org.verbs4j.CompletionQueue;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.PreparedSends;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * A stream of small RDMA WRITEs from one RC queue pair to its loopback peer, posted in batches and kept flowing:
 * every {@value #SIGNAL_EVERY}th WR is signaled, and before a batch would overrun the {@value #SQ_DEPTH}-entry send
 * queue the CQ is polled until there is room. {@code benchmarks/c/post_rate.c} follows the same pattern, so the two
 * can be compared WR for WR.
 *
 * <p>WR {@code n} (counting from 0 since the stream was made) has wrId {@code n}, writes {@value #MESSAGE} bytes at
 * offset {@code (n % 32) * MESSAGE} of the source buffer to the same offset of the destination buffer, and is
 * signaled when {@code n % SIGNAL_EVERY == SIGNAL_EVERY - 1}. A signaled completion of an RC QP retires it and every
 * earlier WR.
 */
final class WriteStream {
    /** Send queue depth in WRs. */
    static final int SQ_DEPTH = 256;
    /** One WR in this many asks for a completion. */
    static final int SIGNAL_EVERY = 32;
    /** Bytes per RDMA WRITE. */
    static final int MESSAGE = 64;
    /** Distinct 64-byte slots the WRs cycle through; the buffers must hold this many messages. */
    static final int SLOTS = 32;

    private final QueuePair qp;
    private final CompletionQueue cq;
    private final int lkey;
    private final int rkey;
    private final long local;
    private final long remote;
    private final WorkCompletionBatch wc = new WorkCompletionBatch(16);
    private final SendWr[] wrs;
    private final List<SendWr> list;
    /** For {@link #preparedBatch()}: made by its first call, so that it belongs to the posting thread. */
    private PreparedSends prepared;
    private long posted;
    private long retired;

    /**
     * Creates the queue pair, its peer and their CQ on {@code lb}, and connects them.
     *
     * @param batch WRs per post, for {@link #postSendBatch()}; at most {@value #SIGNAL_EVERY}
     */
    WriteStream(Loopback lb, int batch) {
        this(lb, batch, false);
    }

    /**
     * Creates the queue pair, its peer and their CQ on {@code lb}, and connects them.
     *
     * @param batch WRs per post, for {@link #postSendBatch()}; at most {@value #SIGNAL_EVERY}
     * @param threadDomain whether the posting QP is created with a thread domain, and so confined to the thread
     *     that first posts to it (its send queue takes no lock)
     */
    WriteStream(Loopback lb, int batch, boolean threadDomain) {
        if (batch < 1 || batch > SIGNAL_EVERY) {
            throw new IllegalArgumentException("batch must be 1.." + SIGNAL_EVERY + ", was " + batch);
        }
        cq = lb.ctx.createCq(4 * SQ_DEPTH / SIGNAL_EVERY + 16);
        QpInitAttributes.Builder init = QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(SQ_DEPTH).maxRecvWr(1)
                .sendOps(WrOpcode.RDMA_WRITE);
        QueuePair peer = lb.pd.createQp(init.build());
        qp = lb.pd.createQp(threadDomain ? init.threadDomain(lb.ctx.allocTd()).build() : init.build());
        lb.connect(qp, peer);
        lkey = lb.src.lkey();
        rkey = lb.dst.rkey();
        local = lb.src.address();
        remote = lb.dst.address();
        wrs = new SendWr[batch];
        list = new ArrayList<>(batch);
        for (int i = 0; i < batch; i++) {
            wrs[i] = new SendWr().opcode(WrOpcode.RDMA_WRITE).sgList(new Sge(local, MESSAGE, lkey));
            list.add(wrs[i]);
        }
    }

    private static int flags(long n) {
        return n % SIGNAL_EVERY == SIGNAL_EVERY - 1 ? SendFlags.SIGNALED : 0;
    }

    /** Posts {@code batch} WRITEs in one {@link WrSession}, after making room for them. */
    void wrSessionBatch(int batch) {
        makeRoom(batch);
        long n = posted;
        WrSession s = qp.startWr();
        for (int i = 0; i < batch; i++, n++) {
            long offset = (n % SLOTS) * MESSAGE;
            s.wrId(n);
            s.wrFlags(flags(n));
            s.rdmaWrite(rkey, remote + offset);
            s.setSge(lkey, local + offset, MESSAGE);
        }
        s.complete();
        posted = n;
    }

    /** Posts the stream's reused list of WRITEs with one {@code postSend}, after making room for them. */
    void postSendBatch() {
        int batch = wrs.length;
        makeRoom(batch);
        long n = posted;
        for (int i = 0; i < batch; i++, n++) {
            long offset = (n % SLOTS) * MESSAGE;
            SendWr wr = wrs[i];
            wr.wrId(n).sendFlags(flags(n)).rdma(remote + offset, rkey);
            wr.sgList()[0].addr(local + offset);
        }
        qp.postSend(list);
        posted = n;
    }

    /**
     * Posts the batch from a {@link PreparedSends} made once, after making room for it. Slot i writes
     * {@link #MESSAGE} bytes at offset {@code i * MESSAGE} of both buffers; each post rewrites every slot's
     * {@code wrId} and flags (SIGNALED on every {@value #SIGNAL_EVERY}th WR), as the other two APIs do.
     */
    void preparedBatch() {
        int batch = wrs.length;
        PreparedSends a = prepared();
        makeRoom(batch);
        long n = posted;
        for (int i = 0; i < batch; i++, n++) {
            a.wrId(i, n).sendFlags(i, flags(n));
        }
        a.post(batch);
        posted = n;
    }

    /**
     * Posts the batch from the same {@link PreparedSends}, rewriting every slot's {@code wrId}, flags, remote
     * address and SGE address as {@link #postSendBatch()} and C's {@code post_rate} do (WR n at offset
     * {@code (n % SLOTS) * MESSAGE}).
     */
    void preparedAddressedBatch() {
        int batch = wrs.length;
        PreparedSends a = prepared();
        makeRoom(batch);
        long n = posted;
        for (int i = 0; i < batch; i++, n++) {
            long offset = (n % SLOTS) * MESSAGE;
            a.wrId(i, n).sendFlags(i, flags(n)).rdma(i, remote + offset, rkey).sge(i, 0, local + offset, MESSAGE, lkey);
        }
        a.post(batch);
        posted = n;
    }

    /** The stream's PreparedSends, made by the first call (so that it belongs to the posting thread). */
    private PreparedSends prepared() {
        PreparedSends a = prepared;
        if (a == null) {
            int batch = wrs.length;
            a = qp.prepareSends(batch);
            for (int i = 0; i < batch; i++) {
                long offset = (long) (i % SLOTS) * MESSAGE;
                a.opcode(i, WrOpcode.RDMA_WRITE).sge(i, 0, local + offset, MESSAGE, lkey).numSge(i, 1)
                        .rdma(i, remote + offset, rkey);
            }
            prepared = a;
        }
        return a;
    }

    /**
     * Posts one batch through an API.
     *
     * @param api "wrSession", "postSend", "prepared" or "preparedAddressed"
     */
    void batch(String api) {
        switch (api) {
            case "wrSession" -> wrSessionBatch(wrs.length);
            case "postSend" -> postSendBatch();
            case "prepared" -> preparedBatch();
            case "preparedAddressed" -> preparedAddressedBatch();
            default -> throw new IllegalArgumentException("no posting API " + api);
        }
    }

    private void makeRoom(int batch) {
        while (posted - retired + batch > SQ_DEPTH) {
            pollOnce();
        }
    }

    /** Polls the CQ once; returns the number of completions. */
    int pollOnce() {
        int got = cq.poll(wc);
        for (int i = 0; i < got; i++) {
            if (wc.status(i) != WcStatus.SUCCESS) {
                throw new IllegalStateException("WRITE " + wc.wrId(i) + " completed with " + wc.status(i));
            }
            retired = wc.wrId(i) + 1;
        }
        return got;
    }

    /** Waits until every WR posted so far has completed, so that the QP can be closed cleanly. */
    void drain() {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (retired < posted - posted % SIGNAL_EVERY) {
            pollOnce();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("WRITEs up to " + posted + " did not complete within 60 s; "
                        + retired + " did");
            }
        }
    }

    /** WRs retired so far: one past the wrId of the last completion polled. */
    long retired() {
        return retired;
    }

    QueuePair qp() {
        return qp;
    }

    CompletionQueue cq() {
        return cq;
    }
}
