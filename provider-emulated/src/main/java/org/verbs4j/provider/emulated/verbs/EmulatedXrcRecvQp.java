package org.verbs4j.provider.emulated.verbs;

import java.util.List;
import java.util.Objects;

import org.verbs4j.Gid;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.PreparedSends;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendWr;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.Arguments;

/**
 * A handle on an XRC_RECV QP: the one {@code ibv_create_qp_ex} returns, or one of {@code ibv_open_qp}. Every handle
 * modifies and queries the same QP; the QP is destroyed when its last handle closes ({@code ibv_open_qp(3)}). Each
 * handle depends on the XRC domain handle it came from. Nothing can be posted to it.
 */
final class EmulatedXrcRecvQp extends AbstractVerbsObject implements QueuePair {
    private final EmulatedQueuePair qp;

    EmulatedXrcRecvQp(EmulatedXrcDomain xrcd, EmulatedQueuePair qp) {
        super("QueuePair", xrcd.context, xrcd.context.lock);
        this.qp = qp;
        dependOn(xrcd);
        register();
    }

    /** Counts one more handle on {@code qp}, unless its last handle closed it already. */
    static boolean retain(EmulatedQueuePair qp) {
        for (int n = qp.xrcHandles.get(); n > 0; n = qp.xrcHandles.get()) {
            if (qp.xrcHandles.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public ProtectionDomain pd() {
        checkOpen();
        return null;
    }

    @Override
    public QpType type() {
        checkOpen();
        return QpType.XRC_RECV;
    }

    @Override
    public int qpNum() {
        checkOpen();
        return qp.qpn;
    }

    @Override
    public QpState state() {
        checkOpen();
        return qp.state;
    }

    @Override
    public QpInitAttributes initAttributes() {
        checkOpen();
        return qp.initAttributes();
    }

    @Override
    public void modify(QpAttributes attributes) {
        checkOpen();
        qp.modify(attributes);
    }

    @Override
    public QpAttributes query() {
        checkOpen();
        return qp.query();
    }

    @Override
    public void postRecv(RecvWr wr) {
        checkOpen();
        Objects.requireNonNull(wr, "wr");
        Arguments.hasRecvQueue(QpType.XRC_RECV);
    }

    @Override
    public void postRecv(List<RecvWr> wrs) {
        checkOpen();
        Objects.requireNonNull(wrs, "wrs");
        Arguments.hasRecvQueue(QpType.XRC_RECV);
    }

    @Override
    public void postSend(SendWr wr) {
        checkOpen();
        Objects.requireNonNull(wr, "wr");
        Arguments.hasSendQueue(QpType.XRC_RECV);
    }

    @Override
    public void postSend(List<SendWr> wrs) {
        checkOpen();
        Objects.requireNonNull(wrs, "wrs");
        Arguments.hasSendQueue(QpType.XRC_RECV);
    }

    @Override
    public WrSession startWr() {
        checkOpen();
        return qp.startWr();
    }

    @Override
    public int bindMw(MemoryWindow mw, long wrId, int sendFlags, MwBindInfo bindInfo) {
        checkOpen();
        Arguments.hasSendQueue(QpType.XRC_RECV);
        return 0;
    }

    @Override
    public int queryDataInOrder(WrOpcode op, int flags) {
        checkOpen();
        return qp.queryDataInOrder(op, flags);
    }

    @Override
    public PreparedSends prepareSends(int capacity) {
        checkOpen();
        Arguments.hasSendQueue(QpType.XRC_RECV);
        return null;
    }

    @Override
    public void attachMulticast(Gid gid, int lid) {
        checkOpen();
        qp.attachMulticast(gid, lid);
    }

    @Override
    public void detachMulticast(Gid gid, int lid) {
        checkOpen();
        qp.detachMulticast(gid, lid);
    }

    @Override
    protected int destroy() {
        if (qp.xrcHandles.decrementAndGet() == 0) {
            qp.close();
        }
        return 0;
    }

    @Override
    public String toString() {
        return "EmulatedXrcRecvQp[qpn=0x" + Integer.toHexString(qp.qpn) + ", " + qp.state + "]";
    }
}
