package org.verbs4j.provider.ffm;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.verbs4j.AtomicCapability;
import org.verbs4j.Capabilities;
import org.verbs4j.CompletionQueue;
import org.verbs4j.DataInOrder;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.ThreadDomain;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.ffm.internal.Structs.verbs_context;

/**
 * Works out a context's {@link Capabilities} from {@code ibv_query_device}, the installed rdma-core
 * version, and what the device accepts: it creates (and destroys) one QP per type with the candidate
 * {@code sendOps}, one per inline size, and a thread domain. Run once per context, on first use.
 */
final class CapabilityProbe {
    private static final int IBV_DEVICE_XRC = 1 << 20;

    private final FfmContext ctx;

    CapabilityProbe(FfmContext ctx) {
        this.ctx = ctx;
    }

    Capabilities probe() {
        DeviceAttributes d = ctx.queryDevice();
        long flagsEx = ctx.deviceCapFlagsEx();
        int flags = d.deviceCapFlags();
        Set<MwType> mwTypes = EnumSet.noneOf(MwType.class);
        if ((flags & DeviceAttributes.CAP_MEM_WINDOW) != 0) {
            mwTypes.add(MwType.TYPE_1);
        }
        if ((flags & (DeviceAttributes.CAP_MEM_WINDOW_TYPE_2A | DeviceAttributes.CAP_MEM_WINDOW_TYPE_2B)) != 0) {
            mwTypes.add(MwType.TYPE_2);
        }
        if (d.maxMw() <= 0) {
            mwTypes.clear();
        }
        boolean memMgt = (flags & DeviceAttributes.CAP_MEM_MGT_EXTENSIONS) != 0 || mwTypes.contains(MwType.TYPE_2);
        Set<QpType> candidates = EnumSet.of(QpType.RC, QpType.UC, QpType.UD);
        if ((flags & IBV_DEVICE_XRC) != 0) {
            candidates.add(QpType.XRC_SEND);
        }
        boolean extendedQp = ctx.verbsOp(verbs_context.create_qp_ex$off).address() != 0;

        Set<QpType> qpTypes = EnumSet.noneOf(QpType.class);
        Map<QpType, Set<WrOpcode>> opcodes = new EnumMap<>(QpType.class);
        int maxInline = 0;
        Map<WrOpcode, Set<DataInOrder>> inOrder = new EnumMap<>(WrOpcode.class);
        boolean anySession = false;
        ProtectionDomain pd = ctx.allocPd();
        try (CompletionQueue cq = ctx.createCq(4)) {
            for (QpType type : candidates) {
                Set<WrOpcode> wanted = EnumSet.noneOf(WrOpcode.class);
                for (WrOpcode op : WrOpcode.values()) {
                    if (op.isValidFor(type) && plausible(op, d, flagsEx, memMgt)) {
                        wanted.add(op);
                    }
                }
                if (!creates(pd, cq, type, Set.of(), 0)) {
                    continue;
                }
                qpTypes.add(type);
                Set<WrOpcode> granted = EnumSet.noneOf(WrOpcode.class);
                if (extendedQp && !wanted.isEmpty()) {
                    if (creates(pd, cq, type, wanted, 0)) {
                        granted.addAll(wanted);
                    } else {
                        for (WrOpcode op : wanted) {
                            if (creates(pd, cq, type, Set.of(op), 0)) {
                                granted.add(op);
                            }
                        }
                    }
                }
                if (!granted.isEmpty()) {
                    anySession = true;
                } else {
                    // Without an extended QP the opcodes still go through postSend.
                    granted.addAll(wanted);
                }
                opcodes.put(type, granted);
            }
            if (qpTypes.contains(QpType.RC)) {
                // The largest inline size an RC QP is created with: a binary search over 0..64 KiB.
                int lo = 0;
                int hi = 65536;
                if (creates(pd, cq, QpType.RC, Set.of(), hi)) {
                    lo = hi;
                }
                while (hi - lo > 1) {
                    int mid = (lo + hi) >>> 1;
                    if (creates(pd, cq, QpType.RC, Set.of(), mid)) {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                maxInline = lo;
                try (QueuePair qp = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq).build())) {
                    for (WrOpcode op : new WrOpcode[] {WrOpcode.RDMA_READ, WrOpcode.RDMA_WRITE, WrOpcode.SEND}) {
                        inOrder.put(op, DataInOrder.fromBits(qp.queryDataInOrder(op, DataInOrder.RETURN_CAPS)));
                    }
                }
            }
        } finally {
            pd.close();
        }
        boolean td;
        try (ThreadDomain t = ctx.allocTd()) {
            td = t != null;
        } catch (VerbsException e) {
            td = false;
        }
        return new Capabilities(qpTypes, opcodes, anySession, maxInline, d.maxSge(), d.maxSge(), d.atomicCap(),
                mwTypes, inOrder, td, (flags & DeviceAttributes.CAP_UD_IP_CSUM) != 0, d.maxSrq() > 0, true);
    }

    private boolean plausible(WrOpcode op, DeviceAttributes d, long flagsEx, boolean memMgt) {
        // rdma-core creates QPs with ATOMIC_WRITE or FLUSH whatever the kernel driver can do; the
        // driver's device_cap_flags_ex says whether it executes them (rxe from Linux 6.2).
        return switch (op) {
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> d.atomicCap() != AtomicCapability.NONE;
            case ATOMIC_WRITE -> ctx.rdmaCoreVersion >= 44 && (flagsEx & FfmContext.DEVICE_ATOMIC_WRITE) != 0;
            case FLUSH -> ctx.rdmaCoreVersion >= 45 && (flagsEx & FfmContext.DEVICE_FLUSH) != 0;
            case BIND_MW, LOCAL_INV, SEND_WITH_INV -> memMgt;
            // TSO needs the device's tso_caps, which ibv_query_device does not report.
            case TSO -> false;
            default -> true;
        };
    }

    private static boolean creates(ProtectionDomain pd, CompletionQueue cq, QpType type, Set<WrOpcode> ops,
                                   int inline) {
        QpInitAttributes.Builder b = QpInitAttributes.builder(type).cq(cq).maxSendWr(1).maxRecvWr(1)
                .maxInlineData(inline).sendOps(ops);
        try (QueuePair qp = pd.createQp(b.build())) {
            return qp != null;
        } catch (VerbsException | IllegalArgumentException e) {
            return false;
        }
    }
}
