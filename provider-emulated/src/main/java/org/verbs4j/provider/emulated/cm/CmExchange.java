package org.verbs4j.provider.emulated.cm;

import org.verbs4j.ConnectionParameters;

/**
 * How an emulated id's CM messages reach the other end: REQ (connect), REP and RTU (accept), REJ (reject), DREQ
 * and DREP (disconnect). An id takes its device's exchange once, when it is bound or resolved to the device
 * ({@link EmulatedCmId#attach}): {@link InJvmCmExchange} for an in-JVM device, where both ends change in one
 * step, or the wire device's {@link CmAgent}, which speaks the IB CM protocol to a peer in another process.
 *
 * <p>The id has checked its state and its QP before each call; every call holds the connection manager's lock,
 * and each raises the same events and makes the same QP transitions on either path.
 */
public interface CmExchange {
    /** REQ: the id, route resolved and with a QP, asks the listener at its remote address for a connection. */
    void connect(EmulatedCmId self, ConnectionParameters parameters);

    /** REP (and RTU from the other end): the id of a connect request, with a QP, accepts it. */
    void accept(EmulatedCmId self, ConnectionParameters parameters);

    /**
     * REJ: the id refuses a connect request, or gives up its own pending connect at close; the other end gets
     * REJECTED with {@code reason} and {@code privateData}.
     */
    void reject(EmulatedCmId self, int reason, byte[] privateData);

    /** DREQ: the id disconnects first; its DISCONNECTED comes with the other end's DREP. */
    void sendDreq(EmulatedCmId self);

    /** DREP: the id answers the other end's DREQ; the connection is over. */
    void sendDrep(EmulatedCmId self);
}
