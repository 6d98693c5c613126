package org.verbs4j.provider.nativecommon.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntSupplier;
import org.verbs4j.Errno;

/**
 * Makes a declared library ({@link CFunction} methods, such as {@link LibIbverbs}, or {@link COp} methods, such as
 * {@link LibIbverbsOps}) from one raw call per method that a binding supplies: it checks the declaration's types,
 * applies each method's {@link ErrnoConvention} to every call so that the library answers in {@link NativeErrors}'
 * contract, answers {@code -EOPNOTSUPP} for an op whose address is 0 (the presence check of {@code verbs.h}'s inline
 * wrappers, done here once), and implements the interface with a {@link Proxy}. Control path only: a call boxes its arguments, which costs far less than the system call behind a
 * control verb; the data path is written by hand in each binding.
 */
public final class DeclaredLibrary {
    private DeclaredLibrary() {}

    /** One bound C function. */
    @FunctionalInterface
    public interface RawCall {
        /**
         * Calls the function.
         *
         * @param args the arguments, each a {@link Long} or an {@link Integer} as declared
         * @return its result widened to {@code long} (an {@code int} sign-extended), 0 for {@code void}
         * @throws Throwable what the binding's call throws, which a native call never should
         */
        long invoke(Object[] args) throws Throwable;
    }

    /** How a binding binds one declared function. */
    @FunctionalInterface
    public interface Binder {
        /**
         * Binds a function.
         *
         * @param method the declared method: named as the C symbol (or the op's member), parameters and result
         *     {@code long}, {@code int} (or {@code void} for the result); for an op ({@link #isOp}) the first
         *     parameter is the function's address, which the raw call takes per call (an address-less call)
         * @return the raw call, which captures {@code errno} for the {@code errno} supplier to read
         * @throws UnsatisfiedLinkError if the library does not export the function
         */
        RawCall bind(Method method);
    }

    private record Call(RawCall raw, ErrnoConvention convention, Class<?> result, boolean op) {}

    /**
     * Whether a declared method is an op, called through the address that its first argument gives.
     *
     * @param method a declared method
     * @return whether it is a {@link COp}
     */
    public static boolean isOp(Method method) {
        return method.isAnnotationPresent(COp.class);
    }

    /**
     * Binds every method of a declaration.
     *
     * @param <T> the declaration
     * @param declaration the interface, every method a {@link CFunction} or a {@link COp} of {@code long} and
     *     {@code int}, an op's first parameter a {@code long}
     * @param binder the binding's raw call per method
     * @param errno the {@code errno} the calling thread's last raw call left
     * @return the bound library
     * @throws IllegalArgumentException if a method is neither a {@link CFunction} nor a {@link COp}, or has another
     *     type
     * @throws UnsatisfiedLinkError if the library does not export a declared function
     */
    public static <T> T bind(Class<T> declaration, Binder binder, IntSupplier errno) {
        Map<Method, Call> calls = new HashMap<>();
        for (Method m : declaration.getMethods()) {
            CFunction c = m.getAnnotation(CFunction.class);
            COp op = m.getAnnotation(COp.class);
            if ((c == null) == (op == null)) {
                throw new IllegalArgumentException(m + " is not one of @CFunction and @COp");
            }
            if (op != null && (m.getParameterCount() == 0 || m.getParameterTypes()[0] != long.class)) {
                throw new IllegalArgumentException(m + ": an op's first parameter is its address, a long");
            }
            for (Class<?> p : m.getParameterTypes()) {
                checkType(p, m);
            }
            if (m.getReturnType() != void.class) {
                checkType(m.getReturnType(), m);
            }
            calls.put(m, new Call(binder.bind(m), op != null ? op.errno() : c.errno(), m.getReturnType(),
                    op != null));
        }
        Object proxy = Proxy.newProxyInstance(declaration.getClassLoader(), new Class<?>[] {declaration},
                (self, method, args) -> {
                    Call call = calls.get(method);
                    if (call == null) {
                        return objectMethod(self, method, args, declaration);
                    }
                    long value;
                    if (call.op && (Long) args[0] == 0) {
                        value = -Errno.EOPNOTSUPP; // the device lacks the op: what the inline wrapper answers
                    } else {
                        value = call.raw.invoke(args == null ? new Object[0] : args);
                        if (call.convention.failed(value)) {
                            value = call.convention.toContract(value, errno.getAsInt());
                        }
                    }
                    if (call.result == void.class) {
                        return null;
                    }
                    return call.result == int.class ? (Object) (int) value : (Object) value;
                });
        return declaration.cast(proxy);
    }

    private static void checkType(Class<?> type, Method m) {
        if (type != long.class && type != int.class) {
            throw new IllegalArgumentException(m + ": " + type + " is not a declared C type (long or int)");
        }
    }

    private static Object objectMethod(Object self, Method method, Object[] args, Class<?> declaration) {
        return switch (method.getName()) {
            case "equals" -> self == args[0];
            case "hashCode" -> System.identityHashCode(self);
            case "toString" -> declaration.getSimpleName() + " (declared)";
            default -> throw new UnsupportedOperationException(method.toString());
        };
    }
}
