package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.AccessFlags;
import org.verbs4j.AhAttributes;
import org.verbs4j.Gid;
import org.verbs4j.GlobalRoute;
import org.verbs4j.Mtu;
import org.verbs4j.PathMigState;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpState;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_ah_attr;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_attr;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_cap;

/**
 * Copies the API's QP attribute records to and from {@code struct ibv_qp_attr} and {@code struct ibv_ah_attr}
 * in native memory, through the binding (control path only). Used by {@link NativeQueuePair}'s modify and
 * query and by the providers' {@code rdma_init_qp_attr}.
 */
public final class NativeQpAttrs {
    private NativeQpAttrs() {}

    /**
     * Fills a zeroed {@code struct ibv_qp_attr} with the attributes {@code a.mask()} names.
     *
     * @param b the binding
     * @param s the struct's address
     * @param a the attributes
     */
    static void writeQpAttr(IbverbsBinding b, long s, QpAttributes a) {
        int m = a.mask();
        b.putInt(s + ibv_qp_attr.qp_state$off, a.state().value());
        b.putInt(s + ibv_qp_attr.cur_qp_state$off, a.curState().value());
        b.putInt(s + ibv_qp_attr.path_mtu$off, a.pathMtu().value());
        b.putInt(s + ibv_qp_attr.path_mig_state$off, a.pathMigState().value());
        b.putInt(s + ibv_qp_attr.qkey$off, a.qkey());
        b.putInt(s + ibv_qp_attr.rq_psn$off, a.rqPsn());
        b.putInt(s + ibv_qp_attr.sq_psn$off, a.sqPsn());
        b.putInt(s + ibv_qp_attr.dest_qp_num$off, a.destQpNum());
        b.putInt(s + ibv_qp_attr.qp_access_flags$off, a.accessFlags());
        if ((m & QpAttrMask.CAP) != 0) {
            writeCap(b, s + ibv_qp_attr.cap$off, a.cap());
        }
        if ((m & QpAttrMask.AV) != 0) {
            writeAhAttr(b, s + ibv_qp_attr.ah_attr$off, a.ahAttr());
        }
        if ((m & QpAttrMask.ALT_PATH) != 0) {
            writeAhAttr(b, s + ibv_qp_attr.alt_ah_attr$off, a.altAhAttr());
            b.putShort(s + ibv_qp_attr.alt_pkey_index$off, (short) a.altPkeyIndex());
            b.putByte(s + ibv_qp_attr.alt_port_num$off, (byte) a.altPort());
            b.putByte(s + ibv_qp_attr.alt_timeout$off, (byte) a.altTimeout());
        }
        b.putShort(s + ibv_qp_attr.pkey_index$off, (short) a.pkeyIndex());
        b.putByte(s + ibv_qp_attr.en_sqd_async_notify$off, (byte) (a.enSqdAsyncNotify() ? 1 : 0));
        b.putByte(s + ibv_qp_attr.max_rd_atomic$off, (byte) a.maxRdAtomic());
        b.putByte(s + ibv_qp_attr.max_dest_rd_atomic$off, (byte) a.maxDestRdAtomic());
        b.putByte(s + ibv_qp_attr.min_rnr_timer$off, (byte) a.minRnrTimer());
        b.putByte(s + ibv_qp_attr.port_num$off, (byte) a.port());
        b.putByte(s + ibv_qp_attr.timeout$off, (byte) a.timeout());
        b.putByte(s + ibv_qp_attr.retry_cnt$off, (byte) a.retryCnt());
        b.putByte(s + ibv_qp_attr.rnr_retry$off, (byte) a.rnrRetry());
        b.putInt(s + ibv_qp_attr.rate_limit$off, a.rateLimit());
    }

    /**
     * Writes a {@code struct ibv_qp_cap}.
     *
     * @param b the binding
     * @param s the struct's address
     * @param c the sizes
     */
    static void writeCap(IbverbsBinding b, long s, QpCapabilities c) {
        b.putInt(s + ibv_qp_cap.max_send_wr$off, c.maxSendWr());
        b.putInt(s + ibv_qp_cap.max_recv_wr$off, c.maxRecvWr());
        b.putInt(s + ibv_qp_cap.max_send_sge$off, c.maxSendSge());
        b.putInt(s + ibv_qp_cap.max_recv_sge$off, c.maxRecvSge());
        b.putInt(s + ibv_qp_cap.max_inline_data$off, c.maxInlineData());
    }

    /**
     * Reads a {@code struct ibv_qp_cap}.
     *
     * @param b the binding
     * @param s the struct's address
     * @return the sizes
     */
    static QpCapabilities readCap(IbverbsBinding b, long s) {
        return new QpCapabilities(b.getInt(s + ibv_qp_cap.max_send_wr$off), b.getInt(s + ibv_qp_cap.max_recv_wr$off),
                b.getInt(s + ibv_qp_cap.max_send_sge$off), b.getInt(s + ibv_qp_cap.max_recv_sge$off),
                b.getInt(s + ibv_qp_cap.max_inline_data$off));
    }

