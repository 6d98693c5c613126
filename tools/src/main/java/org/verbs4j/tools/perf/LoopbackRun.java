package org.verbs4j.tools.perf;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Device;
import org.verbs4j.Mtu;
import org.verbs4j.WrOpcode;
import org.verbs4j.spi.VerbsProvider;

/**
 * One message size of a test with both ends in this JVM, driven by one thread as perftest drives each of its two
 * processes: a client endpoint that posts and a server endpoint that receives, echoes or is the passive target.
 */
final class LoopbackRun {
    private final PerfSettings s;
    private final Device device;
    private final long stallNanos;
    /** With {@code -R}: the provider whose connection manager connects the QPs; else null. */
    private final VerbsProvider rdmaCm;
    /** The type of service of the active ids ({@code -T}), or -1. */
    private final int tos;
    /** After a bidirectional run: the client's and the server's direction. */
    private BandwidthRow[] parts;

    LoopbackRun(PerfSettings settings, Device device, long stallNanos) {
        this(settings, device, stallNanos, null, -1);
    }

    /**
     * A run whose QPs, with a provider for {@code rdmaCm} ({@code -R}), are connected through its connection
     * manager: a listener on the device's IPv4 address and, per QP, a connect and an accept; {@code tos} is the
     * active ids' type of service ({@code -T}), or -1 for the kernel's.
     */
    LoopbackRun(PerfSettings settings, Device device, long stallNanos, VerbsProvider rdmaCm, int tos) {
        this.tos = tos;
        this.s = settings;
        this.device = device;
        this.stallNanos = stallNanos;
        this.rdmaCm = rdmaCm;
    }

    PerfRow run() {
        if (rdmaCm != null) {
            return runThroughCm();
        }
        try (Arena arena = Arena.ofShared();
             Endpoint client = Endpoint.open(device, s, arena);
             Endpoint server = Endpoint.open(device, s, arena)) {
            Mtu mtu = client.mtu().bytes() <= server.mtu().bytes() ? client.mtu() : server.mtu();
            PeerInfo[] toServer = new PeerInfo[s.qps()];
            for (int q = 0; q < s.qps(); q++) {
                toServer[q] = server.info(q);
                client.connect(q, toServer[q], mtu);
                server.connect(q, client.info(q), mtu);
            }
            return measure(client, server, toServer);
        }
    }

    private PerfRow runThroughCm() {
        try (Arena arena = Arena.ofShared(); CmLink link = CmLink.open(rdmaCm, tos)) {
            CmId listener = link.listen(new InetSocketAddress(CmLink.addressOf(device, s.port()), 0));
            try (Endpoint client = Endpoint.onCmContext(listener, s, s.size(), arena);
                 Endpoint server = Endpoint.onCmContext(listener, s, s.size(), arena)) {
                ConnectionParameters cp = CmLink.parameters(s, Math.min(client.outReads(), server.outReads()));
                PeerInfo[] toServer = new PeerInfo[s.qps()];
                for (int q = 0; q < s.qps(); q++) {
                    int qq = q;
                    CmId active = link.connect(listener.localAddress(), x -> client.makeQp(qq, x), cp);
                    CmId passive = link.accept(x -> server.makeQp(qq, x), cp, CmLink.WAIT_MS);
                    link.await(active, CmEventType.ESTABLISHED, "rdma_accept of QP " + q + " (active side)");
                    link.await(passive, CmEventType.ESTABLISHED, "rdma_accept of QP " + q + " (passive side)");
                    toServer[q] = server.info(q);
                }
                return measure(client, server, toServer);
            }
        }
    }

    private PerfRow measure(Endpoint client, Endpoint server, PeerInfo[] toServer) {
        Stall stall = new Stall(stallNanos);
        if (s.bidirectional()) {
            return bidirectional(client, server, toServer);
        }
        if (s.test().kind() == PerfTest.Kind.BANDWIDTH) {
            Receiver receiver = s.test().usesReceives() ? new Receiver(server, stall) : null;
            return PerfLoops.bandwidth(client, toServer, receiver, stall);
        }
        return latency(client, server, stall);
    }

