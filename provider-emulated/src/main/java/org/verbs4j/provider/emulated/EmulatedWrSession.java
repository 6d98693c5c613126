package org.verbs4j.provider.emulated;

import java.lang.foreign.MemorySegment;

import org.verbs4j.AddressHandle;
import org.verbs4j.Errno;
import org.verbs4j.Flush;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.Sge;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;
import org.verbs4j.provider.emulated.internal.SendWqe;

/**
 * A QP's WR session ({@code ibv_wr_start} ... {@code ibv_wr_complete}). Builders write straight into the free
 * slots of the QP's send ring, past its tail; {@link #complete()} publishes them by moving the tail, and
 * {@link #abort()} simply does not. The first invalid WR records an errno that {@code complete()} throws,
 * after which the rest of the batch is ignored. Nothing here allocates unless a WR is invalid.
 *
 * @see "ibv_wr_post(3)"
 */
final class EmulatedWrSession implements WrSession {
    /** What a builder's WR needs from the DATA setters. */
    private static final int DATA_NONE = 0;
    private static final int DATA_REQUIRED = 1;
    private static final int DATA_OPTIONAL = 2;

    /** Whether inline data is valid for each IBV_WR_* opcode. */
    private static final boolean[] INLINE_OK = new boolean[16];
    static {
        for (WrOpcode op : WrOpcode.values()) {
            INLINE_OK[op.value()] = op.allowsInline();
        }
    }

    private final EmulatedQueuePair qp;
    private final boolean locking;
    private final boolean sigAll;
    private volatile boolean active;
    private Thread owner;
    private long wrId;
    private int wrFlags;
    /** WRs built in this session. */
    private int count;
    /** Free slots when the session started. */
    private int room;
    private SendWqe current;
    private int dataMode;
    private boolean dataSet;
    private boolean udSet;
    private int errno;
    private String error;

    EmulatedWrSession(EmulatedQueuePair qp) {
        this.qp = qp;
        this.locking = qp.td == null;
        this.sigAll = qp.initAttributes().sqSigAll();
    }

    void start() {
        if (active && owner == Thread.currentThread()) {
            throw new IllegalStateException("this thread already has the QP's WR session open");
        }
        if (locking) {
            qp.lock.lock();
        }
        owner = Thread.currentThread();
        count = 0;
        current = null;
        errno = 0;
        error = null;
        room = qp.sq.room();
        active = true;
    }

    @Override
    public QueuePair qp() {
        return qp;
    }

    @Override
    public boolean isActive() {
        return active;
    }

    private void checkActive() {
        if (!active) {
            throw new IllegalStateException("the WR session is not open: call QueuePair.startWr() first");
        }
    }

    @Override
    public void wrId(long wrId) {
        checkActive();
        this.wrId = wrId;
    }

    @Override
    public void wrFlags(int flags) {
        checkActive();
        this.wrFlags = flags;
    }

    private void invalid(int err, String why) {
        if (errno == 0) {
            errno = err;
            error = why;
        }
        current = null;
    }

    /** Ends the previous WR, checks that {@code op} may be built, and claims the next slot for it. */
    private SendWqe begin(WrOpcode op, int mode) {
        checkActive();
        endCurrent();
        if (errno != 0) {
            return null;
        }
        if ((qp.sendOpsMask & (1 << op.value())) == 0) {
            invalid(Errno.EINVAL, op + " was not requested in the QP's sendOps");
            return null;
        }
        int flags = wrFlags;
        if ((flags & ~SendFlags.ALL) != 0 || (flags & SendFlags.IP_CSUM) != 0) {
            invalid(Errno.EINVAL, "unsupported wr_flags " + SendFlags.toString(flags));
            return null;
        }
        if (count == room) {
            invalid(Errno.ENOMEM, "the batch exceeds the send queue's free room of " + room + " WRs");
            return null;
        }
        SendWqe w = qp.sq.slot(qp.sq.tail + count);
        count++;
        w.reset(wrId, op.value(), flags, sigAll || (flags & SendFlags.SIGNALED) != 0);
        current = w;
        dataMode = mode;
        dataSet = false;
        udSet = false;
        return w;
    }

    private void endCurrent() {
        SendWqe w = current;
        if (w == null) {
            return;
        }
        current = null;
        if (dataMode == DATA_REQUIRED && !dataSet) {
            invalid(Errno.EINVAL, "WR " + (count - 1) + " has no DATA setter (setSge, setSgeList, setInlineData or "
                    + "setInlineDataList)");
        } else if (qp.type == QpType.UD && !udSet) {
            invalid(Errno.EINVAL, "WR " + (count - 1) + " on a UD QP has no setUdAddr");
        }
    }

    // ---- builders

    @Override
    public void atomicCmpSwp(int rkey, long remoteAddr, long compare, long swap) {
        SendWqe w = begin(WrOpcode.ATOMIC_CMP_AND_SWP, DATA_REQUIRED);
        if (w != null) {
            w.rkey = rkey;
            w.remoteAddr = remoteAddr;
            w.compareAdd = compare;
            w.swap = swap;
        }
    }

