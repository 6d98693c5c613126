package org.verbs4j;

/**
 * A port's logical state, {@code enum ibv_port_state}.
 *
 * @see "ibv_query_port(3)"
 */
public enum PortState {
    NOP,
    DOWN,
    INIT,
    ARMED,
    ACTIVE,
    ACTIVE_DEFER;

    /** {@return the {@code IBV_PORT_*} value} */
    public int value() {
        return ordinal();
    }

    /**
     * The state with the given value.
     *
     * @throws IllegalArgumentException if no state has that value
     */
    public static PortState of(int value) {
        if (value < 0 || value >= values().length) {
            throw new IllegalArgumentException("no ibv_port_state has the value " + value);
        }
        return values()[value];
    }
}
