package org.verbs4j.provider.emulated;

import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tck.VerbsCompatibilityKit;

/** Runs the verbs4j TCK against the emulated provider. */
class EmulatedCompatibilityTest extends VerbsCompatibilityKit {
    @Override
    protected VerbsProvider provider() {
        return new EmulatedProvider();
    }

    /** The emulator walks 100,000 steps in a few seconds on a host, so the build runs the walk at full length. */
    @Override
    protected int misuseWalkSteps() {
        return Integer.getInteger(MISUSE_WALK_STEPS_PROPERTY, 100_000);
    }
}
