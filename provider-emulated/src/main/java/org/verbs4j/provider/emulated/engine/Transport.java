package org.verbs4j.provider.emulated.engine;

/**
 * The seam between a QP's requester and its peer's responder: the requester hands each request message
 * here, and the transport carries it to the responder and brings back the answer (an ACK, a NAK, a READ
 * response or an atomic response), which the completer then acts on. Each QP has its own transport.
 *
 * <p>The answer comes back in one of two ways. A transport that reaches the responder on the calling thread
 * (in the JVM) returns it from {@link #request}. A transport that sends packets returns {@link #IN_FLIGHT}
 * and later, holding the QP's lock, hands the answer to {@link Requester#answer}. Meanwhile the requester may
 * hand it the WQEs behind (several messages in flight, as rxe pipelines them); the answers come in the order of
 * the requests, each for the oldest unanswered one, and once a request is in flight every later one is in flight
 * too (never answered at once). After an {@link #RNR_NAK} answer, the requester hands the oldest WQE over again:
 * the transport then sends it, and those in flight behind it, once more.
 *
 * <p>The request is the requester's {@link SendWqe} itself: its header fields (opcode, rkey, remote address,
 * immediate data, UD destination) and its payload (the gather list as resolved by the requester, or the
 * inline buffer). A READ or atomic response is written into the WQE's resolved local buffers. A transport
 * that crosses a wire serializes the same fields into packets and writes the responses back the same way.
 *
 * <p>Every method is called holding the requesting QP's lock.
 */
public interface Transport {
    /** An answer: the responder dropped the message (UC, UD, or no peer on UC); the requester succeeds. */
    int DROPPED = -1;
    /** An answer: an RNR NAK, the responder has no receive posted (RC). */
    int RNR_NAK = -3;
    /** An answer: the request was sent and its answer will come through {@link Requester#answer}. */
    int IN_FLIGHT = -4;
    /**
     * The destination QPN of every multicast datagram: a UD send to a multicast GID with this remote QPN reaches the
     * QPs attached to the group (IBA 10.5.2: DestQP 0xFFFFFF; rxe's {@code IB_MULTICAST_QPN}).
     */
    int MULTICAST_QPN = 0xffffff;

    /**
     * Carries a request to the responder and returns its answer: a {@code WcStatus} value ({@code SUCCESS}
     * is an ACK; an error is a NAK, or a local error in reaching the destination), {@link #DROPPED} or
     * {@link #RNR_NAK}, or {@link #IN_FLIGHT}. A UC request is answered {@code SUCCESS} or {@link #DROPPED}
     * only, whatever the responder found: UC has no acknowledgements, so the requester never learns of a refusal.
     * A WQE handed over again after an {@link #RNR_NAK} that came through {@link Requester#answer} is in flight
     * again: the answer is {@link #IN_FLIGHT}.
     */
    int request(SendWqe w);

    /**
     * After an {@link #RNR_NAK}: asks the responder to wake this QP when a receive is posted there, and
     * returns the responder's {@code min_rnr_timer} code, after which the requester retries anyway.
     */
    int awaitReceive();

    /**
     * The QP's attributes changed ({@code attrMask}: the {@code QpAttrMask} bits set; the new state is
     * already in place): forget any path to the peer resolved before.
     */
    void reset(int attrMask);
}
