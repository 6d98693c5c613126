package org.verbs4j.provider.emulated;

import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tck.VerbsCompatibilityKit;

/** Runs the verbs4j TCK against the emulated provider. */
class EmulatedCompatibilityTest extends VerbsCompatibilityKit {
    @Override
    protected VerbsProvider provider() {
        return new EmulatedProvider();
    }
}
