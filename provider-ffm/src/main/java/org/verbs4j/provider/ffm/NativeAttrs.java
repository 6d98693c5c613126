package org.verbs4j.provider.ffm;

import static org.verbs4j.provider.ffm.internal.Fields.i32;
import static org.verbs4j.provider.ffm.internal.Fields.u16;
import static org.verbs4j.provider.ffm.internal.Fields.u8;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.verbs4j.AhAttributes;
import org.verbs4j.Gid;
import org.verbs4j.GlobalRoute;
import org.verbs4j.Mtu;
import org.verbs4j.PathMigState;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpState;
import org.verbs4j.provider.ffm.internal.Structs.ibv_qp_attr;

/** Copies the API's attribute records to and from their C structs (control path only). */
final class NativeAttrs {
    private NativeAttrs() {}

    /** Writes an {@code ibv_ah_attr} at {@code prefix} (a dotted path inside {@code layout}, or "" for the struct itself). */
    static void writeAh(MemorySegment s, MemoryLayout layout, String prefix, AhAttributes ah) {
        String p = prefix.isEmpty() ? "" : prefix + ".";
        GlobalRoute grh = ah.grh();
        if (grh != null) {
            byte[] raw = grh.dgid().toBytes();
            long off = org.verbs4j.provider.ffm.internal.LayoutBuilder.offset(layout, p + "grh.dgid");
            MemorySegment.copy(raw, 0, s, ValueLayout.JAVA_BYTE, off, 16);
            i32(s, layout, p + "grh.flow_label", grh.flowLabel());
            u8(s, layout, p + "grh.sgid_index", grh.sgidIndex());
            u8(s, layout, p + "grh.hop_limit", grh.hopLimit());
            u8(s, layout, p + "grh.traffic_class", grh.trafficClass());
        }
        u16(s, layout, p + "dlid", ah.dlid());
        u8(s, layout, p + "sl", ah.sl());
        u8(s, layout, p + "src_path_bits", ah.srcPathBits());
        u8(s, layout, p + "static_rate", ah.staticRate());
        u8(s, layout, p + "is_global", grh != null ? 1 : 0);
        u8(s, layout, p + "port_num", ah.portNum());
    }

    /** Reads an {@code ibv_ah_attr}; null when its port is 0 (no path set). */
    static AhAttributes readAh(MemorySegment s, MemoryLayout layout, String prefix) {
        String p = prefix + ".";
        int port = u8(s, layout, p + "port_num");
        if (port == 0) {
            return null;
        }
        GlobalRoute grh = null;
        if (u8(s, layout, p + "is_global") != 0) {
            byte[] raw = new byte[16];
            long off = org.verbs4j.provider.ffm.internal.LayoutBuilder.offset(layout, p + "grh.dgid");
            MemorySegment.copy(s, ValueLayout.JAVA_BYTE, off, raw, 0, 16);
            grh = new GlobalRoute(Gid.of(raw), i32(s, layout, p + "grh.flow_label") & 0xfffff,
                    u8(s, layout, p + "grh.sgid_index"), u8(s, layout, p + "grh.hop_limit"),
                    u8(s, layout, p + "grh.traffic_class"));
        }
        return new AhAttributes(grh, u16(s, layout, p + "dlid"), u8(s, layout, p + "sl") & 15,
                u8(s, layout, p + "src_path_bits"), u8(s, layout, p + "static_rate"), port);
    }

