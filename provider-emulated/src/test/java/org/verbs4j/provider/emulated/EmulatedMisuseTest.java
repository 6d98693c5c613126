package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.emulated.verbs.EmulatedProtectionDomain;

/**
 * Misuse of the emulated device that the TCK cannot ask of a native one (issue 13): the emulator also guards
 * a region whose memory was freed under it, which the public API no longer lets a caller make (issue 26: a
 * region is deregistered before its arena frees the memory) but a failed deregistration could leave. The seeded
 * random walk over every public object is the TCK's (Misuse area, {@code MisuseWalk}), run here by
 * {@link EmulatedCompatibilityTest} at 100,000 steps.
 */
class EmulatedMisuseTest {
    /**
     * Issue 13 defect 13, issue 26: a remote WRITE or READ through the rkey of a region whose arena was closed is a
     * remote access error, and a local SGE in it a local protection error; the engine neither throws nor touches
     * the freed memory.
     */
    @ParameterizedTest
    @EnumSource(value = WrOpcode.class, names = {"RDMA_WRITE", "RDMA_READ"})
    void remoteAccessIntoARegionWhoseArenaClosedIsARemoteAccessError(WrOpcode op) {
        try (Pair p = new Pair(QpType.RC)) {
            MemoryRegion target = freedRegion(p);
            p.a.postSend(new SendWr().wrId(1).opcode(op).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(p.mrA, 0, 64)).rdma(target.address(), target.rkey()));
            assertEquals(WcStatus.REM_ACCESS_ERR, awaitStatus(p));
            target.close();
        }
    }

    @Test
    void aLocalSgeInARegionWhoseArenaClosedIsALocalProtectionError() {
        try (Pair p = new Pair(QpType.RC)) {
            MemoryRegion freed = freedRegion(p);
            p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(freed.address(), 64, freed.lkey())).rdma(p.mrB.address(), p.mrB.rkey()));
            assertEquals(WcStatus.LOC_PROT_ERR, awaitStatus(p));
            freed.close();
        }
    }

    /** Past the public API's lifetime rule: a region left registered over memory its arena then frees. */
    private static MemoryRegion freedRegion(Pair p) {
        Arena arena = Arena.ofShared();
        MemoryRegion r = ((EmulatedProtectionDomain) p.pd).registerPastLifetimeRule(arena.allocate(4096, 64), Pair.ALL_ACCESS);
        arena.close();
        return r;
    }

    private static WcStatus awaitStatus(Pair p) {
        WorkCompletionBatch wc = new WorkCompletionBatch(4);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (p.cqA.poll(wc) == 0) {
            assertTrue(System.nanoTime() < deadline, "no completion in 10 s");
            Thread.onSpinWait();
        }
        return wc.status(0);
    }
}
