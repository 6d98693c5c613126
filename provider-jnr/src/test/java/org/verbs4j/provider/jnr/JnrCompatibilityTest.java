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

    /** The soft-RoCE runner names the RoCE v2 IPv4 GID in {@code VERBS4J_RDMA_GID_INDEX}; else the kit's choice. */
    @Override
    protected int gidIndex() {
        String env = System.getenv("VERBS4J_RDMA_GID_INDEX");
        return env == null || env.isBlank() || System.getProperty(GID_INDEX_PROPERTY) != null ? super.gidIndex()
                : Integer.parseInt(env.trim());
    }
}
