package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AsyncEvent;
import org.verbs4j.AsyncEventType;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.verbs_context;

/**
 * The shared {@link NativeDevice} and {@link NativeContext} over {@link NativeObjectModelTest}'s recording binding:
 * opening, async events decoded to this context's objects, thread domains and channels, closing, and the order in
 * which {@link NativeContextResources} destroys what a context dropped unclosed leaves.
 */
class NativeContextTest {
    private static final long CONTEXT = NativeObjectModelTest.CONTEXT_HANDLE;
    private static final long CQ = 0x8000;

    private final NativeObjectModelTest.Binding binding = new NativeObjectModelTest.Binding();
    private final NativeDevice device = new NativeDevice("test", binding, "rxe0", 0x1234, 0, () -> false);

    private NativeContext open() {
        binding.calls.clear();
        return (NativeContext) device.open();
    }

    @Test
    @DisplayName("open goes through the binding by name; a failed open throws its errno and makes no context")
    void openAndClose() {
        NativeContext ctx = open();
        assertEquals(List.of("openDevice rxe0", "allocate " + 0x100000, "queryDevice " + CONTEXT,
                "free " + 0x100000), binding.calls, "not extended: no ibv_query_device_ex");
        assertEquals(CONTEXT, ctx.contextHandle());
        assertSame(device, ctx.device());
        binding.calls.clear();
        ctx.close();
        assertEquals(List.of("closeDevice " + CONTEXT), binding.calls);
        assertThrows(IllegalStateException.class, () -> ctx.pollAsyncEvent(0, TimeUnit.MILLISECONDS));

        binding.openResult = -Errno.ENODEV;
        VerbsException e = assertThrows(VerbsException.class, device::open);
        assertEquals(Errno.ENODEV, e.errno());

        binding.openResult = CONTEXT;
        binding.failWith = Errno.EIO;
        binding.calls.clear();
        assertThrows(VerbsException.class, device::open);
        assertEquals("closeDevice " + CONTEXT, binding.calls.get(binding.calls.size() - 1),
                "a context whose first query fails is closed again");
    }

    private boolean batchPolling() {
        try (NativeContext ctx = open()) {
            return ctx.batchPolling();
        }
    }

    @Test
    @DisplayName("a context decides batch polling once, from ibv_query_device's vendor_id and the provider library")
    void batchPollingPerDevice() {
        binding.longs.put(CONTEXT + ibv_context.ops$post_send$off, 0x71L);
        assertTrue(batchPolling(), "vendor_id 0, no library name");
        binding.vendorId = BatchPolling.RXE_VENDOR_ID;
        assertFalse(batchPolling(), "rxe's vendor_id");
        binding.vendorId = 0x02c9;
        binding.library = "/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so";
        assertFalse(batchPolling(), "librxe's ops");
        binding.library = "/usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav34.so";
        assertTrue(batchPolling(), "mlx5");
    }

    @Test
    @DisplayName("an async event names this context's live object at the event's address, and is acknowledged")
    void asyncEvents() {
        NativeContext ctx = open();
        binding.memory.put(CONTEXT + ibv_context.async_fd$off, 7);
        binding.memory.put(CQ + CqStructs.ibv_cq.cqe$off, 16);
        binding.createResult = CQ;
        NativeCompletionQueue cq = ctx.createCq(16, null, 0, false);
        binding.calls.clear();
        binding.readable = false;
        assertNull(ctx.pollAsyncEvent(0, TimeUnit.MILLISECONDS));
        assertEquals("awaitReadable 7", binding.calls.get(binding.calls.size() - 1), "no event taken");

        binding.readable = true;
        binding.asyncType = AsyncEventType.CQ_ERR.value();
        binding.asyncElement = CQ;
        AsyncEvent ev = ctx.pollAsyncEvent(0, TimeUnit.MILLISECONDS);
        assertEquals(AsyncEventType.CQ_ERR, ev.type());
        assertSame(cq, ev.cq());
        assertTrue(binding.calls.get(binding.calls.size() - 1).startsWith("ackAsyncEvent "));

        binding.asyncType = AsyncEventType.PORT_ACTIVE.value();
        binding.asyncElement = 1;
        assertEquals(1, ctx.pollAsyncEvent(0, TimeUnit.MILLISECONDS).portNum());

        cq.close();
        binding.asyncType = AsyncEventType.CQ_ERR.value();
        binding.asyncElement = CQ;
        assertNull(ctx.pollAsyncEvent(0, TimeUnit.MILLISECONDS).cq(), "a destroyed CQ is no longer found");

        binding.failWith = Errno.EAGAIN;
        VerbsException e = assertThrows(VerbsException.class, () -> ctx.pollAsyncEvent(0, TimeUnit.MILLISECONDS));
        assertEquals(Errno.EAGAIN, e.errno());
        binding.failWith = 0;
        assertThrows(IllegalArgumentException.class, () -> ctx.pollAsyncEvent(-1, TimeUnit.MILLISECONDS));
        ctx.close();
    }

