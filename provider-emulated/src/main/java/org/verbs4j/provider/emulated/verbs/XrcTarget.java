package org.verbs4j.provider.emulated.verbs;

import java.util.concurrent.locks.ReentrantLock;

import org.verbs4j.AsyncEventType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.provider.emulated.engine.CompletionSink;
import org.verbs4j.provider.emulated.engine.EngineQp;
import org.verbs4j.provider.emulated.engine.KeyTable;
import org.verbs4j.provider.emulated.engine.RecvQueue;
import org.verbs4j.provider.emulated.engine.SendQueue;
import org.verbs4j.provider.emulated.engine.SendWqe;

/**
 * What a responder sees of an XRC_RECV QP delivering into one XRC SRQ: the QP's state, attributes, lock and errors,
 * and the SRQ's receive queue, CQ and protection domain, against which the receive WRs' lkeys and the requests' rkeys
 * are checked (XRC has no PD on the receiving QP). One per QP and SRQ, made at the first message for the SRQ.
 */
final class XrcTarget implements EngineQp {
    private final EmulatedQueuePair qp;
    private final EmulatedSharedReceiveQueue srq;

    XrcTarget(EmulatedQueuePair qp, EmulatedSharedReceiveQueue srq) {
        this.qp = qp;
        this.srq = srq;
    }

    @Override
    public QpType type() {
        return QpType.XRC_RECV;
    }

    @Override
    public int qpNum() {
        return qp.qpn;
    }

    @Override
    public QpState state() {
        return qp.state;
    }

    @Override
    public ProtectionDomain pd() {
        return srq.pd;
    }

    @Override
    public KeyTable keys() {
        return qp.keys();
    }

    @Override
    public int accessFlags() {
        return qp.accessFlags();
    }

    @Override
    public int qkey() {
        return 0;
    }

    @Override
    public int maxDestRdAtomic() {
        return qp.maxDestRdAtomic();
    }

    @Override
    public int maxRdAtomic() {
        return qp.maxRdAtomic();
    }

    @Override
    public int rnrRetry() {
        return qp.rnrRetry();
    }

    @Override
    public SendQueue sendQueue() {
        return qp.sendQueue();
    }

    @Override
    public RecvQueue recvQueue() {
        return srq.queue;
    }

    @Override
    public CompletionSink sendCq() {
        return null;
    }

    @Override
    public CompletionSink recvCq() {
        return srq.cq;
    }

    @Override
    public void recvConsumed() {
        srq.afterConsume();
    }

    @Override
    public QpState beginError() {
        return qp.beginError();
    }

    @Override
    public void finishError(QpState was, AsyncEventType event) {
        qp.finishError(was, event);
    }

    @Override
    public void markError() {
        qp.markError();
    }

    @Override
    public boolean invalidate(int rkey) {
        return srq.pd.invalidate(rkey);
    }

    @Override
    public boolean bindWindow(SendWqe w) {
        return false;
    }

    @Override
    public ReentrantLock lock() {
        return qp.lock();
    }

    @Override
    public void release() {
        qp.release();
    }
}
