package org.verbs4j.provider.nativecommon.internal;

/**
 * Whether an extended CQ of a device is polled in batches, as {@code ibv_create_cq_ex(3)} describes: one
 * {@code start_poll}, then {@code next_poll} until the batch is full or it answers an error ({@code ENOENT} when the
 * CQ has no further completion), then one {@code end_poll}. Decided once per context; {@link NativeCompletionQueue}
 * polls one completion per {@code start_poll}/{@code end_poll} pair where it is false, which is correct on every
 * library.
 *
 * <p>It is false on librxe, whose batch is broken before rdma-core 61: before 55 its {@code next_poll} stores the
 * consumer index itself when it answers {@code ENOENT}, and the {@code end_poll} the man page asks for then
 * advances it once more, past the producer (later completions are lost, or garbage is read); before 61 that
 * {@code end_poll} also unlocks the CQ's spinlock a second time. The binding cannot see rdma-core's version, so
 * librxe always takes the pair path. librxe is recognised by either of two facts, each enough alone:
 * <ul>
 *   <li>{@code vendor_id} of {@code ibv_query_device(3)} is {@code 0xFFFFFF}: the kernel's rxe driver
 *       reports it (its {@code RXE_VENDOR_ID}) since Linux 5.8 (backported to the 5.7 stable series), and librxe
 *       serves only rxe devices (it matches the kernel's driver id {@code RDMA_DRIVER_RXE}). It is no assigned
 *       OUI: IBTA A3.3.1 leaves it to a generic controller without vendor drivers, so hardware with a provider
 *       library of its own does not report it; any device that does is taken for rxe, which costs it only the
 *       batch.</li>
 *   <li>the provider library whose code the context's ops run, as {@link IbverbsBinding#libraryOf}
 *       ({@code dladdr(3)}) names it, is librxe: this covers the older kernels, whose rxe reported
 *       {@code vendor_id} 0.</li>
 * </ul>
 */
public final class BatchPolling {
    /** The {@code vendor_id} of the kernel's rxe driver, {@code RXE_VENDOR_ID} of its {@code rxe_param.h}. */
    public static final int RXE_VENDOR_ID = 0xFFFFFF;
    /** librxe's short name ({@link CriticalDataPath#provider}): {@code librxe-rdmav34.so}. */
    static final String RXE_LIBRARY = "rxe";

    private BatchPolling() {}

    /**
     * Whether a context's extended CQs are polled in batches.
     *
     * @param binding the provider's binding
     * @param vendorId {@code vendor_id} of the device's {@code ibv_query_device}
     * @param op an op of the context that its provider library implements ({@code ops.post_send}), or 0
     * @return false for librxe (see above), true for any other library
     */
    public static boolean decide(IbverbsBinding binding, int vendorId, long op) {
        return decide(vendorId, op == 0 ? null : CriticalDataPath.provider(binding.libraryOf(op)));
    }

    /**
     * The choice, from its inputs.
     *
     * @param vendorId the device's {@code vendor_id}
     * @param provider the provider library's short name, or null if the binding cannot name it
     * @return whether extended CQs are polled in batches
     */
    static boolean decide(int vendorId, String provider) {
        return vendorId != RXE_VENDOR_ID && !RXE_LIBRARY.equals(provider);
    }
}
