package org.verbs4j.provider.emulated;

import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tck.DifferentialWorkload;

/** The differential workload on two independent emulated provider instances. */
class EmulatedDifferentialTest extends DifferentialWorkload {
    @Override
    protected VerbsProvider first() {
        return new EmulatedProvider();
    }

    @Override
    protected VerbsProvider second() {
        return new EmulatedProvider();
    }
}
