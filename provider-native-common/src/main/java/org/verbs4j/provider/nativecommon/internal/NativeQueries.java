package org.verbs4j.provider.nativecommon.internal;

import java.nio.charset.StandardCharsets;
import org.verbs4j.AtomicCapability;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.DeviceAttributesEx;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.LinkLayer;
import org.verbs4j.Mtu;
import org.verbs4j.PortAttributes;
import org.verbs4j.PortState;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_device_attr;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_device_attr_ex;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_port_attr;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.verbs_context;

/**
 * The context queries of either native provider, {@code ibv_query_device}, {@code ibv_query_device_ex},
 * {@code ibv_query_port} and {@code ibv_query_gid}, decoded from the shared layouts. The caller has checked that
 * the context is open and, for a port, that the device has it.
 *
 * @see "ibv_query_device(3)"
 * @see "ibv_query_port(3)"
 * @see "ibv_query_gid(3)"
 */
public final class NativeQueries {
    private static final int FW_VER_BYTES = 64;
    private static final int GID_BYTES = 16;

    private NativeQueries() {}

    /**
     * {@code ibv_query_device(3)}.
     *
     * @param context the context
     * @return the device's attributes
     * @throws VerbsException if the query fails
     */
    public static DeviceAttributes queryDevice(NativeContextSupport context) {
        IbverbsBinding b = context.binding();
        long a = b.allocate(ibv_device_attr.SIZEOF);
        try {
            int rc = b.queryDevice(context.contextHandle(), a);
            if (rc != 0) {
                throw new VerbsException("ibv_query_device", rc, context.device().name());
            }
            return deviceAttr(b, a);
        } finally {
            b.free(a);
        }
    }

    /** Decodes the {@code struct ibv_device_attr} at {@code a}. */
    private static DeviceAttributes deviceAttr(IbverbsBinding b, long a) {
        byte[] fw = new byte[FW_VER_BYTES];
        b.getBytes(a + ibv_device_attr.fw_ver$off, fw);
        int len = 0;
        while (len < fw.length && fw[len] != 0) {
            len++;
        }
        return new DeviceAttributes(new String(fw, 0, len, StandardCharsets.US_ASCII),
                Long.reverseBytes(b.getLong(a + ibv_device_attr.node_guid$off)),
                Long.reverseBytes(b.getLong(a + ibv_device_attr.sys_image_guid$off)),
                unsignedClamp(b.getLong(a + ibv_device_attr.max_mr_size$off)),
                b.getLong(a + ibv_device_attr.page_size_cap$off),
                b.getInt(a + ibv_device_attr.vendor_id$off), b.getInt(a + ibv_device_attr.vendor_part_id$off),
                b.getInt(a + ibv_device_attr.hw_ver$off), b.getInt(a + ibv_device_attr.max_qp$off),
                b.getInt(a + ibv_device_attr.max_qp_wr$off), b.getInt(a + ibv_device_attr.device_cap_flags$off),
                b.getInt(a + ibv_device_attr.max_sge$off), b.getInt(a + ibv_device_attr.max_sge_rd$off),
                b.getInt(a + ibv_device_attr.max_cq$off), b.getInt(a + ibv_device_attr.max_cqe$off),
                b.getInt(a + ibv_device_attr.max_mr$off), b.getInt(a + ibv_device_attr.max_pd$off),
                b.getInt(a + ibv_device_attr.max_qp_rd_atom$off), b.getInt(a + ibv_device_attr.max_ee_rd_atom$off),
                b.getInt(a + ibv_device_attr.max_res_rd_atom$off),
                b.getInt(a + ibv_device_attr.max_qp_init_rd_atom$off),
                b.getInt(a + ibv_device_attr.max_ee_init_rd_atom$off),
                AtomicCapability.of(b.getInt(a + ibv_device_attr.atomic_cap$off)),
                b.getInt(a + ibv_device_attr.max_ee$off), b.getInt(a + ibv_device_attr.max_rdd$off),
                b.getInt(a + ibv_device_attr.max_mw$off), b.getInt(a + ibv_device_attr.max_raw_ipv6_qp$off),
                b.getInt(a + ibv_device_attr.max_raw_ethy_qp$off), b.getInt(a + ibv_device_attr.max_mcast_grp$off),
                b.getInt(a + ibv_device_attr.max_mcast_qp_attach$off),
                b.getInt(a + ibv_device_attr.max_total_mcast_qp_attach$off),
                b.getInt(a + ibv_device_attr.max_ah$off), b.getInt(a + ibv_device_attr.max_fmr$off),
                b.getInt(a + ibv_device_attr.max_map_per_fmr$off), b.getInt(a + ibv_device_attr.max_srq$off),
                b.getInt(a + ibv_device_attr.max_srq_wr$off), b.getInt(a + ibv_device_attr.max_srq_sge$off),
                b.getU16(a + ibv_device_attr.max_pkeys$off), b.getU8(a + ibv_device_attr.local_ca_ack_delay$off),
                b.getU8(a + ibv_device_attr.phys_port_cnt$off));
    }

