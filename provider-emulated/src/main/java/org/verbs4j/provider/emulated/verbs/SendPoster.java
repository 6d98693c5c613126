package org.verbs4j.provider.emulated.verbs;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

import org.verbs4j.AccessFlags;
import org.verbs4j.Errno;
import org.verbs4j.Flush;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.PostSendException;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.emulated.engine.SendQueue;
import org.verbs4j.provider.emulated.engine.SendWqe;
import org.verbs4j.spi.support.Arguments;

/**
 * Posts a QP's send WRs ({@code ibv_post_send(3)}) and type 1 binds ({@code ibv_bind_mw(3)}) into its
 * {@link SendQueue}: checks each WR against the QP and the device, fills the slot at the tail, and copies
 * inline data at once so that the caller may reuse its buffer. Called holding the QP's lock (a bind takes
 * it). Allocates nothing unless a WR is invalid.
 */
public final class SendPoster {
    private final EmulatedQueuePair qp;
    private final SendQueue sq;
    /** Bit {@code 1 << IBV_WR_*} for each opcode the device executes on this QP type. */
    private final int supportedOps;

    SendPoster(EmulatedQueuePair qp) {
        this.qp = qp;
        this.sq = qp.sq;
        int supported = 0;
        for (WrOpcode op : qp.device.capabilities().sendOpcodes().getOrDefault(qp.type, java.util.Set.of())) {
            supported |= 1 << op.value();
        }
        this.supportedOps = supported;
    }

    /** Checks the {@code index}-th WR of a postSend and queues it. Holds the QP's lock. */
    void post(SendWr wr, int index) {
        Arguments.sges(wr.sgList(), wr.numSge(), "sgList");
        QpState s = qp.state;
        if (!EmulatedQueuePair.canPost(s)) {
            throw new PostSendException(Errno.EINVAL, index,
                    "the QP is in " + s + "; posting needs RTS, SQD, SQE or ERR");
        }
        WrOpcode op = wr.opcode();
        if ((supportedOps & (1 << op.value())) == 0) {
            throw new PostSendException(Errno.EINVAL, index,
                    op + " is not valid on a " + qp.type + " QP of this device");
        }
        int flags = wr.sendFlags();
        if ((flags & ~SendFlags.ALL) != 0 || (flags & SendFlags.IP_CSUM) != 0) {
            throw new PostSendException(Errno.EINVAL, index, "unsupported send flags " + SendFlags.toString(flags));
        }
        boolean inline = (flags & SendFlags.INLINE) != 0 && op.allowsInline();
        int n = wr.numSge();
        if (n > qp.maxSendSge) {
            throw new PostSendException(Errno.EINVAL, index, n + " SGEs exceed max_send_sge " + qp.maxSendSge);
        }
        if (qp.type == QpType.UD && (!(wr.ah() instanceof EmulatedAddressHandle ah) || ah.isClosed())) {
            throw new PostSendException(Errno.EINVAL, index, "a UD WR needs an open address handle of this provider");
        }
        if (qp.type == QpType.UD && !Arguments.remoteQpn(wr.remoteQpn())) {
            throw new PostSendException(Errno.EINVAL, index, "remote QPN 0x" + Integer.toHexString(wr.remoteQpn())
                    + " does not fit the 24 bits of a QPN");
        }
        if (op == WrOpcode.BIND_MW && (!(wr.bindMwWindow() instanceof EmulatedMemoryWindow mw)
                || mw.type != MwType.TYPE_2 || mw.isClosed() || wr.bindMwInfo() == null
                || wr.bindMwInfo().mr().isClosed())) {
            throw new PostSendException(Errno.EINVAL, index,
                    "a BIND_MW WR needs an open type 2 window of this provider and bind info with an open region");
        }
        if (sq.isFull()) {
            throw new PostSendException(Errno.ENOMEM, index, "the send queue is full (" + sq.capacity() + " WRs)");
        }
        SendWqe w = sq.slot(sq.tail);
        w.reset(wr.wrId(), op.value(), flags, qp.sigAll || (flags & SendFlags.SIGNALED) != 0);
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
            if (total > qp.maxInlineData) {
                throw new PostSendException(Errno.EINVAL, index,
                        total + " bytes of inline data exceed max_inline_data " + qp.maxInlineData);
            }
            String unreadable = Arguments.inlineData(wr, qp.pd.regions);
            if (unreadable != null) {
                throw new PostSendException(Errno.EINVAL, index, unreadable);
            }
            int at = 0;
            for (int i = 0; i < n; i++) {
                Sge g = sges[i];
                long len = Integer.toUnsignedLong(g.length());
                MemorySegment src = len == 0 ? null : qp.pd.regions.find(g.addr(), len);
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
        if (qp.type == QpType.UD) {
            w.ah = wr.ah();
            w.remoteQpn = wr.remoteQpn();
            w.remoteQkey = wr.remoteQkey();
        }
        w.remoteSrqn = wr.remoteSrqn();
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
        sq.tail++;
    }

    /** {@code ibv_bind_mw(3)}: checks a type 1 bind, queues it, and returns the window's new rkey. */
    int bindType1(MemoryWindow mw, long wrId, int sendFlags, MwBindInfo bindInfo) {
        Objects.requireNonNull(mw, "mw");
        Objects.requireNonNull(bindInfo, "bindInfo");
        if (!(mw instanceof EmulatedMemoryWindow w) || w.type != MwType.TYPE_1) {
            throw new IllegalArgumentException("QueuePair.bindMw binds type 1 windows of this provider; "
                    + "bind type 2 windows with a BIND_MW WR");
        }
        w.checkOpen();
        if (qp.type == QpType.UD) {
            throw new VerbsException("ibv_bind_mw", Errno.EINVAL, "memory windows are bound on RC and UC QPs");
        }
        if (!(bindInfo.mr() instanceof EmulatedMemoryRegion mr) || mr.isClosed()) {
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
        qp.lock.lock();
        try {
            if (!EmulatedQueuePair.canPost(qp.state)) {
                throw new VerbsException("ibv_bind_mw", Errno.EINVAL, "the QP is in " + qp.state);
            }
            if (sq.isFull()) {
                throw new VerbsException("ibv_bind_mw", Errno.ENOMEM, "the send queue is full");
            }
            int old = w.rkey;
            int rkey = (old & ~0xff) | ((old + 1) & 0xff);
            SendWqe q = sq.slot(sq.tail);
            q.reset(wrId, SendWqe.OP_BIND_MW, sendFlags, qp.sigAll || (sendFlags & SendFlags.SIGNALED) != 0);
            q.mw = w;
            q.bindRkey = rkey;
            q.bindMr = mr;
            q.bindAddr = bindInfo.addr();
            q.bindLength = bindInfo.length();
            q.bindAccess = bindInfo.mwAccessFlags();
            sq.tail++;
            w.rkey = rkey;
            return rkey;
        } finally {
            qp.release();
        }
    }
}
