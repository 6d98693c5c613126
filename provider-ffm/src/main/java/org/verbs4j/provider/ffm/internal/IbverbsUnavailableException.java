package org.verbs4j.provider.ffm.internal;

/**
 * Why libibverbs cannot be used here: the cause {@code FfmProvider.unavailabilityCause()} reports.
 */
public final class IbverbsUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The kinds of unavailability, each with its own remedy. */
    public enum Reason {
        /** The {@code verbs4j.ffm.disabled} kill switch is set. */
        DISABLED,
        /** {@code libibverbs.so.1} is not installed (package {@code libibverbs1} / {@code rdma-core}). */
        LIBRARY_MISSING,
        /** The JVM refused native access to this module ({@code --enable-native-access}). */
        NATIVE_ACCESS_DENIED,
        /** libibverbs loaded but the kernel has no RDMA support ({@code ENOSYS}). */
        KERNEL_WITHOUT_RDMA,
        /** libibverbs loaded, the kernel answered, and there is no RDMA device. */
        NO_DEVICE,
        /** {@code ibv_get_device_list} failed with another errno. */
        DEVICE_LIST_FAILED
    }

    private final Reason reason;

    public IbverbsUnavailableException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** The kind of unavailability. */
    public Reason reason() {
        return reason;
    }
}
