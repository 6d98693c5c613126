package org.verbs4j.provider.ffm.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The functions {@code libibverbs.so.1} exports, and {@code poll(2)} from the C library: one
 * {@code static final MethodHandle} per function, named after it, each capturing {@code errno}.
 *
 * <p>Loading this class loads libibverbs, and fails if the library is missing. Touch it only after
 * {@link IbverbsLibrary#load()} has succeeded.
 */
public final class Ibverbs {
    private Ibverbs() {}

    static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIB = SymbolLookup.libraryLookup(IbverbsLibrary.SONAME, Arena.global());
    static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle errno$vh = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final ThreadLocal<MemorySegment> ERRNO =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE_LAYOUT));

    private static MethodHandle bind(String name, FunctionDescriptor fd) {
        MemorySegment sym = LIB.find(name).orElseThrow(
                () -> new UnsatisfiedLinkError(IbverbsLibrary.SONAME + " does not export " + name));
        return LINKER.downcallHandle(sym, fd, CAPTURE_ERRNO);
    }

    private static MethodHandle bindLibc(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd, CAPTURE_ERRNO);
    }

    private static final FunctionDescriptor P_P = FunctionDescriptor.of(ADDRESS, ADDRESS);

    static final MethodHandle ibv_get_device_name$mh = bind("ibv_get_device_name", P_P);
    static final MethodHandle poll$mh = bindLibc("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    static final MethodHandle calloc$mh = LINKER.downcallHandle(LINKER.defaultLookup().find("calloc").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));
    static final MethodHandle free$mh = LINKER.downcallHandle(LINKER.defaultLookup().find("free").orElseThrow(),
            FunctionDescriptor.ofVoid(JAVA_LONG));

    /** The calling thread's capture segment, reused for every call it makes. */
    static MemorySegment errnoSegment() {
        return ERRNO.get();
    }

    /** The errno the calling thread's last call through this class (or {@link InlineOps}, {@link FfmDeclaredLibrary}, {@link Rdmacm}) left. */
    public static int errno() {
        return (int) errno$vh.get(ERRNO.get(), 0L);
    }

    static AssertionError unexpected(Throwable t) {
        return new AssertionError("a native call threw " + t, t);
    }

    public static MemorySegment ibv_get_device_name(MemorySegment device) {
        try {
            return (MemorySegment) ibv_get_device_name$mh.invokeExact(ERRNO.get(), device);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code poll(2)} on one descriptor. */
    /** {@code calloc(1, bytes)}: zeroed memory, 16-byte aligned on glibc x86-64, or 0. */
    public static long calloc(long bytes) {
        try {
            return (long) calloc$mh.invokeExact(1L, bytes);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code dladdr(3)}, where the C library has it (glibc 2.34 and later; the JDK's lookup adds libdl before). */
    private static final MethodHandle dladdr$mh = LINKER.defaultLookup().find("dladdr")
            .map(f -> LINKER.downcallHandle(f, FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS)))
            .orElse(null);

    /**
     * The file of the shared object that holds an address, {@code Dl_info.dli_fname} of {@code dladdr(3)}.
     *
     * @param address a code address, not 0
     * @return the path as the dynamic linker loaded it, or null if dladdr is missing or finds no object
     */
    public static String dladdrFile(long address) {
        if (dladdr$mh == null) {
            return null;
        }
        try (Arena a = Arena.ofConfined()) {
            // Dl_info: dli_fname, dli_fbase, dli_sname, dli_saddr, four pointers.
            MemorySegment info = a.allocate(4 * ADDRESS.byteSize(), ADDRESS.byteAlignment());
            if ((int) dladdr$mh.invokeExact(address, info) == 0) {
                return null;
            }
            MemorySegment name = info.get(ADDRESS, 0);
            return name.address() == 0 ? null : name.reinterpret(4096).getString(0);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code free(3)}. */
    public static void free(long address) {
        try {
            free$mh.invokeExact(address);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static int poll(MemorySegment fds, long nfds, int timeoutMillis) {
        try {
            return (int) poll$mh.invokeExact(ERRNO.get(), fds, nfds, timeoutMillis);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }
}
