package org.verbs4j.provider.ffm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.Errno;
import org.verbs4j.emuverbs.EmuVerbs;
import org.verbs4j.provider.nativecommon.internal.IbverbsBinding;

/**
 * The errno contract of the FFM binding (issue 28), through the forwarding libibverbs ({@code emuverbs}), which
 * fails each way libibverbs does: an {@code int} verb that returns the errno itself, one that returns −1 with
 * {@code errno} set, a create verb that returns NULL with {@code errno} set. Every one must come back as −errno.
 * {@code JnrBindingErrnoTest} asserts the same figures for the JNR binding.
 */
class FfmBindingErrnoTest {
    private static final String DEVICE = "emuverbs0";
    private final IbverbsBinding b = FfmIbverbsBinding.INSTANCE;
    private long ctx;
    private long buffer;

    @BeforeEach
    void open() {
        String why = EmuVerbs.register();
        assumeTrue(why == null, why);
        IbverbsLibrary.load();
        ctx = b.openDevice(DEVICE);
        assertTrue(ctx > 0, "ibv_open_device: " + ctx);
        buffer = b.allocate(4096);
    }

    @AfterEach
    void close() {
        if (buffer != 0) {
            b.free(buffer);
        }
        if (ctx > 0) {
            assertEquals(0, b.closeDevice(ctx));
        }
    }

    @Test
    @DisplayName("no device of that name: -ENODEV")
    void noSuchDevice() {
        assertEquals(-Errno.ENODEV, b.openDevice("no-such-device"));
    }

    @Test
    @DisplayName("ibv_query_gid's -1 with errno set comes back as -EINVAL")
    void minusOneWithErrno() {
        assertEquals(0, b.queryGid(ctx, 1, 0, buffer), "GID 0 exists");
        assertEquals(-Errno.EINVAL, b.queryGid(ctx, 1, 1 << 20, buffer));
    }

    @Test
    @DisplayName("ibv_reg_mr's NULL with errno set comes back as -EINVAL; ibv_dealloc_pd's errno itself as -EBUSY")
    void nullWithErrnoAndErrnoItself() {
        long pd = b.allocPd(ctx);
        assertTrue(pd > 0, "ibv_alloc_pd: " + pd);
        // REMOTE_WRITE without LOCAL_WRITE: ibv_reg_mr(3) refuses it with EINVAL.
        assertEquals(-Errno.EINVAL, b.regMr(pd, buffer, 4096, buffer, AccessFlags.REMOTE_WRITE));
        long mr = b.regMr(pd, buffer, 4096, buffer, AccessFlags.LOCAL_WRITE);
        assertTrue(mr > 0, "ibv_reg_mr: " + mr);
        assertEquals(-Errno.EBUSY, b.deallocPd(pd), "a PD with a registered MR");
        assertEquals(0, b.deregMr(mr));
        assertEquals(0, b.deallocPd(pd));
    }
}
