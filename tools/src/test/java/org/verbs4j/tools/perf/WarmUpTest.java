package org.verbs4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The warm-up's stopping rule, fed made-up chunk durations: nothing here is timed. */
@DisplayName("--perform_warm_up runs until the rate is steady")
class WarmUpTest {
    /** A chunk long enough to count, nanoseconds. */
    private static final long CHUNK_NS = 100_000_000L;

    /** Records a chunk of CHUNK_NS at this rate (WRs per second) and returns whether the warm-up is over. */
    private static boolean chunkAt(WarmUp w, double wrsPerSecond) {
        return w.record(Math.max(1, Math.round(wrsPerSecond * CHUNK_NS / 1e9)), CHUNK_NS);
    }

    @Test
    @DisplayName("a rate still climbing (the JIT compiling) keeps it going; three agreeing chunks end it")
    void stopsOnceSteady() {
        WarmUp w = new WarmUp();
        assertFalse(chunkAt(w, 0.2e6));
        assertFalse(chunkAt(w, 1.0e6));
        assertFalse(chunkAt(w, 3.0e6), "0.2, 1 and 3 M/s are not steady");
        assertFalse(chunkAt(w, 5.0e6), "1, 3 and 5 M/s are not steady");
        assertFalse(chunkAt(w, 5.2e6), "3, 5 and 5.2 M/s are not steady");
        assertTrue(chunkAt(w, 4.9e6), "5, 5.2 and 4.9 M/s are within 10% of each other");
        assertTrue(w.steady());
        assertEquals(6 * CHUNK_NS, w.elapsedNanos());
    }

    @Test
    @DisplayName("a slowest chunk below 90% of the fastest is not steady")
    void toleranceIsTenPercent() {
        WarmUp w = new WarmUp();
        chunkAt(w, 10e6);
        chunkAt(w, 10e6);
        assertFalse(chunkAt(w, 8.9e6), "8.9 is below 90% of 10");
        assertFalse(w.steady());
        assertFalse(chunkAt(w, 9.1e6), "10, 8.9 and 9.1: 8.9 is still in the window");
        assertTrue(chunkAt(w, 9.5e6), "once the 10s have left the window, 8.9, 9.1 and 9.5 agree");
    }

    @Test
    @DisplayName("chunks too short to judge double the next chunk and do not count")
    void shortChunksGrow() {
        WarmUp w = new WarmUp();
        assertEquals(WarmUp.FIRST_CHUNK, w.chunk());
        long shortNs = WarmUp.MIN_CHUNK_NANOS - 1;
        for (int i = 1; i <= 5; i++) {
            assertFalse(w.record(w.chunk(), shortNs), "short chunk " + i);
            assertEquals(WarmUp.FIRST_CHUNK << i, w.chunk());
        }
        assertFalse(w.steady(), "five identical but short chunks prove nothing");
    }

    @Test
    @DisplayName("steady chunks before the minimum warm-up time do not end it")
    void minimumTime() {
        WarmUp w = new WarmUp();
        long ns = WarmUp.MIN_CHUNK_NANOS;
        assertFalse(w.record(1000, ns));
        assertFalse(w.record(1000, ns));
        assertFalse(w.record(1000, ns), "3 steady chunks, but only " + 3 * ns + " ns of " + WarmUp.MIN_NANOS);
        long chunks = 3;
        boolean over = false;
        while (!over) {
            over = w.record(1000, ns);
            chunks++;
        }
        assertEquals(WarmUp.MIN_NANOS, w.elapsedNanos(), "ends with the first chunk that reaches the minimum");
        assertEquals(WarmUp.MIN_NANOS / ns, chunks);
    }

    @Test
    @DisplayName("a rate that never settles ends the warm-up at the time limit, not steady")
    void noisyEndsAtLimit() {
        WarmUp w = new WarmUp();
        int chunks = 0;
        boolean over = false;
        while (!over) {
            over = chunkAt(w, chunks % 2 == 0 ? 1e6 : 2e6);
            chunks++;
            assertTrue(chunks < 1000, "never ended");
        }
        assertFalse(w.steady());
        assertEquals(WarmUp.MAX_NANOS / CHUNK_NS, chunks);
    }

    @Test
    @DisplayName("an empty or zero-length chunk is refused")
    void badChunk() {
        WarmUp w = new WarmUp();
        assertThrows(IllegalArgumentException.class, () -> w.record(0, 5));
        assertThrows(IllegalArgumentException.class, () -> w.record(5, 0));
    }
}
