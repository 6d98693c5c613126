package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.MemoryWindow;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.VerbsException;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;

/**
 * Misuse of the emulated device that the TCK cannot ask of a native one, and a seeded random walk over the
 * public objects (issue 13): every failure must be a documented exception, and no byte outside a registered
 * range may change.
 */
class EmulatedMisuseTest {
    /** Steps of the random walk; {@code -Dverbs4j.misuse.steps} changes it. */
    private static final int STEPS = Integer.getInteger("verbs4j.misuse.steps", 100_000);
    private static final long SEED = Long.getLong("verbs4j.misuse.seed", 0x5eed_13L);
    private static final int CANARY = 64;
    private static final byte CANARY_BYTE = (byte) 0xA5;

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

    /** A buffer with canaries on both sides; only the middle is ever registered. */
    private record Buffer(Arena arena, MemorySegment whole, MemorySegment payload, MemoryRegion mr) {
        boolean alive() {
            return whole.scope().isAlive();
        }

        void checkCanaries(String when) {
            if (!alive()) {
                return;
            }
            for (long i = 0; i < CANARY; i++) {
                if (whole.get(ValueLayout.JAVA_BYTE, i) != CANARY_BYTE
                        || whole.get(ValueLayout.JAVA_BYTE, whole.byteSize() - 1 - i) != CANARY_BYTE) {
                    fail("a canary byte next to a registered range changed " + when);
                }
            }
        }
    }

    @Test
    void randomMisuseNeverCorruptsMemoryOrThrowsUndocumented() {
        SplittableRandom rnd = new SplittableRandom(SEED);
        List<Buffer> buffers = new ArrayList<>();
        List<MemoryWindow> windows = new ArrayList<>();
        WorkCompletionBatch batch = new WorkCompletionBatch(32);
        int failures = 0;
        int posted = 0;
        long completed = 0;
        try (Context ctx = new EmulatedProvider().devices().get(0).open()) {
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cqA = ctx.createCq(4096);
            CompletionQueue cqB = ctx.createCq(4096);
            QueuePair[] qps = connect(pd, cqA, cqB);
            for (int step = 0; step < STEPS; step++) {
                int action = rnd.nextInt(100);
                try {
                    if (action < 8) {
                        buffers.add(newBuffer(pd, rnd));
                    } else if (action < 11 && !buffers.isEmpty()) {
                        buffers.get(rnd.nextInt(buffers.size())).mr().close();
                    } else if (action < 14 && !buffers.isEmpty()) {
                        Buffer b = buffers.remove(rnd.nextInt(buffers.size()));
                        b.checkCanaries("before its arena closed");
                        b.arena().close();
                        b.mr().close();
                    } else if (action < 55) {
                        qps[rnd.nextInt(2)].postSend(randomWr(rnd, buffers));
                        posted++;
                    } else if (action < 65) {
                        qps[rnd.nextInt(2)].postRecv(new RecvWr().wrId(step).sgList(randomSge(rnd, buffers)));
                    } else if (action < 85) {
                        completed += cqA.poll(batch) + cqB.poll(batch);
                    } else if (action < 88) {
                        windows.add(pd.allocMw(rnd.nextBoolean() ? MwType.TYPE_1 : MwType.TYPE_2));
                    } else if (action < 91 && !windows.isEmpty() && !buffers.isEmpty()) {
                        MemoryWindow mw = windows.get(rnd.nextInt(windows.size()));
                        MemoryRegion mr = buffers.get(rnd.nextInt(buffers.size())).mr();
                        qps[0].bindMw(mw, step, SendFlags.SIGNALED,
                                new MwBindInfo(mr, mr.address() + rnd.nextLong(-64, 4200), rnd.nextLong(0, 4200),
                                        AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ));
                    } else if (action < 93 && !windows.isEmpty()) {
                        windows.remove(rnd.nextInt(windows.size())).close();
                    } else if (action < 95) {
                        Sge.of(buffers.isEmpty() ? null : buffers.get(rnd.nextInt(buffers.size())).mr(),
                                rnd.nextLong(-8, Long.MAX_VALUE), rnd.nextInt(-1, 9000));
                    } else if (action < 97) {
                        qps[rnd.nextInt(2)].modify(QpAttributes.toState(QpState.ERR));
                    } else {
                        for (QueuePair q : qps) {
                            q.close();
                        }
                        qps = connect(pd, cqA, cqB);
                    }
                } catch (VerbsException | IllegalArgumentException | IllegalStateException
                         | IndexOutOfBoundsException e) {
                    failures++;
                } catch (NullPointerException e) {
                    String m = String.valueOf(e.getMessage());
                    if (m.startsWith("Cannot ")) {
                        throw new AssertionError("seed " + SEED + ", step " + step + ": an NPE from inside", e);
                    }
                    failures++;
                } catch (RuntimeException | Error e) {
                    throw new AssertionError("seed " + SEED + ", step " + step + ": undocumented " + e, e);
                }
                if (qps[0].state() == QpState.ERR || qps[1].state() == QpState.ERR) {
                    for (QueuePair q : qps) {
                        q.close();
                    }
                    cqA.poll(batch);
                    cqB.poll(batch);
                    qps = connect(pd, cqA, cqB);
                }
                if (step % 1000 == 0) {
                    for (Buffer b : buffers) {
                        b.checkCanaries("by step " + step);
                    }
                }
                if (buffers.size() > 64) {
                    Buffer b = buffers.remove(0);
                    try {
                        b.arena().close();
                        b.mr().close();
                    } catch (VerbsException e) {
                        // EBUSY: a window is still bound to the region (documented by registerMemory with an owner)
                        failures++;
                    }
                }
            }
            for (Buffer b : buffers) {
                b.checkCanaries("at the end");
            }
        }
        System.out.println("misuse walk: " + STEPS + " steps, " + failures + " refused calls, " + posted
                + " WRs posted, " + completed + " completions polled");
        assertTrue(posted > STEPS / 100 && completed > 0, "the walk must also post work that executes");
        assertTrue(failures > STEPS / 20, "the walk must exercise misuse, but only " + failures + " calls failed");
        for (Buffer b : buffers) {
            if (b.alive()) {
                b.arena().close();
            }
        }
    }

