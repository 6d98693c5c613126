package org.verbs4j.provider.jnr;

import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tck.VerbsCompatibilityKit;

/**
 * The verbs4j TCK against the JNR provider. Without RDMA the whole kit is one skipped result whose
 * reason is the provider's unavailability cause; in the soft-RoCE VM it runs against rxe0.
 */
class JnrCompatibilityTest extends VerbsCompatibilityKit {
    @Override
    protected VerbsProvider provider() {
        return new JnrProvider();
    }
}
