package org.verbs4j.provider.nativecommon;

/**
 * Why libibverbs cannot be used here: the cause a libibverbs provider's {@code unavailabilityCause()} reports
 * (see {@link IbverbsAvailability}).
 */
public final class IbverbsUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The kinds of unavailability, each with its own remedy. */
    public enum Reason {
        /** The provider's kill switch ({@code verbs4j.ffm.disabled}, {@code verbs4j.jnr.disabled}) is set. */
        DISABLED,
        /** {@code libibverbs.so.1} is not installed (package {@code libibverbs1} / {@code rdma-core}). */
        LIBRARY_MISSING,
        /** The JVM refused native access to the provider's module ({@code --enable-native-access}). */
        NATIVE_ACCESS_DENIED,
        /** libibverbs loaded but the kernel has no RDMA support ({@code ENOSYS}). */
        KERNEL_WITHOUT_RDMA,
        /** libibverbs loaded, the kernel answered, and there is no RDMA device. */
        NO_DEVICE,
        /** {@code ibv_get_device_list} failed with another errno. */
        DEVICE_LIST_FAILED
    }

    /** The kind of unavailability. */
    private final Reason reason;

    /**
     * An unavailability.
     *
     * @param reason its kind
     * @param message what is missing and what to do about it
     * @param cause the failure behind it, or {@code null}
     */
    public IbverbsUnavailableException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /**
     * The kind of unavailability.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }
}
