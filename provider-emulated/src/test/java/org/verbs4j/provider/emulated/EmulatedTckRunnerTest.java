package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.verbs4j.tck.TckReport;
import org.verbs4j.tck.TckRunner;

/** The programmatic runner, filtered to one area, against the emulated provider. */
class EmulatedTckRunnerTest {
    @Test
    void runsOneAreaAndCountsItsResults() {
        TckReport r = TckRunner.run(new EmulatedProvider(), TckRunner.Options.defaults().areas(Set.of("cq")));
        assertEquals("emulated", r.provider());
        // The kit's availability rule always runs and is reported in the Provider pseudo-area.
        TckReport.AreaResult provider = r.areas().getFirst();
        assertEquals(TckReport.PROVIDER_AREA, provider.area(), r.toString());
        assertEquals(1, provider.passed(), "the availability rule passed: " + provider);
        assertEquals(2, r.areas().size(), "only the CQ area ran: " + r);
        TckReport.AreaResult cq = r.areas().get(1);
        assertEquals("CQ", cq.area());
        assertTrue(cq.passed() >= 15, "CQ rules passed: " + cq);
        assertEquals(0, cq.failed(), "CQ failures: " + cq.failures());
    }
}
