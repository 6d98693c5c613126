package org.verbs4j.provider.nativecommon.internal;

import static org.verbs4j.provider.nativecommon.internal.CLayout.ptr;
import static org.verbs4j.provider.nativecommon.internal.CLayout.struct;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u32;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u64;

/**
 * The memory structs of {@code infiniband/verbs.h}: {@code ibv_mr}, {@code ibv_mw}, the bind arguments and
 * {@code ibv_sge}.
 *
 * <p>Each nested class, named after its C struct, holds the struct's {@code DESC} (the layout as rdma-core 44
 * declares it on x86-64), {@code SIZEOF} and the byte offset {@code path$off} of each field the bindings use,
 * the C path's dots written as {@code $}. They are {@code static final}, so the JIT folds them.
 * {@code StructLayoutTest} checks every size and offset against the installed header with gcc.
 */
public final class MemoryStructs {
    private MemoryStructs() {}

    /** {@code struct ibv_mr}. */
    public static final class ibv_mr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_mr",
                ptr("context"), ptr("pd"), ptr("addr"), u64("length"), u32("handle"), u32("lkey"), u32("rkey"));
        /** {@code sizeof(struct ibv_mr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long lkey$off = DESC.offset("lkey");
        public static final long rkey$off = DESC.offset("rkey");

        private ibv_mr() {}
    }

    /** {@code struct ibv_alloc_dm_attr}. */
    public static final class ibv_alloc_dm_attr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_alloc_dm_attr",
                u64("length"), u32("log_align_req"), u32("comp_mask"));
        /** {@code sizeof(struct ibv_alloc_dm_attr)}, bytes. */
        public static final long SIZEOF = DESC.size();

        private ibv_alloc_dm_attr() {}
    }

    /** {@code struct ibv_dm}: its two copy ops are declared in {@link LibIbverbsOps}. */
    public static final class ibv_dm {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_dm",
                ptr("context"), ptr("memcpy_to_dm"), ptr("memcpy_from_dm"), u32("comp_mask"), u32("handle"));
        /** {@code sizeof(struct ibv_dm)}, bytes. */
        public static final long SIZEOF = DESC.size();

        private ibv_dm() {}
    }

    /** {@code struct ibv_mw}. */
    public static final class ibv_mw {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_mw",
                ptr("context"), ptr("pd"), u32("rkey"), u32("handle"), u32("type"));
        /** {@code sizeof(struct ibv_mw)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long rkey$off = DESC.offset("rkey");

        private ibv_mw() {}
    }

    /** {@code struct ibv_mw_bind_info}. */
    public static final class ibv_mw_bind_info {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_mw_bind_info",
            ptr("mr"), u64("addr"), u64("length"), u32("mw_access_flags"));
        /** {@code sizeof(struct ibv_mw_bind_info)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long mr$off = DESC.offset("mr");
        public static final long addr$off = DESC.offset("addr");
        public static final long length$off = DESC.offset("length");
        public static final long mw_access_flags$off = DESC.offset("mw_access_flags");

        private ibv_mw_bind_info() {}
    }

    /** {@code struct ibv_mw_bind}, the argument of the type 1 {@code ibv_bind_mw}. */
    public static final class ibv_mw_bind {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_mw_bind",
                u64("wr_id"), u32("send_flags"), ibv_mw_bind_info.DESC.withName("bind_info"));
        /** {@code sizeof(struct ibv_mw_bind)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long wr_id$off = DESC.offset("wr_id");
        public static final long send_flags$off = DESC.offset("send_flags");
        public static final long bind_info$mr$off = DESC.offset("bind_info.mr");
        public static final long bind_info$addr$off = DESC.offset("bind_info.addr");
        public static final long bind_info$length$off = DESC.offset("bind_info.length");
        public static final long bind_info$mw_access_flags$off = DESC.offset("bind_info.mw_access_flags");
        public static final long bind_info$off = DESC.offset("bind_info");

        private ibv_mw_bind() {}
    }

    /** {@code struct ibv_sge}. */
    public static final class ibv_sge {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_sge", u64("addr"), u32("length"), u32("lkey"));
        /** {@code sizeof(struct ibv_sge)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long addr$off = DESC.offset("addr");
        public static final long length$off = DESC.offset("length");
        public static final long lkey$off = DESC.offset("lkey");

        private ibv_sge() {}
    }
}
