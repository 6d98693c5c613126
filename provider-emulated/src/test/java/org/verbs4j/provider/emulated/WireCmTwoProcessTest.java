package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.CmPortSpace;
import org.verbs4j.CompletionQueue;
import org.verbs4j.ConnectionManager;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.MemoryRegion;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.emulated.wire.RoceConfig;
import org.verbs4j.provider.emulated.wire.RoceEndpoint;

/**
 * The emulated connection manager across two JVMs, each with one wire device ({@code roce0}) on a loopback address
 * and a UDP port free in this run: the IB CM's REQ, REP, RTU, REJ, DREQ and DREP in GSI datagrams between the two
 * devices' QP1s. Each child prints the events it sees, in order, and the results of its checks; this test compares
 * both transcripts with the exchange rdma_cm gives.
 */
class WireCmTwoProcessTest {
    private static final String SERVER_IP = "127.0.117.1";
    private static final String CLIENT_IP = "127.0.117.2";
    private static final int LISTEN_PORT = 7471;
    private static final int ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;

    /** A UDP port that no socket on the server's address holds now. */
    private static int freePort() throws IOException {
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress(InetAddress.getByName(SERVER_IP), 0));
            return ((InetSocketAddress) ch.getLocalAddress()).getPort();
        }
    }

    private static Process start(String role, String address) throws IOException {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-D" + RoceConfig.PROPERTY + "=" + address,
                "-cp", System.getProperty("java.class.path"), Child.class.getName(), role)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static List<String> lines(Process p) throws IOException {
        List<String> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String l = r.readLine(); l != null; l = r.readLine()) {
                out.add(l);
            }
        }
        return out;
    }

    @Test
    @DisplayName("Two JVMs connect, reject, exchange data and disconnect through the IB CM on their wire devices")
    void twoJvms() throws Exception {
        int port = freePort();
        Process server = start("server", SERVER_IP + ":" + port);
        List<String> serverOut = new ArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String l = r.readLine(); l != null; l = r.readLine()) {
                    synchronized (serverOut) {
                        serverOut.add(l);
                        serverOut.notifyAll();
                    }
                }
            } catch (IOException e) {
                // The child is gone; its exit code tells.
            }
        });
        reader.start();
        Process client = null;
        try {
            synchronized (serverOut) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!serverOut.contains("listening") && System.nanoTime() < deadline && server.isAlive()) {
                    serverOut.wait(1000);
                }
                assertTrue(serverOut.contains("listening"), "the server child never listened: " + serverOut);
            }
            client = start("client", CLIENT_IP + ":" + port);
            List<String> clientOut = lines(client);
            assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the client child did not end");
            assertTrue(server.waitFor(60, TimeUnit.SECONDS), "the server child did not end");
            reader.join(10_000);
            assertEquals(List.of(
                    "event ADDR_RESOLVED 0",
                    "event ROUTE_RESOLVED 0",
                    "event REJECTED 28 no thanks",
                    "event ADDR_RESOLVED 0",
                    "event ROUTE_RESOLVED 0",
                    "event REJECTED 8",
                    "event ADDR_RESOLVED 0",
                    "event ROUTE_RESOLVED 0",
                    "event ESTABLISHED 0 welcome",
                    "local " + CLIENT_IP + " remote " + SERVER_IP + ":" + LISTEN_PORT,
                    "recv SUCCESS pong",
                    "after disconnect ERR WR_FLUSH_ERR",
                    "event DISCONNECTED 0",
                    "client ok"), clientOut);
            assertEquals(0, client.exitValue(), "client exit code");
            synchronized (serverOut) {
                assertEquals(List.of(
                        "listening",
                        "event CONNECT_REQUEST 0 hello from " + CLIENT_IP,
                        "event CONNECT_REQUEST 0 again from " + CLIENT_IP,
                        "event ESTABLISHED 0",
                        "recv SUCCESS ping",
                        "event DISCONNECTED 0",
                        "after disconnect ERR WR_FLUSH_ERR",
                        "server ok"), serverOut);
            }
            assertEquals(0, server.exitValue(), "server exit code");
        } finally {
            server.destroyForcibly();
            if (client != null) {
                client.destroyForcibly();
            }
        }
    }

    /** One end: {@code server} or {@code client}, on the JVM's {@code roce0}. */
    public static final class Child {
        private static final long WAIT_S = 30;

        private Child() {}

        public static void main(String[] args) throws Exception {
            ConnectionManager cm = new EmulatedProvider().connectionManager();
            try (CmEventChannel ch = cm.createEventChannel(); Arena arena = Arena.ofShared()) {
                if (args[0].equals("server")) {
                    server(cm, ch, arena);
                } else {
                    client(cm, ch, arena);
                }
            }
        }

        private static String text(byte[] data) {
            int n = 0;
            while (n < data.length && data[n] != 0) {
                n++;
            }
            return new String(data, 0, n, StandardCharsets.US_ASCII);
        }

        /** Takes the next event, prints it, checks its type, and returns it unacknowledged. */
        private static CmEvent next(CmEventChannel ch, CmEventType expected, String suffix) {
            CmEvent e = ch.getEvent(WAIT_S, TimeUnit.SECONDS);
            if (e == null) {
                System.out.println("no event; expected " + expected);
                System.exit(2);
            }
            String data = text(e.privateData());
            System.out.println("event " + e.type() + " " + e.status() + (data.isEmpty() ? "" : " " + data) + suffix);
            if (e.type() != expected) {
                System.exit(3);
            }
            return e;
        }

        private static void ack(CmEventChannel ch, CmEventType expected) {
            next(ch, expected, "").close();
        }

        /** An RC QP on the id, with a 4 KiB region; returns the region. */
        private static MemoryRegion qp(CmId id, Arena arena) {
            ProtectionDomain pd = id.context().allocPd();
            CompletionQueue cq = id.context().createCq(16);
            CQS.put(id.createQp(pd, QpInitAttributes.builder(QpType.RC).cq(cq).build()), cq);
            MemorySegment buf = arena.allocate(4096, 64);
            return pd.registerMemory(buf, ACCESS, arena);
        }

        private static WorkCompletionBatch poll(QueuePair qp) {
            CompletionQueue cq = CQS.get(qp);
            WorkCompletionBatch wc = new WorkCompletionBatch(1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
            while (System.nanoTime() < deadline) {
                if (cq.poll(wc) == 1) {
                    return wc;
                }
                Thread.onSpinWait();
            }
            System.out.println("no completion");
            System.exit(4);
            return wc;
        }

        private static void send(QueuePair qp, MemoryRegion mr, String text) {
            byte[] b = text.getBytes(StandardCharsets.US_ASCII);
            MemorySegment.copy(b, 0, mr.segment(), java.lang.foreign.ValueLayout.JAVA_BYTE, 2048, b.length);
            qp.postSend(new SendWr().wrId(9).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(mr, 2048, b.length)));
            WorkCompletionBatch wc = poll(qp);
            if (wc.status(0) != WcStatus.SUCCESS) {
                System.out.println("send " + wc.status(0));
                System.exit(5);
            }
        }

        private static void received(QueuePair qp, MemoryRegion mr) {
            WorkCompletionBatch wc = poll(qp);
            byte[] b = new byte[wc.byteLen(0)];
            MemorySegment.copy(mr.segment(), java.lang.foreign.ValueLayout.JAVA_BYTE, 0, b, 0, b.length);
            System.out.println("recv " + wc.status(0) + " " + new String(b, StandardCharsets.US_ASCII));
        }

        /** Disconnects (or answers a disconnect), then shows the QP state and the flushed receive. */
        private static void disconnect(CmId id) {
            id.disconnect();
            WorkCompletionBatch wc = poll(id.qp());
            System.out.println("after disconnect " + id.qp().state() + " " + wc.status(0));
        }

        private static byte[] bytes(String s) {
            return s.getBytes(StandardCharsets.US_ASCII);
        }

        private static void server(ConnectionManager cm, CmEventChannel ch, Arena arena) {
            CmId listener = cm.createId(ch, CmPortSpace.TCP);
            listener.bindAddr(new InetSocketAddress(listenAddress(), LISTEN_PORT));
            listener.listen(4);
            System.out.println("listening");
            CmId first = request(ch);
            first.reject(bytes("no thanks"));
            first.close();
            CmId id = request(ch);
            MemoryRegion mr = qp(id, arena);
            QueuePair qp = id.qp();
            qp.postRecv(new RecvWr(1, Sge.of(mr, 0, 1024)));
            id.accept(new ConnectionParameters(bytes("welcome"), 1, 1, 7, 7));
            ack(ch, CmEventType.ESTABLISHED);
            received(qp, mr);
            qp.postRecv(new RecvWr(2, Sge.of(mr, 0, 1024)));
            send(qp, mr, "pong");
            ack(ch, CmEventType.DISCONNECTED);
            disconnect(id);
            id.destroyQp();
            id.close();
            listener.close();
            System.out.println("server ok");
        }

        /** The next event, a CONNECT_REQUEST, printed with the requester's address; returns the new id. */
        private static CmId request(CmEventChannel ch) {
            CmEvent e = ch.getEvent(WAIT_S, TimeUnit.SECONDS);
            if (e == null || e.type() != CmEventType.CONNECT_REQUEST) {
                System.out.println("expected a CONNECT_REQUEST, not " + (e == null ? "nothing" : e.type()));
                System.exit(3);
            }
            CmId id = e.id();
            System.out.println("event " + e.type() + " " + e.status() + " " + text(e.privateData()) + " from "
                    + id.remoteAddress().getAddress().getHostAddress());
            e.close();
            return id;
        }

        private static InetAddress listenAddress() {
            return new EmulatedProvider().devices().stream()
                    .filter(d -> d.name().equals("roce0")).findFirst()
                    .map(d -> RoceEndpoint.of(d).local.getAddress()).orElseThrow();
        }

        private static void client(ConnectionManager cm, CmEventChannel ch, Arena arena) throws Exception {
            InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(SERVER_IP), LISTEN_PORT);
            CmId rejected = connect(cm, ch, arena, server, "hello");
            next(ch, CmEventType.REJECTED, "").close();
            rejected.destroyQp();
            rejected.close();
            CmId nobody = connect(cm, ch, arena, new InetSocketAddress(server.getAddress(), LISTEN_PORT + 1), "x");
            next(ch, CmEventType.REJECTED, "").close();
            nobody.destroyQp();
            nobody.close();
            CmId id = connect(cm, ch, arena, server, "again");
            MemoryRegion mr = mrs.get(mrs.size() - 1);
            QueuePair qp = id.qp();
            qp.postRecv(new RecvWr(1, Sge.of(mr, 0, 1024)));
            ack(ch, CmEventType.ESTABLISHED);
            System.out.println("local " + id.localAddress().getAddress().getHostAddress() + " remote "
                    + id.remoteAddress().getAddress().getHostAddress() + ":" + id.remoteAddress().getPort());
            send(qp, mr, "ping");
            received(qp, mr);
            qp.postRecv(new RecvWr(2, Sge.of(mr, 0, 1024)));
            disconnect(id);
            ack(ch, CmEventType.DISCONNECTED);
            id.destroyQp();
            id.close();
            System.out.println("client ok");
        }

        private static final List<MemoryRegion> mrs = new ArrayList<>();
        private static final java.util.Map<QueuePair, CompletionQueue> CQS = new java.util.HashMap<>();

        /** resolveAddr, resolveRoute, a QP, connect with {@code hello} as private data. */
        private static CmId connect(ConnectionManager cm, CmEventChannel ch, Arena arena, InetSocketAddress to,
                                    String hello) {
            CmId id = cm.createId(ch, CmPortSpace.TCP);
            id.resolveAddr(null, to, 5000);
            ack(ch, CmEventType.ADDR_RESOLVED);
            id.resolveRoute(5000);
            ack(ch, CmEventType.ROUTE_RESOLVED);
            mrs.add(qp(id, arena));
            id.connect(new ConnectionParameters(Arrays.copyOf(bytes(hello), hello.length()), 1, 1, 7, 7));
            return id;
        }
    }
}
