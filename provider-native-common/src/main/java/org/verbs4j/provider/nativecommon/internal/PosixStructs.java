package org.verbs4j.provider.nativecommon.internal;

import static org.verbs4j.provider.nativecommon.internal.CLayout.array;
import static org.verbs4j.provider.nativecommon.internal.CLayout.chars;
import static org.verbs4j.provider.nativecommon.internal.CLayout.struct;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u16;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u32;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u64;

/**
 * The libc structs the bindings fill: {@code struct pollfd} of {@code poll(2)}, and the socket addresses of
 * {@code <netinet/in.h>} that librdmacm takes and returns ({@code sockaddr_in}, {@code sockaddr_in6}, and the
 * {@code sockaddr} and {@code sockaddr_storage} they share a union with in {@code struct rdma_addr}).
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

    /** {@code struct sockaddr}: the generic address, as the first member of the unions in {@code rdma_addr}. */
    public static final class sockaddr {
        /** The layout. */
        public static final CLayout DESC = struct("sockaddr", u16("sa_family"), chars("sa_data", 14));
        /** {@code sizeof(struct sockaddr)}, bytes. */
        public static final long SIZEOF = DESC.size();

        private sockaddr() {}
    }

    /** {@code struct sockaddr_storage} (glibc, x86-64): room for any address, 8-aligned. */
    public static final class sockaddr_storage {
        /** The layout. */
        public static final CLayout DESC = struct("sockaddr_storage",
                u16("ss_family"), chars("__ss_padding", 118), u64("__ss_align"));
        /** {@code sizeof(struct sockaddr_storage)}, bytes: what a sockaddr buffer of the bindings holds. */
        public static final long SIZEOF = DESC.size();

        private sockaddr_storage() {}
    }

    /** {@code struct sockaddr_in}: an IPv4 address; port and address in network byte order. */
    public static final class sockaddr_in {
        /** The layout. */
        public static final CLayout DESC = struct("sockaddr_in",
                u16("sin_family"), u16("sin_port"), u32("sin_addr"), chars("sin_zero", 8));
        /** {@code sizeof(struct sockaddr_in)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long sin_family$off = DESC.offset("sin_family");
        public static final long sin_port$off = DESC.offset("sin_port");
        public static final long sin_addr$off = DESC.offset("sin_addr");

        private sockaddr_in() {}
    }

    /** {@code struct sockaddr_in6}: an IPv6 address; {@code struct in6_addr} is 16 bytes, 4-aligned. */
    public static final class sockaddr_in6 {
        /** The layout. */
        public static final CLayout DESC = struct("sockaddr_in6",
                u16("sin6_family"), u16("sin6_port"), u32("sin6_flowinfo"), array("sin6_addr", u32("__u6_addr32"), 4),
                u32("sin6_scope_id"));
        /** {@code sizeof(struct sockaddr_in6)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long sin6_family$off = DESC.offset("sin6_family");
        public static final long sin6_port$off = DESC.offset("sin6_port");
        public static final long sin6_addr$off = DESC.offset("sin6_addr");
        public static final long sin6_scope_id$off = DESC.offset("sin6_scope_id");

        private sockaddr_in6() {}
    }
}
