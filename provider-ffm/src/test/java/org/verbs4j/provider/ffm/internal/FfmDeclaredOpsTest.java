package org.verbs4j.provider.ffm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.verbs4j.provider.nativecommon.internal.ErrnoConvention.NONE;
import static org.verbs4j.provider.nativecommon.internal.ErrnoConvention.NULL_SETS;
import static org.verbs4j.provider.nativecommon.internal.ErrnoConvention.RETURNED;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Errno;
import org.verbs4j.provider.nativecommon.internal.COp;

/**
 * Declared ops ({@code @COp}, issue 28) bound through FFM's address-less downcall handles, exercised without an RDMA
 * device: libc functions stand in for a provider library's ops, one per errno convention. {@code JnrDeclaredOpsTest}
 * asserts the same figures for the JNR binding.
 */
class FfmDeclaredOpsTest {
    /** libc functions declared as ops, each called at the address its first argument gives. */
    interface LibcOps {
        @COp(struct = "libc", value = "size_t (*strlen)(const char *s)", errno = NONE)
        long strlen(long fn, long s);

        @COp(struct = "libc", value = "void *(*calloc)(size_t nmemb, size_t size)", errno = NULL_SETS)
        long calloc(long fn, long nmemb, long size);

        @COp(struct = "libc", value = "int (*close)(int fd)", errno = RETURNED)
        int close(long fn, int fd);
    }

    private static long libc(String symbol) {
        return Linker.nativeLinker().defaultLookup().find(symbol).orElseThrow().address();
    }

    private final LibcOps ops = FfmDeclaredLibrary.bind(LibcOps.class, Linker.nativeLinker().defaultLookup(), "libc");

    @Test
    @DisplayName("an op is called at its address with its arguments; NULL with errno and -1 with errno come back as -errno")
    void callsByAddressInTheContract() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocateFrom("soft-RoCE");
            assertEquals(9, ops.strlen(libc("strlen"), s.address()));
        }
        assertEquals(-Errno.ENOMEM, ops.calloc(libc("calloc"), 1L << 62, 1L << 62), "calloc's overflow: NULL, ENOMEM");
        assertEquals(-Errno.EBADF, ops.close(libc("close"), -1), "close(-1): -1, EBADF");
    }

    @Test
    @DisplayName("an op at address 0 answers -EOPNOTSUPP, as verbs.h's inline wrappers do, and is not called")
    void missingOp() {
        assertEquals(-Errno.EOPNOTSUPP, ops.strlen(0, 0));
        assertEquals(-Errno.EOPNOTSUPP, ops.calloc(0, 1, 1));
        assertEquals(-Errno.EOPNOTSUPP, ops.close(0, -1));
    }
}
