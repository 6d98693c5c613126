package org.verbs4j.provider.nativecommon.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.verbs4j.Errno;

/**
 * The verbs libibverbs exports as functions, by object: the device and context, protection domains and memory
 * regions, address handles, completion channels and CQs, QPs and SRQs. All control path, and written once for both
 * bindings: each is a call of {@link LibIbverbs}, the functions declared once with their C signature and errno
 * convention, which a binding binds from the declarations alone ({@link #libibverbs()}).
 *
 * <p>Every call answers in {@link NativeErrors}' contract: a created object's address or −errno; 0 (or a
 * non-negative result) or −errno. {@link NativeErrors#check} turns a failure into the {@code VerbsException}
 * naming the verb; a destroy verb's result goes through {@link NativeErrors#errno} to
 * {@link org.verbs4j.spi.support.AbstractVerbsObject#destroy()}.
 */
public interface CoreVerbs extends NativeMemoryAccess, CLibrary {
    /** {@code IBV_SYSFS_NAME_MAX}: the size of {@code struct ibv_device}'s {@code name}. */
    int DEVICE_NAME_MAX = 64;

    /**
     * The functions libibverbs exports, as this binding binds {@link LibIbverbs}' declarations.
     *
     * @return the bound library, each call answering in {@link NativeErrors}' contract
     */
    LibIbverbs libibverbs();

    /**
     * The devices of a fresh {@code ibv_get_device_list(3)}, each with {@code ibv_get_device_name(3)},
     * {@code ibv_get_device_guid(3)} and {@code ibv_get_device_index(3)}; the list is freed before the call returns.
     *
     * @return the devices, GUIDs in host byte order, possibly none
     * @throws org.verbs4j.VerbsException {@code ibv_get_device_list} with its errno if the list cannot be had
     */
    default List<IbverbsProviderShell.ListedDevice> listDevices() {
        long num = allocate(8);
        try {
            long list = NativeErrors.check(libibverbs().ibv_get_device_list(num), "ibv_get_device_list", null);
            try {
                int n = getInt(num);
                List<IbverbsProviderShell.ListedDevice> devices = new ArrayList<>(n);
                byte[] name = new byte[DEVICE_NAME_MAX];
                for (int i = 0; i < n; i++) {
                    long device = getLong(list + 8L * i);
                    // device->name is a char[64] (IBV_SYSFS_NAME_MAX) inside the struct: reading 64 bytes stays
                    // inside it, and the name ends at its first NUL.
                    getBytes(libibverbs().ibv_get_device_name(device), name);
                    int len = 0;
                    while (len < name.length && name[len] != 0) {
                        len++;
                    }
                    devices.add(new IbverbsProviderShell.ListedDevice(
                            new String(name, 0, len, StandardCharsets.UTF_8),
                            Long.reverseBytes(libibverbs().ibv_get_device_guid(device)),
                            libibverbs().ibv_get_device_index(device)));
                }
                return devices;
            } finally {
                libibverbs().ibv_free_device_list(list);
            }
        } finally {
            free(num);
        }
    }

    /**
     * {@code ibv_open_device(3)} of the device of that name, from a fresh {@code ibv_get_device_list(3)}: the
     * list is freed before the call returns, so no {@code struct ibv_device *} outlives it.
     *
     * @param name the device's name, as {@code ibv_get_device_name} gives it
     * @return the {@code struct ibv_context *}, or −errno ({@code -ENODEV} if no device has that name)
     */
    default long openDevice(String name) {
        long num = allocate(8);
        try {
            long list = libibverbs().ibv_get_device_list(num);
            if (list < 0) {
                return list;
            }
            try {
                int n = getInt(num);
                byte[] want = (name + '\0').getBytes(StandardCharsets.UTF_8);
                byte[] got = new byte[want.length];
                for (int i = 0; i < n; i++) {
                    long device = getLong(list + 8L * i);
                    // ibv_get_device_name answers device->name, a char[64] inside the struct: reading
                    // want.length bytes (at most 64, IBV_SYSFS_NAME_MAX) stays inside it.
                    if (want.length <= DEVICE_NAME_MAX) {
                        getBytes(libibverbs().ibv_get_device_name(device), got);
                        if (Arrays.equals(want, got)) {
                            return libibverbs().ibv_open_device(device);
                        }
                    }
                }
                return -Errno.ENODEV;
            } finally {
                libibverbs().ibv_free_device_list(list);
            }
        } finally {
            free(num);
        }
    }

