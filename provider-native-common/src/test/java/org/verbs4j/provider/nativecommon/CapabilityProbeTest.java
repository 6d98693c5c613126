package org.verbs4j.provider.nativecommon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Capabilities;
import org.verbs4j.Context;
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

    private record Facts(Context context, String providerName, long deviceCapFlagsEx,
                         boolean hasExtendedQp, int cqModerationCaps) implements IbverbsDeviceFacts {}

    @Test
    @DisplayName("with every device flag, the probe finds what the device says it can do")
    void findsTheDevicesCapabilities() {
        Capabilities known = ctx.capabilities();
        Capabilities probed = CapabilityProbe.probe(new Facts(ctx, "probe-test-all",
                IbverbsDeviceFacts.DEVICE_ATOMIC_WRITE | IbverbsDeviceFacts.DEVICE_FLUSH, true,
                known.maxCqModerationCount() | known.maxCqModerationPeriod() << 16));
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
    }

    @Test
    @DisplayName("without the kernel's flags, ATOMIC_WRITE and FLUSH are not claimed even where QPs take them")
    void flagsRuleOutWhatRdmaCoreAcceptsRegardless() {
        Capabilities probed = CapabilityProbe.probe(new Facts(ctx, "probe-test-noflags", 0, true, 0));
        Set<WrOpcode> expected = EnumSet.copyOf(ctx.capabilities().sendOpcodes().get(QpType.RC));
        expected.removeAll(EnumSet.of(WrOpcode.ATOMIC_WRITE, WrOpcode.FLUSH));
        assertEquals(expected, probed.sendOpcodes().get(QpType.RC));
        assertSame(probed, CapabilityProbe.probe(new Facts(ctx, "probe-test-noflags", 0, true, 0)),
                "probed once per provider and device");
    }

    @Test
    @DisplayName("without ibv_create_qp_ex there is no WR session, and postSend keeps every plausible opcode")
    void noExtendedQp() {
        Capabilities probed = CapabilityProbe.probe(new Facts(ctx, "probe-test-noex", 0, false, 0));
        assertTrue(!probed.wrSession());
        assertTrue(probed.supports(QpType.RC, WrOpcode.RDMA_READ));
        assertTrue(!probed.cqModeration(), "no cq_mod_caps: no CQ moderation");
    }
}