    @Override
    public void atomicFetchAdd(int rkey, long remoteAddr, long add) {
        SendWqe w = begin(WrOpcode.ATOMIC_FETCH_AND_ADD, DATA_REQUIRED);
        if (w != null) {
            w.rkey = rkey;
            w.remoteAddr = remoteAddr;
            w.compareAdd = add;
        }
    }

    @Override
    public void atomicWrite(int rkey, long remoteAddr, long value) {
        SendWqe w = begin(WrOpcode.ATOMIC_WRITE, DATA_NONE);
        if (w != null) {
            w.rkey = rkey;
            w.remoteAddr = remoteAddr;
            w.swap = value;
            w.length = 8;
        }
    }

    @Override
    public void bindMw(MemoryWindow mw, int rkey, MwBindInfo bindInfo) {
        SendWqe w = begin(WrOpcode.BIND_MW, DATA_NONE);
        if (w == null) {
            return;
        }
        if (!(mw instanceof EmulatedMemoryWindow m) || m.type != MwType.TYPE_2 || bindInfo == null) {
            invalid(Errno.EINVAL, "bindMw needs a type 2 window of this provider and bind info");
            return;
        }
        w.mw = m;
        w.bindRkey = rkey;
        w.bindMr = bindInfo.mr();
        w.bindAddr = bindInfo.addr();
        w.bindLength = bindInfo.length();
        w.bindAccess = bindInfo.mwAccessFlags();
    }

    @Override
    public void localInv(int invalidateRkey) {
        SendWqe w = begin(WrOpcode.LOCAL_INV, DATA_NONE);
        if (w != null) {
            w.invalidateRkey = invalidateRkey;
        }
    }

    @Override
    public void rdmaRead(int rkey, long remoteAddr) {
        SendWqe w = begin(WrOpcode.RDMA_READ, DATA_REQUIRED);
        if (w != null) {
            w.rkey = rkey;
            w.remoteAddr = remoteAddr;
        }
    }

    @Override
    public void rdmaWrite(int rkey, long remoteAddr) {
        SendWqe w = begin(WrOpcode.RDMA_WRITE, DATA_REQUIRED);
        if (w != null) {
            w.rkey = rkey;
            w.remoteAddr = remoteAddr;
        }
    }

    @Override
    public void rdmaWriteImm(int rkey, long remoteAddr, int immData) {
        SendWqe w = begin(WrOpcode.RDMA_WRITE_WITH_IMM, DATA_REQUIRED);
        if (w != null) {
            w.rkey = rkey;
            w.remoteAddr = remoteAddr;
            w.immData = immData;
        }
    }

    @Override
    public void send() {
        begin(WrOpcode.SEND, DATA_REQUIRED);
    }

    @Override
    public void sendImm(int immData) {
        SendWqe w = begin(WrOpcode.SEND_WITH_IMM, DATA_REQUIRED);
        if (w != null) {
            w.immData = immData;
        }
    }

    @Override
    public void sendInv(int invalidateRkey) {
        SendWqe w = begin(WrOpcode.SEND_WITH_INV, DATA_REQUIRED);
        if (w != null) {
            w.invalidateRkey = invalidateRkey;
        }
    }

    @Override
    public void sendTso(MemorySegment hdr, int mss) {
        // TSO is never in sendOps on this device, so this always marks the batch invalid.
        begin(WrOpcode.TSO, DATA_REQUIRED);
    }

    @Override
    public void flush(int rkey, long remoteAddr, long len, int type, int level) {
        SendWqe w = begin(WrOpcode.FLUSH, DATA_OPTIONAL);
        if (w == null) {
            return;
        }
        if (type == 0 || (type & ~(Flush.TYPE_GLOBAL | Flush.TYPE_PERSISTENT)) != 0
                || level != Flush.LEVEL_RANGE && level != Flush.LEVEL_MR || len < 0) {
            invalid(Errno.EINVAL, "flush needs a type of TYPE_GLOBAL/TYPE_PERSISTENT, a level of LEVEL_RANGE or "
                    + "LEVEL_MR, and a length of 0 or more");
            return;
        }
        w.rkey = rkey;
        w.remoteAddr = remoteAddr;
        w.length = len;
        w.flushType = type;
        w.flushLevel = level;
    }

    // ---- setters

    /** The WR a setter applies to, or null if the batch is already invalid. */
    private SendWqe target(boolean data) {
        checkActive();
        SendWqe w = current;
        if (w == null) {
            if (errno == 0) {
                invalid(Errno.EINVAL, "a setter was called before any builder");
            }
            return null;
        }
        if (data) {
            if (dataMode == DATA_NONE) {
                invalid(Errno.EINVAL, WrOpcode.of(w.opcode) + " takes no DATA setter");
                return null;
            }
            if (dataSet) {
                invalid(Errno.EINVAL, "a WR takes exactly one DATA setter; this is the second");
                return null;
            }
            dataSet = true;
        }
        return w;
    }

