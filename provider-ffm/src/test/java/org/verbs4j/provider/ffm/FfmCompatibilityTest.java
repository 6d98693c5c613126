package org.verbs4j.provider.ffm;

import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tck.VerbsCompatibilityKit;

/** The TCK against libibverbs through FFM: one skipped container where the provider is unavailable. */
class FfmCompatibilityTest extends VerbsCompatibilityKit {
    @Override
    protected VerbsProvider provider() {
        return new FfmProvider();
    }
}
