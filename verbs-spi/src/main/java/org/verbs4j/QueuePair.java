package org.verbs4j;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A queue pair, {@code struct ibv_qp} / {@code struct ibv_qp_ex}.
 *
 * <p>A QP is created in RESET and moved through INIT, RTR and RTS with {@link #modify}. Send work is
 * posted either with {@link #postSend} ({@code ibv_post_send}) or, on a QP created with
 * {@code sendOps}, inside a {@link WrSession} ({@code ibv_wr_*}). The two may interleave, but never
 * inside each other's critical section.
 *
 * <p>The buffers of a non-inline WR belong to the device until its completion has been polled.
 *
 * <p><b>Threads.</b> A QP's send queue may be used from any thread: {@code postSend}, the WR session, a
 * {@link PreparedSends}' post and a type 1 {@link #bindMw} take the QP's send lock, one atomic compare-and-set
 * per post. A QP created with a {@link ThreadDomain} ({@link QpInitAttributes#threadDomain()}) is instead
 * <em>confined</em>, as a segment of {@link java.lang.foreign.Arena#ofConfined()} is: the first thread that posts
 * to it (any of the four) or closes it owns it, and takes no lock; from any other thread those calls, and the
 * QP's {@link #close()} (or its context's), throw {@link WrongThreadException} while the owner is alive, and
 * change nothing. The thread that makes and connects the QP need not be its owner. Once the owner has
 * terminated, the next thread takes the QP over. {@code modify}, {@code query} and {@code postRecv} are not
 * confined.
 *
 * @see "ibv_create_qp_ex(3)"
 * @see "ibv_modify_qp(3)"
 * @see "ibv_post_send(3)"
 * @see "ibv_wr_post(3)"
 */
public interface QueuePair extends VerbsObject {
    /** {@return the protection domain the QP was created in; null for an XRC_RECV QP, which has none} */
    ProtectionDomain pd();

    /** {@return the QP's transport} */
    QpType type();

    /** {@return the QP's 24-bit number} */
    int qpNum();

    /** {@return the current state, as the last modify or the device left it} */
    QpState state();

    /** {@return what the QP was created with; {@link QpInitAttributes#cap()} gives the granted sizes} */
    QpInitAttributes initAttributes();

    /**
     * Modifies the attributes named by {@link QpAttributes#mask()}.
     *
     * @param attributes the attributes to set; only those in its mask are applied
     * @throws IllegalArgumentException if an AV names a port the device lacks
     * @throws VerbsException {@code EINVAL} for an illegal transition, a missing required attribute,
     *     an attribute not allowed in the transition, or an alternate path ({@code ALT_PATH}) on a RoCE port,
     *     where Linux allows none; the QP keeps its state
     * @see "ibv_modify_qp(3)"
     */
    void modify(QpAttributes attributes);

    /**
     * Every attribute of the QP.
     *
     * @return the attributes, with the mask of those the provider filled
     * @see "ibv_query_qp(3)"
     */
    QpAttributes query();

    /**
     * Posts one receive WR.
     *
     * @param wr the receive WR; its SGEs are read during the call
     * @throws IllegalStateException if the QP uses an SRQ
     * @throws PostRecvException {@code EINVAL} in RESET or for too many SGEs, {@code ENOMEM} when the receive queue is full
     * @see "ibv_post_recv(3)"
     */
    void postRecv(RecvWr wr);

    /**
     * Posts receive WRs in order, stopping at the first that fails; the ones before it stay posted.
     *
     * @param wrs the receive WRs, in order
     * @throws PostRecvException with the index of the first WR not posted
     * @see "ibv_post_recv(3)"
     */
    void postRecv(List<RecvWr> wrs);

    /**
     * Posts one send WR.
     *
     * <p>With {@link SendFlags#INLINE} the library copies the gather list on the CPU, ignoring the lkey. Every
     * byte it copies must lie inside one live region registered in this QP's protection domain (a region
     * whose arena was closed does not count); otherwise the WR is refused with {@code EINVAL} and nothing is
     * read, so a bad address can neither crash the JVM nor leak memory that was never registered.
     *
     * @param wr the send WR; it may be reused once the call returns
     * @throws NullPointerException naming the argument for a null WR or a null entry of its gather list
     * @throws IllegalStateException if the QP is closed
     * @throws WrongThreadException on a QP created with a thread domain that another live thread owns
     * @throws PostSendException index 0: {@code EINVAL} for an opcode the QP type does not accept, bad flags,
     *     too many SGEs, too much inline data, inline data outside the PD's live regions, or a QP not in
     *     RTS/SQD/SQE/ERR; {@code ENOMEM} when the send queue is full
     * @see "ibv_post_send(3)"
     */
    void postSend(SendWr wr);

    /**
     * Posts send WRs in order, stopping at the first that fails; the ones before it stay posted and will
     * complete. Allocates nothing.
     *
     * @param wrs the send WRs, in order
     * @throws WrongThreadException on a QP created with a thread domain that another live thread owns
     * @throws PostSendException with the errno and the index of the first WR not posted ({@code bad_wr})
     * @see "ibv_post_send(3)"
     */
    void postSend(List<SendWr> wrs);

    /**
     * Opens this QP's WR session ({@code ibv_wr_start}) and returns it. The same session object is returned
     * every time. The session is a per-QP critical section: another thread calling {@code startWr()} blocks
     * until {@link WrSession#complete()} or {@link WrSession#abort()}, and so do another thread's
     * {@link #postSend(SendWr)} and {@link PreparedSends#post(int)} on this QP. An interrupt does not end that wait:
     * the thread keeps waiting and returns with its interrupt status set, as {@code ReentrantLock.lock()} does. On a
     * QP created with a thread domain only its owner thread opens it (see the class comment), and nothing blocks.
     *
     * @return the QP's session, open
     * @throws IllegalStateException if the QP was created without {@code sendOps}, or the calling thread
     *     already has this session open
     * @throws WrongThreadException on a QP created with a thread domain that another live thread owns
     * @see "ibv_wr_post(3) ibv_wr_start"
     */
    WrSession startWr();

    /**
     * Binds a type 1 memory window ({@code ibv_bind_mw}). The bind is a send WR: it completes with
     * {@link WcOpcode#BIND_MW} when signaled.
     *
     * @param mw the type 1 window to bind
     * @param wrId the WR's ID
     * @param sendFlags {@link SendFlags} bits
     * @param bindInfo the region, range and access to bind the window to
     * @return the window's new rkey
     * @throws IllegalArgumentException if the window is not type 1
     * @throws IllegalStateException if the QP or the window is closed
     * @throws WrongThreadException on a QP created with a thread domain that another live thread owns
     * @throws VerbsException {@code EINVAL} if the region lacks {@link AccessFlags#MW_BIND} or the range is
     *     outside it: a negative address, or one before the region's start or past its end, is refused in Java
     *     on every provider, whatever the device checks
     * @see "ibv_bind_mw(3)"
     */
    int bindMw(MemoryWindow mw, long wrId, int sendFlags, MwBindInfo bindInfo);

    /**
     * {@code ibv_query_qp_data_in_order}: with {@code flags} 0, 1 if the WHOLE_MSG guarantee holds for
     * {@code op} and 0 otherwise; with {@link DataInOrder#RETURN_CAPS}, the capability bits
     * ({@link DataInOrder#bit()}). Only RDMA READ, RDMA WRITE and SEND are meaningful; others return 0.
     * On rdma-core older than 50, which accepts only flags 0, native providers give the same answer.
     *
     * @param op the operation asked about
     * @param flags 0, or {@link DataInOrder#RETURN_CAPS}
     * @return the answer: 0 or 1, or the capability bits
     * @throws IllegalArgumentException for unknown flag bits
     * @see "ibv_query_qp_data_in_order(3)"
     */
    int queryDataInOrder(WrOpcode op, int flags);

    /**
     * The typed form of {@code queryDataInOrder(op, RETURN_CAPS)}.
     *
     * @param op the operation asked about
     * @return the guarantees that hold for it, possibly none
     */
    default Set<DataInOrder> dataInOrder(WrOpcode op) {
        return DataInOrder.fromBits(queryDataInOrder(op, DataInOrder.RETURN_CAPS));
    }

    /**
     * Makes a reusable array of {@code capacity} send WR slots for this QP, each with room for
     * {@code initAttributes().cap().maxSendSge()} SGEs (at least 1), posted with one {@code ibv_post_send}
     * per {@link PreparedSends#post(int)}. The array belongs to the calling thread; see {@link PreparedSends}.
     *
     * @param capacity the number of slots, 1 to 65536
     * @return the array, open, every slot a SEND with no SGE
     * @throws IllegalArgumentException if {@code capacity} is outside {@code [1, 65536]}
     * @throws IllegalStateException if the QP is closed
     * @see "ibv_post_send(3)"
     */
    PreparedSends prepareSends(int capacity);

    /**
     * Limits the rate this QP sends at (packet pacing). The device's range is
     * {@link DeviceAttributesEx#packetPacingCaps()}: {@code qp_rate_limit_min} to {@code qp_rate_limit_max} kbps, on
     * the QP types of {@code supported_qpts}; a device that reports none has no packet pacing. This default, for a
     * provider without it, refuses.
     *
     * @param limit the rate and burst; {@link QpRateLimit#UNLIMITED} removes a limit
     * @throws NullPointerException if {@code limit} is null
     * @throws IllegalStateException if the QP is closed
     * @throws VerbsException {@code EOPNOTSUPP} if the device has no packet pacing (rxe); {@code EINVAL} for a rate
     *     outside the device's range or a QP type it does not pace
     * @see "ibv_modify_qp_rate_limit(3)"
     */
    default void modifyRateLimit(QpRateLimit limit) {
        if (isClosed()) {
            throw new IllegalStateException("this object is closed: " + this);
        }
        Objects.requireNonNull(limit, "limit");
        throw new VerbsException("ibv_modify_qp_rate_limit", Errno.EOPNOTSUPP, "the device has no packet pacing");
    }

    /**
     * The Enhanced Connection Establishment options of this QP's device: its vendor and the options it supports,
     * to be sent to the peer. This default, for a device without ECE (rxe, the emulated devices), answers
     * {@code EOPNOTSUPP}, as libibverbs does when the provider has no such verb.
     *
     * @return the options
     * @throws IllegalStateException if the QP is closed
     * @throws VerbsException {@code EOPNOTSUPP} if the device has no ECE; {@code EINVAL} if it refuses the QP
     * @see "ibv_query_ece(3)"
     */
    default Ece queryEce() {
        if (isClosed()) {
            throw new IllegalStateException("this object is closed: " + this);
        }
        throw new VerbsException("ibv_query_ece", Errno.EOPNOTSUPP, "the device has no ECE");
    }

    /**
     * Asks the device to use these ECE options (normally those both sides support, after the exchange) at the next
     * modify QP stages that take them. This default, for a device without ECE, answers {@code EOPNOTSUPP}.
     *
     * @param ece the options, {@code vendorId} that of this QP's device
     * @throws NullPointerException if {@code ece} is null
     * @throws IllegalStateException if the QP is closed
     * @throws VerbsException {@code EOPNOTSUPP} if the device has no ECE; {@code EINVAL} for options, a vendor or
     *     {@code compMask} bits the device does not accept
     * @see "ibv_set_ece(3)"
     */
    default void setEce(Ece ece) {
        if (isClosed()) {
            throw new IllegalStateException("this object is closed: " + this);
        }
        Objects.requireNonNull(ece, "ece");
        throw new VerbsException("ibv_set_ece", Errno.EOPNOTSUPP, "the device has no ECE");
    }

    /**
     * Attaches this UD QP to a multicast group ({@code ibv_attach_mcast}): from then on it receives, besides
     * its unicast datagrams, one copy of every UD send addressed to the group (destination GID {@code gid},
     * remote QPN {@code 0xFFFFFF}) that reaches its port, the sender's own if this QP sent it. Attaching to a
     * group this QP is already attached to with the same {@code lid} succeeds and changes nothing.
     *
     * <p>Closing the QP detaches it from every group first (the kernel refuses {@code ibv_destroy_qp} with
     * {@code EBUSY} while a QP is attached; {@link #close()} does the detaching for the caller).
     *
     * @param gid the group's multicast GID: first byte {@code 0xff}, or an IPv4-mapped multicast address
     *     {@code ::ffff:224.0.0.0/4} (RoCE v2)
     * @param lid the group's multicast LID, 16 bits ({@code 0..0xFFFF}); ignored on an Ethernet (RoCE) port
     * @throws NullPointerException if {@code gid} is null
     * @throws IllegalArgumentException if {@code lid} is outside {@code 0..0xFFFF}
     * @throws IllegalStateException if the QP is closed
     * @throws VerbsException {@code EINVAL} if the QP is not UD or {@code gid} is not a multicast GID;
     *     {@code ENOMEM} if the group already holds {@link DeviceAttributes#maxMcastQpAttach()} QPs, the device
     *     {@link DeviceAttributes#maxMcastGrp()} groups, or all groups together
     *     {@link DeviceAttributes#maxTotalMcastQpAttach()} attachments; {@code EOPNOTSUPP} if the device has no
     *     multicast ({@link DeviceAttributes#maxMcastGrp()} 0)
     * @see "ibv_attach_mcast(3)"
     */
    void attachMulticast(Gid gid, int lid);

    /**
     * Detaches this QP from a multicast group ({@code ibv_detach_mcast}): it receives nothing more sent to the
     * group.
     *
     * @param gid the group's multicast GID, as attached
     * @param lid the LID it was attached with, 16 bits
     * @throws NullPointerException if {@code gid} is null
     * @throws IllegalArgumentException if {@code lid} is outside {@code 0..0xFFFF}
     * @throws IllegalStateException if the QP is closed
     * @throws VerbsException {@code EINVAL} if this QP is not attached to {@code gid} with {@code lid}
     * @see "ibv_detach_mcast(3)"
     */
    void detachMulticast(Gid gid, int lid);

    /**
     * Destroys the QP. Outstanding WRs are discarded without completions.
     *
     * <p>From any thread, and never crashing the JVM: if another thread has the QP's {@link WrSession} open,
     * {@code close()} waits until that thread completes or aborts it; if the calling thread has it open, it is
     * aborted. A {@code postSend}, {@code postRecv} or {@code bindMw} racing {@code close()} on another thread
     * either runs before the QP is destroyed or throws {@link IllegalStateException}. No context-wide lock is
     * held while waiting, so the context keeps creating and closing other objects meanwhile.
     *
     * @see "ibv_destroy_qp(3)"
     */
    @Override
    void close();
}
