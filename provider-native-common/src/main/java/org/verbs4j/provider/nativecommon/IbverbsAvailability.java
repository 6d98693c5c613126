package org.verbs4j.provider.nativecommon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.verbs4j.Errno;
import org.verbs4j.ProviderUnavailableException;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException.Reason;

/**
 * The availability holder of a libibverbs provider: the kill switch, then the outcome of loading the library and
 * listing its devices, computed once by a real call on first use and kept, success or failure with its cause. The
 * binding supplies the {@link Loader}; the verdicts on a device list and their messages are here, the same for
 * every binding.
 *
 * @param <L> what the binding keeps of a loaded library
 * @see "ibv_get_device_list(3)"
 */
public final class IbverbsAvailability<L> {
    /**
     * The binding's half: load libibverbs and list its devices, calling {@link #deviceListFailed} or
     * {@link #noDevice} for what the list says.
     *
     * @param <L> what the binding keeps of a loaded library
     */
    @FunctionalInterface
    public interface Loader<L> {
        /**
         * Loads the library.
         *
         * @return the loaded library, with at least one device
         * @throws IbverbsUnavailableException why it cannot be used
         */
        L load();
    }

    /** rdma-core's packages name the file {@code libibverbs.so.1.<abi>.<rdma-core release>.0}. */
    private static final Pattern MAPPED_FILE = Pattern.compile("libibverbs\\.so\\.1\\.\\d+\\.(\\d+)\\.\\d+");

    private final String provider;
    private final String disabledProperty;
    private final Loader<L> loader;
    private volatile Object outcome;

    /**
     * A holder that loads nothing yet.
     *
     * @param provider the provider's name, for messages
     * @param disabledProperty the kill switch: the system property that, set to {@code true}, turns it off
     * @param loader the binding's loader
     */
    public IbverbsAvailability(String provider, String disabledProperty, Loader<L> loader) {
        this.provider = provider;
        this.disabledProperty = disabledProperty;
        this.loader = loader;
    }

    private Object outcome() {
        Object o = outcome;
        if (o == null) {
            synchronized (this) {
                o = outcome;
                if (o == null) {
                    try {
                        o = loader.load();
                    } catch (IbverbsUnavailableException e) {
                        o = e;
                    }
                    outcome = o;
                }
            }
        }
        return o;
    }

    /**
     * Why the provider cannot be used, the kill switch first.
     *
     * @return the cause, or {@code null} when it is available
     */
    public Throwable unavailabilityCause() {
        if (Boolean.getBoolean(disabledProperty)) {
            return new IbverbsUnavailableException(Reason.DISABLED,
                    "the " + provider + " provider is turned off by -D" + disabledProperty + "=true", null);
        }
        return outcome() instanceof Throwable t ? t : null;
    }

    /**
     * Whether the provider can be used.
     *
     * @return whether the library loaded, lists a device and the kill switch is not set
     */
    public boolean isAvailable() {
        return unavailabilityCause() == null;
    }

    /**
     * The loaded library, whatever the kill switch says: a provider checks {@link #isAvailable()} before it
     * hands out a device, and objects made before the switch was set keep working.
     *
     * @return it
     * @throws ProviderUnavailableException if it did not load or lists no device, with the cause attached
     */
    @SuppressWarnings("unchecked")
    public L library() {
        Object o = outcome();
        if (o instanceof Throwable cause) {
            throw new ProviderUnavailableException("verbs4j provider '" + provider + "' is unavailable: "
                    + cause.getMessage(), cause);
        }
        return (L) o;
    }

    /**
     * The rdma-core release of the libibverbs this process mapped, read from the file's name in
     * {@code /proc/self/maps} ({@code libibverbs.so.1.14.44.0} is 44). For messages only: no capability depends on
     * it, since a vendor's build need not be named so.
     *
     * @return the release, or 0 if no mapped file is named so (or there is no {@code /proc})
     */
    public static int mappedRdmaCoreVersion() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
                Matcher m = MAPPED_FILE.matcher(line);
                if (m.find()) {
                    return Integer.parseInt(m.group(1));
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux /proc, or unreadable: the message says "of unknown version".
        }
        return 0;
    }

    /**
     * Names a loaded libibverbs for messages.
     *
     * @param rdmaCoreVersion the rdma-core release, 0 if unknown
     * @return for example {@code "libibverbs (rdma-core 44)"}
     */
    public static String describe(int rdmaCoreVersion) {
        return "libibverbs (rdma-core " + (rdmaCoreVersion == 0 ? "of unknown version" : rdmaCoreVersion) + ")";
    }

    /**
     * The verdict on a failed {@code ibv_get_device_list}.
     *
     * @param rdmaCoreVersion the rdma-core release, 0 if unknown
     * @param errno the errno it failed with
     * @return {@link Reason#KERNEL_WITHOUT_RDMA} for {@code ENOSYS}, else {@link Reason#DEVICE_LIST_FAILED}
     */
    public static IbverbsUnavailableException deviceListFailed(int rdmaCoreVersion, int errno) {
        String lib = describe(rdmaCoreVersion);
        if (errno == Errno.ENOSYS) {
            return new IbverbsUnavailableException(Reason.KERNEL_WITHOUT_RDMA, lib + " found no RDMA device: the "
                    + "kernel has no RDMA support (ibv_get_device_list failed with ENOSYS"
                    + (Files.isDirectory(Path.of("/sys/class/infiniband_verbs")) ? ")"
                            : "; /sys/class/infiniband_verbs is missing)"), null);
        }
        return new IbverbsUnavailableException(Reason.DEVICE_LIST_FAILED,
                lib + " could not list RDMA devices: ibv_get_device_list failed with " + Errno.name(errno), null);
    }

    /**
     * The verdict on an empty device list.
     *
     * @param rdmaCoreVersion the rdma-core release, 0 if unknown
     * @return {@link Reason#NO_DEVICE}
     */
    public static IbverbsUnavailableException noDevice(int rdmaCoreVersion) {
        return new IbverbsUnavailableException(Reason.NO_DEVICE, describe(rdmaCoreVersion) + " found no RDMA device "
                + "(no NIC, and no rxe or siw device configured with 'rdma link add')", null);
    }
}
