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

    @Test
    void handsThePeerDeviceToTheKit() {
        // A peer device the provider lacks: the rules that open a testbed fail naming it, so the option reached the kit.
        TckReport missing = TckRunner.run(new EmulatedProvider(), TckRunner.Options.defaults().areas(Set.of("cq"))
                .peerDeviceName("nosuch"));
        TckReport.AreaResult cq = missing.areas().get(1);
        assertTrue(cq.failed() > 0, "a peer device that does not exist: " + cq);
        assertTrue(cq.failures().stream().allMatch(f -> f.contains("no device 'nosuch'")), cq.failures()::toString);
        // The same rules with every pair's b QP on a second context of emu0 pass.
        TckReport split = TckRunner.run(new EmulatedProvider(), TckRunner.Options.defaults().areas(Set.of("cq"))
                .peerDeviceName("emu0"));
        assertEquals(0, split.areas().get(1).failed(), "CQ failures with a peer: " + split.areas().get(1).failures());
        assertTrue(split.areas().get(1).passed() >= 15, split::toString);
    }
}