    /**
     * {@code ibv_close_device(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @return 0, or −errno
     */
    default int closeDevice(long context) {
        return libibverbs().ibv_close_device(context);
    }

    /**
     * {@code ibv_query_device(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @param attr a {@code struct ibv_device_attr} to fill
     * @return 0, or −errno
     */
    default int queryDevice(long context, long attr) {
        return libibverbs().ibv_query_device(context, attr);
    }

    /**
     * {@code ibv_query_gid(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @param port the port number
     * @param index the GID index
     * @param gid 16 bytes to fill
     * @return 0, or −errno
     */
    default int queryGid(long context, int port, int index, long gid) {
        return libibverbs().ibv_query_gid(context, port, index, gid);
    }

    /**
     * {@code ibv_create_comp_channel(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @return the {@code struct ibv_comp_channel *}, or −errno
     */
    default long createCompChannel(long context) {
        return libibverbs().ibv_create_comp_channel(context);
    }

    /**
     * {@code ibv_destroy_comp_channel(3)}.
     *
     * @param channel the {@code struct ibv_comp_channel *}
     * @return 0, or −errno
     */
    default int destroyCompChannel(long channel) {
        return libibverbs().ibv_destroy_comp_channel(channel);
    }

    /**
     * {@code ibv_get_cq_event(3)} then {@code ibv_ack_cq_events(cq, 1)}: takes and acknowledges one event.
     *
     * @param channel the {@code struct ibv_comp_channel *}, readable
     * @return the {@code struct ibv_cq *} the event is for, or −errno
     */
    default long getAndAckCqEvent(long channel) {
        long out = allocate(16);
        try {
            int rc = libibverbs().ibv_get_cq_event(channel, out, out + 8);
            if (rc != 0) {
                return rc;
            }
            long cq = getLong(out);
            libibverbs().ibv_ack_cq_events(cq, 1);
            return cq;
        } finally {
            free(out);
        }
    }

    /**
     * {@code ibv_get_async_event(3)}; the caller has waited until the context's {@code async_fd} is readable.
     *
     * @param context the {@code struct ibv_context *}
     * @param event a {@code struct ibv_async_event} to fill
     * @return 0, or −errno
     */
    default int getAsyncEvent(long context, long event) {
        return libibverbs().ibv_get_async_event(context, event);
    }

    /**
     * {@code ibv_ack_async_event(3)}.
     *
     * @param event the {@code struct ibv_async_event} {@link #getAsyncEvent} filled
     */
    default void ackAsyncEvent(long event) {
        libibverbs().ibv_ack_async_event(event);
    }

    /**
     * {@code ibv_alloc_pd(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @return the {@code struct ibv_pd *}, or −errno
     */
    default long allocPd(long context) {
        return libibverbs().ibv_alloc_pd(context);
    }

    /**
     * {@code ibv_dealloc_pd(3)}, here for the parent domain of a QP with a thread domain.
     *
     * @param pd the {@code struct ibv_pd *}
     * @return 0, or −errno
     */
    default int deallocPd(long pd) {
        return libibverbs().ibv_dealloc_pd(pd);
    }

    /**
     * {@code ibv_reg_mr_iova2(3)}.
     *
     * @param pd the {@code struct ibv_pd *}
     * @param address the first byte of the memory
     * @param length its length in bytes
     * @param iova the address remote peers and SGEs name its first byte by
     * @param access the {@link org.verbs4j.AccessFlags} bits
     * @return the {@code struct ibv_mr *}, or −errno
     */
    default long regMr(long pd, long address, long length, long iova, int access) {
        return libibverbs().ibv_reg_mr_iova2(pd, address, length, iova, access);
    }

    /**
     * {@code ibv_dereg_mr(3)}.
     *
     * @param mr the {@code struct ibv_mr *}
     * @return 0, or −errno
     */
    default int deregMr(long mr) {
        return libibverbs().ibv_dereg_mr(mr);
    }

    /**
     * {@code ibv_create_ah(3)}.
     *
     * @param pd the {@code struct ibv_pd *}
     * @param attr a {@code struct ibv_ah_attr}
     * @return the {@code struct ibv_ah *}, or −errno
     */
    default long createAh(long pd, long attr) {
        return libibverbs().ibv_create_ah(pd, attr);
    }

