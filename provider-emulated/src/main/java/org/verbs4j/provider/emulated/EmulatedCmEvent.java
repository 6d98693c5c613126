package org.verbs4j.provider.emulated;

import org.verbs4j.CmEvent;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;

/** An event of the emulated connection manager; {@link #close()} acknowledges it to its id. */
final class EmulatedCmEvent implements CmEvent {
    private final CmEventType type;
    private final int status;
    final EmulatedCmId id;
    private final EmulatedCmId listenId;
    private final byte[] privateData;
    private final int responderResources;
    private final int initiatorDepth;
    /** Whether a getEvent returned it: only then does it count as unacknowledged. Guarded by the cm lock. */
    boolean taken;
    private volatile boolean acked;

    EmulatedCmEvent(CmEventType type, int status, EmulatedCmId id, EmulatedCmId listenId, byte[] privateData,
                    int responderResources, int initiatorDepth) {
        this.type = type;
        this.status = status;
        this.id = id;
        this.listenId = listenId;
        this.privateData = privateData;
        this.responderResources = responderResources;
        this.initiatorDepth = initiatorDepth;
    }

    /** An event with no private data or connection parameters. */
    static EmulatedCmEvent of(CmEventType type, int status, EmulatedCmId id) {
        return new EmulatedCmEvent(type, status, id, null, new byte[0], 0, 0);
    }

    @Override
    public CmEventType type() {
        return type;
    }

    @Override
    public int status() {
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
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public int responderResources() {
        return responderResources;
    }

    @Override
    public int initiatorDepth() {
        return initiatorDepth;
    }

    @Override
    public boolean isAcked() {
        return acked;
    }

    @Override
    public void close() {
        id.ack(this);
    }

    /** Marks it acknowledged; false if it already was. Holds the cm lock. */
    boolean markAcked() {
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
