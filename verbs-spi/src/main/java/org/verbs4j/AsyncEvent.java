package org.verbs4j;

/**
 * An asynchronous event, {@code struct ibv_async_event}. Exactly one of the element fields is set,
 * according to the type; {@link Context#pollAsyncEvent} has already acknowledged it.
 *
 * @param type the event
 * @param qp the QP for QP events, else null
 * @param cq the CQ for {@link AsyncEventType#CQ_ERR}, else null
 * @param srq the SRQ for SRQ events, else null
 * @param portNum the port for port events, else 0
 * @see "ibv_get_async_event(3)"
 */
public record AsyncEvent(AsyncEventType type, QueuePair qp, CompletionQueue cq, SharedReceiveQueue srq, int portNum) {}
