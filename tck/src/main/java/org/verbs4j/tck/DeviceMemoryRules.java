package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.DeviceMemory;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpType;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;

/**
 * Device memory: {@code ibv_alloc_dm(3)}, {@code ibv_memcpy_to_dm}/{@code ibv_memcpy_from_dm},
 * {@code ibv_reg_dm_mr(3)} and {@code ibv_free_dm}. The buffer's limits from both sides (the device's
 * {@code max_dm_size}, the buffer's end for a copy and a registration, a region's end for a peer's RDMA), a zero-based
 * region that a peer writes and reads, and the buffer that cannot be freed under its region. Sizes and offsets are
 * multiples of 4 bytes, as mlx5 copies whole words. Skipped, but for the first rule, on a device whose
 * {@code max_dm_size} is 0 (rxe).
 */
public abstract class DeviceMemoryRules extends TckArea {
    /** A region's access: zero-based, as {@code ibv_reg_dm_mr} needs, and every remote access a peer uses here. */
    private static final int DM_ACCESS = AccessFlags.ZERO_BASED | AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
            | AccessFlags.REMOTE_READ;
    /** How many more largest buffers the exhaustion rule tries before it stops looking for ENOMEM. */
    private static final int EXHAUSTION_BUDGET = 64;

    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected DeviceMemoryRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private long assumeDeviceMemory() {
        assumeTrue(caps().deviceMemory(), "capability: the device has no device memory (max_dm_size 0)");
        return caps().maxDmSize();
    }

    @Test
    @DisplayName("required_ a device without device memory (max_dm_size 0) refuses allocDm with EOPNOTSUPP [ibv_alloc_dm(3)]")
    void required_noDeviceMemory() {
        assumeTrue(!caps().deviceMemory(), "the device has device memory");
        assertEquals(0, tb.context().queryDeviceEx().maxDmSize(), "Capabilities.maxDmSize against max_dm_size");
        Expect.errno("allocDm(64) without device memory", () -> tb.context().allocDm(64, 0), Errno.EOPNOTSUPP);
    }

    @Test
    @DisplayName("required_ allocDm of exactly max_dm_size works and one byte more fails with EINVAL or ENOMEM; the device's memory runs out with ENOMEM; a length below 1 or an alignment beyond 2^63 is bad input [ibv_alloc_dm(3)]")
    void required_allocLimits() {
        long max = assumeDeviceMemory();
        assertEquals(max, tb.context().queryDeviceEx().maxDmSize(), "Capabilities.maxDmSize against max_dm_size");
        // the man page names max_dm_size as the memory there is, without an errno: EINVAL (a length the device never
        // takes, as the emulated devices answer) or ENOMEM (more than it has)
        Expect.errno("allocDm(max_dm_size + 1)", () -> tb.context().allocDm(max + 1, 0), Errno.EINVAL, Errno.ENOMEM);
        Expect.badInput("allocDm(0)", () -> tb.context().allocDm(0, 0));
        Expect.badInput("allocDm(-4)", () -> tb.context().allocDm(-4, 0));
        Expect.badInput("allocDm(64, 64)", () -> tb.context().allocDm(64, 64));
        Expect.badInput("allocDm(64, -1)", () -> tb.context().allocDm(64, -1));
        DeviceMemory whole = tb.context().allocDm(max, 3);
        assertEquals(max, whole.length(), "the buffer's length");
        assertEquals(tb.context(), whole.context(), "the buffer's context");
        boolean exhausted = false;
        for (int i = 0; i < EXHAUSTION_BUDGET && !exhausted; i++) {
            try {
                tb.context().allocDm(max, 0);
            } catch (org.verbs4j.VerbsException e) {
                assertEquals(Errno.ENOMEM, e.errno(), "allocDm once the device's memory is taken: " + e);
                exhausted = true;
            }
        }
        whole.close();
        assertTrue(whole.isClosed(), "a freed buffer is closed");
        if (exhausted) {
            tb.context().allocDm(max, 0).close();
        }
    }

