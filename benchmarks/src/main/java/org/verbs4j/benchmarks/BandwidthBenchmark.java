package org.verbs4j.benchmarks;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.verbs4j.CompletionQueue;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrSession;

/**
 * The emulated device's RDMA WRITE bandwidth against a {@link MemorySegment#copy} of the same size between the same
 * two buffers, in operations per second (bytes per second is the score times {@code size}). Each {@link #write}
 * posts one signaled WRITE of {@code size} bytes and polls its completion, so at small sizes the figure is the
 * per-WR overhead and at large sizes the copy engine.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@State(Scope.Thread)
public class BandwidthBenchmark {
    static final int MAX = 8 << 20;

    @Param({"64", "256", "1024", "4096", "16384", "65536", "262144", "1048576", "4194304", "8388608"})
    public int size;

    private Loopback lb;
    private QueuePair qp;
    private CompletionQueue cq;
    private MemorySegment src;
    private MemorySegment dst;
    private final WorkCompletionBatch wc = new WorkCompletionBatch(4);
    private long next;

    @Setup(Level.Trial)
    public void setUp() {
        lb = new Loopback("emulated", MAX);
        WriteStream stream = new WriteStream(lb, 1);
        qp = stream.qp();
        cq = stream.cq();
        src = lb.src.segment();
        dst = lb.dst.segment();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        lb.close();
    }

    @Benchmark
    public long write() {
        WrSession s = qp.startWr();
        s.wrId(next++);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(lb.dst.rkey(), lb.dst.address());
        s.setSge(lb.src.lkey(), lb.src.address(), size);
        s.complete();
        while (true) {
            int n = cq.poll(wc);
            if (n > 0) {
                if (wc.status(0) != WcStatus.SUCCESS) {
                    throw new IllegalStateException("WRITE of " + size + " bytes completed with " + wc.status(0));
                }
                return wc.wrId(0);
            }
        }
    }

    @Benchmark
    public MemorySegment copy() {
        MemorySegment.copy(src, 0, dst, 0, size);
        return dst;
    }
}
