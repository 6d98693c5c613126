package org.verbs4j.spi.support;

import java.net.InetAddress;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.CmUdParameters;

/**
 * What every provider's {@link CmEvent} holds: the values copied when the event was taken, readable after it
 * is acknowledged, and the acknowledged flag. A provider implements {@link #close()}, calling
 * {@link #markAcked()} once its connection manager has released the event.
 */
public abstract class AbstractCmEvent implements CmEvent {
    private final CmEventType type;
    private final int status;
    private final CmId id;
    private final CmId listenId;
    private final byte[] privateData;
    private final int responderResources;
    private final int initiatorDepth;
    private final CmUdParameters udParameters;
    private final InetAddress multicastGroup;
    private volatile boolean acked;

    /**
     * An event.
     *
     * @param type what happened
     * @param status its status
     * @param id the id it is for (a connect request's new id)
     * @param listenId the listening id of a connect request, else null
     * @param privateData the peer's private data, empty for none; copied
     * @param responderResources the peer's {@code responder_resources}, or 0
     * @param initiatorDepth the peer's {@code initiator_depth}, or 0
     */
    protected AbstractCmEvent(CmEventType type, int status, CmId id, CmId listenId, byte[] privateData,
                              int responderResources, int initiatorDepth) {
        this(type, status, id, listenId, privateData, responderResources, initiatorDepth, null, null);
    }

    /**
     * An event that may carry UD parameters and a multicast group.
     *
     * @param type what happened
     * @param status its status
     * @param id the id it is for (a connect request's new id)
     * @param listenId the listening id of a connect request, else null
     * @param privateData the peer's private data, empty for none; copied
     * @param responderResources the peer's {@code responder_resources}, or 0
     * @param initiatorDepth the peer's {@code initiator_depth}, or 0
     * @param udParameters the {@code param.ud} of a multicast join, else null
     * @param multicastGroup the group of a multicast join or error, else null
     */
    protected AbstractCmEvent(CmEventType type, int status, CmId id, CmId listenId, byte[] privateData,
                              int responderResources, int initiatorDepth, CmUdParameters udParameters,
                              InetAddress multicastGroup) {
        this.udParameters = udParameters;
        this.multicastGroup = multicastGroup;
        this.type = type;
        this.status = status;
        this.id = id;
        this.listenId = listenId;
        this.privateData = privateData.clone();
        this.responderResources = responderResources;
        this.initiatorDepth = initiatorDepth;
    }

    @Override
    public final CmEventType type() {
        return type;
    }

    @Override
    public final int status() {
        return status;
    }

    @Override
    public CmId id() {
        return id;
    }

    @Override
    public CmId listenId() {
        return listenId;
    }

    @Override
    public final byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public final int responderResources() {
        return responderResources;
    }

    @Override
    public final int initiatorDepth() {
        return initiatorDepth;
    }

    @Override
    public final CmUdParameters udParameters() {
        return udParameters;
    }

    @Override
    public final InetAddress multicastGroup() {
        return multicastGroup;
    }

    @Override
    public final boolean isAcked() {
        return acked;
    }

    /**
     * Marks the event acknowledged.
     *
     * @return false if it already was
     */
    protected final boolean markAcked() {
        if (acked) {
            return false;
        }
        acked = true;
        return true;
    }

    @Override
    public String toString() {
        return "CmEvent[" + type + ", status " + status + ", " + privateData.length + " bytes of private data]";
    }
}
