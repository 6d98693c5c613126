package org.verbs4j.spi.support.internal;

import java.net.InetAddress;
import org.verbs4j.CmEventType;
import org.verbs4j.CmUdParameters;
import org.verbs4j.spi.support.AbstractCmEvent;

/** An event of a {@link BoundConnectionManager}, copied when it was taken; {@link #close()} acknowledges it. */
final class BoundCmEvent extends AbstractCmEvent {
    private final BoundConnectionManager cm;
    private final long handle;
    private final BoundCmId boundId;
    private final BoundCmId boundListenId;

    BoundCmEvent(BoundConnectionManager cm, long handle, CmEventType type, int status, BoundCmId id,
                 BoundCmId listenId, CmBinding.RawEvent raw, CmUdParameters ud, InetAddress group) {
        super(type, status, id, listenId, raw.privateData(), raw.responderResources(), raw.initiatorDepth(), ud,
                group);
        this.cm = cm;
        this.handle = handle;
        this.boundId = id;
        this.boundListenId = listenId;
    }

    @Override
    public void close() {
        cm.lock.lock();
        try {
            if (isAcked()) {
                return;
            }
            cm.binding.ackEvent(handle);
            markAcked();
            boundId.acknowledged();
            if (boundListenId != null) {
                boundListenId.acknowledged();
            }
        } finally {
            cm.lock.unlock();
        }
    }
}
