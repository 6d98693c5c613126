package org.verbs4j.provider.emulated.verbs;


import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QueuePair;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.XrcDomain;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.Arguments;

/**
 * A handle on an XRC domain ({@code ibv_open_xrcd(3)}): the SRQs and XRC_RECV QPs made or opened through it depend
 * on it, so it cannot close under them ({@code EBUSY}); what they share with the other handles of the same domain is
 * {@link XrcShared}.
 */
final class EmulatedXrcDomain extends AbstractVerbsObject implements XrcDomain {
    final EmulatedContext context;
    final XrcShared shared;

    EmulatedXrcDomain(EmulatedContext context, XrcShared shared) {
        super("XrcDomain", context, context.lock);
        this.context = context;
        this.shared = shared;
        register();
    }

    @Override
    public Context context() {
        checkOpen();
        return context;
    }

    @Override
    public SharedReceiveQueue createSrq(ProtectionDomain pd, CompletionQueue cq, SrqInitAttributes attributes) {
        checkOpen();
        Arguments.xrcSrq(pd, cq, attributes);
        EmulatedProtectionDomain p = sibling(pd, EmulatedProtectionDomain.class, "pd");
        EmulatedCompletionQueue c = QpChecks.cq(context, cq, "cq");
        EmulatedSharedReceiveQueue.checkLimits("ibv_create_srq_ex", attributes);
        synchronized (context.lock) {
            context.checkOpen();
            return new EmulatedSharedReceiveQueue(p, attributes, this, c);
        }
    }

    @Override
    public QueuePair createRecvQp() {
        checkOpen();
        synchronized (context.lock) {
            context.checkOpen();
            return new EmulatedQueuePair(this).openHandle(this);
        }
    }

    @Override
    public QueuePair openQp(int qpNum) {
        checkOpen();
        Arguments.openQpNum(qpNum);
        synchronized (context.lock) {
            context.checkOpen();
            EmulatedQueuePair qp = shared.qps.get(qpNum);
            EmulatedXrcRecvQp handle = qp == null ? null : qp.openHandle(this);
            if (handle == null) {
                throw new VerbsException("ibv_open_qp", Errno.EINVAL,
                        "no XRC_RECV QP of this XRC domain has the number 0x" + Integer.toHexString(qpNum));
            }
            return handle;
        }
    }

    @Override
    protected int destroy() {
        shared.release();
        return 0;
    }
}
