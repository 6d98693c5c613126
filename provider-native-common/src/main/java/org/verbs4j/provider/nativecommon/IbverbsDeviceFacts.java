package org.verbs4j.provider.nativecommon;

import org.verbs4j.Context;

/**
 * What {@link CapabilityProbe} needs from a libibverbs binding beyond the {@link Context} API: facts only the
 * binding can read from native memory. {@code ffm} and {@code jnr} each implement it on their context. Each is
 * probed ({@code verbs_context.sz} and NULL ops, the flags the kernel reports), never derived from an rdma-core
 * version: a vendor's build of libibverbs has no version the file name tells.
 */
public interface IbverbsDeviceFacts {
    /** {@code IB_UVERBS_DEVICE_XRC} of {@code device_cap_flags}: the device has XRC. */
    int DEVICE_XRC = 1 << 20;
    /** {@code IB_UVERBS_DEVICE_ATOMIC_WRITE} of {@code device_cap_flags_ex}: the kernel driver executes it (Linux 6.2+). */
    long DEVICE_ATOMIC_WRITE = 1L << 40;
    /** {@code IB_UVERBS_DEVICE_FLUSH_GLOBAL} and {@code _PERSISTENT} of {@code device_cap_flags_ex}: it executes FLUSH. */
    long DEVICE_FLUSH = 3L << 38;

    /**
     * The context the facts are about.
     *
     * @return the open context
     */
    Context context();

    /**
     * The name of the provider that binds it, so that two bindings in one JVM keep their answers apart.
     *
     * @return {@code "ffm"} or {@code "jnr"}
     */
    String providerName();

    /**
     * {@code device_cap_flags_ex} of {@code ibv_query_device_ex}.
     *
     * @return the flags, or 0 when the device does not report them
     */
    long deviceCapFlagsEx();

    /**
     * Whether the device's library has {@code ibv_create_qp_ex} ({@code verbs_context.create_qp_ex}), without
     * which no QP has a WR session.
     *
     * @return whether the op is present
     */
    boolean hasExtendedQp();

    /**
     * {@code cq_mod_caps} of {@code ibv_query_device_ex}, where the library has {@code verbs_context.modify_cq}.
     *
     * @return {@code max_cq_count} in the low 16 bits and {@code max_cq_period} (microseconds) in the high 16; 0
     *     when the device has no extended query or no {@code modify_cq} op
     */
    int cqModerationCaps();
}
