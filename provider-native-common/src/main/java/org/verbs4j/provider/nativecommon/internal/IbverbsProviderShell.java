package org.verbs4j.provider.nativecommon.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.verbs4j.ConnectionManager;
import org.verbs4j.Device;
import org.verbs4j.Errno;
import org.verbs4j.ForkStatus;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.nativecommon.IbverbsAvailability;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.spi.support.internal.BoundConnectionManager;
import org.verbs4j.spi.support.internal.CmBinding;

/**
 * The one shell of a libibverbs provider: a provider ({@code ffm}, {@code jnr}, or a fourth) extends it and
 * supplies only its name, its priority, its loader and its binding; the availability holder, the device list, the
 * kill switch, the extended-CQ switch and the connection manager are here, the same for every binding.
 *
 * <p>The policies, one for all:
 * <ul>
 *   <li><b>Availability</b> is decided once per JVM and provider class, by loading the library and listing its
 *       devices (a real call), and kept with its cause. The kill switch {@code verbs4j.<name>.disabled} is read at
 *       each call.</li>
 *   <li><b>Devices</b> are listed afresh by each {@link #devices()} call ({@code ibv_get_device_list}, freed
 *       again), so that a device added or removed later ({@code rdma link add}) shows; a {@link NativeDevice} keeps
 *       only its name and GUID and opens the device of that name.</li>
 *   <li><b>Extended CQs</b> ({@code ibv_create_cq_ex}) are used where the device has them unless
 *       {@code verbs4j.<name>.extendedCq=false}, read at each CQ creation.</li>
 *   <li><b>The connection manager</b>: librdmacm is loaded once per JVM and provider class; each provider instance
 *       has one {@link ConnectionManager}.</li>
 * </ul>
 *
 * <p>Nothing here depends on the rdma-core version: capabilities are probed ({@code verbs_context.sz}, NULL ops,
 * {@code comp_mask}, what the library grants). The version read from the mapped file's name only names the
 * library in messages ({@link IbverbsAvailability#mappedRdmaCoreVersion()}).
 *
 * @see "ibv_get_device_list(3)"
 */
public abstract class IbverbsProviderShell implements VerbsProvider {
    /** Availability per provider class: a library is loaded once per JVM. */
    private static final Map<Class<?>, IbverbsAvailability<Library>> AVAILABILITY = new ConcurrentHashMap<>();
    /** librdmacm per provider class: the {@link CmBinding}, or the {@link Throwable} why it does not load. */
    private static final Map<Class<?>, Object> CONNECTION_MANAGER = new ConcurrentHashMap<>();

    /** A device {@code ibv_get_device_list} listed. */
    public record ListedDevice(String name, long guid, int index) {
        /**
         * A listed device whose library gives no index.
         *
         * @param name its name
         * @param guid its node GUID, in host byte order
         */
        public ListedDevice(String name, long guid) {
            this(name, guid, -1);
        }
    }

    /**
     * What a binding supplies once its library is loaded: the binding and the device list.
     */
    public interface Library {
        /**
         * The binding every object of the provider calls.
         *
         * @return it
         */
        IbverbsBinding binding();

        /**
         * Lists the devices with {@code ibv_get_device_list}, {@code ibv_get_device_name} and
         * {@code ibv_get_device_guid}, and frees the list.
         *
         * @return the devices, GUIDs in host byte order, possibly none
         * @throws VerbsException {@code ibv_get_device_list} with its errno if the list cannot be had
         */
        default List<ListedDevice> listDevices() {
            return binding().listDevices();
        }
    }

    private final String name;
    private final int priority;
    private final String disabledProperty;
    private final String extendedCqProperty;
    private volatile ConnectionManager connectionManager;

    /**
     * The shell of a provider; cheap, loads nothing.
     *
     * @param name the provider's name, which also names its properties ({@code verbs4j.<name>.disabled},
     *     {@code verbs4j.<name>.extendedCq})
     * @param priority its priority ({@link VerbsProvider#priority()})
     */
    protected IbverbsProviderShell(String name, int priority) {
        this.name = name;
        this.priority = priority;
        this.disabledProperty = "verbs4j." + name + ".disabled";
        this.extendedCqProperty = "verbs4j." + name + ".extendedCq";
    }

    /**
     * The binding's half: loads libibverbs and binds it. Called once per JVM and provider class.
     *
     * @return the loaded library
     * @throws IbverbsUnavailableException why it cannot be used ({@code LIBRARY_MISSING},
     *     {@code NATIVE_ACCESS_DENIED})
     */
    protected abstract Library loadLibrary();

