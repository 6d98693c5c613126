package org.verbs4j.tools.perf;

import java.lang.foreign.Arena;
import org.verbs4j.Device;
import org.verbs4j.Mtu;
import org.verbs4j.WrOpcode;

/**
 * One message size of a test with both ends in this JVM, driven by one thread as perftest drives each of its two
 * processes: a client endpoint that posts and a server endpoint that receives, echoes or is the passive target.
 */
final class LoopbackRun {
    private final PerfSettings s;
    private final Device device;
    private final long stallNanos;

    LoopbackRun(PerfSettings settings, Device device, long stallNanos) {
        this.s = settings;
        this.device = device;
        this.stallNanos = stallNanos;
    }

    PerfRow run() {
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
            Stall stall = new Stall(stallNanos);
            if (s.test().kind() == PerfTest.Kind.BANDWIDTH) {
                Receiver receiver = s.test().usesReceives() ? new Receiver(server, stall) : null;
                return PerfLoops.bandwidth(client, toServer, receiver, stall);
            }
            return latency(client, server, stall);
        }
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
            clientTx.poll();
            serverTx.poll();
            stall.progress();
        }
        return PerfLoops.latencyRow(s, samples);
    }
}
