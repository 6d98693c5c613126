package org.verbs4j.provider.nativecommon.internal;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A control-path op of a declared library ({@link LibIbverbsOps}): a function pointer that {@code verbs.h}'s inline
 * wrappers read from a struct ({@code ibv_context.ops}, {@code verbs_context}) and call. The method is named as the
 * struct's member; its first parameter is the op's address ({@code long}), the others are the C ones by width as for
 * {@link CFunction}. Each binding binds every declared op from this alone, with an address-less call (the address per
 * call), and {@link DeclaredLibrary} answers {@code -EOPNOTSUPP} for address 0, as the inline wrappers do for a
 * missing op (issue 28).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface COp {
    /**
     * The struct that holds the op, without {@code struct}.
     *
     * @return {@code ibv_context_ops} or {@code verbs_context}
     */
    String struct();

    /**
     * The member's declaration, as the header has it.
     *
     * @return the declaration, such as {@code int (*dealloc_td)(struct ibv_td *td)}
     */
    String value();

    /**
     * How the op reports failure.
     *
     * @return the convention the binding applies to every call
     */
    ErrnoConvention errno();
}
