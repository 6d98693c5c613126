package org.verbs4j.tools.perf;

import org.verbs4j.spi.VerbsProvider;

/** Two-process mode ({@code --server} and {@code HOST}): what this build says when it is asked for. */
final class TwoProcess {
    private TwoProcess() {}

    /**
     * Why two-process mode cannot run with this provider. The emulated device lives inside one JVM, so a QP in
     * another process is out of its reach; the tools know the providers by name, as only they and tests may.
     */
    static String unsupportedReason(VerbsProvider p) {
        if (p.name().equals("emulated")) {
            return "the emulated provider cannot reach across processes (its devices live inside one JVM); "
                    + "run the test in loopback by leaving out --server and the host";
        }
        return "two-process mode (--server / HOST) is not implemented in this build; run the test in loopback "
                + "by leaving out --server and the host";
    }
}
