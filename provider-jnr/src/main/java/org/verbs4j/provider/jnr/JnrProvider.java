package org.verbs4j.provider.jnr;

import org.verbs4j.provider.jnr.internal.JnrIbverbsBinding;
import org.verbs4j.provider.jnr.internal.NativeLibraries;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException.Reason;
import org.verbs4j.provider.nativecommon.internal.IbverbsBinding;
import org.verbs4j.provider.nativecommon.internal.IbverbsProviderShell;
import org.verbs4j.spi.support.internal.CmBinding;

/**
 * The verbs provider over libibverbs through JNR-FFI, named {@code jnr}.
 *
 * <p>It is available when {@code libibverbs.so.1} loads with every symbol the provider binds and lists
 * at least one device. The answer is computed once, lazily, by a real call to
 * {@code ibv_get_device_list}; the constructor does nothing. The system property
 * {@value #DISABLED_PROPERTY}{@code =true} turns the provider off. Availability, the device list and the
 * connection manager follow the one policy of {@link IbverbsProviderShell}; this class supplies the JNR loader
 * and binding.
 *
 * <p>CQs are created with {@code ibv_create_cq_ex} and polled with {@code ibv_start_poll} (and
 * {@code ibv_next_poll}, but on librxe) where the provider library supports it, and with {@code ibv_create_cq} and {@code ibv_poll_cq} otherwise; the system property
 * {@value #EXTENDED_CQ_PROPERTY}{@code =false} forces the plain CQ.
 *
 * @see "ibv_get_device_list(3)"
 */
public final class JnrProvider extends IbverbsProviderShell {
    /** The kill switch: {@code -Dverbs4j.jnr.disabled=true} makes the provider unavailable. */
    public static final String DISABLED_PROPERTY = "verbs4j.jnr.disabled";
    /**
     * {@code -Dverbs4j.jnr.extendedCq=false} creates every CQ with {@code ibv_create_cq} and polls it with
     * {@code ibv_poll_cq}, even where the provider library has {@code ibv_create_cq_ex}; read at each creation.
     */
    public static final String EXTENDED_CQ_PROPERTY = "verbs4j.jnr.extendedCq";

    /** Public for {@link java.util.ServiceLoader}; does no work. */
    public JnrProvider() {
        super("jnr", 200);
    }

    @Override
    protected Library loadLibrary() {
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
        return new JnrLibrary(libs, new JnrIbverbsBinding(libs));
    }

    /** librdmacm ({@code librdmacm1}) through JNR-FFI. */
    @Override
    protected CmBinding loadConnectionManager(Library library) {
        return JnrRdmaCm.load(((JnrLibrary) library).libs());
    }

    /** libibverbs and libc loaded through JNR-FFI, with the binding over them. */
    private record JnrLibrary(NativeLibraries libs, IbverbsBinding binding) implements Library {}
}
