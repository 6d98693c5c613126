package org.verbs4j;

/**
 * How atomic a device's atomic operations are, {@code enum ibv_atomic_cap}.
 *
 * @see "ibv_query_device(3)"
 */
public enum AtomicCapability {
    /** No atomic operations. */
    NONE,
    /** Atomic with respect to other operations of this device only. */
    HCA,
    /** Atomic with respect to every device and the CPU. */
    GLOB;

    /** {@return the {@code IBV_ATOMIC_*} value} */
    public int value() {
        return ordinal();
    }

    /**
     * The capability with the given value.
     *
     * @param value the {@code IBV_ATOMIC_*} value
     * @return the capability
     * @throws IllegalArgumentException if no capability has that value
     */
    public static AtomicCapability of(int value) {
        if (value < 0 || value >= values().length) {
            throw new IllegalArgumentException("no ibv_atomic_cap has the value " + value);
        }
        return values()[value];
    }
}
