package org.verbs4j.provider.emulated.verbs;

// Over 600 lines on purpose: one QP's state (attributes, queues, the lock that guards them) seen three ways, as the
// SPI's QueuePair, as the engine's EngineQp and as the wire transport's source of path attributes, all under one
// lock; the checks (QpChecks), the posting (SendPoster, RecvPoster), the state machine (engine.QpTransitions) and
// the engine's parts are files of their own. Taking the EngineQp view out is the next split (issue 28).

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import org.verbs4j.AhAttributes;
import org.verbs4j.AsyncEvent;
import org.verbs4j.AsyncEventType;
import org.verbs4j.DataInOrder;
import org.verbs4j.DeviceAttributesEx;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.MemoryWindow;
import org.verbs4j.Mtu;
import org.verbs4j.MwBindInfo;
import org.verbs4j.PathMigState;
import org.verbs4j.PreparedSends;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpRateLimit;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendWr;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;
import org.verbs4j.provider.emulated.engine.CompletionSink;
import org.verbs4j.provider.emulated.engine.EngineQp;
import org.verbs4j.provider.emulated.engine.KeyTable;
import org.verbs4j.provider.emulated.engine.QpTransitions;
import org.verbs4j.provider.emulated.engine.RecvQueue;
import org.verbs4j.provider.emulated.engine.Requester;
import org.verbs4j.provider.emulated.engine.Responder;
import org.verbs4j.provider.emulated.engine.SendQueue;
import org.verbs4j.provider.emulated.engine.SendWqe;
import org.verbs4j.provider.emulated.engine.Transport;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.AbstractWrSession;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.spi.support.ListPreparedSends;
import org.verbs4j.spi.support.MulticastAttachments;
import org.verbs4j.spi.support.ThreadConfinement;

/**
 * A queue pair: the verbs object, its attributes and its state machine ({@code ibv_modify_qp(3)}).
 *
 * <p>The parts it is made of:
 * <ul>
 *   <li>the send queue, a ring of preallocated {@link SendWqe} slots ({@link SendQueue}) that
 *       {@link SendPoster} (postSend, bindMw) and {@link EmulatedWrSession} fill from its tail;</li>
 *   <li>the receive queue ({@link RecvQueue}, or the SRQ's), filled by {@link RecvPoster};</li>
 *   <li>the engine, named after rxe's parts: the {@link Requester} executes the send queue from its head on
 *       the thread that holds the QP's lock, as soon as WRs are posted; it hands each request to the
 *       {@link Transport} ({@link InJvmTransport}: straight to the peer QP's {@link Responder}, which checks
 *       rkeys, access and bounds there and consumes its receives); the completer acts on the answer. A WR
 *       that must wait (an RC message that finds no receive posted: RNR) stays at the head of the ring,
 *       with every WR behind it, until a receive is posted at the peer or the emulated RNR timer fires.
 *       Nothing on this path allocates.</li>
 * </ul>
 *
 * <p>Lock order: a QP's lock, then a receive queue's monitor, then a CQ's monitor. A thread that holds a
 * receive queue's monitor never waits for a QP lock (it only tries), so two QPs sending to each other
 * from two threads cannot deadlock.
 *
 * <p>Why this file is over 500 lines: besides the object and its state machine it implements
 * {@link EngineQp}, the engine's view of a QP (some 80 lines of one-line accessors and hooks), which must
 * sit on the QP itself; the checks, the posting and the engine live in their own files.
 */
public final class EmulatedQueuePair extends AbstractVerbsObject implements QueuePair, EngineQp {
    // Over 600 lines: one state machine, the QP of ibv_modify_qp(3), rxe_qp.c's shape.
    /** What every XRC_RECV QP is created with: nothing to size. */
    private static final QpInitAttributes XRC_RECV_INIT = new QpInitAttributes(QpType.XRC_RECV, null, null, null,
            new QpCapabilities(0, 0, 0, 0, 0), false, Set.of(), null, 0);

