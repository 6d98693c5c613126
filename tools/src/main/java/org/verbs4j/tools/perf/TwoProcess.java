package org.verbs4j.tools.perf;

import org.verbs4j.spi.VerbsProvider;

/** Two-process mode: a server and a client that exchange {@link PeerInfo} over TCP, as perftest does. */
final class TwoProcess {
    private TwoProcess() {}

    /** Why two-process mode cannot run with this provider. */
    static String unsupportedReason(VerbsProvider p) {
        return "two-process mode (--server / HOST) is not available in this build; run the test in loopback "
                + "(both ends in this JVM) by leaving out --server and the host";
    }
}
