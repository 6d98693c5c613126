package org.verbs4j.provider.ffm.internal;


import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandles;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException.Reason;
import org.verbs4j.provider.nativecommon.internal.IbverbsBinding;
import org.verbs4j.provider.nativecommon.internal.IbverbsProviderShell;

/**
 * libibverbs loaded through FFM, once per JVM: the loader and device list the provider shell asks of a binding.
 * Nothing here runs at class initialisation: {@link #load()} computes the outcome on first use and keeps it,
 * success or failure with its cause.
 */
public final class IbverbsLibrary implements IbverbsProviderShell.Library {
    /** The library's soname. */
    public static final String SONAME = "libibverbs.so.1";

    private static final IbverbsLibrary LOADED = new IbverbsLibrary();

    private IbverbsLibrary() {}

    private static final class Holder {
        static final Object OUTCOME = compute();
    }

    /**
     * The loaded library, every symbol bound.
     *
     * @return it
     * @throws IbverbsUnavailableException why it cannot be used
     */
    public static IbverbsLibrary load() {
        Object o = Holder.OUTCOME;
        if (o instanceof IbverbsLibrary l) {
            return l;
        }
        throw (IbverbsUnavailableException) o;
    }

    private static Object compute() {
        try {
            SymbolLookup.libraryLookup(SONAME, Arena.global());
        } catch (IllegalArgumentException e) {
            return new IbverbsUnavailableException(Reason.LIBRARY_MISSING,
                    SONAME + " is not installed (install rdma-core's libibverbs1): " + e.getMessage(), e);
        } catch (IllegalCallerException e) {
            return deniedAccess(e);
        }
        try {
            // Binds every symbol now, so a missing one or denied native access is the cause here.
            MethodHandles.lookup().ensureInitialized(Ibverbs.class);
            return LOADED;
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        } catch (IllegalCallerException e) {
            return deniedAccess(e);
        } catch (ExceptionInInitializerError | NoClassDefFoundError | UnsatisfiedLinkError e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            if (cause instanceof IllegalCallerException ice) {
                return deniedAccess(ice);
            }
            return new IbverbsUnavailableException(Reason.LIBRARY_MISSING,
                    SONAME + " loaded but lacks what verbs4j needs: " + cause, cause);
        }
    }

    private static IbverbsUnavailableException deniedAccess(IllegalCallerException e) {
        return new IbverbsUnavailableException(Reason.NATIVE_ACCESS_DENIED,
                "native access is not enabled for org.verbs4j.provider.ffm: run java with"
                        + " --enable-native-access=org.verbs4j.provider.ffm (or ALL-UNNAMED on the class path)", e);
    }

    @Override
    public IbverbsBinding binding() {
        return FfmIbverbsBinding.INSTANCE;
    }
}
