package org.verbs4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Latency rows carry perftest's statistics of the samples. */
class StatisticsTest {
    @Test
    void minMedianMeanPercentilesInMicroseconds() {
        long[] ns = new long[1000];
        for (int i = 0; i < ns.length; i++) {
            ns[i] = (1000 - i) * 1000L; // 1..1000 µs, shuffled order
        }
        LatencyRow r = LatencyRow.of(64, ns, ns.length, false);
        assertEquals(64, r.bytes());
        assertEquals(1000, r.iterations());
        assertEquals(1.0, r.tMinUs(), 1e-9);
        assertEquals(1000.0, r.tMaxUs(), 1e-9);
        assertEquals(501.0, r.tTypicalUs(), 1e-9);
        assertEquals(500.5, r.tAvgUs(), 1e-9);
        assertEquals(990.0, r.t99Us(), 1e-9);
        assertEquals(999.0, r.t999Us(), 1e-9);
        assertEquals(288.67, r.tStdevUs(), 0.01);
    }

    @Test
    void pingPongHalvesTheRoundTrip() {
        long[] ns = {4000, 2000, 6000};
        LatencyRow r = LatencyRow.of(2, ns, 3, true);
        assertEquals(1.0, r.tMinUs(), 1e-9);
        assertEquals(2.0, r.tTypicalUs(), 1e-9);
        assertEquals(3.0, r.tMaxUs(), 1e-9);
    }
}
