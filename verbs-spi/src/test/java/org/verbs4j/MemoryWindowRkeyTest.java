package org.verbs4j;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class MemoryWindowRkeyTest {
    @Test
    @DisplayName("incRkey adds one to the 8-bit key, 0xfe to 0xff and 0xff back to 0, and keeps the 24-bit index")
    void keyWrapsIndexStays() {
        assertEquals(0x12345601, MemoryWindow.incRkey(0x12345600));
        assertEquals(0x123456ff, MemoryWindow.incRkey(0x123456fe));
        assertEquals(0x12345600, MemoryWindow.incRkey(0x123456ff));
        assertEquals(0xffffff00, MemoryWindow.incRkey(0xffffffff));
        assertEquals(0x00000001, MemoryWindow.incRkey(0));
    }
}
