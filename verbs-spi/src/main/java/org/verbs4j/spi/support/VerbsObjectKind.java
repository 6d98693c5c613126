package org.verbs4j.spi.support;

/**
 * The kinds of verbs object, each with the name of its API interface and its destroy verb, in the order a context
 * that closes destroys what is left of them. This is the one place both are written: {@link AbstractVerbsObject}
 * names the destroy verb in its errors and closes an owner's objects in this order, and provider-native-common
 * frees the native objects a context still holds in it.
 *
 * <p>Windows come first: on rxe, destroying the QP that bound a type 2 window while the window is still allocated
 * takes about 50 s, and deallocating the window first about 13 ms (issue 13). Then every kind comes before the
 * kinds it uses: a QP before the CQs, SRQ, PD and thread domain it was made with, a CQ before its completion
 * channel, a parent domain before its thread domain and PD, and the context last.
 *
 * @see "ibv_dealloc_mw(3), ibv_destroy_qp(3), ibv_destroy_srq(3), ibv_close_xrcd(3), ibv_destroy_ah(3), ibv_dereg_mr(3),
 *      ibv_destroy_cq(3), ibv_destroy_comp_channel(3), ibv_alloc_parent_domain(3), ibv_alloc_td(3),
 *      ibv_alloc_pd(3), ibv_close_device(3)"
 */
public enum VerbsObjectKind {
    /** A memory window ({@code ibv_alloc_mw(3)}), type 1 or 2. */
    MEMORY_WINDOW("MemoryWindow", "ibv_dealloc_mw"),
    /** A queue pair ({@code ibv_create_qp(3)}). */
    QUEUE_PAIR("QueuePair", "ibv_destroy_qp"),
    /** A shared receive queue ({@code ibv_create_srq(3)}). */
    SHARED_RECEIVE_QUEUE("SharedReceiveQueue", "ibv_destroy_srq"),
    /** An XRC domain ({@code ibv_open_xrcd(3)}), closed after its SRQs and XRC_RECV QPs. */
    XRC_DOMAIN("XrcDomain", "ibv_close_xrcd"),
    /** An address handle ({@code ibv_create_ah(3)}). */
    ADDRESS_HANDLE("AddressHandle", "ibv_destroy_ah"),
    /** A memory region ({@code ibv_reg_mr(3)}). */
    MEMORY_REGION("MemoryRegion", "ibv_dereg_mr"),
    /** A buffer of device memory ({@code ibv_alloc_dm(3)}), freed after the regions registered on it. */
    DEVICE_MEMORY("DeviceMemory", "ibv_free_dm"),
    /** A completion queue ({@code ibv_create_cq(3)}). */
    COMPLETION_QUEUE("CompletionQueue", "ibv_destroy_cq"),
    /** A completion channel ({@code ibv_create_comp_channel(3)}). */
    COMPLETION_CHANNEL("CompletionChannel", "ibv_destroy_comp_channel"),
    /** A PD with a thread domain, which a provider makes for a QP or CQ of that domain; no API interface. */
    PARENT_DOMAIN("ParentDomain", "ibv_dealloc_pd"),
    /** A thread domain ({@code ibv_alloc_td(3)}). */
    THREAD_DOMAIN("ThreadDomain", "ibv_dealloc_td"),
    /** A protection domain ({@code ibv_alloc_pd(3)}). */
    PROTECTION_DOMAIN("ProtectionDomain", "ibv_dealloc_pd"),
    /** A device context ({@code ibv_open_device(3)}). */
    CONTEXT("Context", "ibv_close_device");

    private final String interfaceName;
    private final String destroyVerb;

    VerbsObjectKind(String interfaceName, String destroyVerb) {
        this.interfaceName = interfaceName;
        this.destroyVerb = destroyVerb;
    }

    /** {@return the simple name of the kind's API interface, as {@link AbstractVerbsObject}'s kind names it} */
    public String interfaceName() {
        return interfaceName;
    }

    /** {@return the libibverbs verb that destroys an object of this kind, for errors} */
    public String destroyVerb() {
        return destroyVerb;
    }

    /**
     * The kind whose API interface has this simple name.
     *
     * @param interfaceName the simple name, such as {@code "QueuePair"}
     * @return the kind, or null if no kind's interface has that name
     */
    public static VerbsObjectKind ofInterface(String interfaceName) {
        for (VerbsObjectKind k : values()) {
            if (k.interfaceName.equals(interfaceName)) {
                return k;
            }
        }
        return null;
    }
}
