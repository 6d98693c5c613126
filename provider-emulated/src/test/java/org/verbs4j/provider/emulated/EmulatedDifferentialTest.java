package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.verbs4j.WrOpcode;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tck.DifferentialWorkload;

/** The differential workload on two independent emulated provider instances. */
class EmulatedDifferentialTest extends DifferentialWorkload {
    @Override
    protected VerbsProvider first() {
        return new EmulatedProvider();
    }

    @Override
    protected VerbsProvider second() {
        return new EmulatedProvider();
    }

    @Test
    void theComparisonIsSensitiveToTheWorkload() {
        var ops = java.util.EnumSet.of(WrOpcode.SEND, WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ, WrOpcode.ATOMIC_FETCH_AND_ADD);
        Outcome a = run(new EmulatedProvider(), null, 1, 60, ops);
        Outcome again = run(new EmulatedProvider(), null, 1, 60, ops);
        Outcome b = run(new EmulatedProvider(), null, 2, 60, ops);
        assertEquals(a.requester(), again.requester(), "one seed, one outcome");
        assertEquals(-1, Arrays.mismatch(a.responderMemory(), again.responderMemory()));
        assertNotEquals(-1, Arrays.mismatch(a.responderMemory(), b.responderMemory()), "another seed leaves other memory");
        assertEquals(60, a.requester().size());
    }
}
