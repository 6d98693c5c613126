package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.DeviceAttributesEx.PacketPacingCaps;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpRateLimit;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;

/**
 * Packet pacing, {@code ibv_modify_qp_rate_limit(3)}: the device's rate range from both sides, and a limit that
 * holds a QP's sends back. Skipped, but for the first rule, on a device that reports no packet pacing (rxe).
 */
public abstract class RateLimitRules extends TckArea {
    /** Bytes per RDMA WRITE of the paced run. */
    private static final int MESSAGE = 4096;
    private static final int MESSAGES = 24;

    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected RateLimitRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private PacketPacingCaps pacing() {
        return tb.context().queryDeviceEx().packetPacingCaps();
    }

    private PacketPacingCaps assumePacing(QpType type) {
        PacketPacingCaps caps = pacing();
        assumeTrue(caps.qpRateLimitMax() != 0 && caps.paces(type),
                "capability: the device does not pace " + type + " QPs (packet_pacing_caps)");
        return caps;
    }

    @Test
    @DisplayName("required_ a device without packet pacing refuses a rate limit with EOPNOTSUPP (or EINVAL from a provider that has the verb) [ibv_modify_qp_rate_limit(3)]")
    void required_noPacing() {
        assumeTrue(pacing().qpRateLimitMax() == 0, "the device paces QPs");
        QueuePair qp = tb.qp(QpType.RC, tb.cq(4), null);
        Expect.errno("modifyRateLimit without packet pacing", () -> qp.modifyRateLimit(new QpRateLimit(1000, 0, 0)),
                Errno.EOPNOTSUPP, Errno.EINVAL);
    }

    @Test
    @DisplayName("required_ qp_rate_limit_min and qp_rate_limit_max are accepted exactly, one kbps beyond either fails with EINVAL, and 0 removes the limit [ibv_modify_qp_rate_limit(3), ibv_query_device_ex(3) packet_pacing_caps]")
    void required_rateRange() {
        PacketPacingCaps caps = assumePacing(QpType.RC);
        QpPair p = tb.pair(QpType.RC);
        long min = Integer.toUnsignedLong(caps.qpRateLimitMin());
        long max = Integer.toUnsignedLong(caps.qpRateLimitMax());
        p.a().modifyRateLimit(new QpRateLimit((int) min, 0, 0));
        p.a().modifyRateLimit(new QpRateLimit((int) max, 0, 0));
        if (min > 1) {
            Expect.errno("rate_limit qp_rate_limit_min - 1", () -> p.a().modifyRateLimit(
                    new QpRateLimit((int) (min - 1), 0, 0)), Errno.EINVAL);
        }
        if (max < 0xffff_ffffL) {
            Expect.errno("rate_limit qp_rate_limit_max + 1", () -> p.a().modifyRateLimit(
                    new QpRateLimit((int) (max + 1), 0, 0)), Errno.EINVAL);
        }
        p.a().modifyRateLimit(QpRateLimit.UNLIMITED);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, 64, dst.address(), dst.rkey()).status(),
                "a WRITE after the refused limits and the removal");
        assertEquals(65535, new QpRateLimit(1000, 0, 65535).typicalPacketSize(), "typicalPacketSize's largest");
        Expect.badInput("typicalPacketSize 65536", () -> new QpRateLimit(1000, 0, 65536));
    }

    @Test
    @DisplayName("required_ a rate limit holds sends back: 24 RDMA WRITEs of 4 KiB at 8 Mbit/s with 4 KiB bursts take at least half the 90 ms the rate allows; the bytes all land [ibv_modify_qp_rate_limit(3)]")
    void required_limitHoldsSendsBack() {
        PacketPacingCaps caps = assumePacing(QpType.RC);
        long kbps = Math.max(Integer.toUnsignedLong(caps.qpRateLimitMin()), 8_000);
        assumeTrue(kbps <= Integer.toUnsignedLong(caps.qpRateLimitMax()), "the device cannot pace as slowly as 8 Mbit/s");
        QpPair p = tb.pair(QpType.RC, b -> b.maxSendWr(MESSAGES), 7);
        MemoryRegion src = tb.buffer((long) MESSAGES * MESSAGE);
        MemoryRegion dst = p.remoteBuffer((long) MESSAGES * MESSAGE);
        Data.fill(src, 44);
        p.a().modifyRateLimit(new QpRateLimit((int) kbps, MESSAGE, MESSAGE));
        long start = System.nanoTime();
        for (int i = 0; i < MESSAGES; i++) {
            p.a().postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(src, (long) i * MESSAGE, MESSAGE))
                    .rdma(dst.address() + (long) i * MESSAGE, dst.rkey()));
        }
        List<WorkCompletion> done = Completions.await(p.cqA(), MESSAGES, "the paced WRITEs");
        long elapsedNs = System.nanoTime() - start;
        for (WorkCompletion wc : done) {
            assertEquals(WcStatus.SUCCESS, wc.status(), "a paced WRITE: " + wc);
        }
        Data.assertPattern("the paced WRITEs' bytes", dst.segment(), 0, (long) MESSAGES * MESSAGE, 44, 0);
        // The first burst goes at once and each message may go in debt: the rest takes at least this long.
        double bound = (double) (MESSAGES - 2) * MESSAGE / (kbps * 125.0) * 1e9;
        assertTrue(elapsedNs >= bound / 2, "24 WRITEs of 4 KiB at " + kbps + " kbps took " + elapsedNs / 1_000_000
                + " ms, less than half the " + (long) (bound / 1e6) + " ms the limit allows");
    }
}
