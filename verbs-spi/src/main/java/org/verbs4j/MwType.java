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
    /** {@code IBV_MW_TYPE_1}: bound with {@code ibv_bind_mw}, its rkey changes with each bind. */
    TYPE_1(1),
    /** {@code IBV_MW_TYPE_2}: bound with a BIND_MW work request on one QP, rkey chosen by the binder. */
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
