package org.verbs4j.provider.nativecommon;

import org.verbs4j.Context;

/**
 * What {@link CapabilityProbe} needs from a libibverbs binding beyond the {@link Context} API: facts only the
 * binding can read from native memory. Each is probed ({@code verbs_context.sz} and NULL ops), never derived from
 * an rdma-core version: a vendor's build of libibverbs has no version the file name tells. What the device reports
 * of itself comes through the API, {@link Context#queryDeviceEx()}.
 */
public interface IbverbsDeviceFacts {
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
     * Whether the device's library has this op of {@code struct verbs_context}, as {@code verbs_get_ctx_op} finds
     * it: the context is extended, its {@code sz} covers the op, and the op is not NULL. Without
     * {@code create_qp_ex} no QP has a WR session; without {@code modify_cq} no CQ moderation.
     *
     * @param name the member's name in {@code struct verbs_context}, such as {@code "create_qp_ex"}
     * @return whether the op is present
     * @throws IllegalArgumentException if {@code struct verbs_context} has no such member
     */
    boolean hasContextOp(String name);

    /**
     * Whether the device re-registers a region: {@code ibv_rereg_mr} with {@code IBV_REREG_MR_CHANGE_ACCESS}
     * succeeds on a region of 64 bytes of the library's own memory, in a PD of its own (librxe has no
     * {@code rereg_mr}, and libibverbs answers {@code EOPNOTSUPP}).
     *
     * @return whether the re-registration succeeded
     */
    boolean reregisters();

    /**
     * Whether the device registers dma-bufs: {@code ibv_reg_dmabuf_mr} with fd -1 fails with another errno than
     * {@code EOPNOTSUPP} (the kernel's {@code EBADF}), as libibverbs answers that for a provider without the op
     * before any fd is looked at.
     *
     * @return whether the op is there
     */
    boolean registersDmabuf();
}