    @Test
    @DisplayName("allocTd needs verbs_context.alloc_td; channels come from ibv_create_comp_channel with its errno")
    void threadDomainsAndChannels() {
        NativeContext ctx = open();
        VerbsException e = assertThrows(VerbsException.class, ctx::allocTd);
        assertEquals(Errno.EOPNOTSUPP, e.errno(), "a context that is not extended has no thread domains");
        binding.failWith = Errno.EMFILE;
        e = assertThrows(VerbsException.class, ctx::createCompletionChannel);
        assertEquals(Errno.EMFILE, e.errno());
        binding.failWith = 0;
        binding.createResult = 0x5000;
        ctx.createCompletionChannel();
        binding.calls.clear();
        ctx.close();
        assertEquals(List.of("destroyCompChannel " + 0x5000, "closeDevice " + CONTEXT), binding.calls,
                "closing the context closes its channel first");
    }

    @Test
    @DisplayName("what a context dropped unclosed leaves is destroyed windows first, QPs before CQs and PDs, "
            + "then the device, then its memory")
    void leftoversInOrder() {
        long deallocMw = 0xd1;
        binding.putLong(CONTEXT + DeclaredOps.member("dealloc_mw").offset(), deallocMw);
        NativeContextResources r = new NativeContextResources(binding, CONTEXT);
        r.add(NativeKind.PD, 0x10);
        r.add(NativeKind.CQ, 0x20);
        r.add(NativeKind.QP, 0x30);
        r.add(NativeKind.QP, 0x31);
        r.add(NativeKind.MW, 0x40);
        long memory = r.allocate(64);
        r.add(NativeKind.TD, 0x50);
        binding.calls.clear();
        r.run();
        assertEquals(List.of("deallocMw " + deallocMw + " " + 0x40, "destroyQp " + 0x31, "destroyQp " + 0x30,
                "destroyCq " + 0x20, "deallocPd " + 0x10, "closeDevice " + CONTEXT, "free " + memory),
                binding.calls, "no dealloc_td in a context that is not extended: the TD is left to the device");
        binding.calls.clear();
        r.run();
        assertEquals(List.of(), binding.calls, "runs once");
    }

    @Test
    @DisplayName("verbs_get_ctx_op: an op only in an extended context whose size covers it")
    void verbsContextOp() {
        long vctx = 0x7000;
        long ctx = vctx + verbs_context.context$off;
        binding.putLong(vctx + DeclaredOps.member("alloc_td").offset(), 0x1234_5678L);
        binding.putLong(vctx + verbs_context.sz$off, verbs_context.SIZEOF);
        assertEquals(0, NativeContextResources.verbsContextOp(binding, ctx, DeclaredOps.member("alloc_td").offset()));
        binding.putLong(ctx + ibv_context.abi_compat$off, -1L);
        assertEquals(0x1234_5678L, NativeContextResources.verbsContextOp(binding, ctx, DeclaredOps.member("alloc_td").offset()));
        binding.putLong(vctx + verbs_context.sz$off, verbs_context.SIZEOF - DeclaredOps.member("alloc_td").offset() - 8);
        assertEquals(0, NativeContextResources.verbsContextOp(binding, ctx, DeclaredOps.member("alloc_td").offset()), "too old");
    }

    @Test
    @DisplayName("the context answers Context's getters only while open")
    void closedContext() {
        Context ctx = open();
        ctx.close();
        assertThrows(IllegalStateException.class, ctx::device);
        assertThrows(IllegalStateException.class, ctx::allocTd);
        assertThrows(IllegalStateException.class, ctx::createCompletionChannel);
    }
}
