package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;

/** The one errno contract of the native bindings (issue 28): result or −errno, and one exception path. */
class NativeErrorsTest {
    @Test
    @DisplayName("an int verb's three failure shapes (errno, -1 with errno, -errno) all become -errno")
    void intVerbShapes() {
        assertEquals(0, NativeErrors.ofInt(0, Errno.EINVAL), "success reads no errno");
        assertEquals(-Errno.EBUSY, NativeErrors.ofInt(Errno.EBUSY, Errno.EINVAL), "the errno itself");
        assertEquals(-Errno.ENOMEM, NativeErrors.ofInt(-1, Errno.ENOMEM), "-1 with errno set");
        assertEquals(-Errno.EAGAIN, NativeErrors.ofInt(-Errno.EAGAIN, Errno.EINVAL), "-errno, as some ops give it");
    }

    @Test
    @DisplayName("a failure without an errno is EIO, never 0 and never EINVAL: the same in ffm and jnr")
    void unknownIsEio() {
        assertEquals(Errno.EIO, NativeErrors.UNKNOWN);
        assertEquals(-Errno.EIO, NativeErrors.ofInt(-1, 0), "-1 and errno 0: jnr's failed ibv_get_cq_event");
        assertEquals(-Errno.EIO, NativeErrors.ofInt(-1, -3), "a nonsense errno");
        assertEquals(-Errno.EIO, NativeErrors.ofAddress(0, 0), "NULL and errno 0");
        assertEquals(-Errno.EIO, NativeErrors.negated(0));
        assertEquals(-Errno.EIO, NativeErrors.ofOp(-1), "an op's -1: ops capture no errno");
        assertEquals(-Errno.EIO, NativeErrors.ofPoll(-1), "poll_cq's bare -1");
    }

    @Test
    @DisplayName("addresses pass through; NULL is -errno")
    void addresses() {
        assertEquals(0x7f00_1234_5000L, NativeErrors.ofAddress(0x7f00_1234_5000L, Errno.EINVAL));
        assertEquals(-Errno.ENOMEM, NativeErrors.ofAddress(0, Errno.ENOMEM));
    }

    @Test
    @DisplayName("an op's errno of either sign, and poll_cq's -errno, become -errno")
    void opsAndPoll() {
        assertEquals(0, NativeErrors.ofOp(0));
        assertEquals(-Errno.ENOMEM, NativeErrors.ofOp(Errno.ENOMEM));
        assertEquals(-Errno.ENOMEM, NativeErrors.ofOp(-Errno.ENOMEM));
        assertEquals(-Errno.EINVAL, NativeErrors.ofPoll(-Errno.EINVAL));
    }

    @Test
    @DisplayName("check passes results on and throws a VerbsException naming the verb, the errno positive")
    void check() {
        assertEquals(0, NativeErrors.check(0, "ibv_modify_qp", null));
        assertEquals(3, NativeErrors.check(3, "ibv_query_qp_data_in_order", null));
        assertEquals(0x1000L, NativeErrors.check(0x1000L, "ibv_alloc_pd", null));
        VerbsException e = assertThrows(VerbsException.class,
                () -> NativeErrors.check(-Errno.EINVAL, "ibv_modify_qp", "INIT -> RTR"));
        assertEquals("ibv_modify_qp", e.verb());
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("INIT -> RTR"), e.getMessage());
        VerbsException pd = assertThrows(VerbsException.class,
                () -> NativeErrors.check((long) -Errno.ENOMEM, "ibv_alloc_pd", null));
        assertEquals(Errno.ENOMEM, pd.errno());
        assertEquals("ibv_alloc_pd", pd.verb());
    }

    @Test
    @DisplayName("a NULL address that reaches check is never an object: it throws EIO")
    void nullAddressThrows() {
        VerbsException e = assertThrows(VerbsException.class, () -> NativeErrors.check(0L, "ibv_create_cq", null));
        assertEquals(Errno.EIO, e.errno());
        assertSame(VerbsException.class, e.getClass());
    }

    @Test
    @DisplayName("errno(result) is what AbstractVerbsObject.destroy wants: 0, or the errno positive")
    void destroyErrno() {
        assertEquals(0, NativeErrors.errno(0));
        assertEquals(Errno.EBUSY, NativeErrors.errno(-Errno.EBUSY));
    }
}