    /**
     * {@code ibv_query_device_ex(3)}, as the inline function of {@code verbs.h} runs it: through
     * {@code verbs_context.query_device_ex}, and, when the library has no such op or it answers EOPNOTSUPP or
     * ENOSYS, {@code ibv_query_device} with every extended field 0.
     *
     * @param context the context
     * @return the device's attributes
     * @throws VerbsException if the query fails
     */
    public static DeviceAttributesEx queryDeviceEx(NativeContextSupport context) {
        long fn = context.op("query_device_ex");
        if (fn == 0) {
            return DeviceAttributesEx.legacy(queryDevice(context));
        }
        IbverbsBinding b = context.binding();
        long a = b.allocate(ibv_device_attr_ex.SIZEOF);
        try {
            int rc = b.libibverbsOps().query_device_ex(fn, context.contextHandle(), 0, a, ibv_device_attr_ex.SIZEOF);
            if (rc == -Errno.EOPNOTSUPP || rc == -Errno.ENOSYS) {
                return DeviceAttributesEx.legacy(queryDevice(context));
            }
            if (rc != 0) {
                throw new VerbsException("ibv_query_device_ex", -rc, context.device().name());
            }
            return deviceAttrEx(b, a);
        } finally {
            b.free(a);
        }
    }

    /** Decodes the {@code struct ibv_device_attr_ex} at {@code a}. */
    private static DeviceAttributesEx deviceAttrEx(IbverbsBinding b, long a) {
        CLayout d = ibv_device_attr_ex.DESC;
        return new DeviceAttributesEx(deviceAttr(b, a), b.getInt(a + d.offset("comp_mask")),
                new DeviceAttributesEx.OdpCaps(b.getLong(a + d.offset("odp_caps.general_caps")),
                        b.getInt(a + d.offset("odp_caps.per_transport_caps.rc_odp_caps")),
                        b.getInt(a + d.offset("odp_caps.per_transport_caps.uc_odp_caps")),
                        b.getInt(a + d.offset("odp_caps.per_transport_caps.ud_odp_caps"))),
                b.getLong(a + d.offset("completion_timestamp_mask")), b.getLong(a + d.offset("hca_core_clock")),
                b.getLong(a + d.offset("device_cap_flags_ex")),
                new DeviceAttributesEx.TsoCaps(b.getInt(a + d.offset("tso_caps.max_tso")),
                        b.getInt(a + d.offset("tso_caps.supported_qpts"))),
                new DeviceAttributesEx.RssCaps(b.getInt(a + d.offset("rss_caps.supported_qpts")),
                        b.getInt(a + d.offset("rss_caps.max_rwq_indirection_tables")),
                        b.getInt(a + d.offset("rss_caps.max_rwq_indirection_table_size")),
                        b.getLong(a + d.offset("rss_caps.rx_hash_fields_mask")),
                        b.getU8(a + d.offset("rss_caps.rx_hash_function"))),
                b.getInt(a + d.offset("max_wq_type_rq")),
                new DeviceAttributesEx.PacketPacingCaps(b.getInt(a + d.offset("packet_pacing_caps.qp_rate_limit_min")),
                        b.getInt(a + d.offset("packet_pacing_caps.qp_rate_limit_max")),
                        b.getInt(a + d.offset("packet_pacing_caps.supported_qpts"))),
                b.getInt(a + d.offset("raw_packet_caps")),
                new DeviceAttributesEx.TmCaps(b.getInt(a + d.offset("tm_caps.max_rndv_hdr_size")),
                        b.getInt(a + d.offset("tm_caps.max_num_tags")), b.getInt(a + d.offset("tm_caps.flags")),
                        b.getInt(a + d.offset("tm_caps.max_ops")), b.getInt(a + d.offset("tm_caps.max_sge"))),
                new DeviceAttributesEx.CqModerationCaps(b.getU16(a + d.offset("cq_mod_caps.max_cq_count")),
                        b.getU16(a + d.offset("cq_mod_caps.max_cq_period"))),
                b.getLong(a + d.offset("max_dm_size")),
                new DeviceAttributesEx.PciAtomicCaps(b.getU16(a + d.offset("pci_atomic_caps.fetch_add")),
                        b.getU16(a + d.offset("pci_atomic_caps.swap")),
                        b.getU16(a + d.offset("pci_atomic_caps.compare_swap"))),
                b.getInt(a + d.offset("xrc_odp_caps")), b.getInt(a + d.offset("phys_port_cnt_ex")));
    }

