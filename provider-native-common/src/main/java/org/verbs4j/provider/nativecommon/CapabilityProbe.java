package org.verbs4j.provider.nativecommon;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.verbs4j.AtomicCapability;
import org.verbs4j.Capabilities;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.DataInOrder;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.DeviceAttributesEx;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.XrcDomain;

/**
 * Finds what a libibverbs device can do by trying it: libibverbs has no query for the QP types, the WR-session
 * opcodes, the inline size or the memory window types a provider library accepts, so each is created once and
 * destroyed, where {@code ibv_query_device} does not already rule it out. The answer is the device's under one
 * binding, not the context's, and probing costs dozens of verbs, so it is computed once per provider and device
 * (name and GUID) in a JVM.
 *
 * @see "ibv_query_device(3)"
 * @see "ibv_create_qp_ex(3)"
 */
public final class CapabilityProbe {
    private static final Map<String, Capabilities> BY_DEVICE = new ConcurrentHashMap<>();
    /** The largest inline size tried, bytes. */
    private static final int MAX_INLINE_TRIED = 65536;

    private final IbverbsDeviceFacts facts;
    private final Context ctx;

    private CapabilityProbe(IbverbsDeviceFacts facts) {
        this.facts = facts;
        this.ctx = facts.context();
    }

    /**
     * The capabilities of the device of {@code facts.context()}, probed on the first call for that provider and
     * device.
     *
     * @param facts the binding's view of an open context
     * @return the capabilities
     * @throws VerbsException if the device cannot be queried or cannot give a PD and a CQ to probe with
     */
    public static Capabilities probe(IbverbsDeviceFacts facts) {
        Context ctx = facts.context();
        String key = facts.providerName() + "/" + ctx.device().name() + "/" + Long.toHexString(ctx.device().guid());
        Capabilities known = BY_DEVICE.get(key);
        if (known != null) {
            return known;
        }
        Capabilities probed = new CapabilityProbe(facts).probeNow();
        Capabilities raced = BY_DEVICE.putIfAbsent(key, probed);
        return raced != null ? raced : probed;
    }

