package org.verbs4j.provider.nativecommon.internal;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A C function of a declared library ({@link LibIbverbs}): its C declaration and how it reports failure. The method
 * is named as the C symbol and its parameters are the C ones by width: a pointer or {@code size_t} is a
 * {@code long}, an {@code int} or {@code uint32_t} an {@code int}; the result is {@code int}, {@code long} (a
 * pointer) or {@code void}. Each binding binds every declared method from this alone (issue 28).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface CFunction {
    /**
     * The C declaration, as the library's header has it.
     *
     * @return the declaration, such as {@code int ibv_dealloc_pd(struct ibv_pd *pd)}
     */
    String value();

    /**
     * How the function reports failure.
     *
     * @return the convention the binding applies to every call
     */
    ErrnoConvention errno();
}
