package org.verbs4j;

/**
 * The path migration state of a QP, {@code enum ibv_mig_state}.
 *
 * @see "ibv_modify_qp(3)"
 */
public enum PathMigState {
    MIGRATED,
    REARM,
    ARMED;

    /** {@return the {@code IBV_MIG_*} value} */
    public int value() {
        return ordinal();
    }

    /**
     * The state with the given value.
     *
     * @throws IllegalArgumentException if no state has that value
     */
    public static PathMigState of(int value) {
        if (value < 0 || value >= values().length) {
            throw new IllegalArgumentException("no ibv_mig_state has the value " + value);
        }
        return values()[value];
    }
}
