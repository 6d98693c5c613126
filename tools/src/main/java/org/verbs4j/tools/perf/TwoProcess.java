package org.verbs4j.tools.perf;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.function.Consumer;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Device;
import org.verbs4j.Mtu;
import org.verbs4j.QpType;
import org.verbs4j.WrOpcode;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tools.cli.UsageException;

/**
 * Two-process mode: a server ({@code --server}) and a client ({@code HOST}) that connect over perftest's own
 * out-of-band TCP exchange ({@link PerftestWire}), step for step as perftest 4.5's {@code ib_*} programs, so either
 * side may be a C perftest program of the same test.
 *
 * <ol>
 *   <li>versions, system data (page and cache line size) and MTUs; the path MTU is the smaller;</li>
 *   <li>the keys of each QP, the QPs go to RTS, then "sync" messages (the same keys again) in each test's
 *       order;</li>
 *   <li>the run: bandwidth tests are measured by the client, except that in {@code send_bw} each side reports its
 *       own end and with {@code -b} both post; {@code write_lat} and {@code send_lat} ping-pong (the server writes
 *       first, the client sends first) and each side reports its own samples; in {@code read_lat} and
 *       {@code atomic_lat} only the client posts and reports;</li>
 *   <li>in the bandwidth tests but {@code send_bw}, the client's report travels to the server, which prints it;
 *       with {@code -b} both sides print the sum;</li>
 *   <li>a last "sync" and "done" ({@code write_lat} ends without them, as perftest).</li>
 * </ol>
 *
 * <p>With {@code -R} ({@link CmLink}, {@link CmControlChannel}), as perftest's rdma_cm mode: the same messages
 * travel as SENDs over an RC QP the connection manager connected, the keys as perftest's binary
 * {@code struct pingpong_dest}; before the keys, each test QP is made on an id and connected through
 * {@code rdma_connect}/{@code rdma_accept}, between two syncs, instead of moved to RTS from the keys; and there
 * is no "done".
 */
final class TwoProcess {
    /**
     * The system property that lets the emulated provider run two-process mode when both "processes" are threads
     * of one JVM, which is how the tests run it: the emulated device is reachable only inside its JVM.
     */
    static final String SAME_JVM_PEER_PROPERTY = "verbs4j.perf.sameJvmPeer";

    private final List<PerfSettings> runs;
    private final Device device;
    private final long stallNanos;
    private final ControlChannel ch;
    /** With {@code -R}: the connection manager's link, which connects the test QPs; else null. */
    private final CmLink link;
    private final boolean server;
    private final ResultTable table;
    private final Consumer<PerfRow> onRow;
    private Endpoint e;

    private TwoProcess(List<PerfSettings> runs, Device device, long stallNanos, ControlChannel ch, CmLink link,
                       boolean server, ResultTable table, Consumer<PerfRow> onRow) {
        this.link = link;
        this.runs = runs;
        this.device = device;
        this.stallNanos = stallNanos;
        this.ch = ch;
        this.server = server;
        this.table = table;
        this.onRow = onRow;
    }

    /**
     * Whether {@code device} lives inside this JVM and cannot reach another process: the emulated provider's
     * in-JVM devices ({@code emu0}, ...). Its wire devices ({@code roce0}, ..., made by
     * {@code -Dverbs4j.emulated.roce=ADDRESS[:PORT]} or {@code VERBS4J_EMULATED_ROCE}) speak RoCE v2 over UDP and do.
     */
    static boolean inJvmOnly(VerbsProvider p, Device device) {
        return p.name().equals("emulated") && device.name().startsWith("emu");
    }

    /**
     * The device two-process mode uses when {@code -d} is not given: the provider's first device that reaches
     * across processes (on the emulated provider, its first wire device), else {@code first}.
     */
    static Device defaultDevice(VerbsProvider p, Device first) {
        return p.devices().stream().filter(d -> !inJvmOnly(p, d)).findFirst().orElse(first);
    }

