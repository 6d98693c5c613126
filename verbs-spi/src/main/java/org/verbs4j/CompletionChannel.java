package org.verbs4j;

import java.util.concurrent.TimeUnit;

/**
 * A completion event channel, {@code struct ibv_comp_channel}: where CQs armed with
 * {@link CompletionQueue#requestNotify} report that a completion arrived.
 *
 * @see "ibv_create_comp_channel(3)"
 * @see "ibv_get_cq_event(3)"
 */
public interface CompletionChannel extends VerbsObject {
    /** {@return the context the channel was created on} */
    Context context();

    /**
     * Waits for the next CQ event and acknowledges it. The CQ must be armed again with
     * {@link CompletionQueue#requestNotify} for another event.
     *
     * @param timeout the longest wait; 0 returns at once
     * @param unit the unit of {@code timeout}
     * @return the CQ that has a new completion, or null if none came in time
     * @throws IllegalArgumentException if timeout is negative
     * @see "ibv_get_cq_event(3)"
     * @see "ibv_ack_cq_events(3)"
     */
    CompletionQueue awaitEvent(long timeout, TimeUnit unit);

    /**
     * Destroys the channel.
     *
     * @throws VerbsException {@code EBUSY} while a CQ uses it
     * @see "ibv_destroy_comp_channel(3)"
     */
    @Override
    void close();
}
