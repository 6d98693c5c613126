package org.verbs4j.provider.emulated.verbs;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

import org.verbs4j.AsyncEvent;
import org.verbs4j.AsyncEventType;
import org.verbs4j.Errno;
import org.verbs4j.PostRecvException;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.RecvWr;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.emulated.engine.RecvQueue;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.spi.support.AbstractVerbsObject;

/**
 * A shared receive queue. Messages for any QP attached to it take its oldest receive WR; when the count
 * of queued WRs drops below an armed limit, it reports {@link AsyncEventType#SRQ_LIMIT_REACHED} once.
 *
 * <p>An XRC SRQ ({@code ibv_create_srq_ex(3)}, {@code IBV_SRQT_XRC}) belongs to an XRC domain instead of QPs:
 * the domain's XRC_RECV QPs deliver into it the messages that name its number, and its receive completions go to
 * its own CQ.
 */
public final class EmulatedSharedReceiveQueue extends AbstractVerbsObject implements SharedReceiveQueue {
    final EmulatedContext context;
    private static final String VERB = "ibv_post_srq_recv";

    final EmulatedProtectionDomain pd;
    final RecvQueue queue;
    final int srqn;
    /** Guarded by {@link #queue}'s monitor. */
    private int limit;
    /** QPs whose sends wait for a receive (RNR), woken when one is posted. */
    final List<EmulatedQueuePair> rnrWaiters = new CopyOnWriteArrayList<>();

    /** The XRC domain of an XRC SRQ, else null. */
    final EmulatedXrcDomain xrcd;
    /** The CQ of an XRC SRQ's receive completions, else null. */
    final EmulatedCompletionQueue cq;

    EmulatedSharedReceiveQueue(EmulatedProtectionDomain pd, SrqInitAttributes attributes) {
        this(pd, attributes, null, null);
    }

    /** An XRC SRQ of {@code xrcd} completing on {@code cq}, or (both null) a basic SRQ. */
    EmulatedSharedReceiveQueue(EmulatedProtectionDomain pd, SrqInitAttributes attributes, EmulatedXrcDomain xrcd,
                               EmulatedCompletionQueue cq) {
        super("SharedReceiveQueue", pd.context, pd.context.lock);
        this.context = pd.context;
        this.pd = pd;
        this.queue = new RecvQueue(attributes.maxWr(), attributes.maxSge());
        this.limit = attributes.srqLimit();
        this.srqn = EmulatedDevice.allocateQpn();
        this.xrcd = xrcd;
        this.cq = cq;
        dependOn(pd);
        if (xrcd != null) {
            dependOn(xrcd);
            dependOn(cq);
            xrcd.shared.srqs.put(srqn, this);
        }
        register();
    }

    /**
     * The device's SRQ limits.
     *
     * @param verb the verb, for the error
     * @throws VerbsException {@code EINVAL} beyond {@code max_srq_wr} or {@code max_srq_sge}
     */
    static void checkLimits(String verb, SrqInitAttributes attributes) {
        if (attributes.maxWr() > EmulatedDevice.MAX_SRQ_WR || attributes.maxSge() > EmulatedDevice.MAX_SGE) {
            throw new VerbsException(verb, Errno.EINVAL, "beyond max_srq_wr " + EmulatedDevice.MAX_SRQ_WR
                    + " or max_srq_sge " + EmulatedDevice.MAX_SGE + ": " + attributes);
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
        return srqn;
    }

    @Override
    public SrqInitAttributes query() {
        checkOpen();
        synchronized (queue) {
            return new SrqInitAttributes(queue.capacity(), queue.maxSge(), limit);
        }
    }

    @Override
    public void armLimit(int srqLimit) {
        checkOpen();
        Arguments.srqLimit(srqLimit);
        if (srqLimit > queue.capacity()) {
            throw new VerbsException("ibv_modify_srq", Errno.EINVAL,
                    "srq_limit " + srqLimit + " exceeds the queue's " + queue.capacity() + " entries");
        }
        synchronized (queue) {
            limit = srqLimit;
        }
    }

    /** Called under the queue's monitor after a receive was taken: fires the limit event if armed and crossed. */
    void afterConsume() {
        if (limit > 0 && queue.size() < limit) {
            limit = 0;
            context.postEvent(new AsyncEvent(AsyncEventType.SRQ_LIMIT_REACHED, null, null, this, 0));
        }
    }

    @Override
    public void postRecv(RecvWr wr) {
        checkOpen();
        Objects.requireNonNull(wr, "wr");
        synchronized (queue) {
            add(wr, 0);
        }
        wakeWaiters();
    }

    @Override
    public void postRecv(List<RecvWr> wrs) {
        checkOpen();
        Objects.requireNonNull(wrs, "wrs");
        try {
            synchronized (queue) {
                for (int i = 0, n = wrs.size(); i < n; i++) {
                    add(Objects.requireNonNull(wrs.get(i), "wr"), i);
                }
            }
        } finally {
            wakeWaiters();
        }
    }

    private void add(RecvWr wr, int index) {
        if (wr.numSge() > queue.maxSge()) {
            throw new PostRecvException(VERB, Errno.EINVAL, index,
                    wr.numSge() + " SGEs exceed the SRQ's max_sge " + queue.maxSge());
        }
        if (queue.size() == queue.capacity()) {
            throw new PostRecvException(VERB, Errno.ENOMEM, index, "the SRQ is full");
        }
        queue.add(wr);
    }

    private void wakeWaiters() {
        if (!rnrWaiters.isEmpty()) {
            for (EmulatedQueuePair qp : rnrWaiters) {
                qp.kick();
            }
        }
    }

    @Override
    protected int destroy() {
        if (xrcd != null) {
            xrcd.shared.srqs.remove(srqn, this);
            for (EmulatedQueuePair qp : xrcd.shared.qps.values()) {
                qp.xrcResponders.remove(this);
            }
        }
        return 0;
    }
}
