package org.verbs4j.tools.perf;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.verbs4j.Device;
import org.verbs4j.Mtu;
import org.verbs4j.WrOpcode;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tools.cli.UsageException;

/**
 * Two-process mode: a server ({@code --server}) and a client ({@code HOST}) that exchange what each needs to
 * connect over TCP, as perftest does: a line of LID, QPN, PSN, rkey, buffer address and GID per QP. The client
 * measures; the server is the passive target, keeps receives posted, or echoes in the ping-pong tests. Both print
 * the client's results.
 */
final class TwoProcess {
    /**
     * The system property that lets the emulated provider run two-process mode when both "processes" are threads
     * of one JVM, which is how the tests run it: the emulated device is reachable only inside its JVM.
     */
    static final String SAME_JVM_PEER_PROPERTY = "verbs4j.perf.sameJvmPeer";
    private static final String HELLO = "verbs4j-perf 1";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CONNECT_RETRY_MILLIS = 5000;

    private final List<PerfSettings> runs;
    private final Device device;
    private final long stallNanos;
    private final Channel ch;
    private final boolean server;

    private TwoProcess(List<PerfSettings> runs, Device device, long stallNanos, Channel ch, boolean server) {
        this.runs = runs;
        this.device = device;
        this.stallNanos = stallNanos;
        this.ch = ch;
        this.server = server;
    }

    /** Why two-process mode cannot run with this provider, or null when it can. */
    static String unsupportedReason(VerbsProvider p) {
        if (p.name().equals("emulated") && !Boolean.getBoolean(SAME_JVM_PEER_PROPERTY)) {
            return "the emulated provider cannot reach across processes (its devices live inside one JVM); "
                    + "run the test in loopback by leaving out --server and the host";
        }
        return null;
    }

    /**
     * Runs every size as the server (host null) or the client, calling {@code onRow} with each result row.
     *
     * @throws UsageException if the peer cannot be reached or runs another test
     */
    static List<PerfRow> run(List<PerfSettings> runs, Device device, String host, int tcpPort, long stallNanos,
                             java.util.function.Consumer<PerfRow> onRow) {
        PerfSettings first = runs.getFirst();
        if (first.timed() && first.test().kind() == PerfTest.Kind.LATENCY) {
            throw new UsageException("two-process latency tests count iterations: use -n, not -D");
        }
        try (Channel ch = host == null ? Channel.accept(tcpPort) : Channel.connect(host, tcpPort)) {
            TwoProcess tp = new TwoProcess(runs, device, stallNanos, ch, host == null);
            return tp.run(onRow);
        }
    }

    private List<PerfRow> run(java.util.function.Consumer<PerfRow> onRow) {
        String mine = HELLO + " " + digest();
        ch.send(mine);
        String theirs = ch.receive();
        if (!mine.equals(theirs)) {
            throw new UsageException("the peer runs '" + theirs + "' but this side runs '" + mine
                    + "': give both sides the same test and flags");
        }
        List<PerfRow> rows = new ArrayList<>();
        for (PerfSettings s : runs) {
            PerfRow row = oneSize(s);
            rows.add(row);
            onRow.accept(row);
        }
        return rows;
    }

    /** What both sides must agree on: the test, transport, QPs, sizes and iterations. */
    private String digest() {
        PerfSettings s = runs.getFirst();
        List<String> sizes = runs.stream().map(r -> r.size() + "x" + (r.timed() ? r.durationSeconds() + "s"
                : Long.toString(r.iterations()))).toList();
        return s.test().cliName() + " " + s.qpType() + " qps=" + s.qps() + " sizes=" + String.join(",", sizes);
    }

    private PerfRow oneSize(PerfSettings s) {
        try (Arena arena = Arena.ofShared(); Endpoint e = Endpoint.open(device, s, arena)) {
            int nq = s.qps();
            ch.send("mtu " + e.mtu().bytes());
            Mtu mtu = Mtu.ofBytes(Math.min(e.mtu().bytes(), Integer.parseInt(field(ch.receive(), "mtu"))));
            PeerInfo[] remotes = new PeerInfo[nq];
            for (int q = 0; q < nq; q++) {
                ch.send(e.info(q).toLine());
            }
            for (int q = 0; q < nq; q++) {
                remotes[q] = PeerInfo.parse(ch.receive());
            }
            for (int q = 0; q < nq; q++) {
                e.connect(q, remotes[q], mtu);
            }
            Stall stall = new Stall(stallNanos);
            WrOpcode op = s.test().opcode();
            // Receives are posted before "ready", so the peer's first SEND finds one.
            Receiver rx = op == WrOpcode.SEND && (server || s.test().kind() == PerfTest.Kind.LATENCY)
                    ? new Receiver(e, stall) : null;
            ch.send("ready");
            field(ch.receive(), "ready");
            if (server) {
                serve(s, e, remotes[0], rx, stall);
                return parseRow(s, field(ch.receive(), "done"));
            }
            PerfRow row = s.test().kind() == PerfTest.Kind.BANDWIDTH
                    ? PerfLoops.bandwidth(e, remotes, null, stall) : clientLatency(s, e, remotes[0], rx, stall);
            ch.send("done " + toJson(row));
            return row;
        }
    }

