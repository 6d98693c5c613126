package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.Gid;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.spi.support.AbstractVerbsObject;

/**
 * What the shared native objects ({@link NativeProtectionDomain}, {@link NativeCompletionQueue},
 * {@link NativeMemoryRegion}, {@link NativeMemoryWindow}, {@link NativeAddressHandle}, {@link NativeThreadDomain},
 * {@link NativeCompletionChannel}) need from the
 * context that owns them. {@link NativeContext} implements it for both providers and extends
 * {@link AbstractVerbsObject}; the tests implement it over a recording binding.
 */
public interface NativeContextSupport extends Context {
    /**
     * The binding every object of the context calls.
     *
     * @return the one binding of the provider
     */
    IbverbsBinding binding();

    /**
     * An op of {@code ibv_context.ops}, as the inline functions of {@code verbs.h} call it.
     *
     * @param opsOffset the op's offset in {@code struct ibv_context}
     * @return its address, or 0 if it is not set
     */
    long contextOp(long opsOffset);

    /**
     * An op of {@code struct verbs_context}, as {@code verbs_get_ctx_op} finds it.
     *
     * @param offset the op's offset in {@code struct verbs_context}
     * @return its address, or 0 if the context is not extended, its size does not cover the op, or it is not
     *     set
     */
    long verbsContextOp(long offset);

    /**
     * The address of a control-path op declared in {@link LibIbverbsOps}, found from its declaration alone: the
     * {@link COp#struct} says whether it is a member of {@code ibv_context.ops} ({@link #contextOp}) or of
     * {@code struct verbs_context} ({@link #verbsContextOp}, with its size check), and the method's name is the
     * member's. Pass the result as the op's first argument; an address of 0 makes the call answer
     * {@code -EOPNOTSUPP}.
     *
     * @param member the op, named as in {@code verbs.h} and in {@link LibIbverbsOps}
     * @return its address, or 0 if the context does not have it
     * @throws IllegalArgumentException if {@link LibIbverbsOps} declares no op of that name, or it is an op of an
     *     object ({@link DeclaredOps#objectOp})
     */
    default long op(String member) {
        DeclaredOps.Member m = DeclaredOps.member(member);
        if (!m.ofContext()) {
            throw new IllegalArgumentException(member + " is an op of struct " + m.struct() + ", not of the context");
        }
        return m.extended() ? verbsContextOp(m.offset()) : contextOp(m.offset());
    }

    /**
     * Records a native object made from this context, so that the context can find it by address and
     * destroy it if it is never closed.
     *
     * @param kind what it is
     * @param address its native address
     * @param object its Java object
     */
    void track(NativeKind kind, long address, AbstractVerbsObject object);

    /**
     * Forgets an object {@link #track}ed before, after its destroy verb succeeded.
     *
     * @param kind what it is
     * @param address its native address
     * @param object its Java object
     */
    void untrack(NativeKind kind, long address, AbstractVerbsObject object);

    /**
     * Records that a {@link #track}ed QP was attached to or detached from a multicast group, so that a context
     * never closed detaches it before its destroy verb: the kernel refuses to destroy an attached QP ({@code EBUSY}).
     *
     * @param qp the QP's native address
     * @param gid the group
     * @param lid the 16-bit LID
     * @param attached true after {@code ibv_attach_mcast}, false after {@code ibv_detach_mcast}
     */
    void multicastChanged(long qp, Gid gid, int lid, boolean attached);

    // ---- npd (issue 12): what the shared protection domain and completion queue need ----

    /** {@return the {@code struct ibv_context *}; the caller checks that the context is open} */
    long contextHandle();

    /**
     * Checks a port number against the device's ports.
     *
     * @param portNum the port number
     * @throws IllegalArgumentException if the device has no such port
     */
    void checkPort(int portNum);

    /**
     * Allocates zeroed native memory that lives until {@link #free} or until the context is destroyed.
     *
     * @param bytes its size in bytes
     * @return its address
     */
    long allocate(long bytes);

    /**
     * Frees memory {@link #allocate} returned.
     *
     * @param address its address
     */
    void free(long address);

    /**
     * The live completion queue of this context at a native address, as a completion event names it.
     *
     * @param cq the {@code struct ibv_cq *}
     * @return it, or null if no live CQ of this context has that address
     */
    CompletionQueue completionQueueAt(long cq);

    // ---- nqp: what NativeQueuePair, NativeSharedReceiveQueue and NativeQueuePairs need of the context

    /** {@return {@code device_cap_flags_ex} of {@code ibv_query_device_ex}, 0 without the extended query} */
    long deviceCapFlagsEx();

    /** {@return whether the device offloads IP checksums, so that sends may carry {@code IP_CSUM}} */
    boolean ipCsum();

    /**
     * A completion queue argument of this context.
     *
     * @param cq the argument
     * @param what what it is, for the exception
     * @return it, as its object
     * @throws IllegalArgumentException if it is not a CQ of this provider
     * @throws IllegalStateException if it is closed or belongs to another context
     */
    AbstractVerbsObject siblingCq(Object cq, String what);

    /**
     * The {@code struct ibv_cq *} of a CQ {@link #siblingCq} gave.
     *
     * @param cq the CQ
     * @return its address
     */
    long cqHandle(AbstractVerbsObject cq);

    // ---- sess (issue 14)

    /**
     * Whether the data-path ops of this context's device ({@code post_send}, {@code post_recv},
     * {@code poll_cq}, {@code wr_start}, {@code wr_complete}, {@code start_poll}, {@code next_poll},
     * {@code end_poll}) are called as critical downcalls; decided once per context by {@link CriticalDataPath}.
     *
     * @return whether they are; false by default
     */
    default boolean criticalDataPath() {
        return false;
    }

    /**
     * Whether this context's extended CQs are polled in batches ({@code start_poll}, {@code next_poll} until the
     * batch is full, {@code end_poll}) rather than one completion per {@code start_poll}/{@code end_poll} pair;
     * decided once per context by {@link BatchPolling}.
     *
     * @return whether they are; false by default, the pair that is correct on every library
     */
    default boolean batchPolling() {
        return false;
    }
}
