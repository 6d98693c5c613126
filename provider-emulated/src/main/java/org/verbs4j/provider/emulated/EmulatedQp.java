package org.verbs4j.provider.emulated;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

import org.verbs4j.AccessFlags;
import org.verbs4j.AhAttributes;
import org.verbs4j.AsyncEvent;
import org.verbs4j.AsyncEventType;
import org.verbs4j.DataInOrder;
import org.verbs4j.Errno;
import org.verbs4j.Flush;
import org.verbs4j.MemoryWindow;
import org.verbs4j.Mtu;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.PathMigState;
import org.verbs4j.PostRecvException;
import org.verbs4j.PostSendException;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.VerbsException;
import org.verbs4j.WcFlags;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;
import org.verbs4j.provider.emulated.internal.EngineTimer;
import org.verbs4j.provider.emulated.internal.MemoryKey;
import org.verbs4j.provider.emulated.internal.OrderedCopy;
import org.verbs4j.provider.emulated.internal.QpTransitions;
import org.verbs4j.provider.emulated.internal.RecvQueue;
import org.verbs4j.provider.emulated.internal.SendWqe;
import org.verbs4j.provider.emulated.internal.Transfer;
import org.verbs4j.spi.support.Arguments;

/**
 * A queue pair, and the emulated transport.
 *
 * <p>Send WRs are queued in a ring of preallocated {@link SendWqe} slots and executed on the posting
 * thread as soon as they are posted, under the QP's lock: the requester checks the local SGEs, finds the
 * peer QP by GID and QPN, plays the responder's part on the peer's queues and memory (checking rkey,
 * access and bounds there), and writes the completions. A WR that must wait (an RC message that finds no
 * receive posted: RNR) stays at the head of the ring, with every WR behind it, until a receive is posted
 * at the peer or the emulated RNR timer fires. Nothing on this path allocates.
 *
 * <p>Lock order: a QP's lock, then a receive queue's monitor, then a CQ's monitor. A thread that holds a
 * receive queue's monitor never waits for a QP lock (it only tries), so two QPs sending to each other
 * from two threads cannot deadlock.
 */
final class EmulatedQp extends EmulatedObject implements QueuePair {
    // IBV_WR_* values.
    static final int OP_RDMA_WRITE = 0;
    static final int OP_RDMA_WRITE_WITH_IMM = 1;
    static final int OP_SEND = 2;
    static final int OP_SEND_WITH_IMM = 3;
    static final int OP_RDMA_READ = 4;
    static final int OP_CMP_SWP = 5;
    static final int OP_FETCH_ADD = 6;
    static final int OP_LOCAL_INV = 7;
    static final int OP_BIND_MW = 8;
    static final int OP_SEND_WITH_INV = 9;
    static final int OP_FLUSH = 14;
    static final int OP_ATOMIC_WRITE = 15;

    /** The IBV_WC_* opcode of each IBV_WR_* opcode's send completion. */
    private static final int[] WC_OPCODE = new int[16];
    static {
        for (WrOpcode op : WrOpcode.values()) {
            WC_OPCODE[op.value()] = WcOpcode.forSend(op).value();
        }
    }

    private static final int SUCCESS = WcStatus.SUCCESS.value();
    private static final int LOC_LEN_ERR = WcStatus.LOC_LEN_ERR.value();
    private static final int LOC_QP_OP_ERR = WcStatus.LOC_QP_OP_ERR.value();
    private static final int LOC_PROT_ERR = WcStatus.LOC_PROT_ERR.value();
    private static final int WR_FLUSH_ERR = WcStatus.WR_FLUSH_ERR.value();
    private static final int MW_BIND_ERR = WcStatus.MW_BIND_ERR.value();
    private static final int REM_INV_REQ_ERR = WcStatus.REM_INV_REQ_ERR.value();
    private static final int REM_ACCESS_ERR = WcStatus.REM_ACCESS_ERR.value();
    private static final int REM_OP_ERR = WcStatus.REM_OP_ERR.value();
    private static final int RETRY_EXC_ERR = WcStatus.RETRY_EXC_ERR.value();
    private static final int RNR_RETRY_EXC_ERR = WcStatus.RNR_RETRY_EXC_ERR.value();
    private static final int WC_RECV = WcOpcode.RECV.value();
    private static final int WC_RECV_RDMA_WITH_IMM = WcOpcode.RECV_RDMA_WITH_IMM.value();

    /** What executing a WQE did. */
    private static final int DONE = 0;
    private static final int BLOCKED = 1;
    /** A responder result: the responder dropped the message (UC, UD); the requester still succeeds. */
    private static final int DROPPED = -1;
    /** A responder result: no receive was posted (RNR). */
    private static final int RESP_BLOCKED = -3;

    private static final int GRH_BYTES = 40;
    private static final ValueLayout.OfShort BIG_ENDIAN_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    final EmulatedPd pd;
    final EmulatedDevice device;
    final QpType type;
    final int qpn;
    private final QpInitAttributes init;
    final EmulatedCq sendCq;
    final EmulatedCq recvCq;
    final EmulatedSrq srq;
    final EmulatedTd td;
    private final boolean sigAll;
    /** Bit {@code 1 << IBV_WR_*} for each opcode requested in sendOps. */
    final int sendOpsMask;
    /** Bit {@code 1 << IBV_WR_*} for each opcode the device executes on this QP type. */
    private final int supportedOps;
    final int maxSendSge;
    final int maxInlineData;

    /** Guards the send queue and the attributes. */
    final ReentrantLock lock = new ReentrantLock();
    final SendWqe[] sq;
    final int sqMask;
    long sqHead;
    long sqTail;
    private boolean progressing;
    private boolean rnrTimerArmed;
    /** The receive queue, or null with an SRQ. */
    final RecvQueue rq;
    private final EmulatedWrSession session;

    volatile QpState state = QpState.RESET;
    volatile int qkey;
    volatile int destQpn;
    volatile int accessFlags;
    private int portNum = 1;
    private int pkeyIndex;
    private Mtu pathMtu = Mtu.MTU_1024;
    private AhAttributes av;
    private int timeout;
    private int retryCnt;
    volatile int rnrRetry;
    volatile int minRnrTimer;
    private int maxRdAtomic;
    private volatile int maxDestRdAtomic;
    private int sqPsn;
    private int rqPsn;
    private boolean sqdNotify;
    private PathMigState pathMigState = PathMigState.MIGRATED;

