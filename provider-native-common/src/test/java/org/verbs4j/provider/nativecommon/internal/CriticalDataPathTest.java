package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link CriticalDataPath}: the provider library's name, and the choice per device and property value. */
class CriticalDataPathTest {
    @Test
    @DisplayName("A provider library is named by its file: lib, then up to -rdmav or .so")
    void providerNames() {
        assertEquals("mlx5", CriticalDataPath.provider("/usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav34.so"));
        assertEquals("mlx5", CriticalDataPath.provider("/usr/lib/x86_64-linux-gnu/libmlx5.so.1"));
        assertEquals("rxe", CriticalDataPath.provider("/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so"));
        assertEquals("bnxt_re", CriticalDataPath.provider("libbnxt_re-rdmav34.so"));
        assertEquals("ibverbs", CriticalDataPath.provider("/work/benchmarks/target/nullverbs/libibverbs.so.1"));
        assertNull(CriticalDataPath.provider(null));
        assertNull(CriticalDataPath.provider("/usr/lib/jvm/java"));
        assertNull(CriticalDataPath.provider("lib.so"));
    }

    @Test
    @DisplayName("auto allows the user-space providers only; on and off override; a binding without critical calls "
            + "never is")
    void choice() {
        for (String p : new String[] {"mlx5", "efa", "ibverbs"}) {
            assertTrue(CriticalDataPath.decide(null, true, p), p);
            assertTrue(CriticalDataPath.decide("auto", true, p), p);
            assertFalse(CriticalDataPath.decide("off", true, p), p);
            assertFalse(CriticalDataPath.decide("auto", false, p), p + " without critical calls");
        }
        for (String p : new String[] {"rxe", "siw", "hns", "mlx4", "bnxt_re", "irdma", "vmw_pvrdma", null}) {
            assertFalse(CriticalDataPath.decide("auto", true, p), String.valueOf(p));
            assertTrue(CriticalDataPath.decide(" ON ", true, p), String.valueOf(p));
            assertFalse(CriticalDataPath.decide("on", false, p), String.valueOf(p));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CriticalDataPath.decide("yes", true, "mlx5"));
        assertTrue(e.getMessage().contains(CriticalDataPath.PROPERTY), e.getMessage());
    }
}
