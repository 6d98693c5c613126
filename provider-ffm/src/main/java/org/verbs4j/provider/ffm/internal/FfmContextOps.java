package org.verbs4j.provider.ffm.internal;

import java.lang.foreign.MemorySegment;
import org.verbs4j.provider.nativecommon.internal.ContextOps;
import org.verbs4j.provider.nativecommon.internal.NativeErrors;

/**
 * The control-path {@link ContextOps} through FFM: the ops of {@code ibv_context} and {@code verbs_context} that
 * create, free and query, each a downcall of {@link InlineOps}. The data-path ops ({@code post_send},
 * {@code post_recv}, {@code poll_cq} and their critical twins) are written by hand in {@link FfmIbverbsBinding}.
 */
interface FfmContextOps extends ContextOps {
    /** {@return a zero-length segment at an address, as a downcall's pointer argument} */
    private static MemorySegment at(long address) {
        return MemorySegment.ofAddress(address);
    }

    @Override
    default int reqNotifyCq(long fn, long cq, int solicitedOnly) {
        return NativeErrors.ofOp(InlineOps.req_notify_cq(at(fn), at(cq), solicitedOnly));
    }

    @Override
    default int bindMw(long fn, long qp, long mw, long bind) {
        return NativeErrors.ofOp(InlineOps.call_ppp(at(fn), qp, mw, bind));
    }

    @Override
    default long callCreateOp(long fn, long context, long attr) {
        return Ibverbs.created(InlineOps.create(at(fn), at(context), at(attr)));
    }

    @Override
    default int callDeallocOp(long fn, long object) {
        return NativeErrors.ofOp(InlineOps.dealloc(at(fn), at(object)));
    }

    @Override
    default long allocMw(long fn, long pd, int type) {
        return Ibverbs.created(InlineOps.alloc_mw(at(fn), at(pd), type));
    }

    @Override
    default long createCqEx(long fn, long context, long attr) {
        return Ibverbs.created(InlineOps.create(at(fn), at(context), at(attr)));
    }

    @Override
    default int queryDeviceEx(long fn, long context, long attr, long size) {
        return NativeErrors.ofOp(InlineOps.query_device_ex(at(fn), at(context), MemorySegment.NULL, at(attr), size));
    }

    @Override
    default int queryPort(long fn, long context, int port, long attr, long size) {
        return fn != 0 ? NativeErrors.ofOp(InlineOps.query_port(at(fn), at(context), (byte) port, at(attr), size))
                : Ibverbs.result(Ibverbs.ibv_query_port(at(context), (byte) port, at(attr)));
    }

    @Override
    default int callSrqNumOp(long fn, long srq, long out) {
        return NativeErrors.ofOp(InlineOps.get_srq_num(at(fn), srq, out));
    }
}