    /**
     * {@code ibv_destroy_ah(3)}.
     *
     * @param ah the {@code struct ibv_ah *}
     * @return 0, or −errno
     */
    default int destroyAh(long ah) {
        return libibverbs().ibv_destroy_ah(ah);
    }

    /**
     * {@code ibv_create_cq(3)} without a CQ context.
     *
     * @param context the {@code struct ibv_context *}
     * @param cqe the entries asked for
     * @param channel the {@code struct ibv_comp_channel *}, or 0
     * @param compVector the completion vector
     * @return the {@code struct ibv_cq *}, or −errno
     */
    default long createCq(long context, int cqe, long channel, int compVector) {
        return libibverbs().ibv_create_cq(context, cqe, 0, channel, compVector);
    }

    /**
     * {@code ibv_destroy_cq(3)}.
     *
     * @param cq the {@code struct ibv_cq *}
     * @return 0, or −errno
     */
    default int destroyCq(long cq) {
        return libibverbs().ibv_destroy_cq(cq);
    }

    /**
     * {@code ibv_create_qp(3)}.
     *
     * @param pd the {@code struct ibv_pd *} (or parent domain)
     * @param initAttr the {@code struct ibv_qp_init_attr}; the library writes the granted sizes back
     * @return the {@code struct ibv_qp *}, or −errno
     */
    default long createQp(long pd, long initAttr) {
        return libibverbs().ibv_create_qp(pd, initAttr);
    }

    /**
     * {@code ibv_qp_to_qp_ex(3)}.
     *
     * @param qp the {@code struct ibv_qp *}
     * @return the {@code struct ibv_qp_ex *}, or −errno
     */
    default long qpToQpEx(long qp) {
        return libibverbs().ibv_qp_to_qp_ex(qp);
    }

    /**
     * {@code ibv_modify_qp(3)}.
     *
     * @param qp the {@code struct ibv_qp *}
     * @param attr the {@code struct ibv_qp_attr}
     * @param mask the attributes to change
     * @return 0, or −errno
     */
    default int modifyQp(long qp, long attr, int mask) {
        return libibverbs().ibv_modify_qp(qp, attr, mask);
    }

    /**
     * {@code ibv_query_qp(3)}.
     *
     * @param qp the {@code struct ibv_qp *}
     * @param attr the {@code struct ibv_qp_attr} to fill
     * @param mask the attributes asked for
     * @param initAttr the {@code struct ibv_qp_init_attr} to fill
     * @return 0, or −errno
     */
    default int queryQp(long qp, long attr, int mask, long initAttr) {
        return libibverbs().ibv_query_qp(qp, attr, mask, initAttr);
    }

    /**
     * {@code ibv_destroy_qp(3)}.
     *
     * @param qp the {@code struct ibv_qp *}
     * @return 0, or −errno
     */
    default int destroyQp(long qp) {
        return libibverbs().ibv_destroy_qp(qp);
    }

    /**
     * {@code ibv_query_qp_data_in_order(3)}.
     *
     * @param qp the {@code struct ibv_qp *}
     * @param op the {@code enum ibv_wr_opcode}
     * @param flags the flags
     * @return the library's answer
     */
    default int queryDataInOrder(long qp, int op, int flags) {
        return libibverbs().ibv_query_qp_data_in_order(qp, op, flags);
    }

    /**
     * {@code ibv_create_srq(3)}.
     *
     * @param pd the {@code struct ibv_pd *}
     * @param initAttr the {@code struct ibv_srq_init_attr}; the library writes the granted sizes back
     * @return the {@code struct ibv_srq *}, or −errno
     */
    default long createSrq(long pd, long initAttr) {
        return libibverbs().ibv_create_srq(pd, initAttr);
    }

    /**
     * {@code ibv_modify_srq(3)}.
     *
     * @param srq the {@code struct ibv_srq *}
     * @param attr the {@code struct ibv_srq_attr}
     * @param mask the attributes to change
     * @return 0, or −errno
     */
    default int modifySrq(long srq, long attr, int mask) {
        return libibverbs().ibv_modify_srq(srq, attr, mask);
    }

    /**
     * {@code ibv_query_srq(3)}.
     *
     * @param srq the {@code struct ibv_srq *}
     * @param attr the {@code struct ibv_srq_attr} to fill
     * @return 0, or −errno
     */
    default int querySrq(long srq, long attr) {
        return libibverbs().ibv_query_srq(srq, attr);
    }

