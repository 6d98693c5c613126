package org.verbs4j;

import java.util.concurrent.TimeUnit;

/**
 * A connection-manager event channel, {@code struct rdma_event_channel}: where the events of its
 * {@link CmId}s are queued, in the order they happened.
 *
 * <p>{@link #getEvent(long, TimeUnit)} may be called from any thread, and from several at once: each event
 * goes to one of them. Closing the channel from another thread wakes every waiting caller, each of which then
 * throws {@link IllegalStateException}; a wait that races the close returns null or an event taken before it,
 * or throws {@link IllegalStateException}.
 *
 * @see "rdma_create_event_channel(3)"
 * @see "rdma_get_cm_event(3)"
 */
public interface CmEventChannel extends AutoCloseable {
    /**
     * Waits for the next event, however long it takes.
     *
     * @return the event; close it to acknowledge it
     * @throws IllegalStateException if the channel is closed, before or during the wait
     * @throws VerbsException {@code EINTR} if the waiting thread is interrupted (its interrupt flag stays set)
     * @see "rdma_get_cm_event(3)"
     */
    CmEvent getEvent();

    /**
     * Waits at most {@code timeout} for the next event.
     *
     * @param timeout the longest wait; 0 returns at once
     * @param unit the unit of {@code timeout}
     * @return the event, or null if none came in time; close it to acknowledge it
     * @throws IllegalArgumentException if timeout is negative
     * @throws NullPointerException if unit is null
     * @throws IllegalStateException if the channel is closed, before or during the wait
     * @throws VerbsException {@code EINTR} if the waiting thread is interrupted (its interrupt flag stays set)
     * @see "rdma_get_cm_event(3)"
     */
    CmEvent getEvent(long timeout, TimeUnit unit);

    /** {@return whether {@link #close()} has succeeded} */
    boolean isClosed();

    /**
     * Destroys the channel. A second call does nothing.
     *
     * @throws VerbsException {@code EBUSY} while an id still uses it (close the ids first, as
     *     {@code rdma_destroy_event_channel(3)} requires)
     * @see "rdma_destroy_event_channel(3)"
     */
    @Override
    void close();
}
