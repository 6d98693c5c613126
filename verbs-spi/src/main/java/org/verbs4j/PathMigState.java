package org.verbs4j;

/**
 * The path migration state of a QP, {@code enum ibv_mig_state}.
 *
 * @see "ibv_modify_qp(3)"
 */
public enum PathMigState {
    /** {@code IBV_MIG_MIGRATED}: the QP uses its alternate path, or has none armed. */
    MIGRATED,
    /** {@code IBV_MIG_REARM}: arm the alternate path again (set by the application). */
    REARM,
    /** {@code IBV_MIG_ARMED}: the alternate path is armed; the QP may migrate to it. */
    ARMED;

    /** {@return the {@code IBV_MIG_*} value} */
    public int value() {
        return ordinal();
    }

    /**
     * The state with the given value.
     *
     * @param value the {@code IBV_MIG_*} value
     * @return the state
     * @throws IllegalArgumentException if no state has that value
     */
    public static PathMigState of(int value) {
        if (value < 0 || value >= values().length) {
            throw new IllegalArgumentException("no ibv_mig_state has the value " + value);
        }
        return values()[value];
    }
}
