package org.verbs4j.provider.nativecommon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Capabilities;
import org.verbs4j.Context;
import org.verbs4j.DeviceAttributesEx;
import org.verbs4j.QpType;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.emulated.EmulatedProvider;

/**
 * The shared probe against a device whose answer is known: the emulated one, which reports its own
 * capabilities. The probe, trying things through the API only, must find the same, less what the facts a
 * binding gives rule out.
 */
class CapabilityProbeTest {
    private Context ctx;

    @BeforeEach
    void open() {
        ctx = new EmulatedProvider().devices().get(0).open();
    }

    @AfterEach
    void close() {
        ctx.close();
    }

    private record Facts(Context context, String providerName, Set<String> ops) implements IbverbsDeviceFacts {
        @Override
        public boolean hasContextOp(String name) {
            return ops.contains(name);
        }

        @Override
        public boolean reregisters() {
            return ops.contains("rereg_mr");
        }

        @Override
        public boolean registersDmabuf() {
            return ops.contains("reg_dmabuf_mr");
        }
    }

    private static final Set<String> ALL_OPS = Set.of("create_qp_ex", "modify_cq", "alloc_dm", "rereg_mr", "reg_dmabuf_mr");

    /** {@code ctx} whose {@code queryDeviceEx} answers these {@code device_cap_flags_ex} and {@code cq_mod_caps}. */
    private static Context reporting(Context ctx, long flagsEx, DeviceAttributesEx.CqModerationCaps cqMod) {
        DeviceAttributesEx x = ctx.queryDeviceEx();
        DeviceAttributesEx changed = new DeviceAttributesEx(x.origAttr(), x.compMask(), x.odpCaps(),
                x.completionTimestampMask(), x.hcaCoreClock(), flagsEx, x.tsoCaps(), x.rssCaps(), x.maxWqTypeRq(),
                x.packetPacingCaps(), x.rawPacketCaps(), x.tmCaps(), cqMod, x.maxDmSize(), x.pciAtomicCaps(),
                x.xrcOdpCaps(), x.physPortCntEx());
        return (Context) Proxy.newProxyInstance(Context.class.getClassLoader(), new Class<?>[] {Context.class},
                (proxy, m, args) -> {
                    if (m.getName().equals("queryDeviceEx")) {
                        return changed;
                    }
                    try {
                        return m.invoke(ctx, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    @DisplayName("with every op and the device's own extended attributes, the probe finds what the device says it can do")
    void findsTheDevicesCapabilities() {
        Capabilities known = ctx.capabilities();
        assertTrue(known.cqModeration() && known.supports(QpType.RC, WrOpcode.FLUSH)
                && known.supports(QpType.RC, WrOpcode.ATOMIC_WRITE), "the emulated device has all three");
        Capabilities probed = CapabilityProbe.probe(new Facts(ctx, "probe-test-all", ALL_OPS));
        assertEquals(known.qpTypes(), probed.qpTypes());
        assertEquals(known.sendOpcodes(), probed.sendOpcodes());
        assertTrue(probed.wrSession());
        assertEquals(known.maxInlineData(), probed.maxInlineData());
        assertEquals(known.memoryWindowTypes(), probed.memoryWindowTypes());
        assertEquals(known.dataInOrder(), probed.dataInOrder());
        assertEquals(known.threadDomains(), probed.threadDomains());
        assertEquals(known.srq(), probed.srq());
        assertEquals(known.completionChannel(), probed.completionChannel());
        assertEquals(known.atomics(), probed.atomics());
        assertEquals(known.maxCqModerationCount(), probed.maxCqModerationCount(), "cq_mod_caps.max_cq_count");
        assertEquals(known.maxCqModerationPeriod(), probed.maxCqModerationPeriod(), "cq_mod_caps.max_cq_period");
        assertEquals(known.maxDmSize(), probed.maxDmSize(), "max_dm_size");
        assertEquals(known.reregMr(), probed.reregMr(), "ibv_rereg_mr");
        assertEquals(known.dmabuf(), probed.dmabuf(), "ibv_reg_dmabuf_mr");
    }

    @Test
    @DisplayName("without the kernel's flags, ATOMIC_WRITE and FLUSH are not claimed even where QPs take them")
    void flagsRuleOutWhatRdmaCoreAcceptsRegardless() {
        Context plain = reporting(ctx, Integer.toUnsignedLong(ctx.queryDevice().deviceCapFlags()),
                ctx.queryDeviceEx().cqModCaps());
        Capabilities probed = CapabilityProbe.probe(new Facts(plain, "probe-test-noflags", ALL_OPS));
        Set<WrOpcode> expected = EnumSet.copyOf(ctx.capabilities().sendOpcodes().get(QpType.RC));
        expected.removeAll(EnumSet.of(WrOpcode.ATOMIC_WRITE, WrOpcode.FLUSH));
        assertEquals(expected, probed.sendOpcodes().get(QpType.RC));
        assertSame(probed, CapabilityProbe.probe(new Facts(plain, "probe-test-noflags", ALL_OPS)),
                "probed once per provider and device");
    }

    @Test
    @DisplayName("without ibv_create_qp_ex there is no WR session, and postSend keeps every plausible opcode;"
            + " without modify_cq no CQ moderation, whatever cq_mod_caps says")
    void noExtendedQp() {
        assertTrue(ctx.queryDeviceEx().cqModCaps().maxCqCount() > 0, "the device reports cq_mod_caps");
        Capabilities probed = CapabilityProbe.probe(new Facts(ctx, "probe-test-noex", Set.of()));
        assertTrue(!probed.wrSession());
        assertTrue(probed.supports(QpType.RC, WrOpcode.RDMA_READ));
        assertTrue(!probed.cqModeration(), "no modify_cq op: no CQ moderation");
        assertEquals(0, probed.maxDmSize(), "no alloc_dm op: no device memory, whatever max_dm_size says");
        assertTrue(!probed.reregMr(), "no re-registration");
        assertTrue(!probed.dmabuf(), "no dma-buf regions");
    }

    @Test
    @DisplayName("with modify_cq but cq_mod_caps 0 there is no CQ moderation")
    void noModerationCaps() {
        Context none = reporting(ctx, ctx.queryDeviceEx().deviceCapFlagsEx(),
                new DeviceAttributesEx.CqModerationCaps(0, 0));
        Capabilities probed = CapabilityProbe.probe(new Facts(none, "probe-test-nocqmod", ALL_OPS));
        assertTrue(!probed.cqModeration());
        assertTrue(probed.wrSession());
    }
}