    /** Why two-process mode cannot run on this device, or null when it can. */
    static String unsupportedReason(VerbsProvider p, Device device) {
        if (inJvmOnly(p, device) && !Boolean.getBoolean(SAME_JVM_PEER_PROPERTY)) {
            return "the emulated device '" + device.name() + "' lives inside this JVM and cannot reach another "
                    + "process; give both sides a wire device (RoCE v2 over UDP): -Dverbs4j.emulated.roce=ADDRESS "
                    + "or VERBS4J_EMULATED_ROCE=ADDRESS, one local IPv4 address per side (such as 127.0.0.1 and "
                    + "127.0.0.2), then -d roce0; or run in loopback by leaving out --server and the host";
        }
        return null;
    }

    /** Why these settings cannot run in two-process mode, or null when they can. */
    static String unsupportedReason(PerfSettings first) {
        if (first.timed() && first.test().kind() == PerfTest.Kind.LATENCY) {
            return "two-process latency tests count iterations: use -n, not -D";
        }
        if (first.test().kind() == PerfTest.Kind.LATENCY && first.iterations() < 2) {
            return "two-process latency tests time one round trip between two messages: -n takes 2 or more";
        }
        return null;
    }

    /**
     * Runs every size as the server (host null) or the client. {@code onRow} gets each row this side prints: its
     * own, or in the server of a bandwidth test but {@code send_bw}, the client's.
     *
     * @param table the table being printed, whose unit ({@code --report_gbits}) the exchanged reports use
     * @throws UsageException if the peer cannot be reached, speaks another protocol or runs other settings
     */
    static void run(List<PerfSettings> runs, Device device, String host, int tcpPort, long stallNanos,
                    ResultTable table, Consumer<PerfRow> onRow) {
        run(runs, device, host, tcpPort, stallNanos, table, onRow, null, -1);
    }

    /**
     * As {@link #run(List, Device, String, int, long, ResultTable, Consumer)}; with a provider for {@code rdmaCm}
     * ({@code -R}) the control link and every test QP are connected through its connection manager on
     * {@code port}, with no TCP connection.
     */
    static void run(List<PerfSettings> runs, Device device, String host, int port, long stallNanos,
                    ResultTable table, Consumer<PerfRow> onRow, VerbsProvider rdmaCm, int tos) {
        String why = unsupportedReason(runs.getFirst());
        if (why != null) {
            throw new UsageException(why);
        }
        if (rdmaCm != null) {
            try (CmLink link = CmLink.open(rdmaCm, tos);
                 CmControlChannel ch = host == null ? CmControlChannel.accept(link, port, table::waitingForClient)
                         : CmControlChannel.connect(link, host, port)) {
                new TwoProcess(runs, device, stallNanos, ch, link, host == null, table, onRow).run();
            }
            return;
        }
        try (PerftestChannel ch = host == null ? PerftestChannel.accept(port, table::waitingForClient)
                : PerftestChannel.connect(host, port)) {
            new TwoProcess(runs, device, stallNanos, ch, null, host == null, table, onRow).run();
        }
    }

    /** What two verbs4j peers must agree on: the test, transport, QPs, sizes and iterations. */
    private String digest() {
        PerfSettings s = runs.getFirst();
        List<String> sizes = runs.stream().map(r -> r.size() + "x" + (r.timed() ? r.durationSeconds() + "s"
                : Long.toString(r.iterations()))).toList();
        return s.test().cliName() + " " + s.qpType() + " qps=" + s.qps() + (s.bidirectional() ? " -b" : "")
                + " sizes=" + String.join(",", sizes);
    }

