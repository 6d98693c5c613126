package org.verbs4j.benchmarks;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.verbs4j.AccessFlags;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.MemoryRegion;
import org.verbs4j.Mtu;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;
import org.verbs4j.provider.emulated.EmulatedProvider;

/**
 * RDMA WRITE through the emulated provider, between two connected RC QPs of one JVM.
 *
 * <ul>
 *   <li>{@link #write64} posts 32 64-byte WRITEs per {@link WrSession} (every 16th signaled) and polls
 *       their completions on the same thread; its score is WRs per second.</li>
 *   <li>{@link #write1MiB} and {@link #copy1MiB} compare one 1 MiB WRITE with a single-thread
 *       {@link MemorySegment#copy} of the same size, in the same run.</li>
 * </ul>
 * Run {@code java -jar benchmarks/target/benchmarks.jar EmulatedWriteBenchmark -prof gc} to see the
 * allocation per operation as well.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@State(Scope.Thread)
public class EmulatedWriteBenchmark {
    private static final int BATCH = 32;
    private static final int SMALL = 64;
    private static final int LARGE = 1 << 20;

    private Arena arena;
    private Context ctx;
    private CompletionQueue cq;
    private QueuePair qp;
    private MemoryRegion src;
    private MemoryRegion dst;
    private MemorySegment srcSeg;
    private MemorySegment dstSeg;
    private final WorkCompletionBatch wc = new WorkCompletionBatch(64);

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        ctx = new EmulatedProvider().devices().get(0).open();
        ProtectionDomain pd = ctx.allocPd();
        cq = ctx.createCq(1024);
        srcSeg = arena.allocate(LARGE, 4096);
        dstSeg = arena.allocate(LARGE, 4096);
        src = pd.registerMemory(srcSeg, AccessFlags.LOCAL_WRITE, arena);
        dst = pd.registerMemory(dstSeg, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE, arena);
        QpInitAttributes init = QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(256)
                .sendOps(WrOpcode.RDMA_WRITE).build();
        qp = pd.createQp(init);
        QueuePair peer = pd.createQp(init);
        connect(qp, peer);
        connect(peer, qp);
    }

    private void connect(QueuePair q, QueuePair peer) {
        q.modify(QpAttributes.toInit(1, 0, AccessFlags.REMOTE_WRITE));
        AhAttributes av = AhAttributes.roce(ctx.queryGid(1, 1), 1, 1);
        q.modify(QpAttributes.toRtr(av, Mtu.MTU_4096, peer.qpNum(), 0, 1, 12));
        q.modify(QpAttributes.toRts(0, 14, 7, 7, 1));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ctx.close();
        arena.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int write64() {
        int lkey = src.lkey();
        int rkey = dst.rkey();
        long local = src.address();
        long remote = dst.address();
        WrSession s = qp.startWr();
        for (int i = 0; i < BATCH; i++) {
            s.wrId(i);
            s.wrFlags((i & 15) == 15 ? SendFlags.SIGNALED : 0);
            s.rdmaWrite(rkey, remote + (long) i * SMALL);
            s.setSge(lkey, local + (long) i * SMALL, SMALL);
        }
        s.complete();
        return drain(BATCH / 16);
    }

    @Benchmark
    public int write1MiB() {
        WrSession s = qp.startWr();
        s.wrId(1);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(dst.rkey(), dst.address());
        s.setSge(src.lkey(), src.address(), LARGE);
        s.complete();
        return drain(1);
    }

    @Benchmark
    public MemorySegment copy1MiB() {
        MemorySegment.copy(srcSeg, 0, dstSeg, 0, LARGE);
        return dstSeg;
    }

    private int drain(int expected) {
        int got = 0;
        while (got < expected) {
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                if (wc.status(i) != WcStatus.SUCCESS) {
                    throw new IllegalStateException("WR " + wc.wrId(i) + " failed: " + wc.status(i));
                }
            }
            got += n;
        }
        return got;
    }
}