    private static QueuePair[] connect(ProtectionDomain pd, CompletionQueue cqA, CompletionQueue cqB) {
        org.verbs4j.AhAttributes av = org.verbs4j.AhAttributes.roce(pd.context().queryGid(1, 1), 1, 1);
        QpInitAttributes.Builder builder = QpInitAttributes.builder(QpType.RC).maxSendWr(256).maxRecvWr(256)
                .maxSendSge(2).maxRecvSge(2).maxInlineData(64);
        QueuePair a = pd.createQp(builder.sendCq(cqA).recvCq(cqA).build());
        QueuePair b = pd.createQp(builder.sendCq(cqB).recvCq(cqB).build());
        int access = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
        for (QueuePair q : new QueuePair[] {a, b}) {
            QueuePair peer = q == a ? b : a;
            q.modify(QpAttributes.toInit(1, 0, access));
            q.modify(QpAttributes.toRtr(av, org.verbs4j.Mtu.MTU_1024, peer.qpNum(), 0, 4, 1));
            q.modify(QpAttributes.toRts(0, 14, 0, 0, 4));
        }
        return new QueuePair[] {a, b};
    }

    private static Buffer newBuffer(ProtectionDomain pd, SplittableRandom rnd) {
        Arena arena = rnd.nextBoolean() ? Arena.ofShared() : Arena.ofConfined();
        long size = 8L << rnd.nextInt(10);
        MemorySegment whole = arena.allocate(size + 2 * CANARY, 8);
        whole.fill(CANARY_BYTE);
        MemorySegment payload = whole.asSlice(CANARY, size);
        payload.fill((byte) 0);
        int access = rnd.nextInt(4) == 0 ? AccessFlags.LOCAL_WRITE : Pair.ALL_ACCESS;
        MemoryRegion mr;
        try {
            mr = rnd.nextBoolean() ? pd.registerMemory(payload, access, arena) : pd.registerMemory(payload, access);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
        return new Buffer(arena, whole, payload, mr);
    }

    private static final WrOpcode[] OPS = {WrOpcode.SEND, WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ,
        WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.SEND_WITH_IMM};

    /** An address that is near a buffer's payload: inside, on a canary, past the end, or nowhere. */
    private static long randomAddress(SplittableRandom rnd, List<Buffer> buffers) {
        if (buffers.isEmpty() || rnd.nextInt(8) == 0) {
            return rnd.nextBoolean() ? 0L : rnd.nextLong();
        }
        Buffer b = buffers.get(rnd.nextInt(buffers.size()));
        return b.payload().address() + rnd.nextLong(-CANARY, b.payload().byteSize() + CANARY);
    }

    private static int randomKey(SplittableRandom rnd, List<Buffer> buffers, boolean remote) {
        if (buffers.isEmpty() || rnd.nextInt(8) == 0) {
            return rnd.nextInt();
        }
        MemoryRegion mr = buffers.get(rnd.nextInt(buffers.size())).mr();
        return remote ? mr.rkey() : mr.lkey();
    }

    private static Sge randomSge(SplittableRandom rnd, List<Buffer> buffers) {
        if (!buffers.isEmpty() && rnd.nextInt(4) != 0) {
            // Mostly valid, so that work executes and the QPs stay up between the bad WRs.
            Buffer b = buffers.get(rnd.nextInt(buffers.size()));
            int len = (int) Math.min(b.payload().byteSize(), rnd.nextInt(1, 64));
            return Sge.of(b.mr(), rnd.nextLong(0, b.payload().byteSize() - len + 1), len);
        }
        return new Sge(randomAddress(rnd, buffers), rnd.nextInt(0, 80), randomKey(rnd, buffers, false));
    }

    private static SendWr randomWr(SplittableRandom rnd, List<Buffer> buffers) {
        WrOpcode op = OPS[rnd.nextInt(OPS.length)];
        int flags = SendFlags.SIGNALED | (rnd.nextInt(3) == 0 ? SendFlags.INLINE : 0);
        SendWr wr = new SendWr().wrId(rnd.nextLong()).opcode(op).sendFlags(flags).immData(7);
        Sge[] sges = rnd.nextInt(4) == 0 ? new Sge[] {randomSge(rnd, buffers), randomSge(rnd, buffers)}
                : new Sge[] {randomSge(rnd, buffers)};
        wr.sgList(sges);
        long remote = randomAddress(rnd, buffers);
        int rkey = randomKey(rnd, buffers, true);
        if (!buffers.isEmpty() && rnd.nextInt(4) != 0) {
            MemoryRegion mr = buffers.get(rnd.nextInt(buffers.size())).mr();
            remote = mr.address() + rnd.nextLong(0, Math.max(1, mr.length() - 80));
            rkey = mr.rkey();
        }
        if (op == WrOpcode.ATOMIC_FETCH_AND_ADD || op == WrOpcode.ATOMIC_CMP_AND_SWP) {
            wr.atomic(remote & ~7L, 1, 2, rkey);
        } else {
            wr.rdma(remote, rkey);
        }
        return wr;
    }
}
