package org.verbs4j;

/**
 * A port's logical state, {@code enum ibv_port_state}.
 *
 * @see "ibv_query_port(3)"
 */
public enum PortState {
    /** {@code IBV_PORT_NOP}: reserved. */
    NOP,
    /** {@code IBV_PORT_DOWN}: the link is down. */
    DOWN,
    /** {@code IBV_PORT_INIT}: the link is up, the subnet manager has not configured the port yet. */
    INIT,
    /** {@code IBV_PORT_ARMED}: configured, ready to become active. */
    ARMED,
    /** {@code IBV_PORT_ACTIVE}: the port sends and receives. */
    ACTIVE,
    /** {@code IBV_PORT_ACTIVE_DEFER}: the link is up but the port is held in a deferred active state. */
    ACTIVE_DEFER;

    /** {@return the {@code IBV_PORT_*} value} */
    public int value() {
        return ordinal();
    }

    /**
     * The state with the given value.
     *
     * @param value the {@code IBV_PORT_*} value
     * @return the state
     * @throws IllegalArgumentException if no state has that value
     */
    public static PortState of(int value) {
        if (value < 0 || value >= values().length) {
            throw new IllegalArgumentException("no ibv_port_state has the value " + value);
        }
        return values()[value];
    }

    /**
     * The text libibverbs gives this state, so that a log line reads as a C program's does.
     *
     * @return the text, such as {@code "down"}
     * @see "ibv_port_state_str(3)"
     */
    public String description() {
        return DESCRIPTIONS[ordinal()];
    }

    private static final String[] DESCRIPTIONS = {
            "no state change (NOP)",
            "down",
            "init",
            "armed",
            "active",
            "active defer"};
}