    /** The two directions of a bidirectional run, or null. */
    BandwidthRow[] parts() {
        return parts;
    }

    /**
     * {@code -b}: the server endpoint posts to the client's buffers on a second thread while the client posts to
     * the server's, each with its own QPs and CQs; the row is the sum, as perftest's.
     */
    private BandwidthRow bidirectional(Endpoint client, Endpoint server, PeerInfo[] toServer) {
        PeerInfo[] toClient = new PeerInfo[s.qps()];
        for (int q = 0; q < s.qps(); q++) {
            toClient[q] = client.info(q);
        }
        java.util.concurrent.CompletableFuture<BandwidthRow> back = java.util.concurrent.CompletableFuture
                .supplyAsync(() -> PerfLoops.bandwidth(server, toClient, null, new Stall(stallNanos)));
        BandwidthRow forth;
        try {
            forth = PerfLoops.bandwidth(client, toServer, null, new Stall(stallNanos));
        } finally {
            // The other direction must stop touching the endpoints before they close.
            try {
                back.join();
            } catch (java.util.concurrent.CompletionException ignored) {
                // Reported below when this direction succeeded.
            }
        }
        BandwidthRow other;
        try {
            other = back.join();
        } catch (java.util.concurrent.CompletionException ex) {
            if (ex.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw ex;
        }
        parts = new BandwidthRow[] {forth, other};
        return forth.plus(other);
    }

    private PerfRow latency(Endpoint client, Endpoint server, Stall stall) {
        SendTracker clientTx = new SendTracker(client, stall);
        SendTracker serverTx = new SendTracker(server, stall);
        Poster ping = Poster.create(client, 0, server.info(0), s.size());
        Poster pong = Poster.create(server, 0, client.info(0), s.size());
        long n = s.timed() ? Long.MAX_VALUE : s.iterations();
        ping.lastSeq = n - 1;
        pong.lastSeq = n - 1;
        WrOpcode op = s.test().opcode();
        Receiver clientRx = op == WrOpcode.SEND ? new Receiver(client, stall) : null;
        Receiver serverRx = op == WrOpcode.SEND ? new Receiver(server, stall) : null;
        LongList samples = new LongList();
        long deadline = System.nanoTime() + s.durationSeconds() * 1_000_000_000L;
        for (long i = 0; i < n; i++) {
            if (s.timed() && System.nanoTime() >= deadline) {
                break;
            }
            clientTx.awaitRoom(0, 1);
            serverTx.awaitRoom(0, 1);
            long t0 = System.nanoTime();
            switch (op) {
                case RDMA_WRITE -> {
                    // Ping-pong through memory, as ib_write_lat: each side waits for the last byte of the message.
                    byte tag = PerfLoops.tag(i);
                    PerfLoops.writePing(client, ping, i, tag);
                    PerfLoops.awaitTag(server, tag, stall, clientTx);
                    PerfLoops.writePing(server, pong, i, tag);
                    PerfLoops.awaitTag(client, tag, stall, serverTx);
                }
                case SEND -> {
                    ping.post(i, 1);
                    serverRx.awaitOne("the ping's receive");
                    pong.post(i, 1);
                    clientRx.awaitOne("the pong's receive");
                }
                default -> PerfLoops.oneOperation(ping, clientTx, i);
            }
            samples.add(System.nanoTime() - t0);
            // Counted, so that the next round waits for this one's completions: on a device that completes
            // later (the wire device, a NIC) a CQ of tx-depth entries would otherwise overflow.
            clientTx.posted[0] = i + 1;
            if (op == WrOpcode.RDMA_WRITE || op == WrOpcode.SEND) {
                serverTx.posted[0] = i + 1;
            }
            clientTx.poll();
            serverTx.poll();
            stall.progress();
        }
        return PerfLoops.latencyRow(s, samples);
    }
}
