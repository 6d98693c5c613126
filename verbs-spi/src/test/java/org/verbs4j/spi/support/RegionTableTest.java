package org.verbs4j.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RegionTable finds only whole ranges inside live registered memory")
class RegionTableTest {
    @Test
    @DisplayName("a range is found only when it lies wholly inside one live segment, without overflow")
    void bounds() {
        try (Arena arena = Arena.ofConfined()) {
            RegionTable t = new RegionTable();
            MemorySegment a = arena.allocate(4096, 64);
            MemorySegment b = arena.allocate(4096, 64);
            t.add(a);
            t.add(b);
            long base = a.address();
            assertSame(a, t.find(base, 4096));
            assertSame(a, t.find(base + 4095, 1));
            assertSame(a, t.find(base + 4096, 0));
            assertNull(t.find(base + 4090, 16), "past the end");
            assertNull(t.find(base - 1, 2), "before the start");
            assertNull(t.find(base, -1));
            assertNull(t.find(base + 8, Long.MAX_VALUE), "a length that would overflow");
            assertNull(t.find(Long.MAX_VALUE - 4, 16), "an address that would overflow");
            assertNull(t.find(0, 16));
            assertNull(t.find(-4096, 16));
            assertSame(b, t.find(b.address() + 8, 64));
            t.remove(a);
            assertNull(t.find(base, 16), "after remove");
            assertEquals(1, t.size());
        }
    }

    @Test
    @DisplayName("a segment whose arena was closed is never found, and is refused at registration")
    void deadScope() {
        Arena arena = Arena.ofShared();
        MemorySegment s = arena.allocate(64);
        RegionTable t = new RegionTable();
        t.add(s);
        assertTrue(t.contains(s.address(), 64));
        arena.close();
        assertFalse(t.contains(s.address(), 64));
        assertThrows(IllegalStateException.class, () -> Arguments.registrable(s));
    }

    /** A region object with nothing to destroy. */
    private static AbstractVerbsObject region() {
        return new AbstractVerbsObject("MemoryRegion", null) {
            @Override
            protected int destroy() {
                return 0;
            }
        };
    }

    @Test
    @DisplayName("hold finds the range's open region and holds it: its close waits until the hold ends")
    void holdKeepsTheRegionOpenForTheCall() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            RegionTable t = new RegionTable();
            MemorySegment s = arena.allocate(4096, 64);
            AbstractVerbsObject mr = region();
            t.add(s, mr);
            assertNull(t.hold(s.address() + 4000, 200), "past the end");
            AbstractVerbsObject held = t.hold(s.address() + 64, 128);
            assertSame(mr, held);
            Thread closer = new Thread(mr::close, "closer");
            closer.start();
            closer.join(200);
            assertTrue(closer.isAlive(), "the region's close must wait for the hold");
            assertFalse(mr.isClosed());
            held.exitCall();
            closer.join(5_000);
            assertTrue(mr.isClosed());
            assertNull(t.hold(s.address() + 64, 128), "a closed region is never held");
        }
    }

    @Test
    @DisplayName("hold passes over a segment added without its region object, and one whose arena is closed")
    void holdNeedsARegionObjectAndLiveMemory() {
        Arena arena = Arena.ofShared();
        MemorySegment s = arena.allocate(64);
        RegionTable t = new RegionTable();
        t.add(s);
        assertNull(t.hold(s.address(), 64), "no region object to hold");
        AbstractVerbsObject mr = region();
        t.add(s, mr);
        AbstractVerbsObject held = t.hold(s.address(), 64);
        assertSame(mr, held);
        held.exitCall();
        arena.close();
        assertNull(t.hold(s.address(), 64), "freed memory is never held");
    }
}
