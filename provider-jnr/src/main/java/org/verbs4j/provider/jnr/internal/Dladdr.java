package org.verbs4j.provider.jnr.internal;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.Type;
import java.nio.charset.StandardCharsets;

/**
 * {@code dladdr(3)} through jffi, for {@link JnrIbverbsBinding#libraryOf}: found once in the process's global
 * symbols (libc since glibc 2.34, libdl before, which the JVM has loaded); without it the library of an address
 * is unknown. Control path.
 */
final class Dladdr {
    /** {@code int dladdr(const void *addr, Dl_info *info)}. */
    private static final CallContext I_PP = new CallContext(Type.SINT32, new Type[] {Type.POINTER, Type.POINTER},
            CallingConvention.DEFAULT, false);
    /** {@code Dl_info}: dli_fname, dli_fbase, dli_sname, dli_saddr, four pointers. */
    private static final long DL_INFO_SIZE = 4 * 8;
    private static final long FN = find();

    private Dladdr() {}

    private static long find() {
        try {
            Library process = Library.getDefault();
            return process == null ? 0 : process.getSymbolAddress("dladdr");
        } catch (RuntimeException | LinkageError e) {
            return 0;
        }
    }

    /**
     * The file of the shared object that holds an address, {@code Dl_info.dli_fname}.
     *
     * @param address a code address, not 0
     * @return the path as the dynamic linker loaded it, or null if dladdr is missing or finds no object
     */
    static String file(long address) {
        if (FN == 0 || address == 0) {
            return null;
        }
        long info = NativeMemory.allocate(DL_INFO_SIZE);
        try {
            if ((int) Invoker.getInstance().invokeN2(I_PP, FN, address, info) == 0) {
                return null;
            }
            long name = NativeMemory.getAddress(info);
            return name == 0 ? null
                    : new String(MemoryIO.getInstance().getZeroTerminatedByteArray(name), StandardCharsets.UTF_8);
        } finally {
            NativeMemory.free(info);
        }
    }
}
