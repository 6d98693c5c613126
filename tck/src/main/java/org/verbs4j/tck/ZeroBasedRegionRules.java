package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WrOpcode;

/**
 * Regions of host memory registered {@link AccessFlags#ZERO_BASED}: their I/O virtual address space starts at 0
 * ({@code ibv_reg_mr_iova(3)} with iova 0), so {@link MemoryRegion#address()}, a peer's {@code remote_addr} and a
 * local SGE's address are offsets into the memory. The memory is page-aligned: the kernel requires the iova and the
 * buffer to share their offset in a page. The native providers answered the segment's address for such a region
 * while registering iova 0 (a mismatch noticed at stop 38, before any rule asked): a peer using {@code address()}
 * then missed the region.
 */
public abstract class ZeroBasedRegionRules extends TckArea {
    private static final long PAGE = 4096;
    private static final int ACCESS = AccessFlags.ZERO_BASED | Testbed.ALL_ACCESS;

    /**
     * The area, for the kit's subclass.
     *
     * @param kit the vendor's kit
     */
    protected ZeroBasedRegionRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private static MemoryRegion zeroBased(Testbed side) {
        MemorySegment memory = side.arena().allocate(PAGE, PAGE);
        return side.pd().registerMemory(memory, ACCESS, side.arena());
    }

    @Test
    @DisplayName("required_ a ZERO_BASED region of host memory starts at address 0: address() is 0; a peer's RDMA WRITE at offset n lands at byte n of the memory, one that ends at the region's last byte lands, and one a byte longer fails with REM_ACCESS_ERR and writes nothing; a READ and a local SGE name it by offset too [ibv_reg_mr(3) IBV_ACCESS_ZERO_BASED, ibv_reg_mr_iova(3)]")
    void required_zeroBasedRegionIsAddressedByOffset() {
        assumeOp(QpType.RC, WrOpcode.RDMA_WRITE);
        assumeOp(QpType.RC, WrOpcode.RDMA_READ);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion target = zeroBased(p.remote());
        assertEquals(0, target.address(), "address() of a ZERO_BASED region");
        MemorySegment memory = target.segment();
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 81);

        assertEquals(WcStatus.SUCCESS, p.write(1, src, 64, 100, target.rkey()).status(), "a WRITE at offset 100");
        Data.assertPattern("the WRITE at offset 100", memory, 100, 64, 81, 0);
        Data.assertFilled("before offset 100", memory, 0, 100, (byte) 0);
        assertEquals(WcStatus.SUCCESS, p.write(2, src, 64, PAGE - 64, target.rkey()).status(),
                "a WRITE that ends at the region's last byte");
        Data.assertPattern("the WRITE at the region's end", memory, PAGE - 64, 64, 81, 0);

        Data.fill(memory.asSlice(1024, 64), 82);
        MemoryRegion back = tb.buffer(64);
        assertEquals(WcStatus.SUCCESS, p.read(3, back, 64, 1024, target.rkey()).status(), "a READ at offset 1024");
        Data.assertPattern("the READ at offset 1024", back.segment(), 0, 64, 82, 0);

        MemoryRegion local = zeroBased(tb);
        Data.fill(local.segment().asSlice(512, 64), 83);
        p.a().postSend(new SendWr().wrId(4).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(512, 64, local.lkey())).rdma(2048, target.rkey()));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "a WRITE from a local SGE at offset 512").status(),
                "a WRITE gathered from a ZERO_BASED region by offset");
        Data.assertPattern("the bytes gathered from local offset 512", memory, 2048, 64, 83, 0);

        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(5, src, 64, PAGE - 63, target.rkey()).status(),
                "a WRITE one byte past the ZERO_BASED region's end");
        Data.assertPattern("the region's last 64 bytes after the refused WRITE", memory, PAGE - 64, 64, 81, 0);
    }
}
