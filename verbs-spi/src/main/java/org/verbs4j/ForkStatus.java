package org.verbs4j;

/**
 * Whether {@code fork()} is safe for a process that has registered memory ({@code enum ibv_fork_status}), as
 * {@link org.verbs4j.spi.VerbsProvider#forkStatus()} reports it.
 *
 * <p>A child of {@code fork()} shares the parent's pages copy-on-write. Without the kernel's copy-on-fork for pinned
 * pages (Linux 5.13 and later) or {@code ibv_fork_init(3)}, the parent's next write moves its page, and the device
 * keeps reading and writing the old one. The JDK starts processes with {@code posix_spawn} or {@code vfork}, which
 * exec at once; native code that calls {@code fork()} or {@code system()} is what this guards.
 *
 * @see "ibv_is_fork_initialized(3)"
 */
public enum ForkStatus {
    /** {@code IBV_FORK_DISABLED}: fork support is off; a child of {@code fork()} may corrupt registered memory. */
    DISABLED,
    /** {@code IBV_FORK_ENABLED}: {@code ibv_fork_init(3)} ran; registered memory is kept out of children. */
    ENABLED,
    /** {@code IBV_FORK_UNNEEDED}: the kernel copies pinned pages at fork, or the device never reads memory by DMA. */
    UNNEEDED;

    /** {@return the {@code IBV_FORK_*} value} */
    public int value() {
        return ordinal();
    }

    /**
     * The status with the given value.
     *
     * @param value the {@code IBV_FORK_*} value
     * @return the status
     * @throws IllegalArgumentException if no status has that value
     */
    public static ForkStatus of(int value) {
        if (value < 0 || value >= values().length) {
            throw new IllegalArgumentException("no fork status has the value " + value);
        }
        return values()[value];
    }
}
