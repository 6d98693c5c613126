package org.verbs4j.provider.ffm.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Method;
import org.verbs4j.provider.nativecommon.internal.CFunction;
import org.verbs4j.provider.nativecommon.internal.COp;
import org.verbs4j.provider.nativecommon.internal.DeclaredLibrary;

/**
 * Binds a declared library ({@link CFunction} methods, such as {@code LibIbverbs}, or {@link COp} methods, such as
 * {@code LibIbverbsOps}) through FFM from the declarations alone: one downcall handle per method, its descriptor from
 * the method's types, capturing {@code errno} into {@link Ibverbs}' per-thread segment; an op's handle is
 * address-less, and takes the op's address, the method's first argument, per call. {@link DeclaredLibrary} applies the errno conventions. Control path only; the
 * data path stays written by hand ({@link InlineOps}).
 */
final class FfmDeclaredLibrary {
    private FfmDeclaredLibrary() {}

    /**
     * Binds every method of a declaration.
     *
     * @param <T> the declaration
     * @param declaration the interface, every method a {@link CFunction} or a {@link COp}
     * @param library the library that exports the functions (none is looked up for an op)
     * @param soname its name, for the error of a missing symbol
     * @return the bound library
     * @throws UnsatisfiedLinkError if the library does not export a declared function
     */
    static <T> T bind(Class<T> declaration, SymbolLookup library, String soname) {
        return DeclaredLibrary.bind(declaration, m -> call(m, library, soname), Ibverbs::errno);
    }

    private static DeclaredLibrary.RawCall call(Method m, SymbolLookup library, String soname) {
        boolean op = DeclaredLibrary.isOp(m);
        int first = op ? 1 : 0;
        MemoryLayout[] params = new MemoryLayout[m.getParameterCount() - first];
        for (int i = 0; i < params.length; i++) {
            params[i] = m.getParameterTypes()[first + i] == long.class ? JAVA_LONG : JAVA_INT;
        }
        Class<?> result = m.getReturnType();
        FunctionDescriptor fd = result == void.class ? FunctionDescriptor.ofVoid(params)
                : FunctionDescriptor.of(result == long.class ? JAVA_LONG : JAVA_INT, params);
        if (op) {
            // Address-less: (MemorySegment fn, MemorySegment errno, params...).
            MethodHandle handle = Ibverbs.LINKER.downcallHandle(fd, Ibverbs.CAPTURE_ERRNO)
                    .asSpreader(Object[].class, params.length + 2);
            return args -> {
                Object[] a = new Object[args.length + 1];
                a[0] = MemorySegment.ofAddress((Long) args[0]);
                a[1] = Ibverbs.errnoSegment();
                System.arraycopy(args, 1, a, 2, args.length - 1);
                Object r = handle.invoke(a);
                return r == null ? 0 : ((Number) r).longValue();
            };
        }
        MemorySegment symbol = library.find(m.getName()).orElseThrow(
                () -> new UnsatisfiedLinkError(soname + " does not export " + m.getName()));
        MethodHandle handle = Ibverbs.LINKER.downcallHandle(symbol, fd, Ibverbs.CAPTURE_ERRNO)
                .asSpreader(Object[].class, params.length);
        return args -> {
            Object r = handle.invoke(Ibverbs.errnoSegment(), args);
            return r == null ? 0 : ((Number) r).longValue();
        };
    }
}
