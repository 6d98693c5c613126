package org.verbs4j;

/**
 * A reusable array of send WRs made by a QP ({@link QueuePair#prepareSends(int)}), filled slot by slot and
 * posted with one {@code ibv_post_send} per {@link #post(int)}. On a native provider each slot is a
 * {@code struct ibv_send_wr} with room for the QP's SGEs, and the setters store into it: a post has nothing
 * left to copy, unlike {@link QueuePair#postSend(java.util.List)}, which copies each {@link SendWr}. It is the
 * verbs4j form of a stateful verbs call (DiSNI's {@code SVCPostSend}), with the checks of {@code postSend}.
 *
 * <p>A slot starts as a SEND with no SGE, no flags and {@code wrId} 0, as a new {@link SendWr} does, and keeps
 * its values from post to post until a setter changes them. A typical user sets every slot once and then, for
 * each post, only what changes (the {@code wrId}, the {@link SendFlags#SIGNALED} flag, an address).
 *
 * <p><b>The rules of {@code postSend} hold, checked once:</b> a post refuses exactly the WRs that
 * {@link QueuePair#postSend(java.util.List)} refuses, in the same way, with {@link PostSendException}
 * ({@code EINVAL} for an opcode outside the QP type's column of the seed table, unknown flags,
 * {@code IP_CSUM} without the device capability, more inline bytes than the QP was granted, inline data
 * outside the protection domain's live registered regions, a closed or foreign address handle on a UD QP, a
 * QP not in RTS, SQD, SQE or ERR; {@code ENOMEM} and others from the device). A setter checks the Java shape
 * of what it is given (slot index, SGE index, null); what depends on the slot as a whole, or can change
 * after it was set (a region deregistered, an address handle closed, the QP's state), is checked at the post.
 *
 * <p><b>Threads and memory safety.</b> The array belongs to the thread that made it: every setter and
 * {@link #post(int)} from another thread throws {@link IllegalStateException}, so that no other thread can
 * change a slot between the post's checks and the device reading it. {@link #close()} may be called from any
 * thread. No sequence of calls crashes the JVM: after {@code close()} of the array, a setter or a post throws
 * {@link IllegalStateException} (the slot memory is released only when no post is running, and a setter racing
 * {@code close()} from another thread throws); after {@code close()} of its QP, or of the QP's protection domain
 * or context, a post throws {@link IllegalStateException}; inline data whose region was deregistered or whose
 * arena was closed is refused at the post.
 *
 * <p>Not available for {@link WrOpcode#BIND_MW} and {@link WrOpcode#TSO}, whose WRs hold objects: post those
 * with {@link QueuePair#postSend(SendWr)}. Allocates nothing per setter and per post.
 *
 * @see "ibv_post_send(3)"
 */
public interface PreparedSends extends AutoCloseable {
    /** {@return the number of slots, fixed at creation} */
    int capacity();

    /** {@return the SGEs each slot has room for: the QP's {@code max_send_sge}, at least 1} */
    int maxSge();

    /**
     * Sets a slot's {@code wr_id}, returned in its completion.
     *
     * @param slot the slot, 0 to {@code capacity() - 1}
     * @param wrId any 64-bit value
     * @return this array
     * @throws IndexOutOfBoundsException if {@code slot} is outside the array
     * @throws IllegalStateException if the array is closed or the caller is not the thread that made it
     */
    PreparedSends wrId(int slot, long wrId);

    /**
     * Sets a slot's opcode. The fields the opcode reads keep the values set before, whichever opcode was
     * set then. An opcode the QP type does not accept is refused at the post, as {@code postSend} refuses it.
     *
     * @param slot the slot, 0 to {@code capacity() - 1}
     * @param opcode the opcode, not {@link WrOpcode#BIND_MW} or {@link WrOpcode#TSO}
     * @return this array
     * @throws NullPointerException if {@code opcode} is null
     * @throws IllegalArgumentException for {@code BIND_MW} or {@code TSO}
     * @throws IndexOutOfBoundsException if {@code slot} is outside the array
     * @throws IllegalStateException if the array is closed or the caller is not the thread that made it
     */
    PreparedSends opcode(int slot, WrOpcode opcode);

    /**
     * Sets a slot's send flags ({@link SendFlags}). Flags the device does not take are refused at the post.
     *
     * @param slot the slot, 0 to {@code capacity() - 1}
     * @param flags a bit set of {@link SendFlags}
     * @return this array
     * @throws IndexOutOfBoundsException if {@code slot} is outside the array
     * @throws IllegalStateException if the array is closed or the caller is not the thread that made it
     */
    PreparedSends sendFlags(int slot, int flags);

    /**
     * Sets a slot's immediate data, read by {@code SEND_WITH_IMM} and {@code RDMA_WRITE_WITH_IMM}.
     *
     * @param slot the slot, 0 to {@code capacity() - 1}
     * @param imm 32 bits, in host order (sent in network order)
     * @return this array
     * @throws IndexOutOfBoundsException if {@code slot} is outside the array
     * @throws IllegalStateException if the array is closed or the caller is not the thread that made it
     */
    PreparedSends immData(int slot, int imm);

    /**
     * Sets the rkey a {@code SEND_WITH_INV} or {@code LOCAL_INV} slot invalidates.
     *
     * @param slot the slot, 0 to {@code capacity() - 1}
     * @param rkey the 32-bit key
     * @return this array
     * @throws IndexOutOfBoundsException if {@code slot} is outside the array
     * @throws IllegalStateException if the array is closed or the caller is not the thread that made it
     */
    PreparedSends invalidateRkey(int slot, int rkey);