    /**
     * {@code ibv_destroy_srq(3)}.
     *
     * @param srq the {@code struct ibv_srq *}
     * @return 0, or −errno
     */
    default int destroySrq(long srq) {
        return libibverbs().ibv_destroy_srq(srq);
    }

    /**
     * {@code ibv_attach_mcast(3)}.
     *
     * @param qp the {@code struct ibv_qp *}, UD
     * @param gid the {@code union ibv_gid}, 16 bytes in network order
     * @param lid the multicast LID, 16 bits
     * @return 0, or −errno
     */
    default int attachMcast(long qp, long gid, int lid) {
        return libibverbs().ibv_attach_mcast(qp, gid, lid);
    }

    /**
     * {@code ibv_detach_mcast(3)}.
     *
     * @param qp the {@code struct ibv_qp *}
     * @param gid the {@code union ibv_gid}, 16 bytes in network order
     * @param lid the multicast LID, 16 bits
     * @return 0, or −errno
     */
    default int detachMcast(long qp, long gid, int lid) {
        return libibverbs().ibv_detach_mcast(qp, gid, lid);
    }

    /**
     * {@code ibv_query_pkey(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @param port the port number
     * @param index the P_Key index
     * @param pkey 2 bytes to fill with the P_Key, network order
     * @return 0, or −errno
     */
    default int queryPkey(long context, int port, int index, long pkey) {
        return libibverbs().ibv_query_pkey(context, port, index, pkey);
    }

    /**
     * {@code ibv_get_pkey_index(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @param port the port number
     * @param pkey the P_Key, 0 to 0xFFFF, in host order
     * @return its index, or −errno
     */
    default int getPkeyIndex(long context, int port, int pkey) {
        int be16 = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN
                ? Short.toUnsignedInt(Short.reverseBytes((short) pkey)) : pkey;
        return libibverbs().ibv_get_pkey_index(context, port, be16);
    }

    /**
     * {@code ibv_query_gid_ex(3)}, the exported {@code _ibv_query_gid_ex} that the man page's inline wrapper calls
     * with {@code sizeof(struct ibv_gid_entry)}.
     *
     * @param context the {@code struct ibv_context *}
     * @param port the port number
     * @param index the GID index
     * @param entry a {@code struct ibv_gid_entry} to fill
     * @return 0, or −errno ({@code ENODATA} for an empty entry)
     */
    default int queryGidEx(long context, int port, int index, long entry) {
        return libibverbs()._ibv_query_gid_ex(context, port, index, entry, 0, ContextStructs.ibv_gid_entry.SIZEOF);
    }

    /**
     * {@code ibv_query_gid_table(3)}, the exported {@code _ibv_query_gid_table} that the man page's inline wrapper
     * calls with {@code sizeof(struct ibv_gid_entry)}.
     *
     * @param context the {@code struct ibv_context *}
     * @param entries room for {@code maxEntries} {@code struct ibv_gid_entry}
     * @param maxEntries the room
     * @return the number of valid entries written, or −errno ({@code EINVAL} when there are more than
     *     {@code maxEntries})
     */
    default long queryGidTable(long context, long entries, long maxEntries) {
        return libibverbs()._ibv_query_gid_table(context, entries, maxEntries, 0, ContextStructs.ibv_gid_entry.SIZEOF);
    }

    /**
     * {@code ibv_resize_cq(3)}; on success the library has written the granted size to {@code ibv_cq.cqe}.
     *
     * @param cq the {@code struct ibv_cq *}
     * @param cqe the least number of entries
     * @return 0, or −errno
     */
    default int resizeCq(long cq, int cqe) {
        return libibverbs().ibv_resize_cq(cq, cqe);
    }

    /**
     * {@code ibv_init_ah_from_wc(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @param portNum the port that received the completion, 1-based
     * @param wc the {@code struct ibv_wc} of the receive
     * @param grh the 40-byte GRH area
     * @param ahAttr the {@code struct ibv_ah_attr} to fill
     * @return 0, or −errno
     */
    default int initAhFromWc(long context, int portNum, long wc, long grh, long ahAttr) {
        return libibverbs().ibv_init_ah_from_wc(context, portNum, wc, grh, ahAttr);
    }
}
