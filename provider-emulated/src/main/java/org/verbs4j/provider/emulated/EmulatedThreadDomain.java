package org.verbs4j.provider.emulated;

import org.verbs4j.Context;
import org.verbs4j.ThreadDomain;

/** A thread domain: QPs created with it take no lock when a WR session starts. */
final class EmulatedThreadDomain extends EmulatedObject implements ThreadDomain {
    EmulatedThreadDomain(EmulatedContext context) {
        super(context);
    }

    @Override
    public Context context() {
        checkOpen();
        return context;
    }

    @Override
    String destroyVerb() {
        return "ibv_dealloc_td";
    }

    @Override
    void destroy() {}
}
