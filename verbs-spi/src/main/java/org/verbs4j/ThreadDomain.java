package org.verbs4j;

/**
 * A thread domain, {@code struct ibv_td}: the application's promise that one thread uses the QPs created with it,
 * so that the provider library takes no lock on their send queues. verbs4j keeps the promise for the application:
 * such a QP is confined to one owner thread, the first that posts to it or closes it, and its posts take no lock
 * and no atomic instruction in Java either; any other thread's post or close throws {@link WrongThreadException}
 * while the owner lives ({@link QueuePair}: threads).
 *
 * @see "ibv_alloc_td(3)"
 * @see "ibv_wr_post(3)"
 */
public interface ThreadDomain extends VerbsObject {
    /** {@return the context the thread domain was allocated on} */
    Context context();

    /**
     * Deallocates the domain.
     *
     * @throws VerbsException {@code EBUSY} while a QP created with it is open
     * @see "ibv_dealloc_td(3)"
     */
    @Override
    void close();
}
