package org.verbs4j.provider.emulated.verbs;

import java.util.Set;

import org.verbs4j.AccessFlags;
import org.verbs4j.Errno;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpType;
import org.verbs4j.ThreadDomain;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;

/**
 * The checks of a QP's arguments against the emulated device: the objects and capabilities it is created
 * with ({@code ibv_create_qp_ex(3)}) and the attribute values it is modified with ({@code ibv_modify_qp(3)}).
 * Which attributes each state transition needs is {@code internal.QpTransitions}.
 */
public final class QpChecks {
    private QpChecks() {}

    /** The CQ given as {@code name}, if it is an open CQ of {@code context}. */
    static EmulatedCompletionQueue cq(EmulatedContext context, Object cq, String name) {
        if (!(cq instanceof EmulatedCompletionQueue c) || c.context != context) {
            throw new IllegalArgumentException(name + " belongs to another context");
        }
        if (c.isClosed()) {
            throw new IllegalArgumentException(name + " is closed");
        }
        return c;
    }

    /** The SRQ, if it is null or an open SRQ of {@code context}. */
    static EmulatedSharedReceiveQueue srq(EmulatedContext context, Object srq) {
        if (srq == null) {
            return null;
        }
        if (!(srq instanceof EmulatedSharedReceiveQueue e) || e.context != context) {
            throw new IllegalArgumentException("the SRQ belongs to another context");
        }
        if (e.isClosed()) {
            throw new IllegalArgumentException("the SRQ is closed");
        }
        if (e.xrcd != null) {
            // As the kernel refuses it: an XRC SRQ takes the messages of its domain's XRC_RECV QPs only.
            throw new VerbsException("ibv_create_qp_ex", Errno.EINVAL,
                    "an XRC SRQ serves the XRC_RECV QPs of its domain, not a QP's receive queue");
        }
        return e;
    }

    /** The thread domain, if it is null or an open thread domain of {@code context}. */
    static EmulatedThreadDomain threadDomain(EmulatedContext context, ThreadDomain td) {
        if (td == null) {
            return null;
        }
        if (!(td instanceof EmulatedThreadDomain e) || e.context != context) {
            throw new IllegalArgumentException("the thread domain belongs to another context");
        }
        if (e.isClosed()) {
            throw new IllegalArgumentException("the thread domain is closed");
        }
        return e;
    }

    /** Bit {@code 1 << IBV_WR_*} for each opcode of {@code sendOps}, each valid for the type and supported. */
    static int sendOpsMask(EmulatedDevice device, QpType type, Set<WrOpcode> sendOps) {
        int mask = 0;
        for (WrOpcode op : sendOps) {
            if (!op.isValidFor(type)) {
                throw new IllegalArgumentException("sendOps " + op + " is not valid for a " + type
                        + " QP (ibv_wr_post(3)); it is valid for " + op.qpTypes());
            }
            if (!device.capabilities().supports(type, op)) {
                throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP,
                        "the emulated device cannot do " + op + " on " + type + " QPs");
            }
            mask |= 1 << op.value();
        }
        return mask;
    }

    /** Checks the requested queue sizes against the device's limits; the device has no TSO. */
    static void checkCapabilities(QpCapabilities cap, int maxTsoHeader) {
        if (cap.maxSendWr() > EmulatedDevice.MAX_QP_WR || cap.maxRecvWr() > EmulatedDevice.MAX_QP_WR
                || cap.maxSendSge() > EmulatedDevice.MAX_SGE || cap.maxRecvSge() > EmulatedDevice.MAX_SGE
                || cap.maxInlineData() > EmulatedDevice.MAX_INLINE_DATA) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EINVAL, "capabilities beyond the device's limits "
                    + "(max_qp_wr " + EmulatedDevice.MAX_QP_WR + ", max_sge " + EmulatedDevice.MAX_SGE
                    + ", max_inline_data " + EmulatedDevice.MAX_INLINE_DATA + "): " + cap);
        }
        if (maxTsoHeader > 0) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP, "the emulated device has no TSO");
        }
    }

    /** What is wrong with the values of the attributes in {@code mask} on this device, or null. */
    static String checkValues(QpAttributes a, int mask) {
        if ((mask & QpAttrMask.PORT) != 0 && a.port() != 1) {
            return "the emulated device has only port 1, not " + a.port();
        }
        if ((mask & QpAttrMask.PKEY_INDEX) != 0 && a.pkeyIndex() != 0) {
            return "the P_Key table has one entry; pkey_index " + a.pkeyIndex() + " is outside it";
        }
        if ((mask & QpAttrMask.AV) != 0) {
            String bad = EmulatedProtectionDomain.checkAv(a.ahAttr());
            if (bad != null) {
                return bad;
            }
        }
        if ((mask & QpAttrMask.ALT_PATH) != 0) {
            // Linux's ib_core refuses ALT_PATH on a RoCE port before the driver sees it (rxe too): path migration is
            // InfiniBand's, and the emulated port's link layer is Ethernet.
            return "the port's link layer is Ethernet (RoCE): an alternate path (ALT_PATH) is for InfiniBand only";
        }
        // No path MTU check: the port's MTU is 4096 bytes, the largest an ibv_mtu can name.
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0 && a.maxRdAtomic() > EmulatedDevice.MAX_RD_ATOMIC) {
            return "max_rd_atomic " + a.maxRdAtomic() + " exceeds max_qp_init_rd_atom " + EmulatedDevice.MAX_RD_ATOMIC;
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0 && a.maxDestRdAtomic() > EmulatedDevice.MAX_RD_ATOMIC) {
            return "max_dest_rd_atomic " + a.maxDestRdAtomic() + " exceeds max_qp_rd_atom "
                    + EmulatedDevice.MAX_RD_ATOMIC;
        }
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0
                && (a.accessFlags() & ~(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
                | AccessFlags.REMOTE_ATOMIC | AccessFlags.FLUSH_GLOBAL | AccessFlags.FLUSH_PERSISTENT)) != 0) {
            return "QP access flags take only LOCAL_WRITE, REMOTE_* and FLUSH_* bits: "
                    + AccessFlags.toString(a.accessFlags());
        }
        if ((mask & QpAttrMask.CAP) != 0) {
            return "the emulated device cannot resize a QP's queues";
        }
        return null;
    }
}
