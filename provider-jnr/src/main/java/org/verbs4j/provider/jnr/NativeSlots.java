package org.verbs4j.provider.jnr;

import org.verbs4j.provider.jnr.internal.ContextResources;

/**
 * A native array of fixed-size elements, such as {@code struct ibv_send_wr} or {@code struct ibv_sge}, that
 * grows to the largest list posted (never shrinks, at least 16 elements) so posting allocates nothing once warm.
 * Its memory belongs to the context's resources, which free it if the owner is never closed.
 */
final class NativeSlots {
    private static final int MINIMUM = 16;

    private final ContextResources resources;
    private final long elementSize;
    private long address;
    private int capacity;

    NativeSlots(ContextResources resources, long elementSize) {
        this.resources = resources;
        this.elementSize = elementSize;
    }

    /** The array's address, after growing it to hold at least {@code n} elements. */
    long ensure(int n) {
        if (n > capacity || address == 0) {
            if (address != 0) {
                resources.free(address);
            }
            int cap = Math.max(n, MINIMUM);
            address = resources.allocate(elementSize * cap);
            capacity = cap;
        }
        return address;
    }

    /** The array's address, 0 before the first {@link #ensure} or after {@link #free}. */
    long address() {
        return address;
    }

    void free() {
        if (address != 0) {
            resources.free(address);
            address = 0;
            capacity = 0;
        }
    }
}