    /** The server's part: echo in the ping-pong tests, keep receives posted in send_bw, else wait for the client. */
    private void serve(PerfSettings s, Endpoint e, PeerInfo remote, Receiver rx, Stall stall) {
        WrOpcode op = s.test().opcode();
        if (s.test().kind() == PerfTest.Kind.BANDWIDTH) {
            if (rx != null) {
                while (!ch.hasInput()) {
                    rx.service();
                }
            }
            return;
        }
        if (op != WrOpcode.RDMA_WRITE && op != WrOpcode.SEND) {
            return;
        }
        SendTracker tx = new SendTracker(e, stall);
        Poster pong = Poster.create(e, 0, remote, s.size());
        pong.lastSeq = s.iterations() - 1;
        for (long i = 0; i < s.iterations(); i++) {
            tx.awaitRoom(0, 1);
            if (op == WrOpcode.RDMA_WRITE) {
                byte tag = PerfLoops.tag(i);
                PerfLoops.awaitTag(e, tag, stall, tx);
                PerfLoops.writePing(e, pong, i, tag);
            } else {
                rx.awaitOne("the ping's receive");
                pong.post(i, 1);
            }
            tx.poll();
        }
    }

    private static PerfRow clientLatency(PerfSettings s, Endpoint e, PeerInfo remote, Receiver rx, Stall stall) {
        SendTracker tx = new SendTracker(e, stall);
        Poster ping = Poster.create(e, 0, remote, s.size());
        ping.lastSeq = s.iterations() - 1;
        LongList samples = new LongList();
        WrOpcode op = s.test().opcode();
        for (long i = 0; i < s.iterations(); i++) {
            tx.awaitRoom(0, 1);
            long t0 = System.nanoTime();
            switch (op) {
                case RDMA_WRITE -> {
                    byte tag = PerfLoops.tag(i);
                    PerfLoops.writePing(e, ping, i, tag);
                    PerfLoops.awaitTag(e, tag, stall, tx);
                }
                case SEND -> {
                    ping.post(i, 1);
                    rx.awaitOne("the pong's receive");
                }
                default -> PerfLoops.oneOperation(ping, tx, i);
            }
            samples.add(System.nanoTime() - t0);
            tx.poll();
            stall.progress();
        }
        return PerfLoops.latencyRow(s, samples);
    }

    private static String toJson(PerfRow row) {
        try {
            return JSON.writeValueAsString(row);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static PerfRow parseRow(PerfSettings s, String json) {
        try {
            Class<? extends PerfRow> type = s.test().kind() == PerfTest.Kind.BANDWIDTH ? BandwidthRow.class
                    : LatencyRow.class;
            return JSON.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new UsageException("the client sent a result this side cannot read: " + json, e);
        }
    }

    /** The rest of a line that starts with {@code key}. */
    private static String field(String line, String key) {
        if (line == null || !(line.equals(key) || line.startsWith(key + " "))) {
            throw new UsageException("the peer sent '" + line + "' where '" + key + "' was expected");
        }
        return line.substring(key.length()).strip();
    }

    /** The TCP connection: one line per message. */
    private static final class Channel implements AutoCloseable {
        private final Socket socket;
        private final BufferedReader in;
        private final PrintWriter out;

        private Channel(Socket socket) throws IOException {
            this.socket = socket;
            socket.setTcpNoDelay(true);
            this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            this.out = new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8);
        }

        static Channel accept(int port) {
            try (ServerSocket ss = new ServerSocket()) {
                ss.setReuseAddress(true);
                ss.bind(new InetSocketAddress(port));
                return new Channel(ss.accept());
            } catch (IOException e) {
                throw new UsageException("cannot wait for a client on TCP port " + port + ": " + e.getMessage(), e);
            }
        }

        /** Connects, retrying for a few seconds so a client started just before its server still finds it. */
        static Channel connect(String host, int port) {
            long until = System.nanoTime() + CONNECT_RETRY_MILLIS * 1_000_000L;
            while (true) {
                try {
                    return new Channel(new Socket(host, port));
                } catch (ConnectException e) {
                    if (System.nanoTime() > until) {
                        throw new UsageException("no verbs4j perf server at " + host + ":" + port + ": "
                                + e.getMessage(), e);
                    }
                    sleep(100);
                } catch (IOException e) {
                    throw new UsageException("cannot reach " + host + ":" + port + ": " + e.getMessage(), e);
                }
            }
        }

        void send(String line) {
            out.println(line);
            if (out.checkError()) {
                throw new UsageException("the peer closed the connection");
            }
        }

        String receive() {
            try {
                String line = in.readLine();
                if (line == null) {
                    throw new UsageException("the peer closed the connection");
                }
                return line;
            } catch (IOException e) {
                throw new UsageException("the connection to the peer failed: " + e.getMessage(), e);
            }
        }

        boolean hasInput() {
            try {
                return in.ready() || socket.getInputStream().available() > 0;
            } catch (IOException e) {
                return true;
            }
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // Closing is best effort once the run is over.
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UsageException("interrupted while connecting");
        }
    }
}
