package org.verbs4j.provider.nativecommon.internal;

import static org.verbs4j.provider.nativecommon.internal.CLayout.struct;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u16;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u32;

/**
 * The libc structs the bindings fill: {@code struct pollfd} of {@code poll(2)}.
 *
 * <p>Each nested class, named after its C struct, holds the struct's {@code DESC} (the layout as rdma-core 44
 * declares it on x86-64), {@code SIZEOF} and the byte offset {@code path$off} of each field the bindings use,
 * the C path's dots written as {@code $}. They are {@code static final}, so the JIT folds them.
 * {@code StructLayoutTest} checks every size and offset against the installed header with gcc.
 */
public final class PosixStructs {
    private PosixStructs() {}

    /** {@code struct pollfd} of {@code poll(2)}. */
    public static final class pollfd {
        /** The layout. */
        public static final CLayout DESC = struct("pollfd", u32("fd"), u16("events"), u16("revents"));
        /** {@code sizeof(struct pollfd)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long fd$off = DESC.offset("fd");
        public static final long events$off = DESC.offset("events");
        public static final long revents$off = DESC.offset("revents");

        private pollfd() {}
    }
}