    /**
     * {@code device_cap_flags_ex} of {@link #queryDeviceEx}, which says what the kernel driver executes beyond
     * {@code ibv_device_attr} (librxe 44 creates ATOMIC_WRITE QPs that Linux 6.1's rxe cannot run).
     *
     * @param context the context
     * @return the flags; 0 when the device has no extended query or it fails
     */
    public static long deviceCapFlagsEx(NativeContextSupport context) {
        if (context.op("query_device_ex") == 0) {
            return 0; // the legacy answer's, without querying the device again
        }
        try {
            return queryDeviceEx(context).deviceCapFlagsEx();
        } catch (VerbsException e) {
            return 0;
        }
    }

    /**
     * {@code ibv_query_port(3)}. A state, MTU or link layer this API has no constant for reads as {@code NOP},
     * 256 bytes and {@code UNSPECIFIED}.
     *
     * @param context the context
     * @param portNum the port, checked by the caller
     * @return the port's attributes
     * @throws VerbsException if the query fails
     */
    public static PortAttributes queryPort(NativeContextSupport context, int portNum) {
        IbverbsBinding b = context.binding();
        long a = b.allocate(ibv_port_attr.SIZEOF);
        try {
            // As the inline ibv_query_port: through verbs_context.query_port, else the exported compatibility symbol.
            long fn = context.op("query_port");
            NativeErrors.check(fn != 0
                    ? b.libibverbsOps().query_port(fn, context.contextHandle(), portNum, a, ibv_port_attr.SIZEOF)
                    : b.libibverbs().ibv_query_port(context.contextHandle(), portNum, a),
                    "ibv_query_port", "port " + portNum);
            int state = b.getInt(a + ibv_port_attr.state$off);
            int linkLayer = b.getU8(a + ibv_port_attr.link_layer$off);
            return new PortAttributes(state >= 0 && state <= 5 ? PortState.of(state) : PortState.NOP,
                    mtu(b.getInt(a + ibv_port_attr.max_mtu$off)), mtu(b.getInt(a + ibv_port_attr.active_mtu$off)),
                    b.getInt(a + ibv_port_attr.gid_tbl_len$off), b.getInt(a + ibv_port_attr.port_cap_flags$off),
                    Integer.toUnsignedLong(b.getInt(a + ibv_port_attr.max_msg_sz$off)),
                    b.getInt(a + ibv_port_attr.bad_pkey_cntr$off), b.getInt(a + ibv_port_attr.qkey_viol_cntr$off),
                    b.getU16(a + ibv_port_attr.pkey_tbl_len$off), b.getU16(a + ibv_port_attr.lid$off),
                    b.getU16(a + ibv_port_attr.sm_lid$off), b.getU8(a + ibv_port_attr.lmc$off),
                    b.getU8(a + ibv_port_attr.max_vl_num$off), b.getU8(a + ibv_port_attr.sm_sl$off),
                    b.getU8(a + ibv_port_attr.subnet_timeout$off), b.getU8(a + ibv_port_attr.init_type_reply$off),
                    b.getU8(a + ibv_port_attr.active_width$off), b.getU8(a + ibv_port_attr.active_speed$off),
                    b.getU8(a + ibv_port_attr.phys_state$off),
                    linkLayer <= 2 ? LinkLayer.of(linkLayer) : LinkLayer.UNSPECIFIED,
                    b.getU8(a + ibv_port_attr.flags$off), b.getU16(a + ibv_port_attr.port_cap_flags2$off));
        } finally {
            b.free(a);
        }
    }

    /**
     * {@code ibv_query_gid(3)}.
     *
     * @param context the context
     * @param portNum the port, checked by the caller
     * @param index the GID index, checked by the caller
     * @return the GID
     * @throws VerbsException if the query fails
     */
    public static Gid queryGid(NativeContextSupport context, int portNum, int index) {
        IbverbsBinding b = context.binding();
        long a = b.allocate(GID_BYTES);
        try {
            NativeErrors.check(b.queryGid(context.contextHandle(), portNum, index, a), "ibv_query_gid",
                    "port " + portNum + " index " + index);
            byte[] raw = new byte[GID_BYTES];
            b.getBytes(a, raw);
            return Gid.of(raw);
        } finally {
            b.free(a);
        }
    }

    /** A {@code uint64_t} size as a long: values beyond {@code Long.MAX_VALUE} (rxe reports 2^64-1) clamp to it. */
    private static long unsignedClamp(long v) {
        return v < 0 ? Long.MAX_VALUE : v;
    }

    private static Mtu mtu(int v) {
        return v >= 1 && v <= 5 ? Mtu.of(v) : Mtu.MTU_256;
    }
}
