package org.verbs4j.tools.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code --cpu_util}: the machine's CPU utilization over a run, from the aggregate {@code cpu} line of
 * {@code /proc/stat}, as perftest reads it. perftest counts only user time as busy; this counts every non-idle
 * field (user, nice, system, irq, softirq, steal), so kernel time spent in the provider is not reported as idle.
 */
final class CpuUtil {
    static final Path PROC_STAT = Path.of("/proc/stat");

    /** Busy and idle clock ticks since boot, summed over the CPUs. */
    record Ticks(long busy, long idle) {}

    private CpuUtil() {}

    /** Why {@code --cpu_util} cannot be measured here, or null when it can. */
    static String unavailableReason() {
        try {
            read();
            return null;
        } catch (IllegalStateException e) {
            return e.getMessage();
        }
    }

    /**
     * The ticks now.
     *
     * @throws IllegalStateException if {@code /proc/stat} cannot be read or has no {@code cpu} line
     */
    static Ticks read() {
        try {
            List<String> lines = Files.readAllLines(PROC_STAT);
            return parse(lines.isEmpty() ? "" : lines.getFirst());
        } catch (IOException e) {
            throw new IllegalStateException("--cpu_util reads " + PROC_STAT + ", which cannot be read here: "
                    + e.getMessage(), e);
        }
    }

    /** Parses the aggregate line: {@code cpu user nice system idle iowait irq softirq steal ...}. */
    static Ticks parse(String line) {
        String[] f = line.trim().split("\\s+");
        if (f.length < 5 || !f[0].equals("cpu")) {
            throw new IllegalStateException("--cpu_util found no aggregate cpu line in " + PROC_STAT + ": '" + line
                    + "'");
        }
        long busy = 0;
        long idle = 0;
        // Fields 1..8; guest time (9, 10) is already inside user and nice.
        for (int i = 1; i < Math.min(f.length, 9); i++) {
            long v = Long.parseLong(f[i]);
            if (i == 4 || i == 5) {
                idle += v;
            } else {
                busy += v;
            }
        }
        return new Ticks(busy, idle);
    }

    /** The busy share between two readings, percent; 0 when no tick passed. */
    static double percent(Ticks before, Ticks after) {
        long busy = after.busy() - before.busy();
        long all = busy + after.idle() - before.idle();
        return all <= 0 ? 0 : 100.0 * busy / all;
    }
}
