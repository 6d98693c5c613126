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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The emulated device's message rate for 64-byte RDMA WRITEs, in WRs per second summed over threads: one thread,
 * and two threads each with its own RC QP pair and CQ on one shared device and protection domain. Each thread
 * posts {@link WriteStream} batches of {@value #BATCH} through a WR session and polls its own completions.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class MessageRateBenchmark {
    static final int BATCH = 32;

    /** The device, protection domain and buffers all threads share. */
    @State(Scope.Benchmark)
    public static class Device {
        Loopback lb;

        @Setup(Level.Trial)
        public void setUp() {
            lb = new Loopback("emulated", WriteStream.SLOTS * WriteStream.MESSAGE);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            lb.close();
        }
    }

    /** One thread's QP pair and CQ. */
    @State(Scope.Thread)
    public static class Stream {
        WriteStream stream;

        @Setup(Level.Trial)
        public void setUp(Device device) {
            stream = new WriteStream(device.lb, BATCH);
        }
        // No tear-down that drains: JMH may tear the shared Device down first; closing it closes this QP pair.
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public void write64OneThread(Stream s) {
        s.stream.wrSessionBatch(BATCH);
    }

    @Benchmark
    @Threads(2)
    @OperationsPerInvocation(BATCH)
    public void write64TwoThreads(Stream s) {
        s.stream.wrSessionBatch(BATCH);
    }
}