    final EmulatedContext context;
    /** The PD; null on XRC_RECV. */
    final EmulatedProtectionDomain pd;
    /** The XRC domain of an XRC_RECV QP, else null. */
    final XrcShared xrc;
    /** XRC_RECV: the responder for the messages to each SRQ of the domain, made at the first. */
    final Map<EmulatedSharedReceiveQueue, Responder> xrcResponders = new ConcurrentHashMap<>();
    /** Makes an SRQ's responder; one function, so that a message's lookup allocates nothing. */
    private final Function<EmulatedSharedReceiveQueue, Responder> newXrcResponder =
            s -> new Responder(new XrcTarget(this, s));
    public final EmulatedDevice device;
    public final QpType type;
    public final int qpn;
    private final QpInitAttributes init;
    final EmulatedCompletionQueue sendCq;
    final EmulatedCompletionQueue recvCq;
    final EmulatedSharedReceiveQueue srq;
    final EmulatedThreadDomain td;
    /** The owner thread of a QP created with a thread domain ({@link ThreadConfinement}), or null. */
    final ThreadConfinement confinement;
    final boolean sigAll;
    /** Bit {@code 1 << IBV_WR_*} for each opcode requested in sendOps. */
    final int sendOpsMask;
    final int maxSendSge;
    final int maxInlineData;

    /** Guards the send queue and the attributes. */
    public final ReentrantLock lock = new ReentrantLock();
    /** The send queue: a ring of WQE slots that postSend, bindMw and WR sessions fill from its tail. */
    final SendQueue sq;
    /** The receive queue, or null with an SRQ. */
    final RecvQueue rq;
    /** Checks and copies postSend's and bindMw's WRs into {@link #sq}. */
    private final SendPoster sendPoster;
    /** Checks and copies postRecv's WRs into {@link #rq}; null with an SRQ. */
    private final RecvPoster recvPoster;
    private final EmulatedWrSession session;
    /** How this QP's requests reach their responders. */
    private final Transport transport;
    private final Requester requester;
    /** Executes the requests that reach this QP. */
    public final Responder responder;

    public volatile QpState state = QpState.RESET;
    public volatile int qkey;
    public volatile int destQpn;
    volatile int accessFlags;
    private int portNum = 1;
    private int pkeyIndex;
    private Mtu pathMtu = Mtu.MTU_1024;
    public AhAttributes av;
    private int timeout;
    private int retryCnt;
    volatile int rnrRetry;
    public volatile int minRnrTimer;
    private int maxRdAtomic;
    volatile int maxDestRdAtomic;
    private int sqPsn;
    private int rqPsn;
    private boolean sqdNotify;
    private PathMigState pathMigState = PathMigState.MIGRATED;

    /** The multicast groups this QP is attached to ({@code ibv_attach_mcast(3)}). */
    private final MulticastAttachments multicast;

    /** A QP whose send waits for a receive here (RNR), woken when one is posted. */
    volatile EmulatedQueuePair rnrWaiter;

    EmulatedQueuePair(EmulatedProtectionDomain pd, QpInitAttributes a) {
        this(pd.context, pd, null, a);
    }

    /**
     * The XRC_RECV QP of an XRC domain, which the domain's handles ({@link EmulatedXrcRecvQp}) share: no PD, queues
     * or CQs, no owner (the last handle closes it), and a lock of its own, since handles of other contexts close it.
     */
    EmulatedQueuePair(EmulatedXrcDomain xrcd) {
        this(xrcd.context, null, xrcd.shared, XRC_RECV_INIT);
    }

