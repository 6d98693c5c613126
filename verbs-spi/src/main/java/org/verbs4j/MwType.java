package org.verbs4j;

/**
 * A memory window's type, {@code enum ibv_mw_type}.
 *
 * <p>A type 1 window is bound with {@link QueuePair#bindMw}; a type 2 window with the
 * {@link WrSession#bindMw} builder or a {@link WrOpcode#BIND_MW} work request.
 *
 * @see "ibv_alloc_mw(3)"
 */
public enum MwType {
    TYPE_1(1),
    TYPE_2(2);

    private final int value;

    MwType(int value) {
        this.value = value;
    }

    /** {@return the {@code IBV_MW_TYPE_*} value} */
    public int value() {
        return value;
    }
}