    private void run() {
        byte[] mine = PerftestWire.version(digest());
        byte[] theirs = ch.exchange(mine);
        String version = PerftestWire.versionOf(theirs);
        if (PerftestWire.versionNumber(version) < PerftestWire.MIN_PEER_VERSION) {
            throw new UsageException("the peer speaks perftest version '" + version + "', older than the "
                    + PerftestWire.MIN_PEER_VERSION + " whose handshake verbs4j perf speaks");
        }
        String digest = PerftestWire.digestOf(theirs);
        if (digest != null && !digest.equals(PerftestWire.digestOf(mine))) {
            throw new UsageException("the peer (verbs4j perf) runs other settings than this side's '" + digest()
                    + "': give both sides the same test and flags");
        }
        int peerCycle = PerftestWire.int32(ch.exchange(PerftestWire.int32(PerftestWire.PAGE_SIZE)));
        ch.exchange(PerftestWire.int32(PerftestWire.CACHE_LINE));
        if (peerCycle < 0 || peerCycle > PerftestWire.MAX_CYCLE_BUFFER) {
            throw new UsageException("the peer's cycle buffer of " + peerCycle + " bytes is no perftest value");
        }
        PerfSettings first = runs.getFirst();
        int largest = runs.stream().mapToInt(PerfSettings::size).max().orElseThrow();
        // A perftest peer walks its remote address over a cycle buffer (the larger page size of the two) in steps
        // of the message size: the incoming slot must span it, or an 8-byte atomic_bw fails with REM_ACCESS_ERR.
        int capacity = Math.max(largest, Math.max(PerftestWire.PAGE_SIZE, peerCycle));
        try (Arena arena = Arena.ofShared();
             Endpoint opened = link != null ? Endpoint.onCmContext(((CmControlChannel) ch).id(), first, capacity, arena)
                     : Endpoint.open(device, first, capacity, arena)) {
            this.e = opened;
            Mtu own = e.mtu();
            Mtu peer = PerftestWire.mtuOf(ch.exchange(PerftestWire.mtu(own)));
            Mtu path = peer != null && peer.bytes() < own.bytes() ? peer : own;
            if (first.qpType() == QpType.UD && largest > path.bytes()) {
                throw new UsageException("a UD message is at most one MTU: " + largest + " bytes is more than the "
                        + "path MTU of " + path.bytes() + " bytes the peer agreed to");
            }
            PeerInfo[] remotes = connect(first, path);
            switch (first.test().kind()) {
                case BANDWIDTH -> bandwidth(first, remotes);
                case LATENCY -> latency(first, remotes);
            }
        }
    }

    /** The keys of each QP and the QPs to RTS, with the "sync" messages each perftest test has around them. */
    private PeerInfo[] connect(PerfSettings s, Mtu path) {
        int nq = s.qps();
        boolean latency = s.test().kind() == PerfTest.Kind.LATENCY;
        boolean send = s.test().usesReceives();
        if (link != null) {
            connectThroughCm(s);
        }
        if (latency && !send) {
            sync();
        }
        PerftestWire.Keys[] keys = new PerftestWire.Keys[nq];
        for (int q = 0; q < nq; q++) {
            keys[q] = shake(q);
        }
        PeerInfo[] remotes = new PeerInfo[nq];
        for (int q = 0; q < nq; q++) {
            remotes[q] = keys[q].peer();
            if (link == null) {
                e.connect(q, remotes[q], path, keys[q].outReads());
            }
        }
        if (send) {
            sync();
        }
        for (int q = 0; q < nq; q++) {
            shake(q);
        }
        if (!send) {
            sync();
        }
        return remotes;
    }

    /**
     * {@code -R}: each test QP made on a connection-manager id and connected by it, one after the other, the client
     * connecting to the listener the control link came through.
     */
    private void connectThroughCm(PerfSettings s) {
        // perftest's create_rdma_cm_connection: a sync, the connections (its server listens anew), a sync.
        sync();
        ConnectionParameters cp = CmLink.parameters(s, e.outReads());
        for (int q = 0; q < s.qps(); q++) {
            int qq = q;
            if (server) {
                CmId id = link.accept(x -> e.makeQp(qq, x), cp, CmLink.WAIT_MS);
                link.await(id, CmEventType.ESTABLISHED, "the connection of test QP " + q);
            } else {
                link.connectRetrying(((CmControlChannel) ch).peer(), x -> e.makeQp(qq, x), cp, () -> { },
                        "the connection of test QP " + q);
            }
        }
        sync();
    }

    private PerftestWire.Keys shake(int q) {
        PerftestWire.Keys mine = new PerftestWire.Keys(e.info(q), e.outReads(), 0);
        try {
            if (link != null) {
                return PerftestWire.binaryKeysOf(ch.exchange(PerftestWire.binaryKeys(mine, e.gidIndex)));
            }
            return PerftestWire.keysOf(ch.exchange(PerftestWire.keys(mine, e.usesGid())), e.usesGid());
        } catch (IllegalArgumentException ex) {
            throw new UsageException(ex.getMessage(), ex);
        }
    }

    /** perftest's {@code ctx_hand_shake} used as a barrier: QP 0's keys both ways. */
    private void sync() {
        shake(0);
    }

