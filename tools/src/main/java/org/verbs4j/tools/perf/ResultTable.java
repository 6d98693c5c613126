package org.verbs4j.tools.perf;

import java.io.PrintWriter;

/** Prints perftest's banner and result table. */
final class ResultTable {
    private static final String RULE =
            "---------------------------------------------------------------------------------------";

    /** MB/s (2^20 bytes per second) to Gb/s (10^9 bits per second). */
    private static final double GBITS_PER_MBPS = 1024.0 * 1024.0 * 8 / 1e9;

    private final PrintWriter out;
    private final PerfSettings s;
    private final boolean gbits;

    /**
     * A table for these settings.
     *
     * @param gbits print bandwidth in Gb/s ({@code --report_gbits}) rather than MB/s
     */
    ResultTable(PrintWriter out, PerfSettings settings, boolean gbits) {
        this.out = out;
        this.s = settings;
        this.gbits = gbits;
    }

    void header(String provider, String device, String mode, int mtuBytes) {
        out.println(RULE);
        out.println("                    " + title());
        out.printf(" Provider        : %-14s Device         : %s%n", provider, device);
        out.printf(" Mode            : %-14s Port           : %d%n", mode, s.port());
        out.printf(" Number of qps   : %-14d Connection type: %s%n", s.qps(), s.qpType());
        out.printf(" TX depth        : %-14d Post API       : %s%n", s.txDepth(),
                s.postApi() == PostApi.WR ? "wr (ibv_wr_*)" : "post_send (ibv_post_send)");
        out.printf(" CQ Moderation   : %-14d Post list      : %d%n", s.cqMod(), s.postList());
        out.printf(" Mtu             : %-14s Inline size    : %d[B]%n", mtuBytes + "[B]", s.inlineSize());
        if (s.usesRx()) {
            out.printf(" RX depth        : %d%n", s.rxDepth());
        }
        if (s.test().kind() == PerfTest.Kind.BANDWIDTH) {
            out.printf(" Warm up         : %s%n", s.warmUp() ? "until the rate is steady (--perform_warm_up)" : "off");
        }
        out.printf(" GID index       : %s%n", s.gidIndex() < 0 ? "none (LID, or GID 0 where a GRH is needed)"
                : Integer.toString(s.gidIndex()));
        out.println(RULE);
        if (s.test().kind() == PerfTest.Kind.BANDWIDTH) {
            String unit = gbits ? "Gb/sec" : "MB/sec";
            out.println(" #bytes     #iterations    BW peak[" + unit + "]    BW average[" + unit + "]   MsgRate[Mpps]");
        } else {
            out.println(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
                    + "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]");
        }
        out.flush();
    }

    void row(PerfRow row) {
        switch (row) {
            case BandwidthRow b -> out.printf(" %-10d %-10d       %-10.2f         %-10.2f           %-8.6f%n",
                    b.bytes(), b.iterations(), bw(b.bwPeakMBps()), bw(b.bwAverageMBps()), b.msgRateMpps());
            case LatencyRow l -> out.printf(" %-7d %-10d     %-7.2f        %-7.2f      %-7.2f            %-7.2f"
                            + "          %-7.2f         %-7.2f                %-7.2f%n",
                    l.bytes(), l.iterations(), l.tMinUs(), l.tMaxUs(), l.tTypicalUs(), l.tAvgUs(), l.tStdevUs(),
                    l.t99Us(), l.t999Us());
        }
        out.flush();
    }

    private double bw(double mbps) {
        return gbits ? mbps * GBITS_PER_MBPS : mbps;
    }

    void footer() {
        out.println(RULE);
        out.flush();
    }

    private String title() {
        String op = switch (s.test().opcode()) {
            case RDMA_WRITE -> "RDMA_Write";
            case RDMA_READ -> "RDMA_Read";
            case SEND -> "Send";
            default -> "Atomic FETCH_AND_ADD";
        };
        return op + (s.test().kind() == PerfTest.Kind.BANDWIDTH ? " BW Test" : " Latency Test");
    }
}
