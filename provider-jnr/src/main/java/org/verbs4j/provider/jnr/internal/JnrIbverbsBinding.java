package org.verbs4j.provider.jnr.internal;

import java.util.concurrent.TimeUnit;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.nativecommon.internal.IbverbsBinding;
import org.verbs4j.provider.nativecommon.internal.PosixStructs;

/**
 * libibverbs through JNR-FFI as the shared native object model's {@link IbverbsBinding}: the calls of
 * {@link Ibverbs}, the inline function-pointer calls of {@link InlineVerbs}, and {@link NativeMemory}.
 */
public final class JnrIbverbsBinding implements IbverbsBinding {
    private static final long CQ_OUT = 0;
    private static final long CQ_CONTEXT_OUT = 8;

    private final NativeLibraries libs;

    /**
     * Binds the loaded libraries.
     *
     * @param libs libibverbs and libc
     */
    public JnrIbverbsBinding(NativeLibraries libs) {
        this.libs = libs;
    }

    /**
     * The errno of a verb that returned {@code rc}: libibverbs returns the errno itself from most int verbs, and
     * -1 with errno set from a few.
     *
     * @param libs the libraries whose last call set errno
     * @param rc what the verb returned, not 0
     * @return the errno; {@code EINVAL} if the verb failed without setting one
     */
    public static int errnoOf(NativeLibraries libs, int rc) {
        if (rc > 0) {
            return rc;
        }
        int e = libs.lastErrno();
        return e != 0 ? e : Errno.EINVAL;
    }

    private int failure(int rc) {
        return rc == 0 ? 0 : errnoOf(libs, rc);
    }

    @Override
    public int getInt(long address) {
        return NativeMemory.getInt(address);
    }

    @Override
    public void putInt(long address, int value) {
        NativeMemory.putInt(address, value);
    }

    @Override
    public int deregMr(long mr) {
        return failure(libs.ibverbs().ibv_dereg_mr(mr));
    }

    @Override
    public int destroyAh(long ah) {
        return failure(libs.ibverbs().ibv_destroy_ah(ah));
    }

    @Override
    public int callDeallocOp(long fn, long object) {
        return failure(InlineVerbs.callP(fn, object));
    }

    @Override
    public int destroyCompChannel(long channel) {
        return failure(libs.ibverbs().ibv_destroy_comp_channel(channel));
    }

    @Override
    public boolean awaitReadable(int fd, long timeout, TimeUnit unit, String verb) {
        long pollfd = NativeMemory.allocate(PosixStructs.pollfd.SIZEOF);
        try {
            return Fds.awaitReadable(libs, pollfd, fd, timeout, unit);
        } finally {
            NativeMemory.free(pollfd);
        }
    }

    @Override
    public long getAndAckCqEvent(long channel) {
        long out = NativeMemory.allocate(CQ_CONTEXT_OUT + 8);
        try {
            if (libs.ibverbs().ibv_get_cq_event(channel, out + CQ_OUT, out + CQ_CONTEXT_OUT) != 0) {
                throw new VerbsException("ibv_get_cq_event", libs.lastErrno(), null);
            }
            long cq = NativeMemory.getAddress(out + CQ_OUT);
            libs.ibverbs().ibv_ack_cq_events(cq, 1);
            return cq;
        } finally {
            NativeMemory.free(out);
        }
    }
}