    private void close() {
        sync();
        ch.done();
    }

    private void bandwidth(PerfSettings first, PeerInfo[] remotes) {
        if (first.test().usesReceives()) {
            sendBandwidth(remotes);
            return;
        }
        boolean sweep = runs.size() > 1;
        if (first.bidirectional()) {
            // ib_write_bw -b: each side warms up, a sync, both post; a sync after each size of a sweep.
            for (PerfSettings s : runs) {
                e.use(s);
                if (s.warmUp()) {
                    PerfLoops.warmUp(e, remotes, null, new Stall(stallNanos));
                }
                e.use(s.withoutWarmUp());
                sync();
                BandwidthRow mine = PerfLoops.bandwidth(e, remotes, null, new Stall(stallNanos));
                if (sweep) {
                    sync();
                }
                BandwidthRow theirs = exchangeReport(mine, true);
                onRow.accept(mine.plus(theirs));
                table.bothParts(mine, theirs);
            }
            close();
            return;
        }
        if (server) {
            // The client measures; this side waits for its report.
            sync();
            onRow.accept(exchangeReport(new BandwidthRow(first.size(), 0, 0, 0, 0), true));
            close();
            return;
        }
        BandwidthRow last = null;
        for (PerfSettings s : runs) {
            e.use(s);
            last = PerfLoops.bandwidth(e, remotes, null, new Stall(stallNanos));
            onRow.accept(last);
        }
        sync();
        // perftest's server sends a report it never filled in (its stack's bytes): read and dropped.
        exchangeReport(last, false);
        close();
    }

    /** {@code send_bw}: receives posted, a sync, the run; each side reports its own end. */
    private void sendBandwidth(PeerInfo[] remotes) {
        if (runs.getFirst().bidirectional()) {
            throw new UsageException("-b is not implemented for send_bw yet (write_bw, read_bw and atomic_bw have it)");
        }
        boolean sweep = runs.size() > 1;
        for (PerfSettings s : runs) {
            e.use(s);
            Stall stall = new Stall(stallNanos);
            Receiver rx = server ? new Receiver(e, stall) : null;
            sync();
            onRow.accept(server ? receiveBandwidth(s, rx, stall) : PerfLoops.bandwidth(e, remotes, null, stall));
            if (sweep) {
                sync();
            }
        }
        close();
    }

    /** The receiving end of {@code send_bw}: every message of the client, or until its next sync in a timed run. */
    private BandwidthRow receiveBandwidth(PerfSettings s, Receiver rx, Stall stall) {
        long expected = s.timed() ? Long.MAX_VALUE : s.iterations() * s.qps();
        long got = 0;
        long firstNs = 0;
        long lastNs = 0;
        while (got < expected) {
            int n = rx.service();
            if (n > 0) {
                lastNs = System.nanoTime();
                if (got == 0) {
                    firstNs = lastNs;
                }
                got += n;
            } else if (s.timed() && ch.hasInput()) {
                break;
            } else if (!s.timed()) {
                stall.check("the client's sends (" + got + " of " + expected + " received)");
            }
        }
        double seconds = Math.max(1, lastNs - firstNs) / 1e9;
        double avg = got * (double) s.size() / seconds / (1024.0 * 1024.0);
        return new BandwidthRow(s.size(), got, avg, avg, got / seconds / 1e6);
    }

    /**
     * {@code xchg_bw_reports}: size, iterations, peak, average and message rate, in the table's unit.
     *
     * @param read whether the peer's report means something (false: read and dropped, null returned)
     */
    private BandwidthRow exchangeReport(BandwidthRow mine, boolean read) {
        long size = PerftestWire.int64(ch.exchange(PerftestWire.int64(mine.bytes())));
        long iters = PerftestWire.int64(ch.exchange(PerftestWire.int64(mine.iterations())));
        double peak = PerftestWire.float64(ch.exchange(PerftestWire.float64(table.bw(mine.bwPeakMBps()))));
        double avg = PerftestWire.float64(ch.exchange(PerftestWire.float64(table.bw(mine.bwAverageMBps()))));
        double rate = PerftestWire.float64(ch.exchange(PerftestWire.float64(mine.msgRateMpps())));
        if (!read) {
            return null;
        }
        if (size < 0 || size > Integer.MAX_VALUE || iters < 0) {
            throw new UsageException("the peer reported " + iters + " messages of " + size + " bytes, which is no "
                    + "bandwidth report");
        }
        try {
            return new BandwidthRow((int) size, iters, table.mbps(peak), table.mbps(avg), rate);
        } catch (IllegalArgumentException e) {
            // perftest's own clock can give it 0 seconds, and so inf or nan: say whose figure it is.
            throw new PerfFailure("the peer's bandwidth report has no usable figure: " + e.getMessage());
        }
    }

