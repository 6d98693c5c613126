package org.verbs4j;

/**
 * A thread domain, {@code struct ibv_td}. A QP created with one takes no lock in its WR sessions:
 * the application guarantees that one thread at a time is inside each session.
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
