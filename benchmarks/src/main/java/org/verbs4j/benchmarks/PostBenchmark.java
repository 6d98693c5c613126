package org.verbs4j.benchmarks;

import java.util.concurrent.TimeUnit;

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
import org.verbs4j.WrSession;

/**
 * The cost of posting one 64-byte RDMA WRITE on a connected RC loopback QP pair, in nanoseconds per WR, through a
 * {@link WrSession}, through {@code postSend} with a reused {@code List<SendWr>}, and through a
 * {@link org.verbs4j.PreparedSends} whose slots are set once (each post rewrites their wrId and flags; in
 * {@code preparedAddressed} also both addresses, as postSend and C's post_rate do), in batches of {@code batch} WRs.
 *
 * <p>Each invocation posts {@value #WRS} WRs (32 / batch posts), so the score is per WR. Completions are drained
 * as {@link WriteStream} describes, so the score includes the amortized cost of polling one completion every 32
 * WRs; run with {@code -prof gc} to read the bytes allocated per WR on the post and poll paths.
 *
 * <p>{@code provider} is emulated on any machine; ffm and jnr need an RDMA device (rxe0 in the soft-RoCE guest,
 * see {@code benchmarks/run}). {@code benchmarks/c/post_rate.c} posts the same pattern through libibverbs.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@State(Scope.Thread)
public class PostBenchmark {
    /** WRs per invocation; every batch size divides it. */
    static final int WRS = 32;

    @Param("emulated")
    public String provider;

    @Param({"1", "8", "32"})
    public int batch;

    /** Whether the posting QP is created with a thread domain: confined to the benchmark thread, no send lock. */
    @Param("false")
    public boolean threadDomain;

    private Loopback lb;
    private WriteStream stream;
    private int posts;

    @Setup(Level.Trial)
    public void setUp() {
        if (WRS % batch != 0) {
            throw new IllegalArgumentException("batch must divide " + WRS + ", was " + batch);
        }
        lb = new Loopback(provider, WriteStream.SLOTS * WriteStream.MESSAGE);
        stream = new WriteStream(lb, batch, threadDomain);
        posts = WRS / batch;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        try {
            stream.drain();
        } finally {
            lb.close();
        }
    }

    @Benchmark
    @OperationsPerInvocation(WRS)
    public void wrSession() {
        for (int i = 0; i < posts; i++) {
            stream.wrSessionBatch(batch);
        }
    }

    @Benchmark
    @OperationsPerInvocation(WRS)
    public void postSend() {
        for (int i = 0; i < posts; i++) {
            stream.postSendBatch();
        }
    }

    @Benchmark
    @OperationsPerInvocation(WRS)
    public void prepared() {
        for (int i = 0; i < posts; i++) {
            stream.preparedBatch();
        }
    }

    @Benchmark
    @OperationsPerInvocation(WRS)
    public void preparedAddressed() {
        for (int i = 0; i < posts; i++) {
            stream.preparedAddressedBatch();
        }
    }
}
