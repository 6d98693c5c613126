package org.verbs4j.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
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
 * The cost of {@code poll} per work completion, in nanoseconds: before each invocation (outside the measurement)
 * {@value #N} signaled 64-byte RDMA WRITEs are posted and given {@code settleMicros} to complete; the invocation
 * polls until all {@value #N} completions are in, into one reused {@link WorkCompletionBatch} and reading each
 * status and wrId. Run with {@code -prof gc} to read the bytes allocated per completion.
 *
 * <p>On the emulated device a WRITE completes before {@code complete()} returns, so nothing is left to wait for.
 * On a real device, a completion that is not yet in the CQ when polling starts makes the figure include some
 * waiting: {@code settleMicros} should then be large enough for the device to finish {@value #N} WRITEs.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@State(Scope.Thread)
public class PollBenchmark {
    static final int N = 32;

    @Param("emulated")
    public String provider;

    @Param("0")
    public int settleMicros;

    private Loopback lb;
    private QueuePair qp;
    private CompletionQueue cq;
    private final WorkCompletionBatch wc = new WorkCompletionBatch(N);
    private long next;

    @Setup(Level.Trial)
    public void setUp() {
        lb = new Loopback(provider, WriteStream.SLOTS * WriteStream.MESSAGE);
        WriteStream stream = new WriteStream(lb, 1);
        qp = stream.qp();
        cq = stream.cq();
    }

    @Setup(Level.Invocation)
    public void post() {
        WrSession s = qp.startWr();
        int lkey = lb.src.lkey();
        int rkey = lb.dst.rkey();
        for (int i = 0; i < N; i++) {
            long offset = (long) (i % WriteStream.SLOTS) * WriteStream.MESSAGE;
            s.wrId(next++);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(rkey, lb.dst.address() + offset);
            s.setSge(lkey, lb.src.address() + offset, WriteStream.MESSAGE);
        }
        s.complete();
        if (settleMicros > 0) {
            LockSupport.parkNanos(settleMicros * 1000L);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        lb.close();
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public long poll() {
        int got = 0;
        long sum = 0;
        while (got < N) {
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                if (wc.status(i) != WcStatus.SUCCESS) {
                    throw new IllegalStateException("WRITE " + wc.wrId(i) + " completed with " + wc.status(i));
                }
                sum += wc.wrId(i);
            }
            got += n;
        }
        return sum;
    }
}
