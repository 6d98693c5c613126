package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.CompletionQueue;
import org.verbs4j.Errno;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QueuePair;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.XrcDomain;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_xrcd_init_attr;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.spi.support.CallHold;

/**
 * An XRC domain, {@code struct ibv_xrcd}, of either native provider: opened through
 * {@code verbs_context.open_xrcd} and closed through {@code verbs_context.close_xrcd}, as the inline
 * {@code ibv_open_xrcd} and {@code ibv_close_xrcd} call them. Its XRC SRQs, XRC_RECV QPs and opened QP handles
 * depend on it, so its close fails with {@code EBUSY} while one is open and the library never sees a domain
 * destroyed under them; {@link NativeQueuePairs} makes them.
 *
 * @see "ibv_open_xrcd(3)"
 */
public final class NativeXrcDomain extends NativeObject implements XrcDomain {
    /** {@code verbs_context.close_xrcd}, read once at the open; 0 if the context has none. */
    private final long closeXrcd;

    private <C extends AbstractVerbsObject & NativeContextSupport> NativeXrcDomain(C context, long xrcd) {
        super("XrcDomain", context, NativeKind.XRCD, xrcd);
        this.closeXrcd = context.op("close_xrcd");
        register();
    }

    /**
     * {@code ibv_open_xrcd(3)}: {@code struct ibv_xrcd_init_attr} with {@code comp_mask} FD and OFLAGS.
     *
     * @param <C> the provider's context
     * @param context the open context
     * @param fd a file descriptor, or -1
     * @param oflags {@code O_CREAT} and {@code O_EXCL} bits
     * @return the domain
     * @throws IllegalArgumentException for arguments {@link Arguments#openXrcd} refuses
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException {@code EOPNOTSUPP} without {@code verbs_context.open_xrcd}, or the open's errno
     */
    public static <C extends AbstractVerbsObject & NativeContextSupport> NativeXrcDomain open(C context, int fd,
            int oflags) {
        context.checkOpen();
        Arguments.openXrcd(fd, oflags);
        long op = context.op("open_xrcd");
        if (op == 0) {
            throw new VerbsException("ibv_open_xrcd", Errno.EOPNOTSUPP, context.device().name() + " has no XRC");
        }
        IbverbsBinding b = context.binding();
        try (CallHold hold = CallHold.on(context); TempMemory temp = new TempMemory(b)) {
            long attr = temp.allocate(ibv_xrcd_init_attr.SIZEOF);
            b.putInt(attr + ibv_xrcd_init_attr.comp_mask$off,
                    ibv_xrcd_init_attr.IBV_XRCD_INIT_ATTR_FD | ibv_xrcd_init_attr.IBV_XRCD_INIT_ATTR_OFLAGS);
            b.putInt(attr + ibv_xrcd_init_attr.fd$off, fd);
            b.putInt(attr + ibv_xrcd_init_attr.oflags$off, oflags);
            long xrcd = b.libibverbsOps().open_xrcd(op, context.contextHandle(), attr);
            NativeErrors.check(xrcd, "ibv_open_xrcd", "fd " + fd + ", oflags 0" + Integer.toOctalString(oflags));
            return new NativeXrcDomain(context, xrcd);
        }
    }

    private <C extends AbstractVerbsObject & NativeContextSupport> C owner() {
        @SuppressWarnings("unchecked")
        C c = (C) nativeContext();
        return c;
    }

    @Override
    public SharedReceiveQueue createSrq(ProtectionDomain pd, CompletionQueue cq, SrqInitAttributes attributes) {
        checkOpen();
        Arguments.xrcSrq(pd, cq, attributes);
        NativeProtectionDomain p = sibling(pd, NativeProtectionDomain.class, "the protection domain");
        AbstractVerbsObject q = nativeContext().siblingCq(cq, "the CQ");
        return NativeQueuePairs.createXrcSrq(owner(), this, p, q, attributes);
    }

    @Override
    public QueuePair createRecvQp() {
        checkOpen();
        return NativeQueuePairs.createRecvQp(owner(), this);
    }

    @Override
    public QueuePair openQp(int qpNum) {
        checkOpen();
        Arguments.openQpNum(qpNum);
        return NativeQueuePairs.openQp(owner(), this, qpNum);
    }

    /** Through the {@code close_xrcd} the context had at the open; 0 is EOPNOTSUPP, as for a NULL op. */
    @Override
    protected int destroy() {
        return closeXrcd == 0 ? Errno.EOPNOTSUPP
                : NativeErrors.errno(binding().libibverbsOps().close_xrcd(closeXrcd, handle()));
    }

    @Override
    public String toString() {
        return "NativeXrcDomain" + (isClosed() ? "[closed]" : "");
    }
}
