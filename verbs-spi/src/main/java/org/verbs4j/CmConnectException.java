package org.verbs4j;

/**
 * A connection the convenience layer ({@link RcEndpoint}, {@link RcListener}) set up did not come up: the
 * connection manager reported another event than the one expected, or none in time.
 */
public class CmConnectException extends VerbsException {
    private static final long serialVersionUID = 1L;

    /** The event that came instead, or null when none came in time. */
    private final CmEventType event;
    /** The event's status. */
    private final int status;
    /** The private data the peer sent with it (a reject's); never null. */
    private final byte[] privateData;

    /**
     * A failed connection step.
     *
     * @param verb the step, such as {@code rdma_connect}
     * @param errno the errno: {@code ECONNREFUSED} for a reject, {@code ETIMEDOUT} when nothing came in time,
     *     else the negated status or {@code EIO}
     * @param event the event that came instead, or null when none came in time
     * @param status the event's status, or 0
     * @param privateData the private data that came with the event; copied; null for none
     */
    public CmConnectException(String verb, int errno, CmEventType event, int status, byte[] privateData) {
        super(verb, errno, event == null ? "no event in time" : event + " with status " + status);
        this.event = event;
        this.status = status;
        this.privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /** {@return the event that came instead of the expected one, or null when none came in time} */
    public CmEventType event() {
        return event;
    }

    /** {@return the event's status: for {@link CmEventType#REJECTED}, the reject reason} */
    public int status() {
        return status;
    }

    /** {@return a copy of the private data the peer sent with the event, such as a reject's; empty for none} */
    public byte[] privateData() {
        return privateData.clone();
    }
}
