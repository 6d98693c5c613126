package org.verbs4j.provider.jnr.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.kenai.jffi.Library;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The jffi calls on raw function addresses, exercised without an RDMA device: libc functions stand in for the
 * provider library's ops. The {@code verbs_get_ctx_op} logic is shared, and tested in provider-native-common's
 * {@code NativeContextTest}.
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
    @DisplayName("dladdr names the shared object that holds a function, as CriticalDataPath and BatchPolling ask")
    void namesTheLibraryOfAFunction() {
        String file = new JnrIbverbsBinding(null).libraryOf(libc("strlen"));
        assertTrue(file != null && file.substring(file.lastIndexOf('/') + 1).startsWith("libc.so"),
                "dladdr(strlen) gave " + file);
        assertNull(new JnrIbverbsBinding(null).libraryOf(0), "address 0");
    }
}