    private void latency(PerfSettings first, PeerInfo[] remotes) {
        WrOpcode op = first.test().opcode();
        if (op == WrOpcode.RDMA_WRITE) {
            // ib_write_lat: the server writes first; no sync between sizes and none at the end.
            for (PerfSettings s : runs) {
                e.use(s);
                onRow.accept(pingPong(s, remotes[0], null, new Stall(stallNanos), server));
            }
            return;
        }
        if (op == WrOpcode.SEND) {
            // ib_send_lat: receives posted and a sync before each size; the client sends first.
            for (PerfSettings s : runs) {
                e.use(s);
                Stall stall = new Stall(stallNanos);
                Receiver rx = new Receiver(e, stall);
                sync();
                onRow.accept(pingPong(s, remotes[0], rx, stall, !server));
            }
            close();
            return;
        }
        // ib_read_lat, ib_atomic_lat: only the client posts; the server waits for its end.
        if (!server) {
            for (PerfSettings s : runs) {
                e.use(s);
                onRow.accept(operations(s, remotes[0], new Stall(stallNanos)));
            }
        }
        close();
    }

    /**
     * A ping-pong of RDMA WRITEs (tags in the message's last byte) or SENDs. The initiator times each round trip
     * from its ping to the pong; the other side times from one pong to the next. Both report half of it.
     */
    private PerfRow pingPong(PerfSettings s, PeerInfo remote, Receiver rx, Stall stall, boolean initiator) {
        SendTracker tx = new SendTracker(e, stall);
        Poster poster = Poster.create(e, 0, remote, s.size());
        long n = s.iterations();
        poster.lastSeq = n - 1;
        LongList samples = new LongList();
        long previous = 0;
        for (long i = 0; i < n; i++) {
            tx.awaitRoom(0, 1);
            if (initiator) {
                long t0 = System.nanoTime();
                ping(poster, i);
                await(rx, i, stall, tx);
                samples.add(System.nanoTime() - t0);
            } else {
                await(rx, i, stall, tx);
                long now = System.nanoTime();
                if (i > 0) {
                    samples.add(now - previous);
                }
                previous = now;
                ping(poster, i);
            }
            // The next round waits for this ping's completion (perftest polls for it after each post): it may
            // come after the pong, and a CQ of tx-depth entries would overflow with two.
            tx.posted[0] = i + 1;
            tx.poll();
            stall.progress();
        }
        // The last message must have landed before this side tears its QP down.
        tx.awaitCompleted(0, n);
        return PerfLoops.latencyRow(s, samples);
    }

    private void ping(Poster poster, long i) {
        if (poster.opcode == WrOpcode.RDMA_WRITE) {
            PerfLoops.writePing(e, poster, i, PerfLoops.tag(i));
        } else {
            poster.post(i, 1);
        }
    }

    private void await(Receiver rx, long i, Stall stall, SendTracker tx) {
        if (rx == null) {
            PerfLoops.awaitTag(e, PerfLoops.tag(i), stall, tx);
        } else {
            rx.awaitOne("the peer's message " + (i + 1));
        }
    }

    /** READ and atomic latency: one operation at a time, each timed to its completion. */
    private PerfRow operations(PerfSettings s, PeerInfo remote, Stall stall) {
        SendTracker tx = new SendTracker(e, stall);
        Poster poster = Poster.create(e, 0, remote, s.size());
        poster.lastSeq = s.iterations() - 1;
        LongList samples = new LongList();
        for (long i = 0; i < s.iterations(); i++) {
            long t0 = System.nanoTime();
            PerfLoops.oneOperation(poster, tx, i);
            samples.add(System.nanoTime() - t0);
            stall.progress();
        }
        return PerfLoops.latencyRow(s, samples);
    }
}
