package org.verbs4j.spi.support;

import org.verbs4j.CmEvent;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;

/** An event of a {@link BoundConnectionManager}, copied when it was taken; {@link #close()} acknowledges it. */
final class BoundCmEvent implements CmEvent {
    private final BoundConnectionManager cm;
    private final long handle;
    private final CmEventType type;
    private final int status;
    private final BoundCmId id;
    private final BoundCmId listenId;
    private final byte[] privateData;
    private final int responderResources;
    private final int initiatorDepth;
    private volatile boolean acked;

    BoundCmEvent(BoundConnectionManager cm, long handle, CmEventType type, int status, BoundCmId id,
                 BoundCmId listenId, CmBinding.RawEvent raw) {
        this.cm = cm;
        this.handle = handle;
        this.type = type;
        this.status = status;
        this.id = id;
        this.listenId = listenId;
        this.privateData = raw.privateData().clone();
        this.responderResources = raw.responderResources();
        this.initiatorDepth = raw.initiatorDepth();
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
        cm.lock.lock();
        try {
            if (acked) {
                return;
            }
            cm.binding.ackEvent(handle);
            acked = true;
            id.unacked--;
            if (listenId != null) {
                listenId.unacked--;
            }
        } finally {
            cm.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "CmEvent[" + type + ", status " + status + ", " + privateData.length + " bytes of private data]";
    }
}
