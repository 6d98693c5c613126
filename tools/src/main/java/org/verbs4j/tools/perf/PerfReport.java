package org.verbs4j.tools.perf;

import java.util.List;

/**
 * What {@code verbs4j perf --json} writes: the run's settings and one row per message size.
 *
 * @param tool always {@code verbs4j perf}
 * @param version the verbs4j version, or {@code development}
 * @param test the test, such as {@code write_bw}
 * @param kind {@code bandwidth} or {@code latency}
 * @param opcode the WR opcode posted
 * @param provider the provider's name
 * @param device the device's name
 * @param port the port, 1-based
 * @param gidIndex the GID index, or -1 when the LID was used
 * @param mode {@code loopback}, {@code server} or {@code client}
 * @param rdmaCm whether the QPs were connected through the connection manager ({@code -R}, perftest's rdma_cm
 *     mode) rather than moved to RTS from exchanged QPNs and PSNs
 * @param qpType RC, UC or UD
 * @param postApi {@code wr} or {@code post_send}
 * @param qps QPs per side
 * @param txDepth most outstanding send WRs per QP
 * @param cqMod one WR in this many is signaled
 * @param postList WRs per post call
 * @param inlineSize the largest message sent inline, bytes
 * @param mtuBytes the path MTU, bytes
 * @param durationSeconds the duration of a timed run, seconds, or 0 for a counted one
 * @param results one row per size: {@link BandwidthRow} (MB/s is 2^20 bytes per second) or {@link LatencyRow}
 *     (microseconds)
 */
public record PerfReport(String tool, String version, String test, String kind, String opcode, String provider,
                         String device, int port, int gidIndex, String mode, boolean rdmaCm, String qpType, String postApi, int qps,
                         int txDepth, int cqMod, int postList, int inlineSize, int mtuBytes, int durationSeconds,
                         List<PerfRow> results) {
    public PerfReport {
        results = List.copyOf(results);
    }
}