    private Capabilities probeNow() {
        DeviceAttributesEx ex = ctx.queryDeviceEx();
        DeviceAttributes d = ex.origAttr();
        int flags = d.deviceCapFlags();
        Set<QpType> candidates = EnumSet.of(QpType.RC, QpType.UC, QpType.UD, QpType.RAW_PACKET);
        if ((flags & DeviceAttributes.CAP_XRC) != 0) {
            candidates.add(QpType.XRC_SEND);
        }
        Set<QpType> qpTypes = EnumSet.noneOf(QpType.class);
        Map<QpType, Set<WrOpcode>> opcodes = new EnumMap<>(QpType.class);
        Map<WrOpcode, Set<DataInOrder>> inOrder = new EnumMap<>(WrOpcode.class);
        Set<MwType> mwTypes = EnumSet.noneOf(MwType.class);
        boolean anySession = false;
        int maxInline = 0;
        boolean srq;
        try (ProtectionDomain pd = ctx.allocPd(); CompletionQueue cq = ctx.createCq(4)) {
            if (d.maxMw() > 0) {
                for (MwType t : MwType.values()) {
                    if (succeeds(() -> pd.allocMw(t).close())) {
                        mwTypes.add(t);
                    }
                }
            }
            boolean memMgt = (flags & DeviceAttributes.CAP_MEM_MGT_EXTENSIONS) != 0 || mwTypes.contains(MwType.TYPE_2);
            for (QpType type : candidates) {
                if (!creates(pd, cq, type, Set.of(), 0)) {
                    continue;
                }
                qpTypes.add(type);
                Set<WrOpcode> wanted = EnumSet.noneOf(WrOpcode.class);
                for (WrOpcode op : WrOpcode.values()) {
                    if (op.isValidFor(type) && plausible(op, type, ex, memMgt)) {
                        wanted.add(op);
                    }
                }
                Set<WrOpcode> granted = sessionOpcodes(pd, cq, type, wanted);
                if (!granted.isEmpty()) {
                    anySession = true;
                } else {
                    // Without a WR session the opcodes still go through postSend.
                    granted.addAll(wanted);
                }
                opcodes.put(type, granted);
            }
            // The receiving side of XRC has no send queue and no opcodes: the device has it when an XRC domain
            // opens and creates an XRC_RECV QP, asked only of a device that claims XRC and made an XRC_SEND QP.
            if (qpTypes.contains(QpType.XRC_SEND) && succeeds(() -> {
                try (XrcDomain xrcd = ctx.openXrcd()) {
                    xrcd.createRecvQp().close();
                }
            })) {
                qpTypes.add(QpType.XRC_RECV);
            }
            if (qpTypes.contains(QpType.RC)) {
                maxInline = largestInline(pd, cq);
                try (QueuePair qp = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(1).maxRecvWr(1)
                        .build())) {
                    for (WrOpcode op : new WrOpcode[] {WrOpcode.RDMA_READ, WrOpcode.RDMA_WRITE, WrOpcode.SEND}) {
                        inOrder.put(op, DataInOrder.fromBits(qp.queryDataInOrder(op, DataInOrder.RETURN_CAPS)));
                    }
                }
            }
            srq = d.maxSrq() > 0 && succeeds(() -> pd.createSrq(new SrqInitAttributes(1, 1, 0)).close());
        }
        boolean td = succeeds(() -> ctx.allocTd().close());
        boolean channel = succeeds(() -> ctx.createCompletionChannel().close());
        DeviceAttributesEx.CqModerationCaps cqMod = facts.hasContextOp("modify_cq") ? ex.cqModCaps()
                : new DeviceAttributesEx.CqModerationCaps(0, 0);
        return new Capabilities(qpTypes, opcodes, anySession, maxInline, d.maxSge(), d.maxSge(), d.atomicCap(),
                mwTypes, inOrder, td, (flags & DeviceAttributes.CAP_UD_IP_CSUM) != 0, srq, channel,
                cqMod.maxCqCount(), cqMod.maxCqPeriod(), facts.hasContextOp("alloc_dm") ? ex.maxDmSize() : 0,
                facts.reregisters(), facts.registersDmabuf());
    }

    /** The opcodes a QP of {@code type} is created with for a WR session: all at once, else one by one. */
    private Set<WrOpcode> sessionOpcodes(ProtectionDomain pd, CompletionQueue cq, QpType type, Set<WrOpcode> wanted) {
        Set<WrOpcode> granted = EnumSet.noneOf(WrOpcode.class);
        if (!facts.hasContextOp("create_qp_ex") || wanted.isEmpty()) {
            return granted;
        }
        if (creates(pd, cq, type, wanted, 0)) {
            granted.addAll(wanted);
            return granted;
        }
        for (WrOpcode op : wanted) {
            if (creates(pd, cq, type, Set.of(op), 0)) {
                granted.add(op);
            }
        }
        return granted;
    }

    /** The largest inline size an RC QP is created with: a binary search over 0..64 KiB. */
    private static int largestInline(ProtectionDomain pd, CompletionQueue cq) {
        int lo = 0;
        int hi = MAX_INLINE_TRIED;
        if (creates(pd, cq, QpType.RC, Set.of(), hi)) {
            return hi;
        }
        while (hi - lo > 1) {
            int mid = (lo + hi) >>> 1;
            if (creates(pd, cq, QpType.RC, Set.of(), mid)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static boolean plausible(WrOpcode op, QpType type, DeviceAttributesEx ex, boolean memMgt) {
        // rdma-core creates QPs with ATOMIC_WRITE or FLUSH whatever the kernel driver can do; the
        // driver's device_cap_flags_ex says whether it executes them (rxe from Linux 6.2). Whether the library
        // has the builder is the creation's answer (sessionOpcodes), never its version: a library refuses the
        // send_ops_flags it does not know, and sets the builder of every one it grants.
        long flagsEx = ex.deviceCapFlagsEx();
        return switch (op) {
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> ex.origAttr().atomicCap() != AtomicCapability.NONE;
            case ATOMIC_WRITE -> (flagsEx & DeviceAttributesEx.DEVICE_ATOMIC_WRITE) != 0;
            case FLUSH -> (flagsEx & DeviceAttributesEx.DEVICE_FLUSH) != 0;
            case BIND_MW, LOCAL_INV, SEND_WITH_INV -> memMgt;
            // tso_caps names the QP types (a bit per ibv_qp_type) whose sends the device segments
            case TSO -> ex.tsoCaps().maxTso() > 0 && (ex.tsoCaps().supportedQpts() & 1 << type.value()) != 0;
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

    /** A verb that either works or throws {@link VerbsException}. */
    private interface Attempt {
        void run();
    }

    private static boolean succeeds(Attempt a) {
        try {
            a.run();
            return true;
        } catch (VerbsException e) {
            return false;
        }
    }
}