    /** The connected peer as last resolved (RC, UC). */
    private EmulatedQp peer;
    /** A QP whose send waits for a receive here (RNR), woken when one is posted. */
    volatile EmulatedQp rnrWaiter;

    /** Scratch of the last successful remote key check, under {@link #lock}. */
    private MemoryKey scratchKey;
    private long scratchOffset;
    /** A GRH under construction, under {@link #lock}. */
    private final MemorySegment grh = MemorySegment.ofArray(new byte[GRH_BYTES]);

    EmulatedQp(EmulatedPd pd, QpInitAttributes a) {
        super(pd.context);
        this.pd = pd;
        this.device = pd.device();
        this.type = a.type();
        if (!device.capabilities().supports(type)) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP,
                    "the emulated device supports RC, UC and UD QPs, not " + type);
        }
        EmulatedCq scq = cq(a.sendCq(), "sendCq");
        EmulatedCq rcq = cq(a.recvCq(), "recvCq");
        EmulatedSrq s = null;
        if (a.srq() != null) {
            if (!(a.srq() instanceof EmulatedSrq e) || e.context != context) {
                throw new IllegalArgumentException("the SRQ belongs to another context");
            }
            if (e.isClosed()) {
                throw new IllegalArgumentException("the SRQ is closed");
            }
            s = e;
        }
        EmulatedTd t = null;
        if (a.threadDomain() != null) {
            if (!(a.threadDomain() instanceof EmulatedTd e) || e.context != context) {
                throw new IllegalArgumentException("the thread domain belongs to another context");
            }
            if (e.isClosed()) {
                throw new IllegalArgumentException("the thread domain is closed");
            }
            t = e;
        }
        int mask = 0;
        for (WrOpcode op : a.sendOps()) {
            if (!op.isValidFor(type)) {
                throw new IllegalArgumentException("sendOps " + op + " is not valid for a " + type
                        + " QP (ibv_wr_post(3)); it is valid for " + op.qpTypes());
            }
            if (!device.capabilities().supports(type, op)) {
                throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP,
                        "the emulated device cannot do " + op + " on " + type + " QPs");
            }
            mask |= 1 << op.value();
        }
        QpCapabilities cap = a.cap();
        if (cap.maxSendWr() > EmulatedDevice.MAX_QP_WR || cap.maxRecvWr() > EmulatedDevice.MAX_QP_WR
                || cap.maxSendSge() > EmulatedDevice.MAX_SGE || cap.maxRecvSge() > EmulatedDevice.MAX_SGE
                || cap.maxInlineData() > EmulatedDevice.MAX_INLINE_DATA) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EINVAL, "capabilities beyond the device's limits "
                    + "(max_qp_wr " + EmulatedDevice.MAX_QP_WR + ", max_sge " + EmulatedDevice.MAX_SGE
                    + ", max_inline_data " + EmulatedDevice.MAX_INLINE_DATA + "): " + cap);
        }
        if (a.maxTsoHeader() > 0) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP, "the emulated device has no TSO");
        }
        this.sendCq = scq;
        this.recvCq = rcq;
        this.srq = s;
        this.td = t;
        this.sigAll = a.sqSigAll();
        this.sendOpsMask = mask;
        int supported = 0;
        for (WrOpcode op : device.capabilities().sendOpcodes().get(type)) {
            supported |= 1 << op.value();
        }
        this.supportedOps = supported;
        int sendWr = Integer.highestOneBit(Math.max(1, cap.maxSendWr()) * 2 - 1);
        this.maxSendSge = Math.max(1, cap.maxSendSge());
        this.maxInlineData = cap.maxInlineData();
        int recvWr = s != null ? 0 : Math.max(1, cap.maxRecvWr());
        int recvSge = s != null ? 0 : Math.max(1, cap.maxRecvSge());
        this.sq = new SendWqe[sendWr];
        this.sqMask = sendWr - 1;
        MemorySegment inline = MemorySegment.ofArray(new byte[Math.max(1, maxInlineData) * sendWr]);
        for (int i = 0; i < sendWr; i++) {
            sq[i] = new SendWqe(maxSendSge, inline.asSlice((long) i * Math.max(1, maxInlineData), Math.max(1,
                    maxInlineData)));
        }
        this.rq = s != null ? null : new RecvQueue(recvWr, recvSge);
        this.init = new QpInitAttributes(type, a.sendCq(), a.recvCq(), a.srq(),
                new QpCapabilities(sendWr, recvWr, maxSendSge, recvSge, maxInlineData), sigAll, a.sendOps(),
                a.threadDomain(), 0);
        this.session = a.sendOps().isEmpty() ? null : new EmulatedWrSession(this);
        this.qpn = EmulatedDevice.allocateQpn();
        pd.users.incrementAndGet();
        scq.attach(this);
        rcq.attach(this);
        if (s != null) {
            s.users.incrementAndGet();
        }
        if (t != null) {
            t.users.incrementAndGet();
        }
        device.qps.put(qpn, this);
    }

    private EmulatedCq cq(Object cq, String name) {
        if (!(cq instanceof EmulatedCq c) || c.context != context) {
            throw new IllegalArgumentException(name + " belongs to another context");
        }
        if (c.isClosed()) {
            throw new IllegalArgumentException(name + " is closed");
        }
        return c;
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
    String destroyVerb() {
        return "ibv_destroy_qp";
    }

    @Override
    void destroy() {
        device.qps.remove(qpn);
        lock.lock();
        try {
            state = QpState.RESET;
            sqHead = sqTail;
        } finally {
            lock.unlock();
        }
        if (srq != null) {
            srq.rnrWaiters.remove(this);
            srq.users.decrementAndGet();
        }
        if (td != null) {
            td.users.decrementAndGet();
        }
        sendCq.detach(this);
        recvCq.detach(this);
        pd.users.decrementAndGet();
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
            if (next == QpState.UNKNOWN || next == QpState.SQE && cur != QpState.SQE) {
                throw new VerbsException("ibv_modify_qp", Errno.EINVAL, "a QP cannot be moved to " + next);
            }
            String bad = QpTransitions.check(type, cur, next, mask | QpAttrMask.STATE);
            if (bad == null) {
                bad = checkValues(a, mask);
            }
            if (bad != null) {
                throw new VerbsException("ibv_modify_qp", Errno.EINVAL, bad);
            }
            apply(a, mask);
            peer = null;
            if (next == QpState.RESET) {
                state = QpState.RESET;
                sqHead = sqTail;
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
        } finally {
            release();
        }
    }

    private String checkValues(QpAttributes a, int mask) {
        if ((mask & QpAttrMask.PORT) != 0 && a.port() != 1) {
            return "the emulated device has only port 1, not " + a.port();
        }
        if ((mask & QpAttrMask.PKEY_INDEX) != 0 && a.pkeyIndex() != 0) {
            return "the P_Key table has one entry; pkey_index " + a.pkeyIndex() + " is outside it";
        }
        if ((mask & QpAttrMask.AV) != 0) {
            String bad = EmulatedPd.checkAv(a.ahAttr());
            if (bad != null) {
                return bad;
            }
        }
        if ((mask & QpAttrMask.PATH_MTU) != 0 && a.pathMtu().bytes() > EmulatedDevice.MTU.bytes()) {
            return "path MTU " + a.pathMtu() + " exceeds the port's " + EmulatedDevice.MTU;
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0 && a.maxRdAtomic() > EmulatedDevice.MAX_RD_ATOMIC) {
            return "max_rd_atomic " + a.maxRdAtomic() + " exceeds max_qp_init_rd_atom " + EmulatedDevice.MAX_RD_ATOMIC;
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0 && a.maxDestRdAtomic() > EmulatedDevice.MAX_RD_ATOMIC) {
            return "max_dest_rd_atomic " + a.maxDestRdAtomic() + " exceeds max_qp_rd_atom "
                    + EmulatedDevice.MAX_RD_ATOMIC;
        }
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0
                && (a.accessFlags() & ~(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
                | AccessFlags.REMOTE_ATOMIC | AccessFlags.FLUSH_GLOBAL | AccessFlags.FLUSH_PERSISTENT)) != 0) {
            return "QP access flags take only LOCAL_WRITE, REMOTE_* and FLUSH_* bits: "
                    + AccessFlags.toString(a.accessFlags());
        }
        if ((mask & QpAttrMask.CAP) != 0) {
            return "the emulated device cannot resize a QP's queues";
        }
        return null;
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
        Objects.requireNonNull(op, "op");
        if ((flags & ~DataInOrder.RETURN_CAPS) != 0) {
            throw new IllegalArgumentException("unknown ibv_query_qp_data_in_order flags 0x"
                    + Integer.toHexString(flags & ~DataInOrder.RETURN_CAPS));
        }
        if (op != WrOpcode.RDMA_READ && op != WrOpcode.RDMA_WRITE && op != WrOpcode.SEND) {
            return 0;
        }
        // True because OrderedCopy writes each WQE's data front to back and its last bytes last.
        return flags == 0 ? 1 : DataInOrder.WHOLE_MSG.bit() | DataInOrder.ALIGNED_128_BYTES.bit();
    }

    // ---------------------------------------------------------------- receive side posting

    @Override
    public void postRecv(RecvWr wr) {
        checkOpen();
        Objects.requireNonNull(wr, "wr");
        checkNoSrq();
        synchronized (rq) {
            addRecv(wr, 0);
        }
        afterRecvPosted();
    }

    @Override
    public void postRecv(List<RecvWr> wrs) {
        checkOpen();
        Objects.requireNonNull(wrs, "wrs");
        checkNoSrq();
        try {
            synchronized (rq) {
                for (int i = 0, n = wrs.size(); i < n; i++) {
                    addRecv(Objects.requireNonNull(wrs.get(i), "wr"), i);
                }
            }
        } finally {
            afterRecvPosted();
        }
    }

    private void checkNoSrq() {
        if (srq != null) {
            throw new IllegalStateException("the QP uses an SRQ: post receives to the SRQ (ibv_post_srq_recv(3))");
        }
    }

    private void addRecv(RecvWr wr, int index) {
        QpState s = state;
        if (s == QpState.RESET) {
            throw new PostRecvException("ibv_post_recv", Errno.EINVAL, index, "the QP is in RESET");
        }
        if (wr.numSge() > rq.maxSge()) {
            throw new PostRecvException("ibv_post_recv", Errno.EINVAL, index,
                    wr.numSge() + " SGEs exceed max_recv_sge " + rq.maxSge());
        }
        if (rq.size() == rq.capacity()) {
            throw new PostRecvException("ibv_post_recv", Errno.ENOMEM, index, "the receive queue is full");
        }
        rq.add(wr);
        if (s == QpState.ERR) {
            flushRecvLocked();
        }
    }

    private void afterRecvPosted() {
        EmulatedQp w = rnrWaiter;
        if (w != null) {
            // A send that still finds no receive registers itself again.
            rnrWaiter = null;
            w.kick();
        }
    }

    /** Retries a send that waits for a receive, if the QP is free now; the RNR timer covers the other case. */
    void kick() {
        if (!isClosed() && lock.tryLock()) {
            release();
        }
    }

    // ---------------------------------------------------------------- send side posting

    @Override
    public void postSend(SendWr wr) {
        checkOpen();
        Objects.requireNonNull(wr, "wr");
        lock.lock();
        try {
            enqueue(wr, 0);
        } finally {
            release();
        }
    }

    @Override
    public void postSend(List<SendWr> wrs) {
        checkOpen();
        Objects.requireNonNull(wrs, "wrs");
        lock.lock();
        try {
            for (int i = 0, n = wrs.size(); i < n; i++) {
                enqueue(Objects.requireNonNull(wrs.get(i), "wr"), i);
            }
        } finally {
            release();
        }
    }

    /** Whether {@code postSend} and {@code ibv_wr_complete} accept WRs in this state. */
    static boolean canPost(QpState s) {
        return s == QpState.RTS || s == QpState.SQD || s == QpState.SQE || s == QpState.ERR;
    }

    private void enqueue(SendWr wr, int index) {
        Arguments.sges(wr.sgList(), wr.numSge(), "sgList");
        QpState s = state;
        if (!canPost(s)) {
            throw new PostSendException(Errno.EINVAL, index,
                    "the QP is in " + s + "; posting needs RTS, SQD, SQE or ERR");
        }
        WrOpcode op = wr.opcode();
        if ((supportedOps & (1 << op.value())) == 0) {
            throw new PostSendException(Errno.EINVAL, index, op + " is not valid on a " + type + " QP of this device");
        }
        int flags = wr.sendFlags();
        if ((flags & ~SendFlags.ALL) != 0 || (flags & SendFlags.IP_CSUM) != 0) {
            throw new PostSendException(Errno.EINVAL, index, "unsupported send flags " + SendFlags.toString(flags));
        }
        boolean inline = (flags & SendFlags.INLINE) != 0 && op.allowsInline();
        int n = wr.numSge();
        if (n > maxSendSge) {
            throw new PostSendException(Errno.EINVAL, index, n + " SGEs exceed max_send_sge " + maxSendSge);
        }
        if (type == QpType.UD && (!(wr.ah() instanceof EmulatedAh ah) || ah.isClosed())) {
            throw new PostSendException(Errno.EINVAL, index, "a UD WR needs an open address handle of this provider");
        }
        if (op == WrOpcode.BIND_MW && (!(wr.bindMwWindow() instanceof EmulatedMw mw) || mw.type != MwType.TYPE_2
                || mw.isClosed() || wr.bindMwInfo() == null || wr.bindMwInfo().mr().isClosed())) {
            throw new PostSendException(Errno.EINVAL, index,
                    "a BIND_MW WR needs an open type 2 window of this provider and bind info with an open region");
        }
        if (sqTail - sqHead >= sq.length) {
            throw new PostSendException(Errno.ENOMEM, index, "the send queue is full (" + sq.length + " WRs)");
        }
        SendWqe w = sq[(int) (sqTail & sqMask)];
        w.reset(wr.wrId(), op.value(), flags, sigAll || (flags & SendFlags.SIGNALED) != 0);
        w.immData = wr.immData();
        w.invalidateRkey = wr.invalidateRkey();
        w.rkey = wr.rkey();
        w.remoteAddr = wr.remoteAddr();
        w.compareAdd = wr.compareAdd();
        w.swap = wr.swap();
        Sge[] sges = wr.sgList();
        if (inline) {
            long total = 0;
            for (int i = 0; i < n; i++) {
                total += Integer.toUnsignedLong(sges[i].length());
            }
            if (total > maxInlineData) {
                throw new PostSendException(Errno.EINVAL, index,
                        total + " bytes of inline data exceed max_inline_data " + maxInlineData);
            }
            String unreadable = Arguments.inlineData(wr, pd.regions);
            if (unreadable != null) {
                throw new PostSendException(Errno.EINVAL, index, unreadable);
            }
            int at = 0;
            for (int i = 0; i < n; i++) {
                Sge g = sges[i];
                long len = Integer.toUnsignedLong(g.length());
                MemorySegment src = len == 0 ? null : pd.regions.find(g.addr(), len);
                try {
                    if (src != null) {
                        MemorySegment.copy(src, g.addr() - src.address(), w.inline, at, len);
                    }
                } catch (IllegalStateException e) {
                    throw new PostSendException(Errno.EINVAL, index, "inline SGE #" + i + ": its arena was closed");
                }
                at += (int) len;
            }
            w.isInline = true;
            w.inlineLength = at;
            w.length = at;
        } else {
            long total = 0;
            for (int i = 0; i < n; i++) {
                Sge g = sges[i];
                w.sgeAddr[i] = g.addr();
                w.sgeLength[i] = g.length();
                w.sgeLkey[i] = g.lkey();
                total += Integer.toUnsignedLong(g.length());
            }
            w.numSge = n;
            w.length = total;
        }
        if (type == QpType.UD) {
            w.ah = wr.ah();
            w.remoteQpn = wr.remoteQpn();
            w.remoteQkey = wr.remoteQkey();
        }
        if (op == WrOpcode.BIND_MW) {
            MwBindInfo b = wr.bindMwInfo();
            w.mw = wr.bindMwWindow();
            w.bindRkey = wr.bindMwRkey();
            w.bindMr = b.mr();
            w.bindAddr = b.addr();
            w.bindLength = b.length();
            w.bindAccess = b.mwAccessFlags();
        } else if (op == WrOpcode.FLUSH) {
            w.flushType = Flush.TYPE_GLOBAL;
            w.flushLevel = Flush.LEVEL_RANGE;
        }
        sqTail++;
    }

    @Override
    public WrSession startWr() {
        checkOpen();
        if (session == null) {
            throw new IllegalStateException(
                    "the QP was created without sendOps; WR sessions need them (ibv_wr_post(3))");
        }
        session.start();
        return session;
    }

    @Override
    public int bindMw(MemoryWindow mw, long wrId, int sendFlags, MwBindInfo bindInfo) {
        checkOpen();
        Objects.requireNonNull(mw, "mw");
        Objects.requireNonNull(bindInfo, "bindInfo");
        if (!(mw instanceof EmulatedMw w) || w.type != MwType.TYPE_1) {
            throw new IllegalArgumentException("QueuePair.bindMw binds type 1 windows of this provider; "
                    + "bind type 2 windows with a BIND_MW WR");
        }
        w.checkOpen();
        if (type == QpType.UD) {
            throw new VerbsException("ibv_bind_mw", Errno.EINVAL, "memory windows are bound on RC and UC QPs");
        }
        if (!(bindInfo.mr() instanceof EmulatedMr mr) || mr.isClosed()) {
            throw new VerbsException("ibv_bind_mw", Errno.EINVAL, "the region is closed or of another provider");
        }
        if ((mr.access & AccessFlags.MW_BIND) == 0) {
            throw new VerbsException("ibv_bind_mw", Errno.EINVAL, "the region was registered without MW_BIND");
        }
        String outside = Arguments.bindRange(bindInfo);
        if (outside != null) {
            throw new VerbsException("ibv_bind_mw", Errno.EINVAL, outside);
        }
        if ((sendFlags & ~SendFlags.ALL) != 0) {
            throw new VerbsException("ibv_bind_mw", Errno.EINVAL,
                    "unknown send flags " + SendFlags.toString(sendFlags));
        }
        lock.lock();
        try {
            if (!canPost(state)) {
                throw new VerbsException("ibv_bind_mw", Errno.EINVAL, "the QP is in " + state);
            }
            if (sqTail - sqHead >= sq.length) {
                throw new VerbsException("ibv_bind_mw", Errno.ENOMEM, "the send queue is full");
            }
            int old = w.rkey;
            int rkey = (old & ~0xff) | ((old + 1) & 0xff);
            SendWqe q = sq[(int) (sqTail & sqMask)];
            q.reset(wrId, OP_BIND_MW, sendFlags, sigAll || (sendFlags & SendFlags.SIGNALED) != 0);
            q.mw = w;
            q.bindRkey = rkey;
            q.bindMr = mr;
            q.bindAddr = bindInfo.addr();
            q.bindLength = bindInfo.length();
            q.bindAccess = bindInfo.mwAccessFlags();
            sqTail++;
            w.rkey = rkey;
            return rkey;
        } finally {
            release();
        }
    }

    // ---------------------------------------------------------------- progress

    /** Executes what can run, then unlocks. Every holder of {@link #lock} leaves through here. */
    void release() {
        try {
            if (!progressing) {
                progress();
            }
        } finally {
            lock.unlock();
        }
    }

    private void progress() {
        progressing = true;
        try {
            while (sqHead != sqTail) {
                SendWqe w = sq[(int) (sqHead & sqMask)];
                QpState s = state;
                if (s == QpState.ERR || s == QpState.SQE) {
                    completeSend(w, WR_FLUSH_ERR);
                } else if (s != QpState.RTS) {
                    break;
                } else if (executeGuarded(w) == BLOCKED) {
                    break;
                }
                sqHead++;
            }
        } finally {
            progressing = false;
        }
    }

    private void completeSend(SendWqe w, int status) {
        if (status != SUCCESS || w.signaled) {
            int len = (int) Math.min(w.length, Integer.MAX_VALUE);
            if (!sendCq.add(w.wrId, status, WC_OPCODE[w.opcode], len, 0, qpn, 0, 0, false)) {
                state = QpState.ERR;
            }
        }
    }

    /** Completes the WQE with an error, and moves this QP to ERR: every outstanding WR is flushed. */
    private int fail(SendWqe w, int status) {
        completeSend(w, status);
        enterError(null);
        return DONE;
    }

    /**
     * Moves the QP to ERR: flushes the receive queue now, and the send queue now if the QP's lock is free
     * (otherwise its holder flushes it when it releases the lock).
     */
    void enterError(AsyncEventType event) {
        if (isClosed()) {
            return;
        }
        QpState was = state;
        state = QpState.ERR;
        if (rq != null) {
            synchronized (rq) {
                flushRecvLocked();
            }
        } else if (srq != null && was != QpState.ERR) {
            context.postEvent(new AsyncEvent(AsyncEventType.QP_LAST_WQE_REACHED, this, null, null, 0));
        }
        if (event != null && was != QpState.ERR) {
            context.postEvent(new AsyncEvent(event, this, null, null, 0));
        }
        if (lock.tryLock()) {
            release();
        }
    }

    private void flushRecvLocked() {
        while (!rq.isEmpty()) {
            int slot = rq.headSlot();
            recvCq.add(rq.wrId(slot), WR_FLUSH_ERR, WC_RECV, 0, 0, qpn, 0, 0, false);
            rq.pop();
        }
    }

    private void onRnrTimer() {
        lock.lock();
        rnrTimerArmed = false;
        release();
    }

    // ---------------------------------------------------------------- execution

    /**
     * Executes a WQE; if a registered segment became unusable underneath it (its arena was closed while
     * registered), the WR completes with LOC_PROT_ERR instead of the exception escaping into a poster.
     */
    private int executeGuarded(SendWqe w) {
        try {
            return execute(w);
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            return fail(w, LOC_PROT_ERR);
        }
    }

    private int execute(SendWqe w) {
        int op = w.opcode;
        if (op == OP_LOCAL_INV) {
            return localInvalidate(w);
        }
        if (op == OP_BIND_MW) {
            return bind(w);
        }
        boolean localWrite = op == OP_RDMA_READ || op == OP_CMP_SWP || op == OP_FETCH_ADD;
        if (!w.isInline && !resolveLocal(w, localWrite)) {
            return fail(w, LOC_PROT_ERR);
        }
        if (w.length > EmulatedDevice.MAX_MSG_SIZE || !atomicOperandFits(w)) {
            return fail(w, LOC_LEN_ERR);
        }
        if (type == QpType.UD) {
            return sendUd(w);
        }
        EmulatedQp p = connectedPeer();
        if (p == null) {
            if (type == QpType.RC) {
                return fail(w, RETRY_EXC_ERR);
            }
            completeSend(w, SUCCESS);
            return DONE;
        }
        if (p.maxDestRdAtomic == 0
                && (op == OP_RDMA_READ || op == OP_CMP_SWP || op == OP_FETCH_ADD || op == OP_ATOMIC_WRITE)) {
            // A responder with no RDMA READ/atomic resources refuses them (max_dest_rd_atomic 0).
            return finish(w, p, responderError(p, REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR));
        }
        int r = switch (op) {
            case OP_RDMA_WRITE -> write(w, p);
            case OP_RDMA_WRITE_WITH_IMM, OP_SEND, OP_SEND_WITH_IMM, OP_SEND_WITH_INV -> deliver(w, p);
            case OP_RDMA_READ -> read(w, p);
            case OP_CMP_SWP, OP_FETCH_ADD -> atomic(w, p);
            case OP_ATOMIC_WRITE -> atomicWrite(w, p);
            case OP_FLUSH -> flush(w, p);
            default -> REM_OP_ERR;
        };
        return finish(w, p, r);
    }

    /**
     * Ends an RC/UC operation whose responder part returned {@code r}: a WC status, {@link #DROPPED} or
     * {@link #RESP_BLOCKED}.
     */
    private int finish(SendWqe w, EmulatedQp p, int r) {
        if (r == RESP_BLOCKED) {
            return rnr(w, p);
        }
        if (r == SUCCESS || r == DROPPED) {
            completeSend(w, SUCCESS);
            return DONE;
        }
        if (type == QpType.UC) {
            // UC has no acknowledgements: the requester never learns that the responder refused.
            completeSend(w, SUCCESS);
            return DONE;
        }
        return fail(w, r);
    }

    /** The RC peer has no receive posted: wait, or give up after rnr_retry retries (7 is forever). */
    private int rnr(SendWqe w, EmulatedQp p) {
        int retries = rnrRetry;
        if (retries != 7) {
            if (w.rnrCount >= retries) {
                return fail(w, RNR_RETRY_EXC_ERR);
            }
            w.rnrCount++;
        }
        if (p.srq != null) {
            if (!p.srq.rnrWaiters.contains(this)) {
                p.srq.rnrWaiters.add(this);
            }
        } else {
            p.rnrWaiter = this;
        }
        if (!rnrTimerArmed) {
            rnrTimerArmed = true;
            EngineTimer.schedule(this::onRnrTimer, EngineTimer.rnrDelayMicros(p.minRnrTimer));
        }
        return BLOCKED;
    }

    /** The connected peer if it would accept a packet from this QP now, else null. */
    private EmulatedQp connectedPeer() {
        EmulatedQp p = peer;
        if (p == null || p.isClosed()) {
            AhAttributes a = av;
            EmulatedDevice d = a == null || a.grh() == null ? null : EmulatedDevice.byGid(a.grh().dgid());
            p = d == null ? null : d.qps.get(destQpn);
            if (p == null || p.type != type || p.av == null || p.av.grh() == null
                    || EmulatedDevice.byGid(p.av.grh().dgid()) != device) {
                return null;
            }
            peer = p;
        }
        if (p.destQpn != qpn || !receives(p.state)) {
            return null;
        }
        return p;
    }

    private static boolean receives(QpState s) {
        return s == QpState.RTR || s == QpState.RTS || s == QpState.SQD || s == QpState.SQE;
    }

    /** Checks every local SGE (lkey, PD, bounds, and LOCAL_WRITE when written) and records its segment. */
    private boolean resolveLocal(SendWqe w, boolean write) {
        for (int i = 0, n = w.numSge; i < n; i++) {
            MemoryKey k = device.keys.lookup(w.sgeLkey[i]);
            if (k == null || k.kind != MemoryKey.KIND_MR || k.pd != pd
                    || write && (k.access & AccessFlags.LOCAL_WRITE) == 0) {
                return false;
            }
            long off = k.offsetOf(w.sgeAddr[i], Integer.toUnsignedLong(w.sgeLength[i]));
            if (off < 0) {
                return false;
            }
            w.sgeSegment[i] = k.segment;
            w.sgeOffset[i] = off;
        }
        return true;
    }

    /**
     * Checks an rkey at the responder: the key, its PD, its access bits, a type 2 window's QP, and the bounds.
     * On success leaves the key and the offset in the scratch fields.
     */
    private boolean remoteKey(EmulatedQp p, int rkey, long addr, long len, int access) {
        MemoryKey k = p.device.keys.lookup(rkey);
        if (k == null || k.pd != p.pd || (k.access & access) != access
                || k.kind == MemoryKey.KIND_MW2 && k.boundQpn != p.qpn) {
            return false;
        }
        long off = k.offsetOf(addr, len);
        // A region whose arena was closed under it grants nothing: REM_ACCESS_ERR, as after deregistration.
        if (off < 0 || k.segment == null || !k.segment.scope().isAlive()) {
            return false;
        }
        scratchKey = k;
        scratchOffset = off;
        return true;
    }

    private int write(SendWqe w, EmulatedQp p) {
        if ((p.accessFlags & AccessFlags.REMOTE_WRITE) == 0) {
            return responderError(p, REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
        }
        if (w.length == 0) {
            return SUCCESS;
        }
        if (!remoteKey(p, w.rkey, w.remoteAddr, w.length, AccessFlags.REMOTE_WRITE)) {
            return responderError(p, REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR);
        }
        Transfer.gather(w, scratchKey.segment, scratchOffset);
        return SUCCESS;
    }

    /**
     * The responder detected an error: an RC responder moves to ERR and reports {@code event}; a UC
     * responder drops the message.
     */
    private int responderError(EmulatedQp p, int status, AsyncEventType event) {
        if (type == QpType.UC) {
            return DROPPED;
        }
        p.enterError(event);
        return status;
    }

    /** SEND, SEND_WITH_IMM, SEND_WITH_INV and RDMA_WRITE_WITH_IMM: consumes a receive at the peer. */
    private int deliver(SendWqe w, EmulatedQp p) {
        int op = w.opcode;
        boolean isWrite = op == OP_RDMA_WRITE_WITH_IMM;
        if (isWrite && (p.accessFlags & AccessFlags.REMOTE_WRITE) == 0) {
            return responderError(p, REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
        }
        RecvQueue q = p.srq != null ? p.srq.queue : p.rq;
        int result;
        synchronized (q) {
            if (p.state == QpState.ERR) {
                return type == QpType.RC ? RETRY_EXC_ERR : DROPPED;
            }
            if (q.isEmpty()) {
                return type == QpType.RC ? RESP_BLOCKED : DROPPED;
            }
            int slot = q.headSlot();
            long wrId = q.wrId(slot);
            int wcFlags = 0;
            int imm = 0;
            if (isWrite) {
                if (w.length > 0 && !remoteKey(p, w.rkey, w.remoteAddr, w.length, AccessFlags.REMOTE_WRITE)) {
                    return responderError(p, REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR);
                }
                if (w.length > 0) {
                    Transfer.gather(w, scratchKey.segment, scratchOffset);
                }
                wcFlags = WcFlags.WITH_IMM;
                imm = w.immData;
            } else {
                if (w.length > q.totalLength(slot)) {
                    if (type == QpType.UC) {
                        return DROPPED;
                    }
                    popRecv(p, q, wrId, LOC_LEN_ERR, 0, 0, 0, 0);
                    p.enterError(AsyncEventType.QP_REQ_ERR);
                    return REM_INV_REQ_ERR;
                }
                if (!Transfer.resolveScatter(p.device.keys, p.pd, q, slot)) {
                    popRecv(p, q, wrId, LOC_PROT_ERR, 0, 0, 0, 0);
                    p.enterError(AsyncEventType.QP_ACCESS_ERR);
                    return type == QpType.UC ? DROPPED : REM_OP_ERR;
                }
                Transfer.scatter(w, q, slot, 0);
                if (op == OP_SEND_WITH_IMM) {
                    wcFlags = WcFlags.WITH_IMM;
                    imm = w.immData;
                } else if (op == OP_SEND_WITH_INV) {
                    if (!invalidate(p, w.invalidateRkey)) {
                        popRecv(p, q, wrId, REM_INV_REQ_ERR, 0, 0, 0, 0);
                        p.enterError(AsyncEventType.QP_REQ_ERR);
                        return type == QpType.UC ? DROPPED : REM_INV_REQ_ERR;
                    }
                    wcFlags = WcFlags.WITH_INV;
                    imm = w.invalidateRkey;
                }
            }
            int len = (int) Math.min(w.length, Integer.MAX_VALUE);
            boolean solicited = (w.flags & SendFlags.SOLICITED) != 0;
            result = popRecv(p, q, wrId, SUCCESS, isWrite ? WC_RECV_RDMA_WITH_IMM : WC_RECV, len, imm, wcFlags,
                    solicited) ? SUCCESS : DROPPED;
        }
        return result;
    }

    private boolean popRecv(EmulatedQp p, RecvQueue q, long wrId, int status, int opcode, int len, int imm,
                            int wcFlags) {
        return popRecv(p, q, wrId, status, opcode, len, imm, wcFlags, false);
    }

    /** Takes the head receive WR of {@code q} and completes it on the peer's receive CQ. */
    private boolean popRecv(EmulatedQp p, RecvQueue q, long wrId, int status, int opcode, int len, int imm,
                            int wcFlags, boolean solicited) {
        q.pop();
        if (p.srq != null) {
            p.srq.afterConsume();
        }
        boolean ok = p.recvCq.add(wrId, status, status == SUCCESS ? opcode : WC_RECV, len, imm, p.qpn, qpn, wcFlags,
                solicited);
        if (!ok) {
            p.state = QpState.ERR;
        }
        return ok;
    }

    /** Invalidates an rkey at the peer (SEND_WITH_INV): a region or a type 2 window of its PD. */
    private static boolean invalidate(EmulatedQp p, int rkey) {
        return invalidateKey(p.device, p.pd, rkey);
    }

    /**
     * Invalidates a region's key or a type 2 window's key of {@code pd}; false if the key is not valid, belongs
     * to another PD, or is a type 1 window's (which only a bind may change).
     */
    private static boolean invalidateKey(EmulatedDevice d, EmulatedPd pd, int rkey) {
        synchronized (d.keys) {
            MemoryKey k = d.keys.lookup(rkey);
            if (k == null || k.pd != pd || k.kind == MemoryKey.KIND_MW1) {
                return false;
            }
            if (k.kind == MemoryKey.KIND_MW2) {
                ((EmulatedMw) k.owner).unbindLocked();
            } else {
                k.valid = false;
            }
            return true;
        }
    }

    private int read(SendWqe w, EmulatedQp p) {
        if ((p.accessFlags & AccessFlags.REMOTE_READ) == 0) {
            return responderError(p, REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
        }
        if (w.length == 0) {
            return SUCCESS;
        }
        if (!remoteKey(p, w.rkey, w.remoteAddr, w.length, AccessFlags.REMOTE_READ)) {
            return responderError(p, REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR);
        }
        MemorySegment src = scratchKey.segment;
        long at = scratchOffset;
        for (int i = 0, n = w.numSge; i < n; i++) {
            long len = Integer.toUnsignedLong(w.sgeLength[i]);
            OrderedCopy.copy(src, at, w.sgeSegment[i], w.sgeOffset[i], len);
            at += len;
        }
        return SUCCESS;
    }

    private int atomic(SendWqe w, EmulatedQp p) {
        if ((p.accessFlags & AccessFlags.REMOTE_ATOMIC) == 0) {
            return responderError(p, REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
        }
        if (!remoteKey(p, w.rkey, w.remoteAddr, 8, AccessFlags.REMOTE_ATOMIC)) {
            return responderError(p, REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR);
        }
        MemorySegment seg = scratchKey.segment;
        long off = scratchOffset;
        if (((seg.address() + off) & 7) != 0) {
            return responderError(p, REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
        }
        long original;
        if (w.opcode == OP_CMP_SWP) {
            original = (long) LONG.compareAndExchange(seg, off, w.compareAdd, w.swap);
        } else {
            original = (long) LONG.getAndAdd(seg, off, w.compareAdd);
        }
        w.sgeSegment[0].set(ValueLayout.JAVA_LONG_UNALIGNED, w.sgeOffset[0], original);
        w.length = 8;
        return SUCCESS;
    }

    /** Whether an atomic's local buffer holds its 8-byte operand. */
    private static boolean atomicOperandFits(SendWqe w) {
        int op = w.opcode;
        if (op == OP_CMP_SWP || op == OP_FETCH_ADD) {
            return w.numSge >= 1 && Integer.toUnsignedLong(w.sgeLength[0]) >= 8;
        }
        if (op == OP_ATOMIC_WRITE) {
            return w.isInline ? w.inlineLength >= 8 : w.numSge == 0 || Integer.toUnsignedLong(w.sgeLength[0]) >= 8;
        }
        return true;
    }

    private int atomicWrite(SendWqe w, EmulatedQp p) {
        long value;
        if (w.isInline) {
            value = w.inline.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        } else if (w.numSge > 0) {
            value = w.sgeSegment[0].get(ValueLayout.JAVA_LONG_UNALIGNED, w.sgeOffset[0]);
        } else {
            value = w.swap;
        }
        if ((p.accessFlags & AccessFlags.REMOTE_WRITE) == 0) {
            return responderError(p, REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
        }
        if (!remoteKey(p, w.rkey, w.remoteAddr, 8, AccessFlags.REMOTE_WRITE)) {
            return responderError(p, REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR);
        }
        MemorySegment seg = scratchKey.segment;
        long off = scratchOffset;
        if (((seg.address() + off) & 7) != 0) {
            return responderError(p, REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
        }
        LONG.setRelease(seg, off, value);
        w.length = 8;
        return SUCCESS;
    }

    private int flush(SendWqe w, EmulatedQp p) {
        int access = ((w.flushType & Flush.TYPE_GLOBAL) != 0 ? AccessFlags.FLUSH_GLOBAL : 0)
                | ((w.flushType & Flush.TYPE_PERSISTENT) != 0 ? AccessFlags.FLUSH_PERSISTENT : 0);
        MemoryKey k = p.device.keys.lookup(w.rkey);
        boolean ok;
        if (w.flushLevel == Flush.LEVEL_MR) {
            ok = k != null && k.pd == p.pd && (k.access & access) == access;
        } else {
            ok = remoteKey(p, w.rkey, w.remoteAddr, w.length, access);
        }
        if (!ok) {
            return responderError(p, REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR);
        }
        // Every prior write was made by a store that a full fence orders before anything later.
        VarHandle.fullFence();
        w.length = 0;
        return SUCCESS;
    }

    private int sendUd(SendWqe w) {
        if (w.length > EmulatedDevice.MTU.bytes()) {
            return fail(w, LOC_LEN_ERR);
        }
        EmulatedAh ah = (EmulatedAh) w.ah;
        if (ah.isClosed()) {
            return fail(w, LOC_QP_OP_ERR);
        }
        EmulatedDevice d = EmulatedDevice.byGid(ah.attributes.grh().dgid());
        EmulatedQp p = d == null ? null : d.qps.get(w.remoteQpn);
        int qk = w.remoteQkey < 0 ? qkey : w.remoteQkey;
        if (p != null && p.type == QpType.UD && receives(p.state) && p.qkey == qk) {
            RecvQueue q = p.srq != null ? p.srq.queue : p.rq;
            synchronized (q) {
                if (p.state != QpState.ERR && !q.isEmpty()) {
                    int slot = q.headSlot();
                    if (GRH_BYTES + w.length <= q.totalLength(slot)
                            && Transfer.resolveScatter(p.device.keys, p.pd, q, slot)) {
                        fillGrh(ah, w.length);
                        long at = Transfer.scatterChunk(q, slot, 0, grh, 0, GRH_BYTES);
                        Transfer.scatter(w, q, slot, at);
                        boolean imm = w.opcode == OP_SEND_WITH_IMM;
                        popRecv(p, q, q.wrId(slot), SUCCESS, WC_RECV, (int) w.length + GRH_BYTES,
                                imm ? w.immData : 0, WcFlags.GRH | (imm ? WcFlags.WITH_IMM : 0),
                                (w.flags & SendFlags.SOLICITED) != 0);
                    }
                }
            }
        }
        // A datagram that no QP takes is lost on the wire; the sender cannot tell.
        completeSend(w, SUCCESS);
        return DONE;
    }

    /** A RoCE v2 GRH (IPv6 header form): version, payload length, next header, hop limit, SGID, DGID. */
    private void fillGrh(EmulatedAh ah, long payload) {
        grh.fill((byte) 0);
        grh.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x60);
        grh.set(BIG_ENDIAN_SHORT, 4, (short) payload);
        grh.set(ValueLayout.JAVA_BYTE, 6, (byte) 0x11);
        grh.set(ValueLayout.JAVA_BYTE, 7, (byte) ah.attributes.grh().hopLimit());
        MemorySegment.copy(device.gidBytes(ah.attributes.grh().sgidIndex()), 0, grh, 8, 16);
        MemorySegment.copy(ah.dgidBytes, 0, grh, 24, 16);
    }

    private int localInvalidate(SendWqe w) {
        if (!invalidateKey(device, pd, w.invalidateRkey)) {
            return fail(w, LOC_QP_OP_ERR);
        }
        completeSend(w, SUCCESS);
        return DONE;
    }

    private int bind(SendWqe w) {
        EmulatedMw mw = (EmulatedMw) w.mw;
        EmulatedMr mr = w.bindMr instanceof EmulatedMr m ? m : null;
        if (mw.isClosed() || mw.pd != pd || mr == null || mr.isClosed() || mr.pd != pd
                || (mr.access & AccessFlags.MW_BIND) == 0) {
            return fail(w, MW_BIND_ERR);
        }
        int access = w.bindAccess;
        if ((access & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC)) != 0
                && (mr.access & AccessFlags.LOCAL_WRITE) == 0) {
            return fail(w, MW_BIND_ERR);
        }
        boolean type2 = mw.type == MwType.TYPE_2;
        MemoryKey k = mw.key;
        boolean bound = false;
        synchronized (device.keys) {
            if (!(w.bindLength > 0 && mr.key.offsetOf(w.bindAddr, w.bindLength) < 0 || type2 && k.valid
                    || type2 && (w.bindRkey >>> 8) != k.index)) {
                bound = true;
                mw.unbindLocked();
                k.key = w.bindRkey;
                k.segment = mr.segment;
                boolean zeroBased = (access & AccessFlags.ZERO_BASED) != 0;
                k.segmentBase = zeroBased ? mr.address - w.bindAddr : mr.address;
                k.start = zeroBased ? 0 : w.bindAddr;
                k.length = w.bindLength;
                k.access = access;
                k.boundQpn = qpn;
                if (type2 || w.bindLength > 0) {
                    k.boundMr = mr;
                    mr.users.incrementAndGet();
                    k.valid = true;
                }
            }
        }
        // Completions are written outside the key table's monitor, which receive paths take after their queue's.
        if (!bound) {
            return fail(w, MW_BIND_ERR);
        }
        if (type2) {
            mw.rkey = w.bindRkey;
        }
        completeSend(w, SUCCESS);
        return DONE;
    }

    @Override
    public String toString() {
        return "EmulatedQp[" + type + ", qpn=0x" + Integer.toHexString(qpn) + ", " + state + "]";
    }
}
