package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.tck.DifferentialWorkload.Completion;
import org.verbs4j.tck.DifferentialWorkload.Outcome;

/** DifferentialWorkload.firstDifference: equal outcomes are equal, and it names the first changed field. */
class DifferentialComparisonTest {
    private static final List<Completion> REQUESTER = List.of(
            new Completion(0, WcStatus.SUCCESS, WcOpcode.SEND, -1),
            new Completion(1, WcStatus.SUCCESS, WcOpcode.RDMA_READ, 512),
            new Completion(2, WcStatus.SUCCESS, WcOpcode.FETCH_ADD, 8));
    private static final List<Completion> RESPONDER = List.of(new Completion(0, WcStatus.SUCCESS, WcOpcode.RECV, 77));

    private static Outcome outcome() {
        return new Outcome(REQUESTER, RESPONDER, new byte[] {1, 2, 3, 4}, new byte[] {5, 6, 7, 8});
    }

    @Test
    void equalOutcomesAreEqual() {
        assertEquals(Optional.empty(), DifferentialWorkload.firstDifference("x", outcome(), "y", outcome()));
    }

    @Test
    void aChangedCompletionIsNamedWithItsIndexAndBothValues() {
        List<Completion> changed = new ArrayList<>(REQUESTER);
        changed.set(1, new Completion(1, WcStatus.SUCCESS, WcOpcode.RDMA_READ, 511));
        Outcome y = new Outcome(changed, RESPONDER, new byte[] {1, 2, 3, 4}, new byte[] {5, 6, 7, 8});
        String d = DifferentialWorkload.firstDifference("ffm", outcome(), "jnr", y).orElseThrow();
        assertTrue(d.startsWith("requester completion #1: ffm gave "), d);
        assertTrue(d.contains("byteLen=512") && d.contains("jnr gave ") && d.contains("byteLen=511"), d);
    }

    @Test
    void aMissingResponderCompletionIsANumberDifference() {
        Outcome y = new Outcome(REQUESTER, List.of(), new byte[] {1, 2, 3, 4}, new byte[] {5, 6, 7, 8});
        assertEquals(Optional.of("the number of responder completions: x gave 1, y gave 0"),
                DifferentialWorkload.firstDifference("x", outcome(), "y", y));
    }

    @Test
    void aChangedMemoryByteIsNamedWithItsOffsetAndBothValues() {
        Outcome y = new Outcome(REQUESTER, RESPONDER, new byte[] {1, 2, 3, 4}, new byte[] {5, 6, (byte) 0xF7, 8});
        assertEquals(Optional.of("responder memory at byte 2: emulated has 0x07, ffm has 0xf7"),
                DifferentialWorkload.firstDifference("emulated", outcome(), "ffm", y));
    }

    @Test
    void aShorterMemoryDiffersWhereItEnds() {
        Outcome y = new Outcome(REQUESTER, RESPONDER, new byte[] {1, 2}, new byte[] {5, 6, 7, 8});
        assertEquals(Optional.of("requester memory at byte 2: x has 0x03, y has nothing (its memory is 2 bytes)"),
                DifferentialWorkload.firstDifference("x", outcome(), "y", y));
    }
}
