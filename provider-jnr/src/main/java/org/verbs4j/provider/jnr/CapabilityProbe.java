package org.verbs4j.provider.jnr;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.verbs4j.Capabilities;
import org.verbs4j.CompletionQueue;
import org.verbs4j.DataInOrder;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;

/**
 * Finds what a device can do by trying it: libibverbs has no query for the QP types, the WR-session
 * opcodes or the memory window types a provider library accepts, so each is created once and destroyed.
 * Runs once per device (name and GUID) in a JVM, on the first {@link JnrContext#capabilities()}: the
 * answer is the device's, not the context's, and probing costs dozens of verbs.
 */
final class CapabilityProbe {
    private static final java.util.concurrent.ConcurrentHashMap<String, Capabilities> BY_DEVICE =
            new java.util.concurrent.ConcurrentHashMap<>();

    private static final QpType[] TYPES = {QpType.RC, QpType.UC, QpType.UD, QpType.RAW_PACKET};
    private static final int[] INLINE_SIZES = {4096, 2048, 1024, 512, 256, 128, 64, 32, 16, 0};

    private CapabilityProbe() {}

    static Capabilities probe(JnrContext ctx) {
        String key = ctx.device().name() + "/" + Long.toHexString(ctx.device().guid());
        Capabilities known = BY_DEVICE.get(key);
        if (known != null) {
            return known;
        }
        Capabilities probed = probeNow(ctx);
        BY_DEVICE.putIfAbsent(key, probed);
        return probed;
    }

    private static Capabilities probeNow(JnrContext ctx) {
        DeviceAttributes dev = ctx.queryDevice();
        Set<QpType> types = EnumSet.noneOf(QpType.class);
        Map<QpType, Set<WrOpcode>> ops = new EnumMap<>(QpType.class);
        Map<WrOpcode, Set<DataInOrder>> inOrder = new EnumMap<>(WrOpcode.class);
        Set<MwType> mwTypes = EnumSet.noneOf(MwType.class);
        boolean wrSession = false;
        int maxInline = 0;
        boolean srq = false;
        boolean td = false;
        boolean channel = false;
        try (ProtectionDomain pd = ctx.allocPd(); CompletionQueue cq = ctx.createCq(16)) {
            for (QpType t : TYPES) {
                if (!tryQp(pd, cq, t, Set.of(), 0)) {
                    continue;
                }
                types.add(t);
                Set<WrOpcode> accepted = EnumSet.noneOf(WrOpcode.class);
                for (WrOpcode op : WrOpcode.values()) {
                    if (op.isValidFor(t) && op != WrOpcode.FLUSH && tryQp(pd, cq, t, Set.of(op), 0)) {
                        accepted.add(op);
                        wrSession = true;
                    }
                }
                if (accepted.isEmpty()) {
                    // Without sendOps the device still takes every postSend opcode of the seed table.
                    for (WrOpcode op : WrOpcode.values()) {
                        if (op.isValidFor(t) && op != WrOpcode.FLUSH && op != WrOpcode.ATOMIC_WRITE) {
                            accepted.add(op);
                        }
                    }
                }
                ops.put(t, accepted);
            }
            if (types.contains(QpType.RC)) {
                for (int size : INLINE_SIZES) {
                    if (tryQp(pd, cq, QpType.RC, Set.of(), size)) {
                        maxInline = size;
                        break;
                    }
                }
                try (QueuePair qp = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(1).maxRecvWr(1)
                        .build())) {
                    for (WrOpcode op : new WrOpcode[] {WrOpcode.RDMA_READ, WrOpcode.RDMA_WRITE, WrOpcode.SEND}) {
                        inOrder.put(op, DataInOrder.fromBits(qp.queryDataInOrder(op, DataInOrder.RETURN_CAPS)));
                    }
                }
            }
            for (MwType t : MwType.values()) {
                try {
                    pd.allocMw(t).close();
                    mwTypes.add(t);
                } catch (VerbsException e) {
                    // This type is not supported.
                }
            }
            try {
                pd.createSrq(new SrqInitAttributes(1, 1, 0)).close();
                srq = true;
            } catch (VerbsException e) {
                // No SRQ support.
            }
        }
        try {
            ctx.allocTd().close();
            td = true;
        } catch (VerbsException e) {
            // No thread domains.
        }
        try {
            ctx.createCompletionChannel().close();
            channel = true;
        } catch (VerbsException e) {
            // No completion channels.
        }
        return new Capabilities(types, ops, wrSession, maxInline, dev.maxSge(), dev.maxSge(), dev.atomicCap(),
                mwTypes, inOrder, td, (dev.deviceCapFlags() & DeviceAttributes.CAP_UD_IP_CSUM) != 0, srq, channel);
    }

    private static boolean tryQp(ProtectionDomain pd, CompletionQueue cq, QpType type, Set<WrOpcode> ops, int inline) {
        try (QueuePair qp = pd.createQp(QpInitAttributes.builder(type).cq(cq).maxSendWr(1).maxRecvWr(1)
                .maxInlineData(inline).sendOps(ops).build())) {
            return qp != null;
        } catch (VerbsException | IllegalArgumentException e) {
            return false;
        }
    }
}
