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

    /**
     * The rkey a type 2 window is bound with next: the same 24-bit index, its low 8 bits (the key) one more,
     * 0xff wrapping to 0. Give it to {@link WrSession#bindMw} or {@link SendWr}'s bind, so that a peer holding the
     * old rkey can no longer use the window.
     *
     * @param rkey a 32-bit rkey
     * @return that rkey with its key incremented
     * @see "ibv_inc_rkey(3)"
     */
    static int incRkey(int rkey) {
        return rkey & ~0xff | (rkey + 1) & 0xff;
    }
}
