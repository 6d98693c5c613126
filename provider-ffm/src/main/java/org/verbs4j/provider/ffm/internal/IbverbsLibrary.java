package org.verbs4j.provider.ffm.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.verbs4j.provider.nativecommon.IbverbsAvailability;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException.Reason;

/**
 * Loads libibverbs once per JVM, finds the rdma-core version it comes from, and lists the devices.
 * Nothing here runs at class initialisation: {@link #load()} computes the outcome on first use and
 * keeps it, success or failure with its cause.
 */
public final class IbverbsLibrary {
    /** The library's soname. */
    public static final String SONAME = "libibverbs.so.1";

    /** rdma-core packages name the file {@code libibverbs.so.1.<abi>.<rdma-core version>.0}. */
    private static final Pattern FILE_VERSION = Pattern.compile("libibverbs\\.so\\.1\\.\\d+\\.(\\d+)\\.\\d+");

    /**
     * A loaded libibverbs.
     *
     * @param rdmaCoreVersion the rdma-core release, such as 44, or 0 if it could not be told
     * @param devices the {@code struct ibv_device *} entries of the device list, which is never freed
     */
    public record Loaded(int rdmaCoreVersion, List<MemorySegment> devices) {}

    private IbverbsLibrary() {}

    private static final class Holder {
        static final Object OUTCOME = compute();
    }

    /**
     * The loaded library.
     *
     * @throws IbverbsUnavailableException why it cannot be used
     */
    public static Loaded load() {
        Object o = Holder.OUTCOME;
        if (o instanceof Loaded l) {
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
            int version = rdmaCoreVersion();
            MemorySegment num = Arena.global().allocate(JAVA_INT);
            MemorySegment list = Ibverbs.ibv_get_device_list(num);
            if (list.address() == 0) {
                return IbverbsAvailability.deviceListFailed(version, Ibverbs.errno());
            }
            int n = num.get(JAVA_INT, 0);
            if (n == 0) {
                return IbverbsAvailability.noDevice(version);
            }
            MemorySegment entries = list.reinterpret(ADDRESS.byteSize() * n);
            List<MemorySegment> devices = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                devices.add(entries.getAtIndex(ADDRESS, i).reinterpret(Structs.ibv_device.LAYOUT.byteSize()));
            }
            return new Loaded(version, List.copyOf(devices));
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

    /** The rdma-core version of the libibverbs this process mapped, from its file name; 0 if unknown. */
    static int rdmaCoreVersion() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
                Matcher m = FILE_VERSION.matcher(line);
                if (m.find()) {
                    return Integer.parseInt(m.group(1));
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux /proc, or unreadable: the version stays unknown and the oldest behaviour is assumed.
        }
        return 0;
    }
}
