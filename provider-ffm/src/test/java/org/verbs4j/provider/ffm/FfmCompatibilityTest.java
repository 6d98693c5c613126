package org.verbs4j.provider.ffm;

import org.junit.jupiter.api.extension.ExtendWith;
import org.verbs4j.emuverbs.EmuVerbs;
import org.verbs4j.emuverbs.ForwardedAreas;
import org.verbs4j.provider.nativecommon.internal.CriticalDataPath;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tck.VerbsCompatibilityKit;

/**
 * The TCK against libibverbs through FFM. In the build it runs in its own forked JVM over the forwarding libibverbs
 * (module {@code emuverbs}: the emulated engine behind {@code emuverbs0}; issue 26), with the areas
 * {@link ForwardedAreas} lists disabled with their reasons; in the soft-RoCE guest, over the real libibverbs, the whole
 * kit runs against rxe0. Elsewhere it is one skipped container.
 */
@ExtendWith(ForwardedAreas.class)
class FfmCompatibilityTest extends VerbsCompatibilityKit {
    @Override
    protected VerbsProvider provider() {
        // Before the provider lists devices; a no-op over a real libibverbs. Through the forwarding library the data
        // path calls back into Java, which a critical downcall must not: the child JVMs of ForkedScenario too.
        if (EmuVerbs.register() == null && System.getProperty(CriticalDataPath.PROPERTY) == null) {
            System.setProperty(CriticalDataPath.PROPERTY, "off");
        }
        return new FfmProvider();
    }
}
