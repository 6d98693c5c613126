package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpType;
import org.verbs4j.ReregFlags;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;

/**
 * dma-buf regions, {@code ibv_reg_dmabuf_mr(3)}, with a file on tmpfs as the dma-buf ({@link DmabufFile}): a
 * peer's RDMA WRITE and READ by iova, the dma-buf's end and the region's end from both sides, the iova's page
 * offset, the access flags the man page lists, and a region that outlives the fd it was registered from. Skipped, but
 * for the first rule, where {@link org.verbs4j.Capabilities#dmabuf()} is false (rxe, which has no dma-buf regions),
 * or where the device takes only a real dma-buf, not a file (a real device's kernel answers EINVAL), which pure Java
 * cannot make: the others run on the emulated devices, directly and through the forwarding libibverbs.
 */
public abstract class DmabufRules extends TckArea {
    private static final int FILE_SIZE = 16384;
    private static final long OFFSET = 4096;
    private static final long LENGTH = 8192;
    /** An iova with {@link #OFFSET}'s page offset (0). */
    private static final long IOVA = 0x7000_0000L;
    private static final int ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected DmabufRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private void assumeDmabuf() {
        assumeTrue(caps().dmabuf(), "capability: the device has no dma-buf regions (ibv_reg_dmabuf_mr)");
    }

    /**
     * Skips the rule unless the device takes a file as a dma-buf, as the emulated devices do: a real device's kernel
     * takes only a real dma-buf (EINVAL otherwise), which pure Java cannot make.
     */
    private void assumeFileTaken(org.verbs4j.ProtectionDomain pd, DmabufFile file) {
        try {
            pd.registerDmabuf(file.fd(), 0, FILE_SIZE, 0, ACCESS).close();
        } catch (org.verbs4j.VerbsException e) {
            assumeTrue(e.errno() != Errno.EINVAL, "the device takes only real dma-bufs, not a file: " + e);
            throw e;
        }
    }

    @Test
    @DisplayName("required_ a device without dma-buf regions answers EOPNOTSUPP [ibv_reg_dmabuf_mr(3)]")
    void required_dmabufUnsupported() {
        assumeTrue(!caps().dmabuf(), "the device registers dma-bufs");
        try (DmabufFile file = DmabufFile.create(FILE_SIZE)) {
            Expect.errno("registerDmabuf without the verb", () -> tb.pd().registerDmabuf(file.fd(), 0, 4096, 0,
                    AccessFlags.LOCAL_WRITE), Errno.EOPNOTSUPP);
        }
    }

