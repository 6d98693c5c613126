package org.verbs4j.provider.jnr;

import org.verbs4j.emuverbs.dv.EmuVerbsDvKit;
import org.verbs4j.spi.VerbsProvider;

/**
 * The vendor extension seam through jnr: the example extension's direct verbs over the forwarding libibverbs; see
 * {@link EmuVerbsDvKit}. Runs in the {@code tck-over-emuverbs} execution.
 */
class JnrVendorExtensionOverEmuverbsTest extends EmuVerbsDvKit {
    @Override
    protected VerbsProvider provider() {
        return new JnrProvider();
    }
}
