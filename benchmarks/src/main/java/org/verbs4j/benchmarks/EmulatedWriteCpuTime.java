package org.verbs4j.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Runs the methods of {@link EmulatedWriteBenchmark} in a plain loop and divides by the posting thread's CPU
 * time rather than the wall clock. On a shared, loaded machine this shows what the emulator costs per WR,
 * independent of how much of a CPU the thread was given. JMH's wall-clock scores remain the reference.
 *
 * <p>Run: {@code java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar
 * org.verbs4j.benchmarks.EmulatedWriteCpuTime}
 */
public final class EmulatedWriteCpuTime {
    private EmulatedWriteCpuTime() {}

    public static void main(String[] args) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        EmulatedWriteBenchmark b = new EmulatedWriteBenchmark();
        b.setUp();
        try {
            for (int round = 0; round < 8; round++) {
                int batches = 200_000;
                long cpu = mx.getCurrentThreadCpuTime();
                long wall = System.nanoTime();
                for (int i = 0; i < batches; i++) {
                    b.write64();
                }
                cpu = mx.getCurrentThreadCpuTime() - cpu;
                wall = System.nanoTime() - wall;
                double wrs = batches * 32.0;
                System.out.printf("write64: %.1f M WR per CPU-second (%.1f M WR/s wall clock)%n",
                        wrs / (cpu / 1e9) / 1e6, wrs / (wall / 1e9) / 1e6);
            }
            for (int round = 0; round < 4; round++) {
                int n = 2000;
                long c0 = mx.getCurrentThreadCpuTime();
                for (int i = 0; i < n; i++) {
                    b.write1MiB();
                }
                long c1 = mx.getCurrentThreadCpuTime();
                for (int i = 0; i < n; i++) {
                    b.copy1MiB();
                }
                long c2 = mx.getCurrentThreadCpuTime();
                System.out.printf("1 MiB: RDMA WRITE %.1f GB per CPU-second, MemorySegment.copy %.1f, ratio %.2f%n",
                        n * 1048576.0 / (c1 - c0), n * 1048576.0 / (c2 - c1), (double) (c2 - c1) / (c1 - c0));
            }
        } finally {
            b.tearDown();
        }
    }
}
