package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link BatchPolling}: librxe, by vendor_id or library, polls one completion per pair; the rest in batches. */
class BatchPollingTest {
    @Test
    @DisplayName("rxe's vendor_id 0xFFFFFF or librxe's library means no next_poll; any other device polls in batches")
    void librxeIsRecognised() {
        assertFalse(BatchPolling.decide(0xFFFFFF, "rxe"), "rxe on Linux 5.8 and later");
        assertFalse(BatchPolling.decide(0xFFFFFF, null), "rxe where the binding cannot name the library");
        assertFalse(BatchPolling.decide(0, "rxe"), "rxe before Linux 5.8 reported vendor_id 0");
        assertTrue(BatchPolling.decide(0x02c9, "mlx5"), "Mellanox's OUI");
        assertTrue(BatchPolling.decide(0, "ibverbs"), "emuverbs and the null library implement the ops in libibverbs");
        assertTrue(BatchPolling.decide(0, null));
        assertTrue(BatchPolling.decide(0x626d74, "siw"));
    }
}
