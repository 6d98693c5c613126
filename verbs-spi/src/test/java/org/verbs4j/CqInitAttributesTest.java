package org.verbs4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class CqInitAttributesTest {
    @Test
    @DisplayName("every supported wc_flag is taken; each bit beyond them is refused, naming it")
    void flagsFromBothSides() {
        CqInitAttributes all = CqInitAttributes.of(4, CqInitAttributes.SUPPORTED_FLAGS);
        assertEquals(0x8ff, all.wcFlags());
        assertTrue(all.timestamps());
        for (int bit = 0; bit < 64; bit++) {
            long flag = 1L << bit;
            if ((CqInitAttributes.SUPPORTED_FLAGS & flag) != 0) {
                continue;
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> CqInitAttributes.of(4, CqInitAttributes.SUPPORTED_FLAGS | flag), "bit " + bit);
            assertTrue(e.getMessage().contains("0x" + Long.toHexString(flag)), e.getMessage());
        }
    }

    @Test
    @DisplayName("timestamps() is either kind of stamp, and the standard flags alone are none")
    void timestamps() {
        assertFalse(CqInitAttributes.of(4, CqInitAttributes.STANDARD_FLAGS).timestamps());
        assertFalse(CqInitAttributes.of(4, 0).timestamps());
        assertTrue(CqInitAttributes.of(4, CqInitAttributes.WITH_COMPLETION_TIMESTAMP).timestamps());
        assertTrue(CqInitAttributes.of(4, CqInitAttributes.WITH_COMPLETION_TIMESTAMP_WALLCLOCK).timestamps());
    }

    @Test
    @DisplayName("a batch entry has no stamps until the provider gives them, and add() clears a reused entry's")
    void batchStamps() {
        WorkCompletionBatch b = new WorkCompletionBatch(1);
        assertThrows(IllegalStateException.class, () -> b.stamp(1, 2), "nothing to stamp");
        b.add(1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        b.stamp(5, 6);
        assertEquals(5, b.completionTimestamp(0));
        assertEquals(6, b.get(0).completionWallclockNs());
        b.clear();
        b.add(2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        assertEquals(0, b.completionTimestamp(0));
        assertEquals(0, b.completionWallclockNs(0));
    }
}
