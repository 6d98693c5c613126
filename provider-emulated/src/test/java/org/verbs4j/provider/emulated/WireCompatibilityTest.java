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

    /** The RoCE v2 GID of the IPv4 address, as the soft-RoCE runs pick for rxe0; GID 0 is link-local IPv6. */
    @Override
    protected int gidIndex() {
        return 1;
    }
}