    private EmulatedQueuePair(EmulatedContext context, EmulatedProtectionDomain pd, XrcShared xrc, QpInitAttributes a) {
        super("QueuePair", pd == null ? null : context, pd == null ? new Object() : context.lock);
        this.context = context;
        this.pd = pd;
        this.xrc = xrc;
        this.device = context.device;
        this.type = a.type();
        this.multicast = new MulticastAttachments(type);
        if (!device.capabilities().supports(type)) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP, "this emulated device supports "
                    + device.capabilities().qpTypes() + " QPs, not " + type);
        }
        boolean target = type == QpType.XRC_RECV;
        // An XRC_SEND QP has no receive queue: its receive sizes and SRQ are ignored, as the kernel ignores them.
        boolean noRecv = target || type == QpType.XRC_SEND;
        EmulatedCompletionQueue scq = target ? null : QpChecks.cq(context, a.sendCq(), "sendCq");
        EmulatedCompletionQueue rcq = target ? null : QpChecks.cq(context, a.recvCq(), "recvCq");
        EmulatedSharedReceiveQueue s = noRecv ? null : QpChecks.srq(context, a.srq());
        EmulatedThreadDomain t = QpChecks.threadDomain(context, a.threadDomain());
        int mask = QpChecks.sendOpsMask(device, type, a.sendOps());
        QpCapabilities cap = a.cap();
        QpChecks.checkCapabilities(cap, a.maxTsoHeader());
        this.sendCq = scq;
        this.recvCq = rcq;
        this.srq = s;
        this.td = t;
        this.confinement = t == null ? null : ThreadConfinement.forQueuePair();
        this.sigAll = a.sqSigAll();
        this.sendOpsMask = mask;
        int sendWr = target ? 0 : Integer.highestOneBit(Math.max(1, cap.maxSendWr()) * 2 - 1);
        this.maxSendSge = target ? 0 : Math.max(1, cap.maxSendSge());
        this.maxInlineData = cap.maxInlineData();
        boolean ownRq = s == null && !noRecv;
        int recvWr = ownRq ? Math.max(1, cap.maxRecvWr()) : 0;
        int recvSge = ownRq ? Math.max(1, cap.maxRecvSge()) : 0;
        this.sq = new SendQueue(Math.max(1, sendWr), Math.max(1, maxSendSge), maxInlineData);
        this.rq = ownRq ? new RecvQueue(recvWr, recvSge) : null;
        this.recvPoster = ownRq ? new RecvPoster(this) : null;
        this.init = target ? a : new QpInitAttributes(type, a.sendCq(), a.recvCq(), s,
                new QpCapabilities(sendWr, recvWr, maxSendSge, recvSge, maxInlineData), sigAll, a.sendOps(),
                a.threadDomain(), 0);
        this.session = a.sendOps().isEmpty() ? null : new EmulatedWrSession(this);
        this.qpn = EmulatedDevice.allocateQpn();
        this.transport = device.link() != null ? device.link().transport(this) : new InJvmTransport(this);
        this.requester = new Requester(this, transport, device.maxMessageSize(), EmulatedDevice.MTU.bytes());
        this.responder = new Responder(this);
        this.sendPoster = new SendPoster(this);
        if (target) {
            xrc.qps.put(qpn, this);
            device.qps.put(qpn, this);
            return;
        }
        dependOn(pd);
        dependOn(scq);
        dependOn(rcq);
        scq.attach(this);
        rcq.attach(this);
        if (s != null) {
            dependOn(s);
        }
        if (t != null) {
            dependOn(t);
        }
        device.qps.put(qpn, this);
        register();
    }

    // ---------------------------------------------------------------- object

    @Override
    public ProtectionDomain pd() {
        checkOpen();
        return pd;
    }

    @Override
    public QpType type() {
        checkOpen();
        return type;
    }

    @Override
    public int qpNum() {
        checkOpen();
        return qpn;
    }

    @Override
    public QpState state() {
        checkOpen();
        return state;
    }

    @Override
    public QpInitAttributes initAttributes() {
        checkOpen();
        return init;
    }

    @Override
    protected int destroy() {
        // It cannot fail: closed first, so that a post racing with the close throws IllegalStateException
        // rather than finding the QP in RESET.
        markClosed();
        device.qps.remove(qpn);
        if (xrc != null) {
            xrc.qps.remove(qpn, this);
        }
        multicast.close((g, l) -> device.multicast.detach(this, g));
        lock.lock();
        try {
            state = QpState.RESET;
            sq.clear();
            requester.clear();
        } finally {
            lock.unlock();
        }
        if (srq != null) {
            srq.rnrWaiters.remove(this);
        }
        if (sendCq != null) {
            sendCq.detach(this);
            recvCq.detach(this);
        }
        return 0;
    }

    // ---------------------------------------------------------------- modify / query

    @Override
    public void modify(QpAttributes a) {
        checkOpen();
        Arguments.modifyAttributes(a);
        int mask = a.mask();
        if ((mask & QpAttrMask.AV) != 0) {
            EmulatedContext.checkPort(a.ahAttr().portNum());
        }
        lock.lock();
        try {
            QpState cur = state;
            if ((mask & QpAttrMask.CUR_STATE) != 0 && a.curState() != cur) {
                throw new VerbsException("ibv_modify_qp", Errno.EINVAL,
                        "cur_qp_state " + a.curState() + " is not the QP's state " + cur);
            }
            QpState next = (mask & QpAttrMask.STATE) != 0 ? a.state() : cur;
            // SQE is entered only by a device after a UC/UD send error; this one moves to ERR there, as rxe does.
            if (next == QpState.UNKNOWN || next == QpState.SQE) {
                throw new VerbsException("ibv_modify_qp", Errno.EINVAL, "a QP cannot be moved to " + next);
            }
            String bad = QpTransitions.check(type, cur, next, mask | QpAttrMask.STATE);
            if (bad == null) {
                bad = QpChecks.checkValues(a, mask);
            }
            if (bad != null) {
                throw new VerbsException("ibv_modify_qp", Errno.EINVAL, bad);
            }
            apply(a, mask);
            if (next == QpState.RESET) {
                state = QpState.RESET;
                sq.clear();
                requester.clear();
                if (rq != null) {
                    synchronized (rq) {
                        rq.clear();
                    }
                }
            } else if (next == QpState.ERR) {
                if (cur != QpState.ERR) {
                    enterError(null);
                }
            } else {
                state = next;
                if (next == QpState.SQD && cur != QpState.SQD && sqdNotify) {
                    context.postEvent(new AsyncEvent(AsyncEventType.SQ_DRAINED, this, null, null, 0));
                }
            }
            transport.reset(mask);
        } finally {
            release();
        }
    }

    private void apply(QpAttributes a, int mask) {
        if ((mask & QpAttrMask.QKEY) != 0) {
            qkey = a.qkey();
        }
        if ((mask & QpAttrMask.DEST_QPN) != 0) {
            destQpn = a.destQpNum();
        }
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0) {
            accessFlags = a.accessFlags();
        }
        if ((mask & QpAttrMask.PORT) != 0) {
            portNum = a.port();
        }
        if ((mask & QpAttrMask.PKEY_INDEX) != 0) {
            pkeyIndex = a.pkeyIndex();
        }
        if ((mask & QpAttrMask.PATH_MTU) != 0) {
            pathMtu = a.pathMtu();
        }
        if ((mask & QpAttrMask.AV) != 0) {
            av = a.ahAttr();
        }
        if ((mask & QpAttrMask.TIMEOUT) != 0) {
            timeout = a.timeout();
        }
        if ((mask & QpAttrMask.RETRY_CNT) != 0) {
            retryCnt = a.retryCnt();
        }
        if ((mask & QpAttrMask.RNR_RETRY) != 0) {
            rnrRetry = a.rnrRetry();
        }
        if ((mask & QpAttrMask.MIN_RNR_TIMER) != 0) {
            minRnrTimer = a.minRnrTimer();
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0) {
            maxRdAtomic = a.maxRdAtomic();
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0) {
            maxDestRdAtomic = a.maxDestRdAtomic();
        }
        if ((mask & QpAttrMask.SQ_PSN) != 0) {
            sqPsn = a.sqPsn();
        }
        if ((mask & QpAttrMask.RQ_PSN) != 0) {
            rqPsn = a.rqPsn();
        }
        if ((mask & QpAttrMask.EN_SQD_ASYNC_NOTIFY) != 0) {
            sqdNotify = a.enSqdAsyncNotify();
        }
        if ((mask & QpAttrMask.PATH_MIG_STATE) != 0) {
            pathMigState = a.pathMigState();
        }
    }

    @Override
    public QpAttributes query() {
        checkOpen();
        lock.lock();
        try {
            QpState s = state;
            QpAttributes q = new QpAttributes().state(s).curState(s).pathMtu(pathMtu).pathMigState(pathMigState)
                    .qkey(qkey).rqPsn(rqPsn).sqPsn(sqPsn).destQpNum(destQpn).accessFlags(accessFlags).cap(init.cap())
                    .pkeyIndex(pkeyIndex).enSqdAsyncNotify(sqdNotify).sqDraining(false).maxRdAtomic(maxRdAtomic)
                    .maxDestRdAtomic(maxDestRdAtomic).minRnrTimer(minRnrTimer).port(portNum).timeout(timeout)
                    .retryCnt(retryCnt).rnrRetry(rnrRetry);
            if (av != null) {
                q.ahAttr(av);
            }
            return q;
        } finally {
            release();
        }
    }

    @Override
    public int queryDataInOrder(WrOpcode op, int flags) {
        checkOpen();
        if (!Arguments.dataInOrderQuery(op, flags)) {
            return 0;
        }
        // True because OrderedCopy writes each WQE's data front to back and its last bytes last.
        return flags == 0 ? 1 : DataInOrder.WHOLE_MSG.bit() | DataInOrder.ALIGNED_128_BYTES.bit();
    }

    @Override
    public void modifyRateLimit(QpRateLimit limit) {
        checkOpen();
        Objects.requireNonNull(limit, "limit");
        DeviceAttributesEx.PacketPacingCaps caps = EmulatedDevice.PACKET_PACING;
        if (!caps.paces(type)) {
            throw new VerbsException("ibv_modify_qp_rate_limit", Errno.EINVAL, "the device does not pace " + type
                    + " QPs (packet_pacing_caps.supported_qpts)");
        }
        long kbps = limit.rateKbps();
        if (kbps != 0 && (kbps < caps.qpRateLimitMin() || kbps > caps.qpRateLimitMax())) {
            throw new VerbsException("ibv_modify_qp_rate_limit", Errno.EINVAL, "rate_limit " + kbps
                    + " kbps is outside the device's " + caps.qpRateLimitMin() + " to " + caps.qpRateLimitMax());
        }
        lock.lock();
        try {
            // The device's default burst: one packet of the typical size, which defaults to the path MTU.
            long packet = limit.typicalPacketSize() != 0 ? limit.typicalPacketSize() : pathMtu.bytes();
            requester.pacer().set(kbps, limit.maxBurstSize() != 0 ? limit.maxBurstBytes() : packet);
        } finally {
            release();
        }
    }

    @Override
    public void attachMulticast(Gid gid, int lid) {
        checkOpen();
        MulticastAttachments.checkArguments(gid, lid);
        multicast.attach(gid, lid, (g, l) -> device.multicast.attach(this, g));
    }

    @Override
    public void detachMulticast(Gid gid, int lid) {
        checkOpen();
        MulticastAttachments.checkArguments(gid, lid);
        multicast.detach(gid, lid, (g, l) -> device.multicast.detach(this, g));
    }

    // ---------------------------------------------------------------- receive side posting

    @Override
    public void postRecv(RecvWr wr) {
        checkOpen();
        Objects.requireNonNull(wr, "wr");
        Arguments.hasRecvQueue(type);
        checkNoSrq();
        recvPoster.post(wr);
    }

    @Override
    public void postRecv(List<RecvWr> wrs) {
        checkOpen();
        Objects.requireNonNull(wrs, "wrs");
        Arguments.hasRecvQueue(type);
        checkNoSrq();
        recvPoster.post(wrs);
    }

    private void checkNoSrq() {
        if (srq != null) {
            throw new IllegalStateException("the QP uses an SRQ: post receives to the SRQ (ibv_post_srq_recv(3))");
        }
    }

    /** Retries a send that waits for a receive, if the QP is free now; the RNR timer covers the other case. */
    void kick() {
        if (!isClosed() && lock.tryLock()) {
            release();
        }
    }

    // ---------------------------------------------------------------- send side posting

    /**
     * Before a send-queue verb: the thread may post (a thread-domain QP's owner), and has no WR session of the QP
     * open, whose WRs sit past the tail.
     */
    private void checkPosting() {
        if (confinement != null) {
            confinement.check();
        }
        if (session != null) {
            session.qpSide().checkNotOpenInThisThread();
        }
    }

    @Override
    public void postSend(SendWr wr) {
        checkOpen();
        Objects.requireNonNull(wr, "wr");
        checkPosting();
        lock.lock();
        try {
            checkOpen();
            sendPoster.post(wr, 0);
        } finally {
            release();
        }
    }

    @Override
    public void postSend(List<SendWr> wrs) {
        checkOpen();
        Objects.requireNonNull(wrs, "wrs");
        checkPosting();
        lock.lock();
        try {
            checkOpen();
            for (int i = 0, n = wrs.size(); i < n; i++) {
                sendPoster.post(Objects.requireNonNull(wrs.get(i), "wr"), i);
            }
        } finally {
            release();
        }
    }

    @Override
    public PreparedSends prepareSends(int capacity) {
        checkOpen();
        return new ListPreparedSends(this, capacity);
    }

    /** Whether {@code postSend} and {@code ibv_wr_complete} accept WRs in this state. */
    static boolean canPost(QpState s) {
        return s == QpState.RTS || s == QpState.SQD || s == QpState.ERR;
    }

    @Override
    protected AbstractWrSession wrSession() {
        return session;
    }

    @Override
    protected ThreadConfinement confinement() {
        return confinement;
    }

    @Override
    public WrSession startWr() {
        checkOpen();
        if (session == null) {
            throw new IllegalStateException(
                    "the QP was created without sendOps; WR sessions need them (ibv_wr_post(3))");
        }
        session.qpSide().open();
        return session;
    }

    @Override
    public int bindMw(MemoryWindow mw, long wrId, int sendFlags, MwBindInfo bindInfo) {
        checkOpen();
        checkPosting();
        return sendPoster.bindType1(mw, wrId, sendFlags, bindInfo);
    }

    // ---------------------------------------------------------------- progress

    /** Executes what can run, then unlocks. Every holder of {@link #lock} leaves through here. */
    @Override
    public void release() {
        try {
            requester.progress();
        } finally {
            lock.unlock();
        }
    }

    /** Moves the QP to ERR ({@link #enterError} is this, then {@link #finishError}). */
    @Override
    public QpState beginError() {
        QpState was = state;
        if (!isClosed()) {
            state = QpState.ERR;
        }
        return was;
    }

    /**
     * After {@link #beginError}: flushes the receive queue now, and the send queue now if the QP's lock is free
     * (otherwise its holder flushes it when it releases the lock). A thread that holds the lock itself (the
     * requester that failed a WQE, the responder of a request this QP sent) leaves the flush to that holder too, so
     * the engine is never re-entered from its own call.
     */
    @Override
    public void finishError(QpState was, AsyncEventType event) {
        if (isClosed()) {
            return;
        }
        if (rq != null) {
            synchronized (rq) {
                recvPoster.flushLocked();
            }
        } else if (srq != null && was != QpState.ERR) {
            context.postEvent(new AsyncEvent(AsyncEventType.QP_LAST_WQE_REACHED, this, null, null, 0));
        }
        if (event != null && was != QpState.ERR) {
            context.postEvent(new AsyncEvent(event, this, null, null, 0));
        }
        if (!lock.isHeldByCurrentThread() && lock.tryLock()) {
            release();
        }
    }

    // ---------------------------------------------------------------- the engine's view (EngineQp)

    @Override
    public KeyTable keys() {
        return device.keys;
    }

    @Override
    public int accessFlags() {
        return accessFlags;
    }

    @Override
    public int qkey() {
        return qkey;
    }

    @Override
    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    @Override
    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    @Override
    public int rnrRetry() {
        return rnrRetry;
    }

    @Override
    public SendQueue sendQueue() {
        return sq;
    }

    @Override
    public RecvQueue recvQueue() {
        return srq != null ? srq.queue : rq;
    }

    @Override
    public CompletionSink sendCq() {
        return sendCq;
    }

    @Override
    public CompletionSink recvCq() {
        return recvCq;
    }

    @Override
    public void recvConsumed() {
        if (srq != null) {
            srq.afterConsume();
        }
    }

    @Override
    public void markError() {
        state = QpState.ERR;
    }

    @Override
    public boolean invalidate(int rkey) {
        return pd.invalidate(rkey);
    }

    @Override
    public boolean bindWindow(SendWqe w) {
        return ((EmulatedMemoryWindow) w.mw).bind(w, pd, qpn);
    }

    @Override
    public ReentrantLock lock() {
        return lock;
    }

    /**
     * XRC_RECV: the responder for a message that names SRQ {@code srqn}, or null if no open SRQ of this QP's XRC
     * domain has that number.
     */
    /**
     * XRC_RECV: a new handle on this QP from {@code xrcd}, or null if the QP was destroyed. Under this QP's close
     * lock, so that the handle's hold on it and the close of its last other handle do not cross.
     */
    EmulatedXrcRecvQp openHandle(EmulatedXrcDomain xrcd) {
        synchronized (closeLock()) {
            return isClosed() ? null : new EmulatedXrcRecvQp(xrcd, this);
        }
    }

    public Responder xrcResponder(int srqn) {
        EmulatedSharedReceiveQueue s = xrc.srqs.get(srqn);
        if (s == null || s.isClosed()) {
            return null;
        }
        return xrcResponders.computeIfAbsent(s, newXrcResponder);
    }

    // ---------------------------------------------------------------- the wire transport's view

    /** How this QP's requests reach their responders. */
    public Transport transport() {
        return transport;
    }

    /** Hands a transport's answer to the requester; the caller holds {@link #lock} and then calls {@link #release}. */
    public void answer(int r) {
        requester.answer(r);
    }

    /** Whether WQEs wait for answers from the transport; under {@link #lock}. */
    public boolean awaitingAnswer() {
        return requester.awaiting();
    }

    public int pathMtuBytes() {
        return pathMtu.bytes();
    }

    public int sqPsnAttribute() {
        return sqPsn;
    }

    public int rqPsnAttribute() {
        return rqPsn;
    }

    public int retryCount() {
        return retryCnt;
    }

    /** The ACK timeout code: 4.096 microseconds times 2 to this power; 0 is no timeout. */
    public int timeoutCode() {
        return timeout;
    }

    @Override
    public String toString() {
        return "EmulatedQueuePair[" + type + ", qpn=0x" + Integer.toHexString(qpn) + ", " + state + "]";
    }
}
