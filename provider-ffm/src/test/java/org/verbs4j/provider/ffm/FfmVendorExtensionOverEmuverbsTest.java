package org.verbs4j.provider.ffm;

import org.verbs4j.emuverbs.dv.EmuVerbsDvKit;
import org.verbs4j.spi.VerbsProvider;

/**
 * The vendor extension seam through ffm: the example extension's direct verbs over the forwarding libibverbs; see
 * {@link EmuVerbsDvKit}. Runs in the {@code tck-over-emuverbs} execution.
 */
class FfmVendorExtensionOverEmuverbsTest extends EmuVerbsDvKit {
    @Override
    protected VerbsProvider provider() {
        return new FfmProvider();
    }
}
