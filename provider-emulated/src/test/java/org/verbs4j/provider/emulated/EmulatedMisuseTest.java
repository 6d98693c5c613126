package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;

import org.junit.jupiter.api.Test;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;

/**
 * Misuse of the emulated device that the TCK cannot ask of a native one (issue 13): the emulator also guards
 * a plain registration whose arena the caller closed, which a native device cannot see. The seeded random walk
 * over every public object is the TCK's (Misuse area, {@code MisuseWalk}), run here by
 * {@link EmulatedCompatibilityTest} at 100,000 steps.
 */
class EmulatedMisuseTest {
    /** Issue 13 defect 13: an rkey of a region whose arena was closed is a remote access error, not a local one. */
    @Test
    void remoteWriteIntoARegionWhoseArenaClosedIsARemoteAccessError() {
        try (Pair p = new Pair(QpType.RC)) {
            Arena arena = Arena.ofShared();
            MemoryRegion target = p.pd.registerMemory(arena.allocate(4096, 64), Pair.ALL_ACCESS);
            arena.close();
            p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(p.mrA, 0, 64)).rdma(target.address(), target.rkey()));
            WorkCompletionBatch wc = new WorkCompletionBatch(4);
            while (p.cqA.poll(wc) == 0) {
                Thread.onSpinWait();
            }
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.get(0).status());
            target.close();
        }
    }
}
