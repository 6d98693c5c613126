package org.verbs4j.provider.jnr.internal;

import org.verbs4j.Errno;
import org.verbs4j.provider.nativecommon.internal.CoreVerbs;
import org.verbs4j.provider.nativecommon.internal.NativeErrors;

/**
 * {@link CoreVerbs} through JNR-FFI: the functions libibverbs exports, each a call of {@link Ibverbs} that saves
 * {@code errno}, its result folded into {@link NativeErrors}' contract here. Control path. {@link JnrIbverbsBinding}
 * takes these methods as they are.
 */
interface JnrCoreVerbs extends CoreVerbs {
    /** {@code struct ibv_cq **} and {@code void **}: where {@code ibv_get_cq_event} writes its answers. */
    long CQ_OUT = 0;
    /** The CQ context's slot, after the CQ's. */
    long CQ_CONTEXT_OUT = 8;

    /** {@return libibverbs and libc, loaded} */
    NativeLibraries libs();

    /** An exported {@code int} verb's result: 0, or −errno (errno read only when it returned −1). */
    private int result(int rc) {
        return rc == 0 ? 0 : NativeErrors.ofInt(rc, libs().lastErrno());
    }

    /** An exported verb's object: the address, or −errno. */
    private long created(long object) {
        return object != 0 ? object : NativeErrors.negated(libs().lastErrno());
    }

    @Override
    default long openDevice(String name) {
        Ibverbs ib = libs().ibverbs();
        long num = NativeMemory.allocate(4);
        try {
            long list = ib.ibv_get_device_list(num);
            if (list == 0) {
                return created(list);
            }
            try {
                int n = NativeMemory.getInt(num);
                for (int i = 0; i < n; i++) {
                    long dev = NativeMemory.getAddress(list + 8L * i);
                    if (name.equals(NativeMemory.getString(ib.ibv_get_device_name(dev)))) {
                        return created(ib.ibv_open_device(dev));
                    }
                }
                return -Errno.ENODEV;
            } finally {
                ib.ibv_free_device_list(list);
            }
        } finally {
            NativeMemory.free(num);
        }
    }

    @Override
    default int closeDevice(long context) {
        return result(libs().ibverbs().ibv_close_device(context));
    }

    @Override
    default int queryDevice(long context, long attr) {
        return result(libs().ibverbs().ibv_query_device(context, attr));
    }

    @Override
    default int queryGid(long context, int port, int index, long gid) {
        return result(libs().ibverbs().ibv_query_gid(context, port, index, gid));
    }

    @Override
    default long createCompChannel(long context) {
        return created(libs().ibverbs().ibv_create_comp_channel(context));
    }

    @Override
    default int destroyCompChannel(long channel) {
        return result(libs().ibverbs().ibv_destroy_comp_channel(channel));
    }

    @Override
    default long getAndAckCqEvent(long channel) {
        long out = NativeMemory.allocate(CQ_CONTEXT_OUT + 8);
        try {
            int rc = libs().ibverbs().ibv_get_cq_event(channel, out + CQ_OUT, out + CQ_CONTEXT_OUT);
            if (rc != 0) {
                return result(rc);
            }
            long cq = NativeMemory.getAddress(out + CQ_OUT);
            libs().ibverbs().ibv_ack_cq_events(cq, 1);
            return cq;
        } finally {
            NativeMemory.free(out);
        }
    }

    @Override
    default int getAsyncEvent(long context, long event) {
        return result(libs().ibverbs().ibv_get_async_event(context, event));
    }

    @Override
    default void ackAsyncEvent(long event) {
        libs().ibverbs().ibv_ack_async_event(event);
    }

    @Override
    default long allocPd(long context) {
        return created(libs().ibverbs().ibv_alloc_pd(context));
    }

    @Override
    default int deallocPd(long pd) {
        return result(libs().ibverbs().ibv_dealloc_pd(pd));
    }

    @Override
    default long regMr(long pd, long address, long length, long iova, int access) {
        return created(libs().ibverbs().ibv_reg_mr_iova2(pd, address, length, iova, access));
    }

    @Override
    default int deregMr(long mr) {
        return result(libs().ibverbs().ibv_dereg_mr(mr));
    }

    @Override
    default long createAh(long pd, long attr) {
        return created(libs().ibverbs().ibv_create_ah(pd, attr));
    }

    @Override
    default int destroyAh(long ah) {
        return result(libs().ibverbs().ibv_destroy_ah(ah));
    }

    @Override
    default long createCq(long context, int cqe, long channel, int compVector) {
        return created(libs().ibverbs().ibv_create_cq(context, cqe, 0, channel, compVector));
    }

    @Override
    default int destroyCq(long cq) {
        return result(libs().ibverbs().ibv_destroy_cq(cq));
    }

    @Override
    default long createQp(long pd, long initAttr) {
        return created(libs().ibverbs().ibv_create_qp(pd, initAttr));
    }

    @Override
    default long qpToQpEx(long qp) {
        return created(libs().ibverbs().ibv_qp_to_qp_ex(qp));
    }

    @Override
    default int modifyQp(long qp, long attr, int mask) {
        return result(libs().ibverbs().ibv_modify_qp(qp, attr, mask));
    }

    @Override
    default int queryQp(long qp, long attr, int mask, long initAttr) {
        return result(libs().ibverbs().ibv_query_qp(qp, attr, mask, initAttr));
    }

    @Override
    default int destroyQp(long qp) {
        return result(libs().ibverbs().ibv_destroy_qp(qp));
    }

    @Override
    default int queryDataInOrder(long qp, int op, int flags) {
        return libs().ibverbs().ibv_query_qp_data_in_order(qp, op, flags);
    }

    @Override
    default long createSrq(long pd, long initAttr) {
        return created(libs().ibverbs().ibv_create_srq(pd, initAttr));
    }

    @Override
    default int modifySrq(long srq, long attr, int mask) {
        return result(libs().ibverbs().ibv_modify_srq(srq, attr, mask));
    }

    @Override
    default int querySrq(long srq, long attr) {
        return result(libs().ibverbs().ibv_query_srq(srq, attr));
    }

    @Override
    default int destroySrq(long srq) {
        return result(libs().ibverbs().ibv_destroy_srq(srq));
    }
}
