package org.verbs4j.provider.nativecommon.internal;

import java.util.List;
import java.util.Objects;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.RecvWr;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_srq_attr;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.spi.support.AbstractVerbsObject;

/**
 * A shared receive queue, {@code struct ibv_srq}, of either native provider; receives are posted through
 * {@code ibv_context.ops.post_srq_recv} by the same {@link NativeRecvPoster} as a QP's. The destroy verb runs
 * under the SRQ's monitor and its receive lock, so a post or query that holds them finds the SRQ open or
 * closed, never destroyed under it. Created by {@link NativeQueuePairs}, an XRC SRQ by {@link NativeXrcDomain}.
 *
 * @see "ibv_create_srq(3), ibv_modify_srq(3), ibv_query_srq(3), ibv_post_srq_recv(3)"
 */
public final class NativeSharedReceiveQueue extends NativeObject implements SharedReceiveQueue {
    /** {@code IBV_SRQ_LIMIT}. */
    private static final int IBV_SRQ_LIMIT = 1 << 1;

    private final IbverbsBinding binding;
    private final ProtectionDomain pd;
    private final int srqNum;
    private final NativeScratch scratch;
    private final NativeRecvPoster poster;
    private final Object recvLock = new Object();

    /**
     * Wraps an SRQ the library made.
     *
     * @param context its context
     * @param pd its protection domain
     * @param srq the {@code struct ibv_srq *}
     * @param maxWr the receive WRs granted
     * @param maxSge the SGEs per WR granted
     * @param uses what else it is made with, which refuses to close before it: an XRC SRQ's domain and CQ
     */
    <C extends AbstractVerbsObject & NativeContextSupport, P extends AbstractVerbsObject & ProtectionDomain>
            NativeSharedReceiveQueue(C context, P pd, long srq, int maxWr, int maxSge, AbstractVerbsObject... uses) {
        super("SharedReceiveQueue", context, NativeKind.SRQ, srq);
        this.binding = context.binding();
        this.pd = pd;
        this.scratch = new NativeScratch(binding, this);
        try {
            this.poster = new NativeRecvPoster(binding, scratch, "ibv_post_srq_recv",
                    context.contextOp(ibv_context.ops$post_srq_recv$off), maxWr, maxSge, context.criticalDataPath());
            this.srqNum = readSrqNum(context.op("get_srq_num"));
            dependOn(pd);
            for (AbstractVerbsObject used : uses) {
                dependOn(used);
            }
            register();
        } catch (RuntimeException e) {
            // The context is closing, or a field could not be read: the factory destroys the SRQ, so the context
            // must not.
            forget();
            scratch.free();
            throw e;
        }
    }

    /** Only XRC SRQs have a number; a basic SRQ, or a library without {@code get_srq_num}, reports 0. */
    private int readSrqNum(long op) {
        if (op == 0) {
            return 0;
        }
        try (TempMemory a = new TempMemory(binding)) {
            long out = a.allocate(8);
            return binding.libibverbsOps().get_srq_num(op, handle, out) == 0 ? binding.getInt(out) : 0;
        }
    }

    @Override
    public ProtectionDomain pd() {
        checkOpen();
        return pd;
    }

    @Override
    public int srqNum() {
        checkOpen();
        return srqNum;
    }

    @Override
    public synchronized SrqInitAttributes query() {
        checkOpen();
        try (TempMemory a = new TempMemory(binding)) {
            long attr = a.allocate(ibv_srq_attr.SIZEOF);
            NativeErrors.check(binding.querySrq(handle, attr), "ibv_query_srq", null);
            return new SrqInitAttributes(binding.getInt(attr + ibv_srq_attr.max_wr$off),
                    Math.max(1, binding.getInt(attr + ibv_srq_attr.max_sge$off)),
                    binding.getInt(attr + ibv_srq_attr.srq_limit$off));
        }
    }

    @Override
    public synchronized void armLimit(int srqLimit) {
        checkOpen();
        Arguments.srqLimit(srqLimit);
        try (TempMemory a = new TempMemory(binding)) {
            long attr = a.allocate(ibv_srq_attr.SIZEOF);
            binding.putInt(attr + ibv_srq_attr.srq_limit$off, srqLimit);
            NativeErrors.check(binding.modifySrq(handle, attr, IBV_SRQ_LIMIT), "ibv_modify_srq",
                    "srq_limit " + srqLimit);
        }
    }

    @Override
    public void postRecv(RecvWr wr) {
        checkOpen();
        Objects.requireNonNull(wr, "wr");
        synchronized (recvLock) {
            checkOpen();
            poster.post(handle, wr);
        }
    }

    @Override
    public void postRecv(List<RecvWr> wrs) {
        checkOpen();
        Objects.requireNonNull(wrs, "wrs");
        synchronized (recvLock) {
            checkOpen();
            poster.post(handle, wrs);
        }
    }

    @Override
    protected int destroy() {
        synchronized (recvLock) {
            int errno = NativeErrors.errno(binding.destroySrq(handle));
            if (errno == 0) {
                markClosed();
            }
            return errno;
        }
    }

    @Override
    protected void afterDestroy() {
        super.afterDestroy();
        scratch.free();
    }

    @Override
    public String toString() {
        return "NativeSharedReceiveQueue[srqn=" + srqNum + (isClosed() ? ", closed" : "") + "]";
    }
}
