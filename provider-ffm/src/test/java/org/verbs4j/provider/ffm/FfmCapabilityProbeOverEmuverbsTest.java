package org.verbs4j.provider.ffm;

import org.verbs4j.emuverbs.CapabilityProbeKit;
import org.verbs4j.spi.VerbsProvider;

/**
 * Capabilities by probe through ffm: over the forwarding libibverbs as rdma-core names it and as a vendor might
 * (a plain {@code libibverbs.so.1}); see {@link CapabilityProbeKit}. Runs in the {@code tck-over-emuverbs} and
 * {@code probe-over-vendor-build} executions.
 */
class FfmCapabilityProbeOverEmuverbsTest extends CapabilityProbeKit {
    @Override
    protected VerbsProvider provider() {
        return new FfmProvider();
    }
}
