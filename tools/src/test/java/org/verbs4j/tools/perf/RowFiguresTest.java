package org.verbs4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * perftest under a bad clock prints 0.00, inf or nan (issue 31); a row of ours cannot hold such a figure, so none can
 * reach the table: a zero-length interval or a broken clock fails where the row is made, naming the figure.
 */
class RowFiguresTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(doubles = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -1.0})
    void aBandwidthRowRefusesANonFigure(double bad) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new BandwidthRow(4096, 100, 10.0, 10.0, bad));
        assertTrue(e.getMessage().startsWith("MsgRate of " + bad + " is no measurement"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new BandwidthRow(4096, 100, bad, 10.0, 0.1));
        assertThrows(IllegalArgumentException.class, () -> new BandwidthRow(4096, 100, 10.0, bad, 0.1));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(doubles = {Double.NaN, Double.POSITIVE_INFINITY, -0.5})
    void aLatencyRowRefusesANonFigure(double bad) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new LatencyRow(2, 50, 1, 3, bad, 2, 0.1, 3, 3));
        assertTrue(e.getMessage().startsWith("t_typical of " + bad), e.getMessage());
    }

    @Test
    void aLatencyRowNeedsASample() {
        assertThrows(IllegalArgumentException.class, () -> new LatencyRow(2, 0, 0, 0, 0, 0, 0, 0, 0));
        assertThrows(IllegalStateException.class, () -> LatencyRow.of(2, new long[4], 0, true));
    }

    @Test
    void zerosAndTheEdgesAreFigures() {
        // A bandwidth row of nothing (the server's placeholder before the peer's report) and a latency row of
        // equal samples both hold figures.
        assertEquals(0, new BandwidthRow(8, 0, 0, 0, 0).msgRateMpps());
        LatencyRow same = LatencyRow.of(2, new long[] {4000, 4000, 4000}, 3, true);
        assertEquals(2.0, same.tTypicalUs());
        assertEquals(0.0, same.tStdevUs());
    }
}
