package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.verbs4j.LinkLayer;
import org.verbs4j.spi.VerbsProvider;

/**
 * The base of the connection-management areas: a {@link CmBench} per test when the provider has a connection
 * manager, closed after it, and the skip, with its reason, when it has none.
 */
abstract class CmArea extends TckArea {
    /** The test's channels, ids and verbs objects; null without a connection manager. */
    CmBench cm;

    CmArea(VerbsCompatibilityKit kit) {
        super(kit);
    }

    @BeforeEach
    void openBench() {
        VerbsProvider p = kit().providerUnderTest();
        if (p.hasConnectionManager()) {
            cm = new CmBench(tb, p.connectionManager());
        }
    }

    @AfterEach
    void closeBench() {
        if (cm != null) {
            CmBench b = cm;
            cm = null;
            b.close();
        }
    }

    /** Skips the test, with the reason, when the provider has no connection manager. */
    void assumeCm() {
        assumeTrue(cm != null, () -> "capability: provider '" + kit().providerUnderTest().name()
                + "' has no connection manager (hasConnectionManager() is false)");
    }

    /** On InfiniBand and RoCE the REJECTED status is the IB CM reject reason; iWARP reports an errno instead. */
    boolean ibCm() {
        return tb.portAttributes().linkLayer() == LinkLayer.INFINIBAND
                || tb.portAttributes().linkLayer() == LinkLayer.ETHERNET;
    }

    static byte[] text(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    static void assertPrefix(byte[] sent, byte[] received, String what) {
        assertTrue(received.length >= sent.length, what + ": " + received.length + " bytes arrived, "
                + sent.length + " were sent");
        assertArrayEquals(sent, Arrays.copyOf(received, sent.length), what + ": the bytes sent come first");
    }
}
