package org.verbs4j.spi.support;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import org.verbs4j.AddressHandle;
import org.verbs4j.Errno;
import org.verbs4j.Flush;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.Sge;
import org.verbs4j.VerbsException;
import org.verbs4j.VerbsObject;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * The WR-batch state machine of {@code ibv_wr_post(3)}, written once for every provider: the per-QP critical
 * section and its owner thread, the checks of each WR, and the batch's all-or-nothing end. A provider extends it
 * and only binds: it starts, completes and aborts its native (or emulated) batch, and {@linkplain #emit emits} each
 * WR once the WR is whole and has passed every check.
 *
 * <p>The rules it applies, so that no provider has to:
 * <ul>
 *   <li>{@link #open()} takes the session's lock: a second thread waits until the owner's {@code complete()} or
 *       {@code abort()}; the owner opening it again gets {@link IllegalStateException}. Every other call from a
 *       thread that does not own the open session throws {@link IllegalStateException} and changes nothing.</li>
 *   <li>A builder takes {@code wr_id} and {@code wr_flags} as they stand. Its opcode must be in the QP's
 *       {@code send_ops_flags}; its flags must be known {@code IBV_SEND_*} bits ({@code IP_CSUM} only where the
 *       device offers it); the batch must fit the send queue's free room (ENOMEM); the QP must be in RTS, SQD, SQE
 *       or ERR.</li>
 *   <li>A data WR takes exactly one DATA setter; LOCAL_INV, BIND_MW and ATOMIC_WRITE take none; FLUSH may take
 *       one (the seed's table lists DATA for it, rdma-core's {@code ibv_wr_flush} needs none) and ignores it.
 *       Inline data is for SEND and RDMA WRITE only, within {@code max_inline_data}, and is copied at the setter;
 *       an SGE list holds at most {@code max_send_sge} entries and is copied at the setter too.</li>
 *   <li>UD WRs need {@code setUdAddr} with an open address handle of this provider and context; XRC_SEND WRs need
 *       {@code setXrcSrqn}. On other QP types the two setters have no effect.</li>
 *   <li>{@code bind_mw} takes an open type 2 window and an open region of this provider and context, and may change
 *       only the low 8 bits (the key) of the window's rkey.</li>
 *   <li>The first broken rule is remembered; nothing more reaches the provider, and {@code complete()} aborts the
 *       provider's batch and throws {@link VerbsException} with that errno. No WR of a failed batch executes.</li>
 * </ul>
 * Two flows hand the WRs over, with the same rules and exceptions. By default each WR reaches the provider whole,
 * at the next builder or at {@code complete()} ({@link #emit}). A provider that asks for it at construction gets
 * each builder and setter at once, as soon as that call's own checks pass ({@link #emitBuilder},
 * {@link #emitSge}, {@link #emitData}, {@link #emitAddress}); the rules that span calls (a missing DATA setter or
 * address) are then checked at the next builder or at {@code complete()}, which aborts the provider's batch.
 * Arguments that are wrong in Java terms (a null, a count outside its array, a segment whose arena is closed) throw
 * at once: {@link NullPointerException} or {@link IllegalArgumentException} naming the argument,
 * {@link IllegalStateException} for a closed arena. They leave the batch as it was.
 *
 * <p>Memory: builders and setters allocate nothing. Inline data and TSO headers are copied into native scratch
 * memory this session owns, through {@link MemorySegment#copy}, which checks the source segment's bounds and that
 * its arena is alive; no address given by the caller is read on the CPU.
 *
 * <p>(This file is longer than the project's 500-line guide on purpose: it is the one home of the session's
 * rules, a method for each builder and setter of {@code ibv_wr_post(3)} around one state machine, and splitting it
 * would split that state machine.)
 *
 * @see "ibv_wr_post(3)"
 */
public abstract class AbstractWrSession implements WrSession {
    // Over 600 lines: one state machine, ibv_wr_post(3)'s batch under one lock.
    private static final int NO_DATA = 0;
    private static final int DATA_REQUIRED = 1;
    private static final int DATA_OPTIONAL = 2;

    private final QueuePair qp;
    private final QpType type;
    private final long sendOps;
    private final int allowedFlags;
    private final int maxInline;
    private final int maxSge;
    private final SendQueueLock lock;
    private final PendingWr wr;
    private final Arena scratch = Arena.ofAuto();
    /** The flow: each call at once ({@link #emitBuilder} and the setters' hooks), or each WR at its end. */
    private final boolean atOnce;

    /**
     * Whether the session is open, for {@link #isActive()} from any thread. Written with release stores: the
     * owner reads its own writes, and a reader in another thread needs the value ordered after the owner's
     * earlier writes, not the full fence of a volatile store (two per session, most of a short batch's cost).
     */
    private volatile boolean active;
    private static final VarHandle ACTIVE;

    static {
        try {
            ACTIVE = MethodHandles.lookup().findVarHandle(AbstractWrSession.class, "active", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /**
     * The thread that has the session open, or null. A plain field: the owner reads its own writes, and any other
     * thread reads either null, another thread or a stale value that is never itself (a thread's own last write
     * to it was null), so the owner check is exact without a volatile read on every builder and setter.
     */
    private Thread owner;
    private boolean ready;
    private boolean started;
    private int room;
    private int count;
    private WrOpcode current;
    private int dataMode;
    private boolean dataSet;
    private boolean udSet;
    private boolean xrcSet;
    private int errno;
    private String error;
    private long curWrId;
    private int curWrFlags;

    private MemoryWindow[] binds = new MemoryWindow[4];
    private int[] bindRkeys = new int[4];
    private MwBindInfo[] bindInfos = new MwBindInfo[4];
    private int bindCount;

    /**
     * Creates the session of one QP; the provider's QP makes it once, at QP creation.
     *
     * @param qp the session's QP
     * @param type its type
     * @param sendOps the opcodes it was created with ({@code send_ops_flags})
     * @param maxInlineData the inline size the QP was granted, in bytes
     * @param maxSendSge the SGE count the QP was granted (at least 1 is assumed)
     * @param ipCsum whether the device offers {@link SendFlags#IP_CSUM}
     */
    protected AbstractWrSession(QueuePair qp, QpType type, Set<WrOpcode> sendOps, int maxInlineData, int maxSendSge,
            boolean ipCsum) {
        this(qp, type, sendOps, maxInlineData, maxSendSge, ipCsum, new SendQueueLock(), false);
    }

    /**
     * Creates the session of one QP over a lock the provider shares: the session holds {@code lock} from
     * {@code startWr()} to {@code complete()} or {@code abort()}, so a provider that posts its other send-queue
     * work ({@code postSend}, a type 1 {@code bindMw}) under the same lock never runs it while another thread's
     * batch is open, and its provider library never finds the send queue's own lock taken.
     *
     * @param qp the session's QP
     * @param type its type
     * @param sendOps the opcodes it was created with ({@code send_ops_flags})
     * @param maxInlineData the inline size the QP was granted, in bytes
     * @param maxSendSge the SGE count the QP was granted (at least 1 is assumed)
     * @param ipCsum whether the device offers {@link SendFlags#IP_CSUM}
     * @param lock the QP's send lock; the session's owner thread holds it once while the session is open
     * @param atOnce whether each builder and setter reaches the provider at once, after its own checks
     *     ({@link #emitBuilder}, {@link #emitSge}, {@link #emitData}, {@link #emitAddress}), instead of each WR
     *     whole at the next builder or {@code complete()} ({@link #emit}). Only for a provider library that needs
     *     no flag of the builder to take inline data (librxe marks a WQE inline only by {@code IBV_SEND_INLINE} in
     *     {@code wr_flags}, which the session can add only once it has seen the DATA setter).
     */
    protected AbstractWrSession(QueuePair qp, QpType type, Set<WrOpcode> sendOps, int maxInlineData, int maxSendSge,
            boolean ipCsum, SendQueueLock lock, boolean atOnce) {
        this.atOnce = atOnce;
        this.qp = Objects.requireNonNull(qp, "qp");
        this.type = Objects.requireNonNull(type, "type");
        this.sendOps = WrOpcode.sendOpsFlags(sendOps);
        this.allowedFlags = ipCsum ? SendFlags.ALL : SendFlags.ALL & ~SendFlags.IP_CSUM;
        this.maxInline = Math.max(0, maxInlineData);
        this.maxSge = Math.max(1, maxSendSge);
        this.lock = Objects.requireNonNull(lock, "lock");
        this.wr = new PendingWr(maxSge, scratch.allocate(Math.max(maxInline, 8), 8));
    }

    // ---- what a provider binds

    /**
     * Whether an object belongs to this provider and to the session's context. By default: both it and the QP
     * are {@link AbstractVerbsObject}s made from the same context.
     *
     * @param o a window, region or address handle given to a builder or setter
     * @return true if the provider can use it in this session
     */
    protected boolean owns(VerbsObject o) {
        return AbstractVerbsObject.sameContext(qp, o);
    }

    /** {@return whether the QP is in a state that posts sends: RTS, SQD, SQE or ERR} */
    protected abstract boolean sendQueueReady();

    /**
     * {@return the free WR slots in the send queue} Read right after {@link #startBatch()}; a larger batch fails
     * with ENOMEM. By default there is no limit here (the provider library enforces its own).
     */
    protected int sendQueueRoom() {
        return Integer.MAX_VALUE;
    }

    /** Opens the provider's batch ({@code ibv_wr_start}); called once the session is open and the QP can post. */
    protected abstract void startBatch();

    /**
     * Hands one whole, checked WR to the provider's batch. Called in build order, between start and end.
     *
     * @param wr the WR; reused for the next one, so read it here and keep nothing of it
     */
    protected abstract void emit(PendingWr wr);

    /**
     * At once mode: calls the provider's builder for the WR just begun, after its checks. The cross-call rules (a
     * missing DATA setter or address) are checked at the next builder or at {@code complete()}, which then aborts
     * the provider's batch, so a WR that breaks one never executes.
     *
     * @param wr the WR: opcode, {@code wr_id}, {@code wr_flags} and the builder's arguments; read it here
     */
    protected void emitBuilder(PendingWr wr) {
        throw new UnsupportedOperationException("a session at once must bind emitBuilder");
    }

    /**
     * At once mode: {@code setSge} of the current WR, after its checks; not called for FLUSH, which ignores its
     * DATA setter. The SGE is not recorded in the {@link PendingWr}.
     *
     * @param lkey the local key
     * @param addr the local address
     * @param length the length, bytes
     */
    protected void emitSge(int lkey, long addr, int length) {
        throw new UnsupportedOperationException("a session at once must bind emitSge");
    }

    /**
     * At once mode: an SGE list or inline data of the current WR, after its checks; not called for FLUSH.
     *
     * @param wr the WR, with its {@link PendingWr#dataKind()} and data
     */
    protected void emitData(PendingWr wr) {
        throw new UnsupportedOperationException("a session at once must bind emitData");
    }

    /**
     * At once mode: {@code setUdAddr} on a UD QP or {@code setXrcSrqn} on an XRC_SEND QP, after its checks.
     *
     * @param wr the WR, with its address handle, remote QPN and Q_Key, or its remote SRQ number
     */
    protected void emitAddress(PendingWr wr) {
        throw new UnsupportedOperationException("a session at once must bind emitAddress");
    }

    /** {@return 0, or the errno with which the provider refused the batch} Posts it ({@code ibv_wr_complete}). */
    protected abstract int completeBatch();

    /** Discards the provider's batch ({@code ibv_wr_abort}). */
    protected abstract void abortBatch();

    /**
     * Called after a successful {@code complete()} for each {@code bind_mw} of the batch, in order.
     *
     * @param mw the type 2 window that was bound
     * @param rkey the rkey the bind gave it (32 bits)
     * @param info the bind's region, range and access
     */
    protected void onBound(MemoryWindow mw, int rkey, MwBindInfo info) {
        // Providers that track a window's rkey and region override this.
    }

    /**
     * Marks the batch failed with {@code errno} unless it already failed: for a rule only the provider can check
     * (a limit of its own). {@code complete()} then aborts the batch and throws.
     *
     * @param errno the errno {@code complete()} will throw ({@link org.verbs4j.Errno})
     * @param why what was wrong, for the exception's message
     */
    protected final void fail(int errno, String why) {
        if (this.errno == 0) {
            this.errno = errno;
            this.error = why;
        }
        current = null;
    }

    // ---- the session's life, driven by the provider's QP

    /**
     * The QP's side of the session: the calls a provider's {@code QueuePair} makes ({@code startWr}, the check
     * before {@code postSend}, and the wait before the destroy verb). It is reached only through the protected
     * {@link #control()}, so an application holding the {@link WrSession} cannot make these calls.
     */
    public final class Control {
        private Control() {}

        /**
         * Opens the session for the calling thread ({@code QueuePair.startWr()}), waiting while another thread has
         * it.
         *
         * @throws IllegalStateException if this thread already has it open, or the QP is closed
         */
        public void open() {
            AbstractWrSession.this.open();
        }

        /**
         * Throws {@link IllegalStateException} if the calling thread has this session open: {@code postSend} inside
         * one's own session could wait forever on a send queue lock the provider holds from {@code ibv_wr_start}
         * to {@code ibv_wr_complete}.
         */
        public void checkNotOpenInThisThread() {
            AbstractWrSession.this.checkNotOpenInThisThread();
        }

        /**
         * Before the QP is destroyed: aborts the calling thread's open session, and waits until another thread's
         * session ends, then keeps the session shut until {@link #unlockAfterDestroy()}. So no session call runs
         * during or after the destroy verb; a thread that then opens the session finds the QP closed.
         */
        public void lockForDestroy() {
            AbstractWrSession.this.lockForDestroy();
        }

        /** Ends {@link #lockForDestroy()}; does nothing if this thread does not hold it. */
        public void unlockAfterDestroy() {
            AbstractWrSession.this.unlockAfterDestroy();
        }
    }

    private final Control control = new Control();

    /** {@return the QP's side of this session, for the provider's {@code QueuePair} alone} */
    protected final Control control() {
        return control;
    }

    /**
     * Opens the session for the calling thread ({@code QueuePair.startWr()}), waiting while another thread has it.
     *
     * @throws IllegalStateException if this thread already has it open, or the QP is closed
     */
    private void open() {
        if (lock.isHeldByCurrentThread()) {
            throw new IllegalStateException("this thread already has the WR session of the QP open");
        }
        lock.lock();
        try {
            if (qp.isClosed()) {
                throw new IllegalStateException("this QueuePair is closed");
            }
            errno = 0;
            error = null;
            count = 0;
            current = null;
            bindCount = 0;
            ready = sendQueueReady();
            started = false;
            room = 0;
            if (ready) {
                startBatch();
                started = true;
                room = sendQueueRoom();
            }
            owner = Thread.currentThread();
            ACTIVE.setRelease(this, true);
        } catch (RuntimeException | Error e) {
            lock.unlock();
            throw e;
        }
    }

    /** Whether the calling thread has this session open. */
    private boolean isOpenInThisThread() {
        return active && owner == Thread.currentThread();
    }

    /**
     * Throws if the calling thread has this session open: {@code postSend} inside one's own session could wait
     * forever on a send queue lock the provider holds from {@code ibv_wr_start} to {@code ibv_wr_complete}.
     */
    private void checkNotOpenInThisThread() {
        if (isOpenInThisThread()) {
            throw new IllegalStateException("this thread has the QP's WR session open; complete() or abort() it first");
        }
    }

    /**
     * Before the QP is destroyed: aborts the calling thread's open session, and waits until another thread's
     * session ends, then keeps the session closed until {@link #unlockAfterDestroy()}. So no WR session call runs
     * during or after the destroy verb; a thread that then opens the session finds the QP closed.
     */
    private void lockForDestroy() {
        if (isOpenInThisThread()) {
            abort();
        }
        lock.lock();
    }

    /** Ends {@link #lockForDestroy()}. */
    private void unlockAfterDestroy() {
        if (lock.isHeldByCurrentThread()) {
            lock.unlock();
        }
    }

    @Override
    public final QueuePair qp() {
        return qp;
    }

    @Override
    public final boolean isActive() {
        return active;
    }

    private void checkOwner() {
        if (owner != Thread.currentThread()) {
            notOwner();
        }
    }

    private void notOwner() {
        if (!active) {
            throw new IllegalStateException("the WR session is not open: call QueuePair.startWr() first");
        }
        throw new IllegalStateException("the WR session is open in another thread; only the thread that called "
                + "startWr() may build, complete or abort its batch");
    }

    @Override
    public final void wrId(long wrId) {
        checkOwner();
        curWrId = wrId;
    }

    @Override
    public final void wrFlags(int flags) {
        checkOwner();
        curWrFlags = flags;
    }

    // ---- builders

    /** Ends the previous WR and checks that {@code op} may be built; false if the batch has failed. */
    private boolean begin(WrOpcode op, int mode) {
        checkOwner();
        endWr();
        count++;
        if (errno != 0) {
            return false;
        }
        if (!ready) {
            fail(Errno.EINVAL, "the QP is not in RTS, SQD, SQE or ERR, so it cannot post WRs");
            return false;
        }
        if ((sendOps & op.sendOpsFlag()) == 0) {
            fail(Errno.EINVAL, op + " was not requested in the QP's sendOps");
            return false;
        }
        int flags = curWrFlags;
        if ((flags & ~allowedFlags) != 0) {
            fail(Errno.EINVAL, "WR " + (count - 1) + " has wr_flags the device does not take: "
                    + SendFlags.toString(flags & ~allowedFlags));
            return false;
        }
        if (count > room) {
            fail(Errno.ENOMEM, "the batch exceeds the send queue's free room of " + room + " WRs");
            return false;
        }
        wr.reset(op, curWrId, flags);
        current = op;
        dataMode = mode;
        dataSet = false;
        udSet = false;
        xrcSet = false;
        return true;
    }

    /** Checks the current WR's mandatory setters and emits it (at once mode: it was emitted call by call). */
    private void endWr() {
        WrOpcode op = current;
        if (op == null) {
            return;
        }
        current = null;
        if (errno != 0) {
            return;
        }
        if (dataMode == DATA_REQUIRED && !dataSet) {
            fail(Errno.EINVAL, "WR " + (count - 1) + " (" + op + ") has no DATA setter (setSge, setSgeList, "
                    + "setInlineData or setInlineDataList)");
        } else if (type == QpType.UD && !udSet) {
            fail(Errno.EINVAL, "WR " + (count - 1) + " on a UD QP has no setUdAddr");
        } else if (type == QpType.XRC_SEND && !xrcSet) {
            fail(Errno.EINVAL, "WR " + (count - 1) + " on an XRC_SEND QP has no setXrcSrqn");
        } else {
            if (!atOnce) {
                if (wr.dataKind == PendingWr.DATA_INLINE) {
                    wr.wrFlags |= SendFlags.INLINE;
                }
                emit(wr);
            }
            if (op == WrOpcode.BIND_MW && errno == 0) {
                recordBind();
            }
        }
    }

    /** A builder's arguments are recorded: at once mode hands them to the provider now. */
    private void built() {
        if (atOnce) {
            emitBuilder(wr);
        }
    }

    /** A DATA setter's data is recorded: at once mode hands it to the provider now, except FLUSH's. */
    private void dataRecorded() {
        if (atOnce && current != WrOpcode.FLUSH) {
            emitData(wr);
        }
    }

    private void recordBind() {
        if (bindCount == binds.length) {
            binds = Arrays.copyOf(binds, bindCount * 2);
            bindRkeys = Arrays.copyOf(bindRkeys, bindCount * 2);
            bindInfos = Arrays.copyOf(bindInfos, bindCount * 2);
        }
        binds[bindCount] = wr.mw;
        bindRkeys[bindCount] = wr.bindRkey;
        bindInfos[bindCount++] = wr.bindInfo;
    }

    @Override
    public final void atomicCmpSwp(int rkey, long remoteAddr, long compare, long swap) {
        if (begin(WrOpcode.ATOMIC_CMP_AND_SWP, DATA_REQUIRED)) {
            wr.rkey = rkey;
            wr.remoteAddr = remoteAddr;
            wr.compareAdd = compare;
            wr.swap = swap;
            built();
        }
    }

    @Override
    public final void atomicFetchAdd(int rkey, long remoteAddr, long add) {
        if (begin(WrOpcode.ATOMIC_FETCH_AND_ADD, DATA_REQUIRED)) {
            wr.rkey = rkey;
            wr.remoteAddr = remoteAddr;
            wr.compareAdd = add;
            built();
        }
    }

    @Override
    public final void atomicWrite(int rkey, long remoteAddr, long value) {
        if (begin(WrOpcode.ATOMIC_WRITE, NO_DATA)) {
            wr.rkey = rkey;
            wr.remoteAddr = remoteAddr;
            wr.swap = value;
            built();
        }
    }

    @Override
    public final void bindMw(MemoryWindow mw, int rkey, MwBindInfo bindInfo) {
        Objects.requireNonNull(mw, "mw");
        Objects.requireNonNull(bindInfo, "bindInfo");
        if (!begin(WrOpcode.BIND_MW, NO_DATA)) {
            return;
        }
        MemoryRegion mr = bindInfo.mr();
        if (!owns(mw) || !owns(mr)) {
            fail(Errno.EINVAL, "bindMw needs a window and a region of this provider and context");
        } else if (mw.isClosed() || mr.isClosed()) {
            fail(Errno.EINVAL, "bindMw was given a closed " + (mw.isClosed() ? "memory window" : "memory region"));
        } else if (mw.type() != MwType.TYPE_2) {
            fail(Errno.EINVAL, "a WR binds type 2 windows; bind a type 1 window with QueuePair.bindMw");
        } else if (((rkey ^ mw.rkey()) & ~0xff) != 0) {
            fail(Errno.EINVAL, "a type 2 bind may change only the low 8 bits (the key) of the window's rkey 0x"
                    + Integer.toHexString(mw.rkey()) + ", not make it 0x" + Integer.toHexString(rkey));
        } else {
            wr.mw = mw;
            wr.bindRkey = rkey;
            wr.bindInfo = bindInfo;
            built();
        }
    }

    @Override
    public final void localInv(int invalidateRkey) {
        if (begin(WrOpcode.LOCAL_INV, NO_DATA)) {
            wr.invalidateRkey = invalidateRkey;
            built();
        }
    }

    @Override
    public final void rdmaRead(int rkey, long remoteAddr) {
        if (begin(WrOpcode.RDMA_READ, DATA_REQUIRED)) {
            wr.rkey = rkey;
            wr.remoteAddr = remoteAddr;
            built();
        }
    }

    @Override
    public final void rdmaWrite(int rkey, long remoteAddr) {
        if (begin(WrOpcode.RDMA_WRITE, DATA_REQUIRED)) {
            wr.rkey = rkey;
            wr.remoteAddr = remoteAddr;
            built();
        }
    }

    @Override
    public final void rdmaWriteImm(int rkey, long remoteAddr, int immData) {
        if (begin(WrOpcode.RDMA_WRITE_WITH_IMM, DATA_REQUIRED)) {
            wr.rkey = rkey;
            wr.remoteAddr = remoteAddr;
            wr.immData = immData;
            built();
        }
    }

    @Override
    public final void send() {
        if (begin(WrOpcode.SEND, DATA_REQUIRED)) {
            built();
        }
    }

    @Override
    public final void sendImm(int immData) {
        if (begin(WrOpcode.SEND_WITH_IMM, DATA_REQUIRED)) {
            wr.immData = immData;
            built();
        }
    }

    @Override
    public final void sendInv(int invalidateRkey) {
        if (begin(WrOpcode.SEND_WITH_INV, DATA_REQUIRED)) {
            wr.invalidateRkey = invalidateRkey;
            built();
        }
    }

    @Override
    public final void sendTso(MemorySegment hdr, int mss) {
        Objects.requireNonNull(hdr, "hdr");
        if (hdr.byteSize() > 0xffff) {
            throw new IllegalArgumentException("a TSO header is at most 65535 bytes, not " + hdr.byteSize());
        }
        if (mss < 0 || mss > 0xffff) {
            throw new IllegalArgumentException("mss must be 0..65535, not " + mss);
        }
        checkAlive(hdr, "hdr");
        if (!begin(WrOpcode.TSO, DATA_REQUIRED)) {
            return;
        }
        int n = (int) hdr.byteSize();
        if (wr.tsoHeader == null || wr.tsoHeader.byteSize() < n) {
            wr.tsoHeader = scratch.allocate(Math.max(n, 64), 8);
        }
        MemorySegment.copy(hdr, 0, wr.tsoHeader, 0, n);
        wr.tsoHeaderLength = n;
        wr.mss = mss;
        built();
    }

    @Override
    public final void flush(int rkey, long remoteAddr, long len, int type, int level) {
        if (!begin(WrOpcode.FLUSH, DATA_OPTIONAL)) {
            return;
        }
        if (type == 0 || (type & ~(Flush.TYPE_GLOBAL | Flush.TYPE_PERSISTENT)) != 0
                || level != Flush.LEVEL_RANGE && level != Flush.LEVEL_MR || len < 0) {
            fail(Errno.EINVAL, "flush needs a type of TYPE_GLOBAL/TYPE_PERSISTENT, a level of LEVEL_RANGE or "
                    + "LEVEL_MR, and a length of 0 or more");
            return;
        }
        wr.rkey = rkey;
        wr.remoteAddr = remoteAddr;
        wr.flushLength = len;
        wr.flushType = type;
        wr.flushLevel = level;
        built();
    }

    // ---- setters

    /** Checks that a DATA setter may follow; false if nothing should be recorded. */
    private boolean dataSetter(boolean inline) {
        checkOwner();
        if (errno != 0) {
            return false;
        }
        WrOpcode op = current;
        if (op == null) {
            fail(Errno.EINVAL, "a DATA setter was called before any builder");
            return false;
        }
        if (dataMode == NO_DATA) {
            fail(Errno.EINVAL, op + " takes no DATA setter");
            return false;
        }
        if (dataSet) {
            fail(Errno.EINVAL, "a WR takes exactly one DATA setter; this " + op + " got a second");
            return false;
        }
        if (inline && !op.allowsInline()) {
            fail(Errno.EINVAL, "inline data is valid only for SEND and RDMA WRITE, not " + op);
            return false;
        }
        dataSet = true;
        return true;
    }

    @Override
    public final void setSge(int lkey, long addr, int length) {
        if (!dataSetter(false)) {
            return;
        }
        wr.dataKind = PendingWr.DATA_SGE;
        if (atOnce) {
            if (current != WrOpcode.FLUSH) {
                emitSge(lkey, addr, length);
            }
            return;
        }
        wr.sgeCount = 1;
        wr.sgeLkey[0] = lkey;
        wr.sgeAddr[0] = addr;
        wr.sgeLength[0] = length;
    }

    @Override
    public final void setSgeList(Sge[] sges, int count) {
        Objects.requireNonNull(sges, "sges");
        if (count < 0 || count > sges.length) {
            throw new IllegalArgumentException("count " + count + " is outside the " + sges.length + "-entry list");
        }
        for (int i = 0; i < count; i++) {
            if (sges[i] == null) {
                throw new NullPointerException("sges[" + i + "] is null");
            }
        }
        if (!dataSetter(false)) {
            return;
        }
        if (count > maxSge) {
            fail(Errno.EINVAL, count + " SGEs exceed the QP's max_send_sge of " + maxSge);
            return;
        }
        for (int i = 0; i < count; i++) {
            Sge g = sges[i];
            wr.sgeLkey[i] = g.lkey();
            wr.sgeAddr[i] = g.addr();
            wr.sgeLength[i] = g.length();
        }
        wr.sgeCount = count;
        wr.dataKind = PendingWr.DATA_SGE_LIST;
        dataRecorded();
    }

    @Override
    public final void setInlineData(MemorySegment data) {
        Objects.requireNonNull(data, "data");
        checkAlive(data, "data");
        if (!dataSetter(true)) {
            return;
        }
        long n = data.byteSize();
        if (n > maxInline) {
            fail(Errno.EINVAL, n + " bytes of inline data exceed the QP's max_inline_data of " + maxInline);
            return;
        }
        MemorySegment.copy(data, 0, wr.inline, 0, n);
        wr.inlineLength = (int) n;
        wr.dataKind = PendingWr.DATA_INLINE;
        dataRecorded();
    }

    @Override
    public final void setInlineDataList(MemorySegment[] buffers, int count) {
        Objects.requireNonNull(buffers, "buffers");
        if (count < 0 || count > buffers.length) {
            throw new IllegalArgumentException("count " + count + " is outside the " + buffers.length + "-entry list");
        }
        long total = 0;
        for (int i = 0; i < count; i++) {
            if (buffers[i] == null) {
                throw new NullPointerException("buffers[" + i + "] is null");
            }
            checkAlive(buffers[i], "buffers[" + i + "]");
            total += buffers[i].byteSize();
        }
        if (!dataSetter(true)) {
            return;
        }
        if (total > maxInline) {
            fail(Errno.EINVAL, total + " bytes of inline data exceed the QP's max_inline_data of " + maxInline);
            return;
        }
        long at = 0;
        for (int i = 0; i < count; i++) {
            long n = buffers[i].byteSize();
            MemorySegment.copy(buffers[i], 0, wr.inline, at, n);
            at += n;
        }
        wr.inlineLength = (int) total;
        wr.dataKind = PendingWr.DATA_INLINE;
        dataRecorded();
    }

    private static void checkAlive(MemorySegment s, String name) {
        if (!s.scope().isAlive()) {
            throw new IllegalStateException(name + ": the segment's arena is closed");
        }
    }

    @Override
    public final void setUdAddr(AddressHandle ah, int remoteQpn, int remoteQkey) {
        Objects.requireNonNull(ah, "ah");
        checkOwner();
        if (errno != 0 || type != QpType.UD) {
            return;
        }
        if (current == null) {
            fail(Errno.EINVAL, "setUdAddr was called before any builder");
        } else if (!owns(ah)) {
            fail(Errno.EINVAL, "setUdAddr needs an address handle of this provider and context");
        } else if (ah.isClosed()) {
            fail(Errno.EINVAL, "setUdAddr was given a closed address handle");
        } else if (!Arguments.remoteQpn(remoteQpn)) {
            fail(Errno.EINVAL, "setUdAddr was given remote QPN 0x" + Integer.toHexString(remoteQpn)
                    + ", which does not fit the 24 bits of a QPN");
        } else {
            wr.ah = ah;
            wr.remoteQpn = remoteQpn;
            wr.remoteQkey = remoteQkey;
            udSet = true;
            if (atOnce) {
                emitAddress(wr);
            }
        }
    }

    @Override
    public final void setXrcSrqn(int remoteSrqn) {
        checkOwner();
        if (errno != 0 || type != QpType.XRC_SEND) {
            return;
        }
        if (current == null) {
            fail(Errno.EINVAL, "setXrcSrqn was called before any builder");
            return;
        }
        wr.remoteSrqn = remoteSrqn;
        xrcSet = true;
        if (atOnce) {
            emitAddress(wr);
        }
    }

    // ---- end of the batch

    @Override
    public final void complete() {
        checkOwner();
        int rc = 0;
        try {
            endWr();
            if (errno != 0) {
                throw new VerbsException("ibv_wr_complete", errno, error + "; the whole batch was discarded");
            }
            if (started) {
                started = false;
                rc = completeBatch();
            }
            if (rc == 0) {
                for (int i = 0; i < bindCount; i++) {
                    onBound(binds[i], bindRkeys[i], bindInfos[i]);
                }
            }
        } finally {
            end();
        }
        if (rc != 0) {
            throw new VerbsException("ibv_wr_complete", rc, "the batch was discarded");
        }
    }

    @Override
    public final void abort() {
        checkOwner();
        end();
    }

    /** Ends the session: aborts the provider's batch if it is still open, and releases the lock. */
    private void end() {
        try {
            if (started) {
                started = false;
                abortBatch();
            }
        } finally {
            release();
        }
    }

    private void release() {
        for (int i = 0; i < bindCount; i++) {
            binds[i] = null;
            bindInfos[i] = null;
        }
        bindCount = 0;
        current = null;
        wr.clear();
        started = false;
        ACTIVE.setRelease(this, false);
        owner = null;
        lock.unlock();
    }

    /** Aborts the session if the calling thread has it open; otherwise does nothing. */
    @Override
    public final void close() {
        if (isOpenInThisThread()) {
            abort();
        }
    }
}
