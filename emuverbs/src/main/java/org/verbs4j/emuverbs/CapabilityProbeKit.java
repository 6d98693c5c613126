package org.verbs4j.emuverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.DeviceAttributesEx;
import org.verbs4j.Errno;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.emulated.EmulatedProvider;
import org.verbs4j.spi.VerbsProvider;

/**
 * Capabilities by probe, not by version: a libibverbs provider over the forwarding library finds what the library
 * and the engine behind it can do, whatever the library's file is named. The build runs it over
 * {@code libibverbs.so.1.14.44.0} and over the same library as a plain {@code libibverbs.so.1} (a vendor's build,
 * whose name tells no rdma-core version). The engine is the emulated provider's, so its capabilities are the
 * reference, less what {@code struct ibv_qp_ex} of the installed header (rdma-core 44) has no builder for: FLUSH.
 */
public abstract class CapabilityProbeKit {
    private Context ctx;
    private Context emu;

    /**
     * The libibverbs provider under test, made after the forwarding library is registered.
     *
     * @return a new provider
     */
    protected abstract VerbsProvider provider();

    @BeforeEach
    void open() {
        String why = EmuVerbs.register();
        assumeTrue(why == null, why);
        VerbsProvider p = provider();
        assumeTrue(p.isAvailable(), () -> String.valueOf(p.unavailabilityCause()));
        ctx = p.devices().get(0).open();
        emu = new EmulatedProvider().devices().get(0).open();
    }

    @AfterEach
    void close() {
        if (ctx != null) {
            ctx.close();
            emu.close();
        }
    }

    @Test
    @DisplayName("data in order: RETURN_CAPS is probed from the library's answers, and matches the engine's")
    void dataInOrderIsProbed() {
        assertEquals(emu.capabilities().dataInOrder(), ctx.capabilities().dataInOrder());
    }

    @Test
    @DisplayName("WR-session opcodes: ATOMIC_WRITE is granted by the library and the kernel flags, not by a version")
    void sessionOpcodesAreProbed() {
        Set<WrOpcode> expected = EnumSet.copyOf(emu.capabilities().sendOpcodes().get(QpType.RC));
        expected.remove(WrOpcode.FLUSH);
        assertEquals(expected, ctx.capabilities().sendOpcodes().get(QpType.RC));
        assertFalse(ctx.capabilities().supports(QpType.RC, WrOpcode.FLUSH),
                "the library's ibv_qp_ex (rdma-core 44) has no wr_flush");
    }

    @Test
    @DisplayName("ibv_query_device_ex answers the engine's extended attributes whole, and every field in its place")
    void queryDeviceExCarriesEveryField() {
        assertEquals(emu.queryDeviceEx(), ctx.queryDeviceEx(), "the engine's answer");
        // each field its own value, with the top bit of each C width set where the width allows it
        DeviceAttributesEx distinct = new DeviceAttributesEx(ctx.queryDevice(), 0x8000_0001,
                new DeviceAttributesEx.OdpCaps(0x8000_0000_0000_0002L, 3, 4, 5), -6L, 156_250, 0x1_0000_0000_0007L,
                new DeviceAttributesEx.TsoCaps(65_536, 9), new DeviceAttributesEx.RssCaps(10, 11, 12, 1L << 63, 0xff),
                14, new DeviceAttributesEx.PacketPacingCaps(15, 16, 17), 18,
                new DeviceAttributesEx.TmCaps(19, 20, 21, 22, 23), new DeviceAttributesEx.CqModerationCaps(0xffff, 25),
                1L << 40, new DeviceAttributesEx.PciAtomicCaps(0x8001, 28, 29), 30, 0x8000_0000);
        EmuVerbs.deviceExForTest = distinct;
        try {
            assertEquals(distinct, ctx.queryDeviceEx());
        } finally {
            EmuVerbs.deviceExForTest = null;
        }
    }

    @Test
    @DisplayName("a library whose query_device_ex answers EOPNOTSUPP or ENOSYS gives the legacy attributes, as verbs.h"
            + " falls back; another errno is the verb's")
    void queryDeviceExFallsBackAsVerbsHDoes() {
        DeviceAttributesEx legacy = DeviceAttributesEx.legacy(ctx.queryDevice());
        try {
            for (int e : new int[] {Errno.EOPNOTSUPP, Errno.ENOSYS}) {
                EmuVerbs.deviceExErrnoForTest = e;
                assertEquals(legacy, ctx.queryDeviceEx(), Errno.name(e));
            }
            EmuVerbs.deviceExErrnoForTest = Errno.EINVAL;
            VerbsException e = assertThrows(VerbsException.class, ctx::queryDeviceEx);
            assertEquals(Errno.EINVAL, e.errno());
        } finally {
            EmuVerbs.deviceExErrnoForTest = 0;
        }
        assertEquals(emu.queryDeviceEx(), ctx.queryDeviceEx(), "the engine's answer again");
    }

    @Test
    @DisplayName("a QP asking for an opcode whose builder the library lacks is refused with EOPNOTSUPP, not read past")
    void unknownSendOpsAreRefusedByTheLibrary() {
        try (ProtectionDomain pd = ctx.allocPd(); CompletionQueue cq = ctx.createCq(4)) {
            VerbsException e = assertThrows(VerbsException.class, () -> pd.createQp(QpInitAttributes
                    .builder(QpType.RC).cq(cq).maxSendWr(1).maxRecvWr(1).sendOps(WrOpcode.SEND, WrOpcode.FLUSH)
                    .build()));
            assertEquals(Errno.EOPNOTSUPP, e.errno());
        }
    }
}
