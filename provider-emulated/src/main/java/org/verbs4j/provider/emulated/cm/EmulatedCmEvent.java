package org.verbs4j.provider.emulated.cm;

import java.net.InetAddress;
import org.verbs4j.CmEventType;
import org.verbs4j.CmUdParameters;
import org.verbs4j.spi.support.AbstractCmEvent;

/** An event of the emulated connection manager; {@link #close()} acknowledges it to its id. */
public final class EmulatedCmEvent extends AbstractCmEvent {
    final EmulatedCmId id;
    /** Whether a getEvent returned it: only then does it count as unacknowledged. Guarded by the cm lock. */
    boolean taken;

    EmulatedCmEvent(CmEventType type, int status, EmulatedCmId id, EmulatedCmId listenId, byte[] privateData,
                    int responderResources, int initiatorDepth) {
        super(type, status, id, listenId, privateData, responderResources, initiatorDepth);
        this.id = id;
    }

    private EmulatedCmEvent(CmEventType type, int status, EmulatedCmId id, CmUdParameters ud, InetAddress group) {
        super(type, status, id, null, new byte[0], 0, 0, ud, group);
        this.id = id;
    }

    /** A multicast join's event: {@code MULTICAST_JOIN} with how to reach the group. */
    static EmulatedCmEvent joined(EmulatedCmId id, InetAddress group, CmUdParameters ud) {
        return new EmulatedCmEvent(CmEventType.MULTICAST_JOIN, 0, id, ud, group);
    }

    /** A multicast join's failure: {@code MULTICAST_ERROR} with a negative errno. */
    static EmulatedCmEvent joinFailed(EmulatedCmId id, InetAddress group, int status) {
        return new EmulatedCmEvent(CmEventType.MULTICAST_ERROR, status, id, null, group);
    }

    /** An event with no private data or connection parameters. */
    static EmulatedCmEvent of(CmEventType type, int status, EmulatedCmId id) {
        return new EmulatedCmEvent(type, status, id, null, new byte[0], 0, 0);
    }

    @Override
    public void close() {
        id.ack(this);
    }

    /** Marks it acknowledged; false if it already was. Holds the cm lock. */
    boolean acknowledge() {
        return markAcked();
    }
}
