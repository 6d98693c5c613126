package org.verbs4j.provider.ffm;

import org.verbs4j.provider.ffm.internal.IbverbsLibrary;
import org.verbs4j.provider.nativecommon.internal.IbverbsProviderShell;
import org.verbs4j.provider.nativecommon.internal.LibRdmaCm;
import org.verbs4j.spi.support.internal.CmBinding;

/**
 * The {@code ffm} provider: libibverbs ({@code libibverbs.so.1}) through the Foreign Function and Memory API.
 *
 * <p>It is available when libibverbs loads and lists at least one device. Otherwise
 * {@link #unavailabilityCause()} says which of these it is: the kill switch is set, the library is
 * missing, native access is denied, the kernel has no RDMA support (ENOSYS), or there is no device.
 * Availability, the device list and the connection manager follow the one policy of
 * {@link IbverbsProviderShell}; this class supplies the FFM loader and binding.
 *
 * <p>Set the system property {@value #DISABLED_PROPERTY}{@code =true} to turn the provider off
 * without removing it from the path, and {@value #EXTENDED_CQ_PROPERTY}{@code =false} to create every CQ
 * with {@code ibv_create_cq} and poll it with {@code ibv_poll_cq} even where the device offers the
 * extended CQ ({@code ibv_create_cq_ex}, polled with {@code ibv_start_poll} and, but on librxe,
 * {@code ibv_next_poll}). The JVM needs
 * {@code --enable-native-access=org.verbs4j.provider.ffm} (or {@code ALL-UNNAMED} on the class path).
 */
public final class FfmProvider extends IbverbsProviderShell {
    /** The kill switch: {@code -Dverbs4j.ffm.disabled=true} makes the provider unavailable. */
    public static final String DISABLED_PROPERTY = "verbs4j.ffm.disabled";
    /**
     * {@code -Dverbs4j.ffm.extendedCq=false} makes every CQ a plain one ({@code ibv_create_cq}); by
     * default a CQ is extended ({@code ibv_create_cq_ex}) wherever the device supports it. Read at each creation.
     */
    public static final String EXTENDED_CQ_PROPERTY = "verbs4j.ffm.extendedCq";

    /** Cheap: loads nothing. */
    public FfmProvider() {
        super("ffm", 300);
    }

    @Override
    protected Library loadLibrary() {
        return IbverbsLibrary.load();
    }

    /** librdmacm ({@code librdmacm1}) through FFM. */
    @Override
    protected CmBinding loadConnectionManager(Library library) {
        if (FfmRdmaCm.UNAVAILABLE != null) {
            throw new IllegalStateException(LibRdmaCm.SONAME + " does not load", FfmRdmaCm.UNAVAILABLE);
        }
        return new FfmRdmaCm();
    }
}
