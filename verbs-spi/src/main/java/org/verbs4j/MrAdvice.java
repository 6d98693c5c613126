package org.verbs4j;

/**
 * What {@link ProtectionDomain#adviseMr} tells the device about ranges of on-demand paging regions,
 * {@code enum ibv_advise_mr_advice}.
 *
 * @see "ibv_advise_mr(3)"
 */
public enum MrAdvice {
    /** {@code IBV_ADVISE_MR_ADVICE_PREFETCH}: make the pages present, read-only, before the I/O. */
    PREFETCH(0),
    /** {@code IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE}: as PREFETCH, writable; the regions must be writable. */
    PREFETCH_WRITE(1),
    /** {@code IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT}: present to the device the pages the CPU already has. */
    PREFETCH_NO_FAULT(2);

    /** {@code IBV_ADVISE_MR_FLAG_FLUSH}: return once the translations are in the device, not before. */
    public static final int FLAG_FLUSH = 1;

    private final int value;

    MrAdvice(int value) {
        this.value = value;
    }

    /** {@return the {@code enum ibv_advise_mr_advice} value} */
    public int value() {
        return value;
    }
}
