package org.verbs4j.provider.ffm;

import java.util.ArrayList;
import java.util.List;
import org.verbs4j.ConnectionManager;
import org.verbs4j.Device;
import org.verbs4j.provider.ffm.internal.FfmIbverbsBinding;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.IbverbsLibrary;
import org.verbs4j.provider.nativecommon.internal.LibRdmaCm;
import org.verbs4j.provider.nativecommon.internal.NativeDevice;
import org.verbs4j.provider.nativecommon.IbverbsAvailability;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.spi.support.internal.BoundConnectionManager;

/**
 * The {@code ffm} provider: libibverbs ({@code libibverbs.so.1}, rdma-core 44 or later) through the
 * Foreign Function and Memory API.
 *
 * <p>It is available when libibverbs loads and lists at least one device. Otherwise
 * {@link #unavailabilityCause()} says which of these it is: the kill switch is set, the library is
 * missing, native access is denied, the kernel has no RDMA support (ENOSYS), or there is no device.
 *
 * <p>Set the system property {@value #DISABLED_PROPERTY}{@code =true} to turn the provider off
 * without removing it from the path, and {@value #EXTENDED_CQ_PROPERTY}{@code =false} to create every CQ
 * with {@code ibv_create_cq} and poll it with {@code ibv_poll_cq} even where the device offers the
 * extended CQ ({@code ibv_create_cq_ex}, polled with {@code ibv_start_poll}). The JVM needs
 * {@code --enable-native-access=org.verbs4j.provider.ffm} (or {@code ALL-UNNAMED} on the class path).
 */
public final class FfmProvider implements VerbsProvider {
    /** The kill switch: {@code -Dverbs4j.ffm.disabled=true} makes the provider unavailable. */
    public static final String DISABLED_PROPERTY = "verbs4j.ffm.disabled";
    /**
     * {@code -Dverbs4j.ffm.extendedCq=false} makes every CQ a plain one ({@code ibv_create_cq}); by
     * default a CQ is extended ({@code ibv_create_cq_ex}) wherever the device supports it. Read once.
     */
    public static final String EXTENDED_CQ_PROPERTY = "verbs4j.ffm.extendedCq";
    private static final boolean EXTENDED_CQ =
            !"false".equalsIgnoreCase(System.getProperty(EXTENDED_CQ_PROPERTY, "true"));

    private final IbverbsAvailability<IbverbsLibrary.Loaded> availability =
            new IbverbsAvailability<>("ffm", DISABLED_PROPERTY, IbverbsLibrary::load);
    private volatile List<Device> devices;
    private volatile ConnectionManager connectionManager;

    /** Cheap: loads nothing. */
    public FfmProvider() {}

    @Override
    public String name() {
        return "ffm";
    }

    @Override
    public int priority() {
        return 300;
    }

    @Override
    public int spiVersion() {
        return SPI_VERSION;
    }

    @Override
    public boolean isAvailable() {
        return availability.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
        return availability.unavailabilityCause();
    }

    @Override
    public List<Device> devices() {
        ensureAvailability();
        List<Device> d = devices;
        if (d == null) {
            IbverbsLibrary.Loaded lib = availability.library();
            List<Device> list = new ArrayList<>();
            for (var dev : lib.devices()) {
                list.add(new NativeDevice("ffm", FfmIbverbsBinding.INSTANCE,
                        Ibverbs.ibv_get_device_name(dev).reinterpret(64).getString(0),
                        Long.reverseBytes(Ibverbs.ibv_get_device_guid(dev)), lib.rdmaCoreVersion(), () -> EXTENDED_CQ));
            }
            d = devices = List.copyOf(list);
        }
        return d;
    }

    /** Has a connection manager when the provider is available and librdmacm ({@code librdmacm1}) loads. */
    @Override
    public boolean hasConnectionManager() {
        return isAvailable() && FfmRdmaCm.UNAVAILABLE == null;
    }

    /**
     * The connection manager over librdmacm ({@code librdmacm.so.1}); one per provider instance.
     *
     * @throws UnsupportedOperationException if librdmacm is not installed, with its cause
     */
    @Override
    public ConnectionManager connectionManager() {
        ensureAvailability();
        if (FfmRdmaCm.UNAVAILABLE != null) {
            throw new UnsupportedOperationException("verbs4j provider 'ffm' has no connection manager: "
                    + LibRdmaCm.SONAME + " does not load (install rdma-core's librdmacm1)", FfmRdmaCm.UNAVAILABLE);
        }
        ConnectionManager cm = connectionManager;
        if (cm == null) {
            synchronized (this) {
                cm = connectionManager;
                if (cm == null) {
                    cm = connectionManager = new BoundConnectionManager(new FfmRdmaCm(), this);
                }
            }
        }
        return cm;
    }

    @Override
    public String toString() {
        return "FfmProvider[available=" + isAvailable() + "]";
    }
}
