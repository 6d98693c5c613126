package org.verbs4j.provider.emulated.verbs;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.Arguments;

/** A completion channel: a queue of CQ events that {@link #awaitEvent} takes from. */
public final class EmulatedCompletionChannel extends AbstractVerbsObject implements CompletionChannel {
    final EmulatedContext context;
    private final LinkedBlockingQueue<EmulatedCompletionQueue> events = new LinkedBlockingQueue<>();

    EmulatedCompletionChannel(EmulatedContext context) {
        super("CompletionChannel", context, context.lock);
        this.context = context;
        register();
    }

    void signal(EmulatedCompletionQueue cq) {
        events.add(cq);
    }

    @Override
    public Context context() {
        checkOpen();
        return context;
    }

    @Override
    public CompletionQueue awaitEvent(long timeout, TimeUnit unit) {
        checkOpen();
        Arguments.timeout(timeout, unit);
        return EmulatedContext.poll(events, timeout, unit);
    }

    @Override
    protected int destroy() {
        events.clear();
        return 0;
    }
}