    /** Fills an {@code ibv_qp_attr} with the attributes {@code a.mask()} names. */
    static void writeQpAttr(MemorySegment s, QpAttributes a) {
        var l = ibv_qp_attr.LAYOUT;
        int m = a.mask();
        i32(s, l, "qp_state", a.state().value());
        i32(s, l, "cur_qp_state", a.curState().value());
        i32(s, l, "path_mtu", a.pathMtu().value());
        i32(s, l, "path_mig_state", a.pathMigState().value());
        i32(s, l, "qkey", a.qkey());
        i32(s, l, "rq_psn", a.rqPsn());
        i32(s, l, "sq_psn", a.sqPsn());
        i32(s, l, "dest_qp_num", a.destQpNum());
        i32(s, l, "qp_access_flags", a.accessFlags());
        if ((m & QpAttrMask.CAP) != 0) {
            QpCapabilities c = a.cap();
            i32(s, l, "cap.max_send_wr", c.maxSendWr());
            i32(s, l, "cap.max_recv_wr", c.maxRecvWr());
            i32(s, l, "cap.max_send_sge", c.maxSendSge());
            i32(s, l, "cap.max_recv_sge", c.maxRecvSge());
            i32(s, l, "cap.max_inline_data", c.maxInlineData());
        }
        if ((m & QpAttrMask.AV) != 0) {
            writeAh(s, l, "ah_attr", a.ahAttr());
        }
        if ((m & QpAttrMask.ALT_PATH) != 0) {
            writeAh(s, l, "alt_ah_attr", a.altAhAttr());
            u16(s, l, "alt_pkey_index", a.altPkeyIndex());
            u8(s, l, "alt_port_num", a.altPort());
            u8(s, l, "alt_timeout", a.altTimeout());
        }
        u16(s, l, "pkey_index", a.pkeyIndex());
        u8(s, l, "en_sqd_async_notify", a.enSqdAsyncNotify() ? 1 : 0);
        u8(s, l, "max_rd_atomic", a.maxRdAtomic());
        u8(s, l, "max_dest_rd_atomic", a.maxDestRdAtomic());
        u8(s, l, "min_rnr_timer", a.minRnrTimer());
        u8(s, l, "port_num", a.port());
        u8(s, l, "timeout", a.timeout());
        u8(s, l, "retry_cnt", a.retryCnt());
        u8(s, l, "rnr_retry", a.rnrRetry());
        i32(s, l, "rate_limit", a.rateLimit());
    }

    /** Reads every attribute of an {@code ibv_qp_attr} into a QpAttributes with the given mask. */
    static QpAttributes readQpAttr(MemorySegment s, int mask) {
        var l = ibv_qp_attr.LAYOUT;
        QpAttributes a = new QpAttributes();
        a.state(QpState.of(i32(s, l, "qp_state")));
        a.curState(QpState.of(i32(s, l, "cur_qp_state")));
        int mtu = i32(s, l, "path_mtu");
        if (mtu >= 1 && mtu <= 5) {
            a.pathMtu(Mtu.of(mtu));
        }
        a.pathMigState(PathMigState.of(i32(s, l, "path_mig_state")));
        a.qkey(i32(s, l, "qkey"));
        a.rqPsn(i32(s, l, "rq_psn") & 0xffffff);
        a.sqPsn(i32(s, l, "sq_psn") & 0xffffff);
        a.destQpNum(i32(s, l, "dest_qp_num") & 0xffffff);
        a.accessFlags(i32(s, l, "qp_access_flags") & org.verbs4j.AccessFlags.ALL);
        a.cap(new QpCapabilities(i32(s, l, "cap.max_send_wr"), i32(s, l, "cap.max_recv_wr"),
                i32(s, l, "cap.max_send_sge"), i32(s, l, "cap.max_recv_sge"), i32(s, l, "cap.max_inline_data")));
        AhAttributes av = readAh(s, l, "ah_attr");
        if (av != null) {
            a.ahAttr(av);
        }
        AhAttributes alt = readAh(s, l, "alt_ah_attr");
        if (alt != null) {
            a.altPath(alt, u16(s, l, "alt_pkey_index"), u8(s, l, "alt_port_num"), u8(s, l, "alt_timeout") & 31);
        }
        a.pkeyIndex(u16(s, l, "pkey_index"));
        a.enSqdAsyncNotify(u8(s, l, "en_sqd_async_notify") != 0);
        a.sqDraining(u8(s, l, "sq_draining") != 0);
        a.maxRdAtomic(u8(s, l, "max_rd_atomic"));
        a.maxDestRdAtomic(u8(s, l, "max_dest_rd_atomic"));
        a.minRnrTimer(u8(s, l, "min_rnr_timer") & 31);
        int port = u8(s, l, "port_num");
        if (port > 0) {
            a.port(port);
        }
        a.timeout(u8(s, l, "timeout") & 31);
        a.retryCnt(u8(s, l, "retry_cnt") & 7);
        a.rnrRetry(u8(s, l, "rnr_retry") & 7);
        a.rateLimit(i32(s, l, "rate_limit") & Integer.MAX_VALUE);
        return a.mask(mask);
    }

}
