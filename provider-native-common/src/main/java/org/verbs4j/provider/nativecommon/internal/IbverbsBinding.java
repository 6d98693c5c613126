package org.verbs4j.provider.nativecommon.internal;

/**
 * libibverbs as the shared native object model ({@code Native*} in this package) sees it, split by library and by
 * object (issue 28): {@link NativeMemoryAccess} (fields by address), {@link CLibrary} (libc), {@link CoreVerbs}
 * (the exported verbs), {@link ContextOps} (the ops of {@code ibv_context} and {@code verbs_context}),
 * {@link QpExOps} (the WR session of {@code ibv_qp_ex}) and {@link CqExOps} (the poll ops of {@code ibv_cq_ex});
 * librdmacm is {@link LibRdmaCm}, apart. Every object is its address. {@code provider-ffm} and
 * {@code provider-jnr} each implement it once, in their {@code internal} package; only one of them is loaded in a
 * JVM that uses a native provider, so the calls stay monomorphic. A binding only calls and copies: it checks
 * nothing, so the caller passes only addresses of live objects (the object model checks that the object is open
 * first).
 *
 * <p><b>Errors:</b> one contract, {@link NativeErrors}': every call answers its result or −errno, except the
 * hand-written data path ({@code post_send}, {@code post_recv}, {@code poll_cq}, {@code start_poll},
 * {@code next_poll}, {@code wr_complete}), which answers the op's raw result for its callers to hand to {@link NativeErrors} on the
 * failure branch.
 *
 * <p><b>Data path and control path:</b> the data path is {@link ContextOps#postSend}, {@link ContextOps#postRecv},
 * {@link ContextOps#pollCq}, all of {@link QpExOps} and {@link CqExOps}, and their {@code *Critical} twins: written
 * by hand in each binding, one downcall and no allocation each. Everything else is control path.
 */
public interface IbverbsBinding extends NativeMemoryAccess, CLibrary, CoreVerbs, ContextOps, QpExOps, CqExOps {
    /**
     * Whether this binding makes the {@code *Critical} calls of {@link ContextOps}, {@link QpExOps} and
     * {@link CqExOps} without a thread-state transition (FFM's {@code Linker.Option.critical}); false means they
     * are the ordinary calls.
     *
     * @return whether it does
     */
    default boolean hasCriticalCalls() {
        return false;
    }

    /**
     * The file of the shared object that holds a function, as {@code dladdr(3)} names it: for a context op, the
     * provider library whose code the op runs.
     *
     * @param fn the function's address, not 0
     * @return the object's path as the dynamic linker loaded it, or null if the binding cannot tell
     */
    default String libraryOf(long fn) {
        return null;
    }
}
