package org.verbs4j;

/**
 * A memory window, {@code struct ibv_mw}: a remotely accessible sub-range of a region, bound and
 * invalidated through the send queue.
 *
 * @see "ibv_alloc_mw(3)"
 * @see "ibv_bind_mw(3)"
 */
public interface MemoryWindow extends VerbsObject {
    /** {@return the protection domain the window was allocated in} */
    ProtectionDomain pd();

    /** {@return the window's type} */
    MwType type();

    /** {@return the window's current 32-bit rkey; it changes at each bind} */
    int rkey();

    /**
     * Deallocates the window.
     *
     * @see "ibv_dealloc_mw(3)"
     */
    @Override
    void close();
}
