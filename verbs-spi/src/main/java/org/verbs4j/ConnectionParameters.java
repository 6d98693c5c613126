package org.verbs4j;

/**
 * The parameters of {@link CmId#connect} and {@link CmId#accept}, {@code struct rdma_conn_param}.
 *
 * <p>Private data is copied at construction and again by {@link #privateData()}, so neither side can change
 * it afterwards. How much of it reaches the peer depends on the transport: on InfiniBand and RoCE, in the
 * {@link CmPortSpace#TCP} port space, at most {@value #MAX_CONNECT_PRIVATE_DATA} bytes with a connect,
 * {@value #MAX_ACCEPT_PRIVATE_DATA} with an accept and {@value #MAX_REJECT_PRIVATE_DATA} with a reject (the IB
 * CM's REQ, REP and REJ messages, less rdma_cm's 36-byte header in the REQ). The peer receives a block of the
 * transport's fixed size: the data sent, then zeros.
 *
 * @param privateData the bytes handed to the peer, never null (empty for none)
 * @param responderResources the RDMA READs and atomics the local side accepts from the peer at once, 0 to 255;
 *     at most the device's {@code max_qp_rd_atom}
 * @param initiatorDepth the RDMA READs and atomics the local side issues to the peer at once, 0 to 255; at most
 *     the device's {@code max_qp_init_rd_atom}
 * @param retryCount how often a request the peer does not acknowledge is sent again, 0 to 7; connect only
 * @param rnrRetryCount how often a message the peer has no receive for is sent again, 0 to 7 (7: forever)
 * @see "rdma_connect(3)"
 * @see "rdma_accept(3)"
 */
public record ConnectionParameters(byte[] privateData, int responderResources, int initiatorDepth, int retryCount,
                                   int rnrRetryCount) {
    /** The most private data a connect carries on InfiniBand and RoCE ({@link CmPortSpace#TCP}), bytes. */
    public static final int MAX_CONNECT_PRIVATE_DATA = 56;
    /** The most private data an accept carries on InfiniBand and RoCE, bytes. */
    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;
    /** The most private data a reject carries on InfiniBand and RoCE, bytes. */
    public static final int MAX_REJECT_PRIVATE_DATA = 148;

    /**
     * Checks and copies the parameters.
     *
     * @throws NullPointerException if privateData is null
     * @throws IllegalArgumentException naming the first field out of its range
     */
    public ConnectionParameters {
        if (privateData == null) {
            throw new NullPointerException("privateData: pass an empty array for none");
        }
        privateData = privateData.clone();
        range("responderResources", responderResources, 255);
        range("initiatorDepth", initiatorDepth, 255);
        range("retryCount", retryCount, 7);
        range("rnrRetryCount", rnrRetryCount, 7);
    }

    private static void range(String what, int value, int max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(what + " is 0.." + max + ", not " + value);
        }
    }

    /**
     * Parameters with private data and the defaults: 1 RDMA READ or atomic each way, 7 retries, RNR retry 7.
     *
     * @param privateData the bytes handed to the peer; copied
     * @return the parameters
     * @throws NullPointerException if privateData is null
     */
    public static ConnectionParameters of(byte[] privateData) {
        return new ConnectionParameters(privateData, 1, 1, 7, 7);
    }

    /** {@return parameters without private data and the defaults of {@link #of(byte[])}} */
    public static ConnectionParameters defaults() {
        return of(new byte[0]);
    }

    /** {@return a copy of the private data} */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    /** {@return the length of the private data, bytes} */
    public int privateDataLength() {
        return privateData.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectionParameters p && java.util.Arrays.equals(privateData, p.privateData)
                && responderResources == p.responderResources && initiatorDepth == p.initiatorDepth
                && retryCount == p.retryCount && rnrRetryCount == p.rnrRetryCount;
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(privateData) * 31 + java.util.Objects.hash(responderResources,
                initiatorDepth, retryCount, rnrRetryCount);
    }

    @Override
    public String toString() {
        return "ConnectionParameters[" + privateData.length + " bytes of private data, responderResources="
                + responderResources + ", initiatorDepth=" + initiatorDepth + ", retryCount=" + retryCount
                + ", rnrRetryCount=" + rnrRetryCount + "]";
    }
}
