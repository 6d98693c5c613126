package org.verbs4j.provider.emulated;

import org.junit.jupiter.api.Tag;

/**
 * Runs the verbs4j TCK with its QP pairs split over the two wire devices: the {@code a} QP of every pair on
 * {@code roce0}, the {@code b} QP on {@code roce1}, each device with its own context, PD, CQs and buffers. Every
 * packet of a pair crosses from one device's UDP socket to the other's, as between two hosts.
 */
@Tag("wire")
class WireSplitCompatibilityTest extends WireCompatibilityTest {
    @Override
    protected String peerDeviceName() {
        return "roce1";
    }
}
