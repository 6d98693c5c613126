package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_device_attr_ex} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}, read
 * for {@code device_cap_flags_ex}: byte offsets named after the C fields. LayoutTest checks every value against the
 * installed header with a compiled C program.
 */
public final class IbvDeviceAttrEx {
    /** The C struct. */
    public static final String C_NAME = "ibv_device_attr_ex";
    /** {@code sizeof(struct ibv_device_attr_ex)}, bytes. */
    public static final long SIZEOF = 400;
    public static final long device_cap_flags_ex$OFFSET = 280;

    private IbvDeviceAttrEx() {}
}
