package org.verbs4j.provider.jnr.internal;

import org.verbs4j.provider.nativecommon.internal.ContextOps;
import org.verbs4j.provider.nativecommon.internal.NativeErrors;

/**
 * The control-path {@link ContextOps} through JNR-FFI: the ops of {@code ibv_context} and {@code verbs_context}
 * that create, free and query, each a call of {@link InlineVerbs}. The data-path ops ({@code post_send},
 * {@code post_recv}, {@code poll_cq}) are written by hand in {@link JnrIbverbsBinding}.
 */
interface JnrContextOps extends ContextOps {
    /** {@return libibverbs and libc, loaded} */
    NativeLibraries libs();

    /** An inline op's object: the address, or −errno. */
    private static long createdByOp(long object) {
        return object != 0 ? object : NativeErrors.negated(InlineVerbs.lastErrno());
    }

    @Override
    default int reqNotifyCq(long fn, long cq, int solicitedOnly) {
        return NativeErrors.ofOp(InlineVerbs.reqNotifyCq(fn, cq, solicitedOnly));
    }

    @Override
    default int bindMw(long fn, long qp, long mw, long bind) {
        return NativeErrors.ofOp(InlineVerbs.callPPP(fn, qp, mw, bind));
    }

    @Override
    default long callCreateOp(long fn, long context, long attr) {
        return createdByOp(InlineVerbs.createPP(fn, context, attr));
    }

    @Override
    default int callDeallocOp(long fn, long object) {
        return NativeErrors.ofOp(InlineVerbs.callP(fn, object));
    }

    @Override
    default long allocMw(long fn, long pd, int type) {
        return createdByOp(InlineVerbs.allocMw(fn, pd, type));
    }

    @Override
    default long createCqEx(long fn, long context, long attr) {
        return createdByOp(InlineVerbs.createPP(fn, context, attr));
    }

    @Override
    default int queryDeviceEx(long fn, long context, long attr, long size) {
        return NativeErrors.ofOp(InlineVerbs.queryDeviceEx(fn, context, attr, size));
    }

    @Override
    default int queryPort(long fn, long context, int port, long attr, long size) {
        return fn != 0 ? NativeErrors.ofOp(InlineVerbs.queryPort(fn, context, port, attr, size))
                : NativeErrors.ofInt(libs().ibverbs().ibv_query_port(context, port, attr), libs().lastErrno());
    }

    @Override
    default int callSrqNumOp(long fn, long srq, long out) {
        return NativeErrors.ofOp(InlineVerbs.callPP(fn, srq, out));
    }
}
