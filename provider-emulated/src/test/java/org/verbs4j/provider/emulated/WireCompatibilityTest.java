package org.verbs4j.provider.emulated;

import org.junit.jupiter.api.Tag;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tck.VerbsCompatibilityKit;

/**
 * Runs the verbs4j TCK against the wire device {@code roce0}: every QP pair of the kit talks RoCE v2 over
 * UDP, through the device's own socket (its packets leave and come back through the loopback interface).
 */
@Tag("wire")
class WireCompatibilityTest extends VerbsCompatibilityKit {
    @Override
    protected VerbsProvider provider() {
        return new EmulatedProvider();
    }

    @Override
    protected String deviceName() {
        return "roce0";
    }

    /**
     * About 1.07 s rather than the kit's 67 ms: a starved receive thread on a loaded build machine once left an ACK
     * unread for longer than 8 tries of 67 ms (load 10 to 14 on 2 CPUs), and 268 ms was seen to fail too; nothing
     * was lost.
     */
    @Override
    protected int ackTimeout() {
        return WireDevicesTest.ACK_TIMEOUT;
    }

    /** The RoCE v2 GID of the IPv4 address, as the soft-RoCE runs pick for rxe0; GID 0 is link-local IPv6. */
    @Override
    protected int gidIndex() {
        return 1;
    }
}