    @Test
    @DisplayName("required_ a peer's RDMA WRITE and READ reach a dma-buf region by iova up to its last byte, land in the dma-buf at offset + (address - iova), and one byte past the region fail with REM_ACCESS_ERR; the region has no host segment and outlives its fd [ibv_reg_dmabuf_mr(3)]")
    void required_dmabufRdma() {
        assumeDmabuf();
        assumeOp(QpType.RC, WrOpcode.RDMA_WRITE);
        assumeOp(QpType.RC, WrOpcode.RDMA_READ);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target;
        try (DmabufFile file = DmabufFile.create(FILE_SIZE)) {
            assumeFileTaken(p.remote().pd(), file);
            target = p.remote().pd().registerDmabuf(file.fd(), OFFSET, LENGTH, IOVA, ACCESS);
            assertEquals(IOVA, target.address(), "address() is the iova");
            assertEquals(LENGTH, target.length(), "length()");
            Expect.thrown("segment() of a dma-buf region", UnsupportedOperationException.class, target::segment);
            Expect.badInput("re-registering a dma-buf region", () -> target.reregister(ReregFlags.CHANGE_ACCESS,
                    null, null, AccessFlags.LOCAL_WRITE));

            MemoryRegion local = tb.buffer(1024);
            Data.fill(local, 41);
            assertEquals(WcStatus.SUCCESS, p.postA(p.wr(1, WrOpcode.RDMA_WRITE, local, 0, 256)
                .rdma(IOVA + 64, target.rkey())).status(), "a WRITE at iova + 64");
            assertEquals(WcStatus.SUCCESS, p.postA(p.wr(2, WrOpcode.RDMA_WRITE, local, 256, 128)
                .rdma(IOVA + LENGTH - 128, target.rkey())).status(), "a WRITE of the region's last 128 bytes");
            Data.assertFilled("the dma-buf before the region", MemorySegment.ofArray(file.read(0, (int) OFFSET)), 0,
                    OFFSET, (byte) 0);
            MemorySegment region = MemorySegment.ofArray(file.read(OFFSET, (int) LENGTH));
            Data.assertFilled("the region's first 64 bytes", region, 0, 64, (byte) 0);
            Data.assertPattern("the WRITE at iova + 64, in the dma-buf", region, 64, 256, 41, 0);
            Data.assertPattern("the WRITE of the last bytes, in the dma-buf", region, LENGTH - 128, 128, 41, 256);
            Data.assertFilled("the dma-buf after the region", MemorySegment.ofArray(file.read(OFFSET + LENGTH,
                    (int) (FILE_SIZE - OFFSET - LENGTH))), 0, FILE_SIZE - OFFSET - LENGTH, (byte) 0);

            byte[] readable = new byte[128];
            Data.fill(MemorySegment.ofArray(readable), 42);
            file.write(OFFSET + 1024, readable);
        }
        // the fd is closed: the device keeps its own reference
        MemoryRegion local = tb.buffer(256);
        assertEquals(WcStatus.SUCCESS, p.postA(p.wr(3, WrOpcode.RDMA_READ, local, 0, 128)
                .rdma(IOVA + 1024, target.rkey())).status(), "a READ after the fd was closed");
        Data.assertPattern("the READ from the dma-buf", local.segment(), 0, 128, 42, 0);

        WorkCompletion wc = p.write(4, local, 128, IOVA + LENGTH - 127, target.rkey());
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(), "a WRITE one byte past a dma-buf region");
        target.close();
        assertTrue(target.isClosed());
    }

    @Test
    @DisplayName("required_ a region ending at the dma-buf's last byte registers and one byte more is EINVAL; an iova whose page offset differs from offset's is EINVAL; an fd that is not open is EBADF; a negative fd or offset, length 0 or an access bit the man page does not list is bad input [ibv_reg_dmabuf_mr(3)]")
    void required_dmabufLimits() {
        assumeDmabuf();
        try (DmabufFile file = DmabufFile.create(FILE_SIZE)) {
            assumeFileTaken(tb.pd(), file);
            int fd = file.fd();
            tb.pd().registerDmabuf(fd, OFFSET, FILE_SIZE - OFFSET, IOVA, ACCESS).close();
            Expect.errno("a region one byte past the dma-buf", () -> tb.pd().registerDmabuf(fd, OFFSET,
                    FILE_SIZE - OFFSET + 1, IOVA, ACCESS), Errno.EINVAL);
            Expect.errno("an iova 8 bytes off offset's page offset", () -> tb.pd().registerDmabuf(fd, OFFSET, 4096,
                    IOVA + 8, ACCESS), Errno.EINVAL);
            tb.pd().registerDmabuf(fd, OFFSET + 8, 4096, IOVA + 8, ACCESS).close();
            Expect.badInput("fd -1", () -> tb.pd().registerDmabuf(-1, 0, 4096, 0, ACCESS));
            Expect.badInput("offset -4096", () -> tb.pd().registerDmabuf(fd, -4096, 4096, 0, ACCESS));
            Expect.badInput("length 0", () -> tb.pd().registerDmabuf(fd, 0, 0, 0, ACCESS));
            Expect.badInput("offset + length past Long.MAX_VALUE", () -> tb.pd().registerDmabuf(fd, Long.MAX_VALUE,
                    2, 0, ACCESS));
            Expect.badInput("MW_BIND", () -> tb.pd().registerDmabuf(fd, 0, 4096, 0, ACCESS | AccessFlags.MW_BIND));
            Expect.badInput("ZERO_BASED", () -> tb.pd().registerDmabuf(fd, 0, 4096, 0, ACCESS | AccessFlags.ZERO_BASED));
        }
        Expect.errno("an fd beyond any open file", () -> tb.pd().registerDmabuf(1 << 30, 0, 4096, 0, ACCESS),
                Errno.EBADF);
    }
}