    @Test
    @DisplayName("required_ copies to and from device memory, each read back, in a loop while another thread frees the buffer: the close waits for the copy under way, the first copy after it throws IllegalStateException, and no copy touches the freed buffer (run in a child JVM) [ibv_free_dm(3), ibv_memcpy_to_dm(3)]")
    void required_copiesWhileDmClosed() throws Exception {
        long max = assumeDeviceMemory();
        assumeTrue((max & ~3L) >= 128, "the device's largest buffer is below 128 bytes");
        ForkedScenario.assertHolds(kit(), "copiesWhileDmClosed", "copies while another thread frees device memory");
    }

    @Test
    @DisplayName("required_ copies to and from device memory keep their bytes, native or heap, up to the buffer's last byte; one byte past it, a negative offset, a read-only destination or a closed arena is refused and nothing is copied [ibv_memcpy_to_dm(3), ibv_memcpy_from_dm]")
    void required_copyLimits() {
        assumeDeviceMemory();
        long length = Math.min(4096, caps().maxDmSize() & ~3L);
        assumeTrue(length >= 128, "the device's largest buffer is below 128 bytes");
        DeviceMemory dm = tb.context().allocDm(length, 0);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment all = arena.allocate(length);
            Data.fill(all, 11);
            dm.copyToDm(0, all);
            MemorySegment back = arena.allocate(length);
            dm.copyFromDm(0, back);
            Data.assertPattern("the whole buffer read back", back, 0, length, 11, 0);

            byte[] tail = new byte[64];
            Data.fill(MemorySegment.ofArray(tail), 12);
            dm.copyToDm(length - 64, MemorySegment.ofArray(tail));
            byte[] tailBack = new byte[64];
            dm.copyFromDm(length - 64, MemorySegment.ofArray(tailBack));
            Data.assertPattern("the last 64 bytes, from and into the heap", MemorySegment.ofArray(tailBack), 0, 64, 12, 0);

            MemorySegment past = arena.allocate(64);
            Data.fill(past, 13);
            Expect.badInput("copyToDm one byte past the end", () -> dm.copyToDm(length - 63, past));
            Expect.badInput("copyFromDm one byte past the end", () -> dm.copyFromDm(length - 63, arena.allocate(64)));
            Expect.badInput("copyToDm at a negative offset", () -> dm.copyToDm(-4, past));
            Expect.badInput("copyToDm at an offset near Long.MAX_VALUE", () -> dm.copyToDm(Long.MAX_VALUE - 8, past));
            Expect.badInput("copyFromDm into a read-only segment", () -> dm.copyFromDm(0, back.asReadOnly()));
            Expect.badInput("copyToDm(0, null)", () -> dm.copyToDm(0, null));
            Arena gone = Arena.ofConfined();
            MemorySegment freed = gone.allocate(64);
            gone.close();
            Expect.thrown("copyToDm from a closed arena", IllegalStateException.class, () -> dm.copyToDm(0, freed));
            Expect.thrown("copyFromDm into a closed arena", IllegalStateException.class, () -> dm.copyFromDm(0, freed));

            dm.copyFromDm(0, back);
            Data.assertPattern("the buffer after the refused copies", back, 0, length - 64, 11, 0);
            Data.assertPattern("its last 64 bytes after the refused copies", back, length - 64, 64, 12, 0);
        }
    }

    @Test
    @DisplayName("required_ registerDeviceMemory makes a zero-based region up to the buffer's last byte, without host memory; one byte past it, no ZERO_BASED or a length below 1 is bad input; the buffer refuses to be freed with EBUSY while the region is open [ibv_reg_dm_mr(3), ibv_free_dm]")
    void required_registrationLimits() {
        assumeDeviceMemory();
        long length = Math.min(4096, caps().maxDmSize() & ~3L);
        assumeTrue(length >= 128, "the device's largest buffer is below 128 bytes");
        DeviceMemory dm = tb.context().allocDm(length, 0);
        Expect.badInput("a region one byte past the buffer", () -> tb.pd().registerDeviceMemory(dm, 64, length - 63,
                DM_ACCESS));
        Expect.badInput("a region without ZERO_BASED", () -> tb.pd().registerDeviceMemory(dm, 0, 64,
                DM_ACCESS & ~AccessFlags.ZERO_BASED));
        Expect.badInput("a region of 0 bytes", () -> tb.pd().registerDeviceMemory(dm, 0, 0, DM_ACCESS));
        Expect.badInput("a region at a negative offset", () -> tb.pd().registerDeviceMemory(dm, -4, 64, DM_ACCESS));
        Expect.badInput("a region of no buffer", () -> tb.pd().registerDeviceMemory(null, 0, 64, DM_ACCESS));

        MemoryRegion mr = tb.pd().registerDeviceMemory(dm, 64, length - 64, DM_ACCESS);
        assertEquals(0, mr.address(), "a region of device memory is zero-based");
        assertEquals(length - 64, mr.length(), "the region's length");
        assertEquals(DM_ACCESS, mr.access(), "the region's access");
        Expect.thrown("segment() of a region of device memory", UnsupportedOperationException.class, mr::segment);

        Expect.errno("freeing the buffer under its region", dm::close, Errno.EBUSY);
        assertTrue(!dm.isClosed(), "a buffer that refused to be freed stays open");
        dm.copyToDm(0, MemorySegment.ofArray(new byte[64]));
        mr.close();
        dm.close();
        assertTrue(dm.isClosed(), "the buffer is freed once its region is closed");
    }

    @Test
    @DisplayName("required_ a peer's RDMA WRITE and READ reach a zero-based region of device memory by offset, up to its last byte; a WRITE one byte past it fails with REM_ACCESS_ERR and writes nothing [ibv_reg_dm_mr(3), ibv_post_send(3)]")
    void required_rdmaIntoDeviceMemory() {
        assumeDeviceMemory();
        assumeOp(QpType.RC, WrOpcode.RDMA_WRITE);
        assumeOp(QpType.RC, WrOpcode.RDMA_READ);
        QpPair p = tb.pair(QpType.RC);
        long dmLength = Math.min(4096, p.remote().caps().maxDmSize() & ~3L);
        assumeTrue(dmLength >= 2048, "the peer's largest buffer is below 2048 bytes");
        DeviceMemory dm = p.remote().context().allocDm(dmLength, 3);
        dm.copyToDm(0, MemorySegment.ofArray(new byte[(int) dmLength]));
        long base = 1024;
        long regionLength = dmLength - base;
        MemoryRegion target = p.remote().pd().registerDeviceMemory(dm, base, regionLength, DM_ACCESS);
        MemoryRegion local = tb.buffer(1024);
        Data.fill(local, 21);

        assertEquals(WcStatus.SUCCESS, p.postA(p.wr(1, WrOpcode.RDMA_WRITE, local, 0, 256)
                .rdma(64, target.rkey())).status(), "an RDMA WRITE at region offset 64");
        assertEquals(WcStatus.SUCCESS, p.postA(p.wr(2, WrOpcode.RDMA_WRITE, local, 256, 128)
                .rdma(regionLength - 128, target.rkey())).status(), "an RDMA WRITE of the region's last 128 bytes");
        byte[] got = new byte[(int) dmLength];
        dm.copyFromDm(0, MemorySegment.ofArray(got));
        MemorySegment seen = MemorySegment.ofArray(got);
        Data.assertFilled("the buffer before the region and the region's first 64 bytes", seen, 0, base + 64, (byte) 0);
        Data.assertPattern("the first WRITE, at buffer offset base + 64", seen, base + 64, 256, 21, 0);
        Data.assertPattern("the WRITE of the region's last bytes", seen, dmLength - 128, 128, 21, 256);

        byte[] readable = new byte[128];
        Data.fill(MemorySegment.ofArray(readable), 22);
        dm.copyToDm(base + 512, MemorySegment.ofArray(readable));
        assertEquals(WcStatus.SUCCESS, p.postA(p.wr(3, WrOpcode.RDMA_READ, local, 512, 128)
                .rdma(512, target.rkey())).status(), "an RDMA READ at region offset 512");
        Data.assertPattern("the READ from device memory", local.segment(), 512, 128, 22, 0);

        WorkCompletion wc = p.write(4, local, 128, regionLength - 127, target.rkey());
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(), "an RDMA WRITE one byte past a region of device memory");
        byte[] after = new byte[128];
        dm.copyFromDm(dmLength - 128, MemorySegment.ofArray(after));
        Data.assertPattern("the region's last bytes after the refused WRITE", MemorySegment.ofArray(after), 0, 128,
                21, 256);
    }

}
