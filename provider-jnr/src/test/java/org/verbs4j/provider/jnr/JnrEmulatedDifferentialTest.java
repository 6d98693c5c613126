package org.verbs4j.provider.jnr;

import org.verbs4j.emuverbs.EmuVerbs;
import org.verbs4j.provider.emulated.EmulatedProvider;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tck.DifferentialWorkload;

/**
 * The seeded differential workload on the emulated device and on this provider's device (rxe0 in the
 * soft-RoCE VM; in the build {@code emuverbs0}, the forwarding libibverbs over the same engine, issue 26): identical
 * memory and completion streams. Skipped where this provider is unavailable.
 */
class JnrEmulatedDifferentialTest extends DifferentialWorkload {
    @Override
    protected VerbsProvider first() {
        return new EmulatedProvider();
    }

    @Override
    protected VerbsProvider second() {
        EmuVerbs.register(); // a no-op over a real libibverbs
        return new JnrProvider();
    }

    @Override
    protected String secondDevice() {
        return System.getenv("VERBS4J_RDMA_DEVICE");
    }
}