    @Override
    public void setSge(int lkey, long addr, int length) {
        SendWqe w = target(true);
        if (w == null || w.opcode == SendWqe.OP_FLUSH) {
            return;
        }
        w.numSge = 1;
        w.sgeLkey[0] = lkey;
        w.sgeAddr[0] = addr;
        w.sgeLength[0] = length;
        w.length = Integer.toUnsignedLong(length);
    }

    @Override
    public void setSgeList(Sge[] sges, int count) {
        SendWqe w = target(true);
        if (w == null || w.opcode == SendWqe.OP_FLUSH) {
            return;
        }
        if (sges == null || count < 0 || count > sges.length) {
            invalid(Errno.EINVAL, "setSgeList count " + count + " is outside the array");
            return;
        }
        if (count > qp.maxSendSge) {
            invalid(Errno.EINVAL, count + " SGEs exceed max_send_sge " + qp.maxSendSge);
            return;
        }
        long total = 0;
        for (int i = 0; i < count; i++) {
            Sge g = sges[i];
            w.sgeLkey[i] = g.lkey();
            w.sgeAddr[i] = g.addr();
            w.sgeLength[i] = g.length();
            total += Integer.toUnsignedLong(g.length());
        }
        w.numSge = count;
        w.length = total;
    }

    private boolean inlineAllowed(SendWqe w, long bytes) {
        if (!INLINE_OK[w.opcode]) {
            invalid(Errno.EINVAL, "inline data is valid only for SEND and RDMA WRITE, not " + WrOpcode.of(w.opcode));
            return false;
        }
        if (bytes > qp.maxInlineData) {
            invalid(Errno.EINVAL, bytes + " bytes of inline data exceed max_inline_data " + qp.maxInlineData);
            return false;
        }
        return true;
    }

    @Override
    public void setInlineData(MemorySegment data) {
        SendWqe w = target(true);
        if (w == null) {
            return;
        }
        if (data == null) {
            invalid(Errno.EINVAL, "setInlineData needs a segment");
            return;
        }
        long n = data.byteSize();
        if (!inlineAllowed(w, n)) {
            return;
        }
        MemorySegment.copy(data, 0, w.inline, 0, n);
        w.isInline = true;
        w.inlineLength = (int) n;
        w.length = n;
    }

    @Override
    public void setInlineDataList(MemorySegment[] buffers, int count) {
        SendWqe w = target(true);
        if (w == null) {
            return;
        }
        if (buffers == null || count < 0 || count > buffers.length) {
            invalid(Errno.EINVAL, "setInlineDataList count " + count + " is outside the array");
            return;
        }
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += buffers[i].byteSize();
        }
        if (!inlineAllowed(w, total)) {
            return;
        }
        long at = 0;
        for (int i = 0; i < count; i++) {
            long n = buffers[i].byteSize();
            MemorySegment.copy(buffers[i], 0, w.inline, at, n);
            at += n;
        }
        w.isInline = true;
        w.inlineLength = (int) total;
        w.length = total;
    }

    @Override
    public void setUdAddr(AddressHandle ah, int remoteQpn, int remoteQkey) {
        SendWqe w = target(false);
        if (w == null || qp.type != QpType.UD) {
            return;
        }
        if (!(ah instanceof EmulatedAddressHandle a) || a.isClosed()) {
            invalid(Errno.EINVAL, "setUdAddr needs an open address handle of this provider");
            return;
        }
        w.ah = a;
        w.remoteQpn = remoteQpn;
        w.remoteQkey = remoteQkey;
        udSet = true;
    }

    @Override
    public void setXrcSrqn(int remoteSrqn) {
        // No XRC QPs exist on this device; on other QP types the setter has no effect.
        target(false);
    }

    // ---- end

    @Override
    public void complete() {
        checkActive();
        endCurrent();
        QpState s = qp.state;
        if (errno == 0 && !EmulatedQueuePair.canPost(s)) {
            invalid(Errno.EINVAL, "the QP is in " + s + "; posting needs RTS, SQD, SQE or ERR");
        }
        int err = errno;
        String why = error;
        if (err != 0) {
            end(false);
            throw new VerbsException("ibv_wr_complete", err, why + "; the whole batch was discarded");
        }
        end(true);
    }

    @Override
    public void abort() {
        checkActive();
        end(false);
    }

    private void end(boolean publish) {
        int n = count;
        count = 0;
        current = null;
        active = false;
        owner = null;
        if (!locking) {
            qp.lock.lock();
        }
        if (publish) {
            qp.sq.tail += n;
        }
        qp.release();
    }

    @Override
    public void close() {
        if (active && owner == Thread.currentThread()) {
            abort();
        }
    }
}
