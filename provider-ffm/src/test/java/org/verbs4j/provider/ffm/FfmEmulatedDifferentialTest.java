package org.verbs4j.provider.ffm;

import org.verbs4j.emuverbs.EmuVerbs;
import org.verbs4j.provider.emulated.EmulatedProvider;
import org.verbs4j.provider.nativecommon.internal.CriticalDataPath;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tck.DifferentialWorkload;

/**
 * The seeded differential workload on the emulated device and on this provider's device: identical memory and
 * completion streams. In the build the second is {@code emuverbs0}, the forwarding libibverbs over the same engine
 * (issue 26), so the workload compares ffm's native layer with the emulated provider's own; in the soft-RoCE VM it
 * is rxe0. Skipped where this provider is unavailable.
 */
class FfmEmulatedDifferentialTest extends DifferentialWorkload {
    @Override
    protected VerbsProvider first() {
        return new EmulatedProvider();
    }

    @Override
    protected VerbsProvider second() {
        if (EmuVerbs.register() == null && System.getProperty(CriticalDataPath.PROPERTY) == null) {
            System.setProperty(CriticalDataPath.PROPERTY, "off");
        }
        return new FfmProvider();
    }

    @Override
    protected String secondDevice() {
        return System.getenv("VERBS4J_RDMA_DEVICE");
    }
}