    /**
     * Sets SGE {@code index} of a slot's gather list. Only the first {@link #numSge} SGEs are posted.
     *
     * @param slot the slot, 0 to {@code capacity() - 1}
     * @param index the SGE, 0 to {@code maxSge() - 1}
     * @param addr the virtual address of the first byte
     * @param length the length in bytes, unsigned 32 bits
     * @param lkey the local key of the region holding the bytes (ignored for inline data)
     * @return this array
     * @throws IndexOutOfBoundsException if {@code slot} is outside the array or {@code index} is outside
     *     {@code [0, maxSge())}
     * @throws IllegalStateException if the array is closed or the caller is not the thread that made it
     */
    PreparedSends sge(int slot, int index, long addr, int length, int lkey);

    /**
     * Sets how many of a slot's SGEs are posted ({@code num_sge}).
     *
     * @param slot the slot, 0 to {@code capacity() - 1}
     * @param count 0 to {@code maxSge()}
     * @return this array
     * @throws IllegalArgumentException if {@code count} is outside {@code [0, maxSge()]}
     * @throws IndexOutOfBoundsException if {@code slot} is outside the array
     * @throws IllegalStateException if the array is closed or the caller is not the thread that made it
     */
    PreparedSends numSge(int slot, int count);

    /**
     * Sets the remote side of an RDMA WRITE, WRITE with immediate, READ or FLUSH slot.
     *
     * @param slot the slot, 0 to {@code capacity() - 1}
     * @param remoteAddr the remote virtual address
     * @param rkey the remote key
     * @return this array
     * @throws IndexOutOfBoundsException if {@code slot} is outside the array
     * @throws IllegalStateException if the array is closed or the caller is not the thread that made it
     */
    PreparedSends rdma(int slot, long remoteAddr, int rkey);

    /**
     * Sets the operands of an atomic slot (8 bytes at an 8-byte-aligned remote address).
     *
     * @param slot the slot, 0 to {@code capacity() - 1}
     * @param remoteAddr the remote virtual address
     * @param compareAdd the value compared ({@code CMP_AND_SWP}) or added ({@code FETCH_AND_ADD})
     * @param swap the value swapped in ({@code CMP_AND_SWP})
     * @param rkey the remote key
     * @return this array
     * @throws IndexOutOfBoundsException if {@code slot} is outside the array
     * @throws IllegalStateException if the array is closed or the caller is not the thread that made it
     */
    PreparedSends atomic(int slot, long remoteAddr, long compareAdd, long swap, int rkey);

    /**
     * Sets the destination of a slot on a UD QP. The handle must be open, of this QP's provider and context,
     * when the slot is posted, and the QPN must fit 24 bits (the BTH's DestQP, IBA 9.2); otherwise the post
     * refuses the slot with {@code EINVAL}.
     *
     * @param slot the slot, 0 to {@code capacity() - 1}
     * @param ah the address handle
     * @param remoteQpn the destination QPN, 24 bits
     * @param remoteQkey the destination Q_Key
     * @return this array
     * @throws IndexOutOfBoundsException if {@code slot} is outside the array
     * @throws IllegalStateException if the array is closed or the caller is not the thread that made it
     */
    PreparedSends ud(int slot, AddressHandle ah, int remoteQpn, int remoteQkey);

    /**
     * Sets the remote SRQ number of a slot on an XRC_SEND QP.
     *
     * @param slot the slot, 0 to {@code capacity() - 1}
     * @param srqn the SRQ number, 24 bits
     * @return this array
     * @throws IndexOutOfBoundsException if {@code slot} is outside the array
     * @throws IllegalStateException if the array is closed or the caller is not the thread that made it
     */
    PreparedSends remoteSrqn(int slot, int srqn);

    /**
     * Sets every field of a slot from a WR: its opcode, flags, {@code wrId}, immediate data, invalidated
     * rkey, gather list, remote address and rkey, atomic operands, UD destination and remote SRQ number.
     *
     * @param slot the slot, 0 to {@code capacity() - 1}
     * @param wr the WR; not kept
     * @return this array
     * @throws NullPointerException if {@code wr} or one of its first {@code numSge} SGEs is null
     * @throws IllegalArgumentException for {@code BIND_MW} or {@code TSO}, or more SGEs than {@link #maxSge()}
     * @throws IndexOutOfBoundsException if {@code slot} is outside the array
     * @throws IllegalStateException if the array is closed or the caller is not the thread that made it
     */
    PreparedSends set(int slot, SendWr wr);

    /**
     * Posts slots 0 to {@code n - 1}, in order, with one {@code ibv_post_send}, under the QP's send lock as
     * {@link QueuePair#postSend(java.util.List)} does. The post stops at the first slot that fails: the slots
     * before it stay posted and will complete; that slot and the ones after it are not posted. The slots
     * keep their values for the next post.
     *
     * @param n the number of slots to post, 1 to {@code capacity()}
     * @throws PostSendException with the errno and the index of the first slot not posted ({@code bad_wr})
     * @throws IllegalArgumentException if {@code n} is outside {@code [1, capacity()]}
     * @throws IllegalStateException if the array or the QP is closed, the caller is not the thread that made
     *     the array, or the caller has the QP's {@link WrSession} open
     * @throws WrongThreadException on a QP created with a thread domain that another live thread owns
     *     ({@link QueuePair}: threads)
     * @see "ibv_post_send(3)"
     */
    void post(int n);

    /** {@return whether {@link #close()} was called} */
    boolean isClosed();

    /**
     * Releases the slots' memory, from any thread, once no post is running; a second call does nothing.
     * WRs already posted are not affected. Dropping the array unclosed releases it when it is collected. On a QP
     * created with a thread domain, a close from a thread other than the QP's live owner closes the array at once
     * but leaves its memory to be released when the array is collected, since only the owner can know that no
     * post of it is running.
     */
    @Override
    void close();
}
