package org.verbs4j.tools.perf;

import org.verbs4j.QpType;

/**
 * One validated {@code verbs4j perf} configuration, for one message size.
 *
 * @param test the test
 * @param size message size, bytes
 * @param iterations WRs to post per QP, or 0 to run for {@code durationSeconds}
 * @param durationSeconds how long to run when {@code iterations} is 0, seconds
 * @param txDepth most outstanding send WRs per QP
 * @param rxDepth receive WRs kept posted per QP (send tests)
 * @param qpType RC, UC or UD
 * @param qps number of QP pairs
 * @param inlineSize the largest message sent inline, bytes (0: none)
 * @param postList WRs per post call
 * @param cqMod one WR in this many is signaled
 * @param port the port, 1-based
 * @param gidIndex the GID index, or -1 to use the LID when the link layer allows
 * @param postApi how WRs are posted
 * @param mtuBytes the path MTU asked for with {@code -m}, bytes, or 0 for the port's active MTU
 * @param qpTimeout the RC ACK timeout code ({@code -u}), 0..31: 4.096 us times 2 to its power
 * @param warmUp whether a bandwidth test warms up until its rate is steady before it measures
 *     ({@code --perform_warm_up}, see {@link WarmUp})
 * @param sl the service level of the QPs' address vectors ({@code -S}), 0..15
 * @param trafficClass the traffic class of their global route ({@code --tclass}), 0..255
 * @param dualPort whether the QPs are split over {@code port} and the port after it ({@code -O}): the first half
 *     of them on {@code port}, as perftest
 * @param bidirectional whether both sides post ({@code -b})
 */
public record PerfSettings(PerfTest test, int size, long iterations, int durationSeconds, int txDepth, int rxDepth,
                           QpType qpType, int qps, int inlineSize, int postList, int cqMod, int port, int gidIndex,
                           PostApi postApi, int mtuBytes, int qpTimeout, boolean warmUp, int sl, int trafficClass,
                           boolean dualPort, boolean bidirectional) {
    /** Whether the run is timed by {@code durationSeconds} rather than counted. */
    public boolean timed() {
        return iterations == 0;
    }

    /** Whether messages of this run are sent inline. */
    public boolean inline() {
        return inlineSize > 0 && size <= inlineSize && test.opcode().allowsInline();
    }

    /** Whether the receiving side posts receives. */
    public boolean usesRx() {
        return test.usesReceives();
    }

    /** The same settings for another size and iteration count. */
    public PerfSettings with(int newSize, long newIterations) {
        return new PerfSettings(test, newSize, newIterations, durationSeconds, txDepth, rxDepth, qpType, qps,
                inlineSize, postList, cqMod, port, gidIndex, postApi, mtuBytes, qpTimeout, warmUp, sl, trafficClass,
                dualPort, bidirectional);
    }

    /** The same settings without the warm-up. */
    public PerfSettings withoutWarmUp() {
        return new PerfSettings(test, size, iterations, durationSeconds, txDepth, rxDepth, qpType, qps, inlineSize,
                postList, cqMod, port, gidIndex, postApi, mtuBytes, qpTimeout, false, sl, trafficClass, dualPort,
                bidirectional);
    }

    /** The port QP {@code q} uses: with {@code -O}, the first half of the QPs use {@code port}, the rest the next. */
    public int portOf(int q) {
        return dualPort && q >= qps / 2 ? port + 1 : port;
    }
}
