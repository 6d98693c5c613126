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
    private boolean reportBoth;
    private boolean cpuUtil;
    private boolean rdmaCm;

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

    /** With {@code --report-both}: after each row of a bidirectional run, each direction's own row. */
    ResultTable reportBoth(boolean on) {
        this.reportBoth = on;
        return this;
    }

    /** With {@code --cpu_util}: a CPU utilization column. */
    ResultTable cpuUtil(boolean on) {
        this.cpuUtil = on;
        return this;
    }

    /** With {@code -R}: the header says the QPs are connected through rdma_cm, as perftest's "rdma_cm QPs". */
    ResultTable rdmaCm(boolean on) {
        this.rdmaCm = on;
        return this;
    }

    /**
     * perftest's server banner, printed once the server listens (its TCP port bound, or {@code rdma_listen}
     * returned with {@code -R}): a client started after this line finds the server.
     */
    void waitingForClient() {
        out.println("************************************");
        out.println("* Waiting for client to connect... *");
        out.println("************************************");
        out.flush();
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
            out.printf(" Bidirectional   : %-14s Dual-port      : %s%n", s.bidirectional() ? "ON" : "OFF",
                    s.dualPort() ? "ON" : "OFF");
        }
        if (s.sl() != 0 || s.trafficClass() != 0) {
            out.printf(" SL              : %-14d Traffic class  : %d%n", s.sl(), s.trafficClass());
        }
        if (rdmaCm) {
            out.printf(" rdma_cm QPs     : ON (connected through the connection manager, -R)%n");
        }
        out.printf(" GID index       : %s%n", s.gidIndex() < 0
                ? "default (" + Endpoint.GID_DEFAULT + ")"
                : Integer.toString(s.gidIndex()));
        out.println(RULE);
        columns();
    }

    private void columns() {
        String cpu = cpuUtil ? "    CPU_Util[%]" : "";
        if (s.test().kind() == PerfTest.Kind.BANDWIDTH) {
            String unit = gbits ? "Gb/sec" : "MB/sec";
            out.println(" #bytes     #iterations    BW peak[" + unit + "]    BW average[" + unit + "]   MsgRate[Mpps]"
                    + cpu);
        } else {
            out.println(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
                    + "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]" + cpu);
        }
        out.flush();
    }

    void row(PerfRow row) {
        row(row, Double.NaN);
    }

    /** A row; with {@code --cpu_util}, {@code cpuUtilPercent} in its last column (NaN: not measured). */
    void row(PerfRow row, double cpuUtilPercent) {
        switch (row) {
            case BandwidthRow b -> out.printf(" %-10d %-10d       %-10.2f         %-10.2f           %-8.6f",
                    b.bytes(), b.iterations(), bw(b.bwPeakMBps()), bw(b.bwAverageMBps()), b.msgRateMpps());
            case LatencyRow l -> out.printf(" %-7d %-10d     %-7.2f        %-7.2f      %-7.2f            %-7.2f"
                            + "          %-7.2f         %-7.2f                %-7.2f",
                    l.bytes(), l.iterations(), l.tMinUs(), l.tMaxUs(), l.tTypicalUs(), l.tAvgUs(), l.tStdevUs(),
                    l.t99Us(), l.t999Us());
        }
        if (cpuUtil) {
            out.printf(Double.isNaN(cpuUtilPercent) ? "    n/a" : "    %-3.2f", cpuUtilPercent);
        }
        out.println();
        out.flush();
    }

    /** With {@code --report-both}, the local and the remote direction of a bidirectional row, as perftest. */
    void bothParts(BandwidthRow local, BandwidthRow remote) {
        if (!reportBoth) {
            return;
        }
        boolean cpu = cpuUtil;
        cpuUtil = false;
        for (String which : new String[] {"Local", "Remote"}) {
            out.println(RULE);
            out.println(" " + which + " results: ");
            out.println(RULE);
            columns();
            row(which.equals("Local") ? local : remote);
        }
        out.println(RULE);
        cpuUtil = cpu;
        columns();
    }

    /** MB/s in the table's unit: MB/s, or Gb/s with {@code --report_gbits}. */
    double bw(double mbps) {
        return gbits ? mbps * GBITS_PER_MBPS : mbps;
    }

    /** The table's unit back to MB/s. */
    double mbps(double tableUnit) {
        return gbits ? tableUnit / GBITS_PER_MBPS : tableUnit;
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
