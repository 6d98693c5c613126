package org.verbs4j.provider.jnr;

import java.util.ArrayList;
import java.util.List;
import org.verbs4j.ConnectionManager;
import org.verbs4j.Device;
import org.verbs4j.Errno;
import org.verbs4j.provider.jnr.internal.Ibverbs;
import org.verbs4j.provider.jnr.internal.JnrIbverbsBinding;
import org.verbs4j.provider.jnr.internal.NativeLibraries;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.nativecommon.IbverbsAvailability;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException.Reason;
import org.verbs4j.provider.nativecommon.internal.NativeDevice;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.spi.support.internal.BoundConnectionManager;

/**
 * The verbs provider over libibverbs through JNR-FFI, named {@code jnr}.
 *
 * <p>It is available when {@code libibverbs.so.1} loads with every symbol the provider binds and lists
 * at least one device. The answer is computed once, lazily, by a real call to
 * {@code ibv_get_device_list}; the constructor does nothing. The system property
 * {@value #DISABLED_PROPERTY}{@code =true} turns the provider off.
 *
 * <p>CQs are created with {@code ibv_create_cq_ex} and polled with {@code ibv_start_poll} where the provider
 * library supports it, and with {@code ibv_create_cq} and {@code ibv_poll_cq} otherwise; the system property
 * {@code verbs4j.jnr.extendedCq=false} forces the plain CQ.
 *
 * @see "ibv_get_device_list(3)"
 */
public final class JnrProvider implements VerbsProvider {
    /** The kill switch: {@code -Dverbs4j.jnr.disabled=true} makes the provider unavailable. */
    public static final String DISABLED_PROPERTY = "verbs4j.jnr.disabled";
    /**
     * {@code -Dverbs4j.jnr.extendedCq=false} creates every CQ with {@code ibv_create_cq} and polls it with
     * {@code ibv_poll_cq}, even where the provider library has {@code ibv_create_cq_ex}; read at each creation.
     */
    public static final String EXTENDED_CQ_PROPERTY = "verbs4j.jnr.extendedCq";

    /** Loaded on first use, never at class initialisation of the provider; one per JVM. */
    private static final IbverbsAvailability<NativeLibraries> AVAILABILITY =
            new IbverbsAvailability<>("jnr", DISABLED_PROPERTY, JnrProvider::load);

    /** Public for {@link java.util.ServiceLoader}; does no work. */
    public JnrProvider() {}

    @Override
    public String name() {
        return "jnr";
    }

    @Override
    public int priority() {
        return 200;
    }

    @Override
    public int spiVersion() {
        return SPI_VERSION;
    }

    @Override
    public boolean isAvailable() {
        return AVAILABILITY.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
        return AVAILABILITY.unavailabilityCause();
    }

    @Override
    public List<Device> devices() {
        ensureAvailability();
        return listDevices(AVAILABILITY.library());
    }

    /** Has a connection manager when the provider is available and librdmacm ({@code librdmacm1}) loads. */
    @Override
    public boolean hasConnectionManager() {
        return isAvailable() && ConnectionManagerHolder.CAUSE == null;
    }

    /**
     * The connection manager over librdmacm ({@code librdmacm.so.1}); one per provider instance.
     *
     * @throws UnsupportedOperationException if librdmacm is not installed, with its cause
     */
    @Override
    public ConnectionManager connectionManager() {
        ensureAvailability();
        if (ConnectionManagerHolder.CAUSE != null) {
            throw new UnsupportedOperationException("verbs4j provider 'jnr' has no connection manager: "
                    + ConnectionManagerHolder.CAUSE.getMessage() + " (install rdma-core's librdmacm1)",
                    ConnectionManagerHolder.CAUSE);
        }
        ConnectionManager cm = connectionManager;
        if (cm == null) {
            synchronized (this) {
                cm = connectionManager;
                if (cm == null) {
                    cm = connectionManager = new BoundConnectionManager(ConnectionManagerHolder.BINDING, this);
                }
            }
        }
        return cm;
    }

    private volatile ConnectionManager connectionManager;

    /** librdmacm, loaded on first use. */
    private static final class ConnectionManagerHolder {
        static final JnrRdmaCm BINDING;
        static final Throwable CAUSE;

        static {
            JnrRdmaCm binding = null;
            Throwable cause = null;
            try {
                binding = JnrRdmaCm.load(libraries());
            } catch (LinkageError | RuntimeException e) {
                cause = e;
            }
            BINDING = binding;
            CAUSE = cause;
        }
    }

    /** The libraries, once loaded; for the object model. */
    static NativeLibraries libraries() {
        return AVAILABILITY.library();
    }

    /** The errno of a libibverbs call that returned {@code rc}: the value itself, or errno when it is -1. */
    static int errnoOf(int rc) {
        return JnrIbverbsBinding.errnoOf(libraries(), rc);
    }

    static List<Device> listDevices(NativeLibraries libs) {
        Ibverbs ib = libs.ibverbs();
        JnrIbverbsBinding binding = new JnrIbverbsBinding(libs);
        long num = NativeMemory.allocate(4);
        try {
            long list = ib.ibv_get_device_list(num);
            if (list == 0) {
                int errno = libs.lastErrno();
                throw new org.verbs4j.VerbsException("ibv_get_device_list", errno, describe(errno));
            }
            try {
                int n = NativeMemory.getInt(num);
                List<Device> devices = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    long dev = NativeMemory.getAddress(list + 8L * i);
                    String name = NativeMemory.getString(ib.ibv_get_device_name(dev));
                    long guid = Long.reverseBytes(ib.ibv_get_device_guid(dev));
                    devices.add(new NativeDevice("jnr", binding, name, guid, libs.rdmaCoreMajor(),
                            () -> !"false".equals(System.getProperty(EXTENDED_CQ_PROPERTY))));
                }
                return List.copyOf(devices);
            } finally {
                ib.ibv_free_device_list(list);
            }
        } finally {
            NativeMemory.free(num);
        }
    }

    private static String describe(int errno) {
        return switch (errno) {
            case Errno.ENOSYS -> "the kernel has no RDMA support (no /sys/class/infiniband_verbs)";
            case Errno.EPERM, Errno.EACCES -> "no permission to the RDMA devices in /dev/infiniband";
            default -> null;
        };
    }

    /** Loads the libraries and checks that they list a device: the binding's half of {@link #AVAILABILITY}. */
    private static NativeLibraries load() {
        NativeLibraries libs;
        try {
            libs = NativeLibraries.load();
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            throw new IbverbsUnavailableException(Reason.LIBRARY_MISSING, "libibverbs could not be loaded through "
                    + "JNR-FFI (" + NativeLibraries.IBVERBS_SONAME + "): " + e.getMessage()
                    + ". Install rdma-core's libibverbs1 package.", e);
        } catch (LinkageError e) {
            throw new IbverbsUnavailableException(Reason.LIBRARY_MISSING, "JNR-FFI or jffi could not load its "
                    + "native stub: " + e.getMessage(), e);
        }
        Ibverbs ib = libs.ibverbs();
        long num = NativeMemory.allocate(4);
        try {
            long list = ib.ibv_get_device_list(num);
            if (list == 0) {
                throw IbverbsAvailability.deviceListFailed(libs.rdmaCoreMajor(), libs.lastErrno());
            }
            int n = NativeMemory.getInt(num);
            ib.ibv_free_device_list(list);
            if (n == 0) {
                throw IbverbsAvailability.noDevice(libs.rdmaCoreMajor());
            }
            return libs;
        } finally {
            NativeMemory.free(num);
        }
    }
}
