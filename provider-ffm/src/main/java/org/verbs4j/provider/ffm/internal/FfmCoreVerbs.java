package org.verbs4j.provider.ffm.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.verbs4j.provider.nativecommon.internal.CoreVerbs;

/**
 * {@link CoreVerbs} through FFM: the functions libibverbs exports, each a downcall of {@link Ibverbs} that
 * captures {@code errno}, its result folded into {@link org.verbs4j.provider.nativecommon.internal.NativeErrors}'
 * contract by {@link Ibverbs#result} and {@link Ibverbs#created}. Control path. {@link FfmIbverbsBinding} takes
 * these methods as they are.
 */
interface FfmCoreVerbs extends CoreVerbs {
    /** {@return a zero-length segment at an address, as a downcall's pointer argument} */
    private static MemorySegment at(long address) {
        return MemorySegment.ofAddress(address);
    }

    @Override
    default long openDevice(String name) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment num = a.allocate(JAVA_INT);
            MemorySegment list = Ibverbs.ibv_get_device_list(num);
            if (list.address() == 0) {
                return Ibverbs.created(list);
            }
            try {
                int n = num.get(JAVA_INT, 0);
                MemorySegment devices = list.reinterpret(8L * n);
                for (int i = 0; i < n; i++) {
                    MemorySegment dev = devices.getAtIndex(ADDRESS, i);
                    if (name.equals(Ibverbs.ibv_get_device_name(dev).reinterpret(64).getString(0))) {
                        return Ibverbs.created(Ibverbs.ibv_open_device(dev));
                    }
                }
                return -org.verbs4j.Errno.ENODEV;
            } finally {
                Ibverbs.ibv_free_device_list(list);
            }
        }
    }

    @Override
    default int closeDevice(long context) {
        return Ibverbs.result(Ibverbs.ibv_close_device(at(context)));
    }

    @Override
    default int queryDevice(long context, long attr) {
        return Ibverbs.result(Ibverbs.ibv_query_device(at(context), at(attr)));
    }

    @Override
    default int queryGid(long context, int port, int index, long gid) {
        return Ibverbs.result(Ibverbs.ibv_query_gid(at(context), (byte) port, index, at(gid)));
    }

    @Override
    default long createCompChannel(long context) {
        return Ibverbs.created(Ibverbs.ibv_create_comp_channel(at(context)));
    }

    @Override
    default int destroyCompChannel(long channel) {
        return Ibverbs.result(Ibverbs.ibv_destroy_comp_channel(at(channel)));
    }

    @Override
    default long getAndAckCqEvent(long channel) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cqOut = a.allocate(ADDRESS);
            MemorySegment ctxOut = a.allocate(ADDRESS);
            int rc = Ibverbs.ibv_get_cq_event(at(channel), cqOut, ctxOut);
            if (rc != 0) {
                return Ibverbs.result(rc);
            }
            MemorySegment cq = cqOut.get(ADDRESS, 0);
            Ibverbs.ibv_ack_cq_events(cq, 1);
            return cq.address();
        }
    }

    @Override
    default int getAsyncEvent(long context, long event) {
        return Ibverbs.result(Ibverbs.ibv_get_async_event(at(context), at(event)));
    }

    @Override
    default void ackAsyncEvent(long event) {
        Ibverbs.ibv_ack_async_event(at(event));
    }

    @Override
    default long allocPd(long context) {
        return Ibverbs.created(Ibverbs.ibv_alloc_pd(at(context)));
    }

    @Override
    default int deallocPd(long pd) {
        return Ibverbs.result(Ibverbs.ibv_dealloc_pd(at(pd)));
    }

    @Override
    default long regMr(long pd, long address, long length, long iova, int access) {
        return Ibverbs.created(Ibverbs.ibv_reg_mr_iova2(at(pd), at(address), length, iova, access));
    }

    @Override
    default int deregMr(long mr) {
        return Ibverbs.result(Ibverbs.ibv_dereg_mr(at(mr)));
    }

    @Override
    default long createAh(long pd, long attr) {
        return Ibverbs.created(Ibverbs.ibv_create_ah(at(pd), at(attr)));
    }

    @Override
    default int destroyAh(long ah) {
        return Ibverbs.result(Ibverbs.ibv_destroy_ah(at(ah)));
    }

    @Override
    default long createCq(long context, int cqe, long channel, int compVector) {
        return Ibverbs.created(Ibverbs.ibv_create_cq(at(context), cqe, MemorySegment.NULL, at(channel), compVector));
    }

    @Override
    default int destroyCq(long cq) {
        return Ibverbs.result(Ibverbs.ibv_destroy_cq(at(cq)));
    }

    @Override
    default long createQp(long pd, long initAttr) {
        return Ibverbs.created(Ibverbs.ibv_create_qp(at(pd), at(initAttr)));
    }

    @Override
    default long qpToQpEx(long qp) {
        return Ibverbs.created(Ibverbs.ibv_qp_to_qp_ex(at(qp)));
    }

    @Override
    default int modifyQp(long qp, long attr, int mask) {
        return Ibverbs.result(Ibverbs.ibv_modify_qp(at(qp), at(attr), mask));
    }

    @Override
    default int queryQp(long qp, long attr, int mask, long initAttr) {
        return Ibverbs.result(Ibverbs.ibv_query_qp(at(qp), at(attr), mask, at(initAttr)));
    }

    @Override
    default int destroyQp(long qp) {
        return Ibverbs.result(Ibverbs.ibv_destroy_qp(at(qp)));
    }

    @Override
    default int queryDataInOrder(long qp, int op, int flags) {
        return Ibverbs.ibv_query_qp_data_in_order(at(qp), op, flags);
    }

    @Override
    default long createSrq(long pd, long initAttr) {
        return Ibverbs.created(Ibverbs.ibv_create_srq(at(pd), at(initAttr)));
    }

    @Override
    default int modifySrq(long srq, long attr, int mask) {
        return Ibverbs.result(Ibverbs.ibv_modify_srq(at(srq), at(attr), mask));
    }

    @Override
    default int querySrq(long srq, long attr) {
        return Ibverbs.result(Ibverbs.ibv_query_srq(at(srq), at(attr)));
    }

    @Override
    default int destroySrq(long srq) {
        return Ibverbs.result(Ibverbs.ibv_destroy_srq(at(srq)));
    }
}