    /**
     * librdmacm through the binding. Called at most once per JVM and provider class.
     *
     * @param library the loaded libibverbs
     * @return its binding
     * @throws LinkageError or {@link RuntimeException} if librdmacm does not load; the default says it has none
     */
    protected CmBinding loadConnectionManager(Library library) {
        throw new UnsupportedOperationException("the " + name + " provider binds no librdmacm");
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final int priority() {
        return priority;
    }

    @Override
    public final int spiVersion() {
        return SPI_VERSION;
    }

    private IbverbsAvailability<Library> availability() {
        return AVAILABILITY.computeIfAbsent(getClass(), c -> new IbverbsAvailability<>(name, disabledProperty,
                this::loadAndList));
    }

    /** Loads the library and checks that it lists a device: the verdicts are {@link IbverbsAvailability}'s. */
    private Library loadAndList() {
        Library lib = loadLibrary();
        int version = IbverbsAvailability.mappedRdmaCoreVersion();
        List<ListedDevice> devices;
        try {
            devices = lib.listDevices();
        } catch (VerbsException e) {
            throw IbverbsAvailability.deviceListFailed(version, e.errno());
        }
        if (devices.isEmpty()) {
            throw IbverbsAvailability.noDevice(version);
        }
        return lib;
    }

    @Override
    public final boolean isAvailable() {
        return availability().isAvailable();
    }

    @Override
    public final Throwable unavailabilityCause() {
        return availability().unavailabilityCause();
    }

    /**
     * The loaded library, for the provider and its tests.
     *
     * @return it
     * @throws org.verbs4j.ProviderUnavailableException if it did not load or lists no device
     */
    protected final Library library() {
        return availability().library();
    }

    /**
     * The devices libibverbs lists now.
     *
     * @return them, in the library's order
     * @throws org.verbs4j.ProviderUnavailableException if the provider is unavailable
     * @throws VerbsException {@code ibv_get_device_list} with its errno if the list cannot be had now
     */
    @Override
    public final List<Device> devices() {
        ensureAvailability();
        Library lib = library();
        List<ListedDevice> listed;
        try {
            listed = lib.listDevices();
        } catch (VerbsException e) {
            throw new VerbsException("ibv_get_device_list", e.errno(), describe(e.errno()));
        }
        BooleanSupplier extendedCq = () -> !"false".equalsIgnoreCase(System.getProperty(extendedCqProperty));
        List<Device> devices = new ArrayList<>(listed.size());
        for (ListedDevice d : listed) {
            devices.add(new NativeDevice(name, lib.binding(), d.name(), d.guid(), d.index(), extendedCq));
        }
        return List.copyOf(devices);
    }

    /**
     * {@code ibv_fork_init(3)}.
     *
     * @throws VerbsException {@code ibv_fork_init} with its errno: {@code EINVAL} after a registration
     * @throws org.verbs4j.ProviderUnavailableException if the provider is unavailable
     */
    @Override
    public final void forkInit() {
        ensureAvailability();
        NativeErrors.check(library().binding().libibverbs().ibv_fork_init(), "ibv_fork_init", null);
    }

    /**
     * {@code ibv_is_fork_initialized(3)}.
     *
     * @return the status
     * @throws org.verbs4j.ProviderUnavailableException if the provider is unavailable
     */
    @Override
    public final ForkStatus forkStatus() {
        ensureAvailability();
        return ForkStatus.of(library().binding().libibverbs().ibv_is_fork_initialized());
    }

    private static String describe(int errno) {
        return switch (errno) {
            case Errno.ENOSYS -> "the kernel has no RDMA support (no /sys/class/infiniband_verbs)";
            case Errno.EPERM, Errno.EACCES -> "no permission to the RDMA devices in /dev/infiniband";
            default -> null;
        };
    }

    private Object connectionManagerOutcome() {
        return CONNECTION_MANAGER.computeIfAbsent(getClass(), c -> {
            try {
                return loadConnectionManager(library());
            } catch (LinkageError | RuntimeException e) {
                return e;
            }
        });
    }

    /** Has a connection manager when the provider is available and librdmacm ({@code librdmacm1}) loads. */
    @Override
    public final boolean hasConnectionManager() {
        return isAvailable() && connectionManagerOutcome() instanceof CmBinding;
    }

    /**
     * The connection manager over librdmacm ({@code librdmacm.so.1}); one per provider instance.
     *
     * @throws UnsupportedOperationException if librdmacm is not installed, with its cause
     */
    @Override
    public final ConnectionManager connectionManager() {
        ensureAvailability();
        Object outcome = connectionManagerOutcome();
        if (outcome instanceof Throwable cause) {
            throw new UnsupportedOperationException("verbs4j provider '" + name + "' has no connection manager: "
                    + cause.getMessage() + " (install rdma-core's librdmacm1)", cause);
        }
        ConnectionManager cm = connectionManager;
        if (cm == null) {
            synchronized (this) {
                cm = connectionManager;
                if (cm == null) {
                    cm = connectionManager = new BoundConnectionManager((CmBinding) outcome, this);
                }
            }
        }
        return cm;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[available=" + isAvailable() + "]";
    }
}
