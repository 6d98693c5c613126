package org.verbs4j.provider.jnr;

import org.junit.jupiter.api.extension.ExtendWith;
import org.verbs4j.emuverbs.EmuVerbs;
import org.verbs4j.emuverbs.ForwardedAreas;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tck.VerbsCompatibilityKit;

/**
 * The verbs4j TCK against the JNR provider. In the build it runs in its own forked JVM over the forwarding libibverbs
 * (module {@code emuverbs}: the emulated engine behind {@code emuverbs0}; issue 26), with the areas
 * {@link ForwardedAreas} lists disabled with their reasons; in the soft-RoCE VM it runs against rxe0. Elsewhere the
 * whole kit is one skipped result whose reason is the provider's unavailability cause.
 */
@ExtendWith(ForwardedAreas.class)
class JnrCompatibilityTest extends VerbsCompatibilityKit {
    @Override
    protected VerbsProvider provider() {
        EmuVerbs.register(); // before the provider lists devices; a no-op over a real libibverbs
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
