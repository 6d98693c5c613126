package org.verbs4j.provider.nativecommon.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * Makes a declared library ({@link CFunction} methods, such as {@link LibIbverbs}) from one raw call per method that
 * a binding supplies: it checks the declaration's types, applies each method's {@link ErrnoConvention} to every call
 * so that the library answers in {@link NativeErrors}' contract, and implements the interface with a
 * {@link Proxy}. Control path only: a call boxes its arguments, which costs far less than the system call behind a
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
         * @param method the declared method: named as the C symbol, parameters and result {@code long},
         *     {@code int} (or {@code void} for the result)
         * @return the raw call, which captures {@code errno} for the {@code errno} supplier to read
         * @throws UnsatisfiedLinkError if the library does not export the function
         */
        RawCall bind(Method method);
    }

    private record Call(RawCall raw, ErrnoConvention convention, Class<?> result) {}

    /**
     * Binds every method of a declaration.
     *
     * @param <T> the declaration
     * @param declaration the interface, every method a {@link CFunction} of {@code long} and {@code int}
     * @param binder the binding's raw call per method
     * @param errno the {@code errno} the calling thread's last raw call left
     * @return the bound library
     * @throws IllegalArgumentException if a method is not a {@link CFunction} or has another type
     * @throws UnsatisfiedLinkError if the library does not export a declared function
     */
    public static <T> T bind(Class<T> declaration, Binder binder, IntSupplier errno) {
        Map<Method, Call> calls = new HashMap<>();
        for (Method m : declaration.getMethods()) {
            CFunction c = m.getAnnotation(CFunction.class);
            if (c == null) {
                throw new IllegalArgumentException(m + " is not a @CFunction");
            }
            for (Class<?> p : m.getParameterTypes()) {
                checkType(p, m);
            }
            if (m.getReturnType() != void.class) {
                checkType(m.getReturnType(), m);
            }
            calls.put(m, new Call(binder.bind(m), c.errno(), m.getReturnType()));
        }
        Object proxy = Proxy.newProxyInstance(declaration.getClassLoader(), new Class<?>[] {declaration},
                (self, method, args) -> {
                    Call call = calls.get(method);
                    if (call == null) {
                        return objectMethod(self, method, args, declaration);
                    }
                    long value = call.raw.invoke(args == null ? new Object[0] : args);
                    if (call.result == void.class) {
                        return null;
                    }
                    if (call.convention.failed(value)) {
                        value = call.convention.toContract(value, errno.getAsInt());
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
