package org.verbs4j.provider.jnr.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.kenai.jffi.Library;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.verbs_context;

/**
 * The jffi calls on raw function addresses and the {@code verbs_get_ctx_op} logic, exercised without an
 * RDMA device: libc functions stand in for the provider library's ops, and a {@code verbs_context} is
 * built in native memory.
 */
class InlineVerbsTest {
    private static long libc(String symbol) {
        Library libc = Library.getCachedInstance("libc.so.6", Library.LAZY | Library.LOCAL);
        long a = libc.getSymbolAddress(symbol);
        assertNotEquals(0, a, symbol);
        return a;
    }

    @Test
    @DisplayName("an int-returning op is called through its address with a pointer argument")
    void callsIntFunctionByAddress() {
        byte[] text = "soft-RoCE\0".getBytes(StandardCharsets.US_ASCII);
        long s = NativeMemory.allocate(text.length);
        try {
            NativeMemory.putBytes(s, text, 0, text.length);
            assertEquals(9, InlineVerbs.callP(libc("strlen"), s));
        } finally {
            NativeMemory.free(s);
        }
    }

    @Test
    @DisplayName("32-bit and 64-bit arguments of a builder reach the callee intact")
    void passesU32AndU64Arguments() {
        long buf = NativeMemory.allocate(64);
        try {
            // memset(buf, 0x1ab, 40) has the builder shape (pointer, uint32, uint64); memset uses the low byte.
            InlineVerbs.wrU32U64(libc("memset"), buf, 0x1ab, 40);
            for (int i = 0; i < 40; i++) {
                assertEquals((byte) 0xab, NativeMemory.getByte(buf + i), "byte " + i);
            }
            assertEquals(0, NativeMemory.getByte(buf + 40));
        } finally {
            NativeMemory.free(buf);
        }
    }

    @Test
    @DisplayName("a verbs_context op is found only in an extended context large enough to hold it")
    void verbsContextOp() {
        long vctx = NativeMemory.allocate(verbs_context.SIZEOF);
        try {
            long ctx = vctx + verbs_context.context$off;
            NativeMemory.putAddress(vctx + verbs_context.alloc_td$off, 0x1234_5678L);
            NativeMemory.putLong(vctx + verbs_context.sz$off, verbs_context.SIZEOF);
            assertEquals(0, InlineVerbs.verbsContextOp(ctx, verbs_context.alloc_td$off), "not extended");
            NativeMemory.putAddress(ctx + ibv_context.abi_compat$off, -1L);
            assertEquals(0x1234_5678L, InlineVerbs.verbsContextOp(ctx, verbs_context.alloc_td$off));
            assertEquals(0, InlineVerbs.verbsContextOp(ctx, verbs_context.dealloc_td$off), "empty op");
            // An older library's verbs_context ends before the op.
            NativeMemory.putLong(vctx + verbs_context.sz$off, verbs_context.SIZEOF - verbs_context.alloc_td$off - 8);
            assertEquals(0, InlineVerbs.verbsContextOp(ctx, verbs_context.alloc_td$off), "too old");
        } finally {
            NativeMemory.free(vctx);
        }
    }
}
