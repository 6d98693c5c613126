package org.verbs4j.provider.jnr.internal;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.LastError;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import java.lang.reflect.Method;
import org.verbs4j.provider.nativecommon.internal.CFunction;
import org.verbs4j.provider.nativecommon.internal.COp;
import org.verbs4j.provider.nativecommon.internal.DeclaredLibrary;

/**
 * Binds a declared library ({@link CFunction} methods, such as {@code LibIbverbs}, or {@link COp} methods, such as
 * {@code LibIbverbsOps}) through jffi from the declarations alone: one call context per method, its types from the
 * method's types, saving {@code errno}; an op is called at the address its first argument gives, per call.
 * {@link DeclaredLibrary} applies the errno conventions. Control path only; the data path stays written by hand
 * ({@link InlineVerbs}).
 */
final class JnrDeclaredLibrary {
    private static final Invoker INVOKER = Invoker.getInstance();
    private static final int MAX_PARAMETERS = 6;

    private JnrDeclaredLibrary() {}

    /**
     * Binds every method of a declaration.
     *
     * @param <T> the declaration
     * @param declaration the interface, every method a {@link CFunction} or a {@link COp} of at most 6 C parameters
     * @param soname the library that exports the functions
     * @return the bound library
     * @throws UnsatisfiedLinkError if the library cannot be opened or does not export a declared function
     */
    static <T> T bind(Class<T> declaration, String soname) {
        Library library = Library.getCachedInstance(soname, Library.LAZY | Library.GLOBAL);
        if (library == null) {
            throw new UnsatisfiedLinkError(soname + ": " + Library.getLastError());
        }
        return DeclaredLibrary.bind(declaration, m -> call(m, library, soname), () -> LastError.getInstance().get());
    }

    private static DeclaredLibrary.RawCall call(Method m, Library library, String soname) {
        boolean op = DeclaredLibrary.isOp(m);
        int first = op ? 1 : 0;
        if (m.getParameterCount() - first > MAX_PARAMETERS) {
            throw new IllegalArgumentException(m + ": more than " + MAX_PARAMETERS + " parameters");
        }
        long symbol = op ? 0 : library.getSymbolAddress(m.getName());
        if (!op && symbol == 0) {
            throw new UnsatisfiedLinkError(soname + " does not export " + m.getName());
        }
        Type[] params = new Type[m.getParameterCount() - first];
        for (int i = 0; i < params.length; i++) {
            params[i] = m.getParameterTypes()[first + i] == long.class ? Type.SINT64 : Type.SINT32;
        }
        Class<?> r = m.getReturnType();
        Type result = r == void.class ? Type.VOID : r == long.class ? Type.SINT64 : Type.SINT32;
        CallContext ctx = new CallContext(result, params, CallingConvention.DEFAULT, true);
        boolean narrow = r == int.class;
        return args -> {
            long raw = op ? invoke(ctx, (Long) args[0], args, 1) : invoke(ctx, symbol, args, 0);
            return narrow ? (int) raw : raw;
        };
    }

    private static long invoke(CallContext ctx, long fn, Object[] args, int first) {
        long[] a = new long[args.length - first];
        for (int i = 0; i < a.length; i++) {
            a[i] = ((Number) args[first + i]).longValue();
        }
        return switch (a.length) {
            case 0 -> INVOKER.invokeN0(ctx, fn);
            case 1 -> INVOKER.invokeN1(ctx, fn, a[0]);
            case 2 -> INVOKER.invokeN2(ctx, fn, a[0], a[1]);
            case 3 -> INVOKER.invokeN3(ctx, fn, a[0], a[1], a[2]);
            case 4 -> INVOKER.invokeN4(ctx, fn, a[0], a[1], a[2], a[3]);
            case 5 -> INVOKER.invokeN5(ctx, fn, a[0], a[1], a[2], a[3], a[4]);
            default -> INVOKER.invokeN6(ctx, fn, a[0], a[1], a[2], a[3], a[4], a[5]);
        };
    }
}
