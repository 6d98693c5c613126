package org.verbs4j.provider.emulated.verbs;

import org.verbs4j.Context;
import org.verbs4j.ThreadDomain;
import org.verbs4j.spi.support.AbstractVerbsObject;

/** A thread domain: QPs created with it take no lock when a WR session starts. */
public final class EmulatedThreadDomain extends AbstractVerbsObject implements ThreadDomain {
    final EmulatedContext context;
    EmulatedThreadDomain(EmulatedContext context) {
        super("ThreadDomain", context, context.lock);
        this.context = context;
        register();
    }

    @Override
    public Context context() {
        checkOpen();
        return context;
    }

    @Override
    protected int destroy() {
        return 0;
    }
}