    /**
     * Reads every attribute of a {@code struct ibv_qp_attr}.
     *
     * @param b the binding
     * @param s the struct's address
     * @param mask the mask the result carries
     * @return the attributes
     */
    public static QpAttributes readQpAttr(IbverbsBinding b, long s, int mask) {
        QpAttributes a = new QpAttributes();
        a.state(QpState.of(b.getInt(s + ibv_qp_attr.qp_state$off)));
        a.curState(QpState.of(b.getInt(s + ibv_qp_attr.cur_qp_state$off)));
        int mtu = b.getInt(s + ibv_qp_attr.path_mtu$off);
        if (mtu >= 1 && mtu <= 5) {
            a.pathMtu(Mtu.of(mtu));
        }
        int mig = b.getInt(s + ibv_qp_attr.path_mig_state$off);
        if (mig >= 0 && mig <= 2) {
            a.pathMigState(PathMigState.of(mig));
        }
        a.qkey(b.getInt(s + ibv_qp_attr.qkey$off));
        a.rqPsn(b.getInt(s + ibv_qp_attr.rq_psn$off) & 0xffffff);
        a.sqPsn(b.getInt(s + ibv_qp_attr.sq_psn$off) & 0xffffff);
        a.destQpNum(b.getInt(s + ibv_qp_attr.dest_qp_num$off) & 0xffffff);
        a.accessFlags(b.getInt(s + ibv_qp_attr.qp_access_flags$off) & AccessFlags.ALL);
        a.cap(readCap(b, s + ibv_qp_attr.cap$off));
        AhAttributes av = readAhAttr(b, s + ibv_qp_attr.ah_attr$off);
        if (av != null) {
            a.ahAttr(av);
        }
        AhAttributes alt = readAhAttr(b, s + ibv_qp_attr.alt_ah_attr$off);
        if (alt != null) {
            a.altPath(alt, u16(b, s + ibv_qp_attr.alt_pkey_index$off), u8(b, s + ibv_qp_attr.alt_port_num$off),
                    u8(b, s + ibv_qp_attr.alt_timeout$off) & 31);
        }
        a.pkeyIndex(u16(b, s + ibv_qp_attr.pkey_index$off));
        a.enSqdAsyncNotify(u8(b, s + ibv_qp_attr.en_sqd_async_notify$off) != 0);
        a.sqDraining(u8(b, s + ibv_qp_attr.sq_draining$off) != 0);
        a.maxRdAtomic(u8(b, s + ibv_qp_attr.max_rd_atomic$off));
        a.maxDestRdAtomic(u8(b, s + ibv_qp_attr.max_dest_rd_atomic$off));
        a.minRnrTimer(u8(b, s + ibv_qp_attr.min_rnr_timer$off) & 31);
        int port = u8(b, s + ibv_qp_attr.port_num$off);
        if (port > 0) {
            a.port(port);
        }
        a.timeout(u8(b, s + ibv_qp_attr.timeout$off) & 31);
        a.retryCnt(u8(b, s + ibv_qp_attr.retry_cnt$off) & 7);
        a.rnrRetry(u8(b, s + ibv_qp_attr.rnr_retry$off) & 7);
        a.rateLimit(b.getInt(s + ibv_qp_attr.rate_limit$off) & Integer.MAX_VALUE);
        return a.mask(mask);
    }

    /**
     * Writes a zeroed {@code struct ibv_ah_attr}.
     *
     * @param b the binding
     * @param s the struct's address
     * @param ah the address vector
     */
    public static void writeAhAttr(IbverbsBinding b, long s, AhAttributes ah) {
        GlobalRoute grh = ah.grh();
        if (grh != null) {
            b.putBytes(s + ibv_ah_attr.grh$dgid$off, grh.dgid().toBytes());
            b.putInt(s + ibv_ah_attr.grh$flow_label$off, grh.flowLabel());
            b.putByte(s + ibv_ah_attr.grh$sgid_index$off, (byte) grh.sgidIndex());
            b.putByte(s + ibv_ah_attr.grh$hop_limit$off, (byte) grh.hopLimit());
            b.putByte(s + ibv_ah_attr.grh$traffic_class$off, (byte) grh.trafficClass());
        }
        b.putShort(s + ibv_ah_attr.dlid$off, (short) ah.dlid());
        b.putByte(s + ibv_ah_attr.sl$off, (byte) ah.sl());
        b.putByte(s + ibv_ah_attr.src_path_bits$off, (byte) ah.srcPathBits());
        b.putByte(s + ibv_ah_attr.static_rate$off, (byte) ah.staticRate());
        b.putByte(s + ibv_ah_attr.is_global$off, (byte) (grh != null ? 1 : 0));
        b.putByte(s + ibv_ah_attr.port_num$off, (byte) ah.portNum());
    }

    /**
     * Reads a {@code struct ibv_ah_attr}.
     *
     * @param b the binding
     * @param s the struct's address
     * @return the address vector, or null when its port is 0 (no path set)
     */
    public static AhAttributes readAhAttr(IbverbsBinding b, long s) {
        int port = u8(b, s + ibv_ah_attr.port_num$off);
        if (port == 0) {
            return null;
        }
        GlobalRoute grh = null;
        if (u8(b, s + ibv_ah_attr.is_global$off) != 0) {
            byte[] raw = new byte[16];
            b.getBytes(s + ibv_ah_attr.grh$dgid$off, raw);
            grh = new GlobalRoute(Gid.of(raw), b.getInt(s + ibv_ah_attr.grh$flow_label$off) & 0xfffff,
                    u8(b, s + ibv_ah_attr.grh$sgid_index$off), u8(b, s + ibv_ah_attr.grh$hop_limit$off),
                    u8(b, s + ibv_ah_attr.grh$traffic_class$off));
        }
        return new AhAttributes(grh, u16(b, s + ibv_ah_attr.dlid$off), u8(b, s + ibv_ah_attr.sl$off) & 15,
                u8(b, s + ibv_ah_attr.src_path_bits$off), u8(b, s + ibv_ah_attr.static_rate$off), port);
    }

    private static int u8(IbverbsBinding b, long address) {
        return b.getByte(address) & 0xff;
    }

    private static int u16(IbverbsBinding b, long address) {
        return b.getShort(address) & 0xffff;
    }
}
