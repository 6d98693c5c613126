package org.verbs4j.provider.emulated.engine;

import java.util.concurrent.locks.ReentrantLock;

import org.verbs4j.AsyncEventType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpState;
import org.verbs4j.QpType;

/**
 * A queue pair as the engine sees it: its attributes, its queues and CQs, and the hooks the engine calls
 * back into the verbs object. The emulated provider's queue pair is the one implementation.
 *
 * <p>The requester and completer of a QP call it holding that QP's {@link #lock()}; a responder calls it on
 * the requesting QP's thread, holding the requesting QP's lock and, around a receive, the receive queue's
 * monitor.
 */
public interface EngineQp {
    QpType type();

    int qpNum();

    QpState state();

    /** The protection domain, compared by identity with {@link MemoryKey#pd}. */
    ProtectionDomain pd();

    /** The device's key table, where lkeys and rkeys are looked up. */
    KeyTable keys();

    /** The QP's {@code qp_access_flags} ({@code AccessFlags} bits). */
    int accessFlags();

    int qkey();

    int maxDestRdAtomic();

    /** The QP's {@code max_rd_atomic}: how many RDMA READs and atomics its requester may have in flight. */
    int maxRdAtomic();

    int rnrRetry();

    SendQueue sendQueue();

    /** The queue that messages for this QP consume receives from: its own, or its SRQ's. */
    RecvQueue recvQueue();

    CompletionSink sendCq();

    CompletionSink recvCq();

    /** Called under the receive queue's monitor after a receive was taken (an SRQ checks its limit). */
    void recvConsumed();

    /**
     * Moves the QP to ERR and flushes its queues; reports {@code event} (if not null) when the QP was not in
     * ERR already. The same as {@link #finishError finishError}{@code (}{@link #beginError()}{@code , event)}.
     */
    default void enterError(AsyncEventType event) {
        finishError(beginError(), event);
    }

    /**
     * The first half of {@link #enterError}: the QP's state becomes ERR (unless the QP is closed), and nothing is
     * flushed yet. A completion that reports the error is written between the halves, so that a poller who sees it
     * also sees the QP in ERR, and sees it before the WRs flushed behind it.
     *
     * @return the state before
     */
    QpState beginError();

    /** The second half of {@link #enterError}: flushes the queues and reports {@code event}; {@code was} as returned. */
    void finishError(QpState was, AsyncEventType event);

    /** Marks the QP as in ERR without flushing anything: one of its CQs overflowed. */
    void markError();

    /** LOCAL_INV and SEND_WITH_INV: invalidates a region's or type 2 window's key of this QP's PD. */
    boolean invalidate(int rkey);

    /** BIND_MW: binds the WQE's window through this QP; false is a bind error. */
    boolean bindWindow(SendWqe w);

    /** The lock that guards the send queue and the attributes. */
    ReentrantLock lock();

    /** Runs the requester, then unlocks {@link #lock()}; every holder of the lock leaves through here. */
    void release();
}
