package org.verbs4j.examples;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.verbs4j.AccessFlags;
import org.verbs4j.MemoryRegion;
import org.verbs4j.RcEndpoint;
import org.verbs4j.RcListener;
import org.verbs4j.RcOptions;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.Verbs;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.spi.VerbsProvider;

/**
 * The connection-manager example: a ping-pong server and client over rdma_cm, with {@link RcListener} and
 * {@link RcEndpoint}. Each side greets the other in the connection's private data, then each round is a SEND
 * "ping N" answered by a SEND "pong N".
 *
 * <p>Run as two processes ({@code main}: {@code server PORT [ROUNDS]} and {@code client HOST PORT [ROUNDS]}) on
 * any provider with a connection manager (the emulated one across processes when each JVM has a wire device,
 * {@code -Dverbs4j.emulated.roce=ADDRESS}); {@code ExamplesTest} runs both ends in one JVM on the emulated
 * provider, {@code CmPingPongTwoProcessTest} in two JVMs over wire devices.
 */
public final class CmPingPong {
    private CmPingPong() {}

    private static final int SIZE = 64;
    /**
     * How long each connection step may wait, milliseconds: long enough for a server JVM that is still compiling
     * its accept path (two JVMs on one vCPU under qemu/TCG took more than RcOptions' default 5 s).
     */
    private static final int STEP_TIMEOUT_MS = 30_000;

    /** The server: accepts one client and answers its pings; returns the client's greeting. */
    static String serve(RcListener listener, Arena arena, int rounds) {
        MemorySegment buf = arena.allocate(SIZE * 2, 64);
        try (RcEndpoint ep = listener.accept()) {
            MemoryRegion mr = ep.pd().registerMemory(buf, AccessFlags.LOCAL_WRITE, arena);
            try {
                for (int i = 0; i < rounds; i++) {
                    ep.qp().postRecv(new RecvWr(i, Sge.of(mr, SIZE, SIZE)));
                    String ping = receive(ep, buf);
                    send(ep, mr, buf, ping.replace("ping", "pong"));
                }
            } finally {
                mr.close();
            }
            return text(ep.peerPrivateData());
        }
    }

    /** The server's listener on a port (0: any free one), greeting each client in the accept's private data. */
    static RcListener listen(VerbsProvider provider, int port) {
        return RcListener.listen(provider, new InetSocketAddress(port),
                RcOptions.defaults().withPrivateData(bytes("ping-pong server")).withTimeoutMs(STEP_TIMEOUT_MS));
    }

    /** The client: plays the rounds; returns the server's greeting, then the pongs. */
    static List<String> play(VerbsProvider provider, InetSocketAddress server, Arena arena, int rounds) {
        MemorySegment buf = arena.allocate(SIZE * 2, 64);
        List<String> heard = new ArrayList<>();
        try (RcEndpoint ep = RcEndpoint.connect(provider, server,
                RcOptions.defaults().withPrivateData(bytes("ping-pong client")).withTimeoutMs(STEP_TIMEOUT_MS))) {
            heard.add(text(ep.peerPrivateData()));
            MemoryRegion mr = ep.pd().registerMemory(buf, AccessFlags.LOCAL_WRITE, arena);
            try {
                for (int i = 0; i < rounds; i++) {
                    ep.qp().postRecv(new RecvWr(i, Sge.of(mr, SIZE, SIZE)));
                    send(ep, mr, buf, "ping " + i);
                    heard.add(receive(ep, buf));
                }
            } finally {
                mr.close();
            }
        }
        return heard;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Private data as text: the transport pads it with zeros, which end the text. */
    private static String text(byte[] privateData) {
        int n = 0;
        while (n < privateData.length && privateData[n] != 0) {
            n++;
        }
        return new String(privateData, 0, n, StandardCharsets.US_ASCII);
    }

    private static void send(RcEndpoint ep, MemoryRegion mr, MemorySegment buf, String message) {
        byte[] b = bytes(message);
        MemorySegment.copy(b, 0, buf, ValueLayout.JAVA_BYTE, 0, b.length);
        ep.qp().postSend(new SendWr().wrId(200).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(mr, 0, b.length)));
        awaitSuccess(ep);
    }

    private static String receive(RcEndpoint ep, MemorySegment buf) {
        WorkCompletion wc = awaitSuccess(ep);
        byte[] b = new byte[wc.byteLen()];
        MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, SIZE, b, 0, b.length);
        return new String(b, StandardCharsets.US_ASCII);
    }

    /** Polls the endpoint's CQ until one completion arrives, which must be a success. */
    private static WorkCompletion awaitSuccess(RcEndpoint ep) {
        WorkCompletionBatch batch = new WorkCompletionBatch(1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ep.cq().poll(batch) == 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no completion within 10 s");
            }
            Thread.onSpinWait();
        }
        WorkCompletion wc = batch.get(0);
        if (wc.status() != WcStatus.SUCCESS) {
            throw new IllegalStateException("WR " + wc.wrId() + " completed with " + wc.status());
        }
        return wc;
    }


    /**
     * A listening address as a user types it: {@code 0.0.0.0:7471}, {@code 192.0.2.1:7471}, {@code [::]:7471}
     * ({@link InetSocketAddress#toString()} gives {@code 0.0.0.0/0.0.0.0:7471}).
     *
     * @param address a resolved address, or an unresolved host name and a port
     * @return the numeric host (a name when the address is unresolved) and the port
     */
    static String hostPort(InetSocketAddress address) {
        String host = address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    /**
     * Runs one end as its own process.
     *
     * @param args {@code server PORT [ROUNDS]} or {@code client HOST PORT [ROUNDS]}
     */
    public static void main(String[] args) {
        VerbsProvider provider = Verbs.provider();
        try (Arena arena = Arena.ofShared()) {
            if (args.length >= 2 && args[0].equals("server")) {
                int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
                try (RcListener listener = listen(provider, Integer.parseInt(args[1]))) {
                    System.out.println("listening on " + hostPort(listener.address()));
                    System.out.println("client: " + serve(listener, arena, rounds));
                }
            } else if (args.length >= 3 && args[0].equals("client")) {
                int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 5;
                play(provider, new InetSocketAddress(args[1], Integer.parseInt(args[2])), arena, rounds)
                        .forEach(System.out::println);
            } else {
                System.err.println("usage: server PORT [ROUNDS] | client HOST PORT [ROUNDS]");
            }
        }
    }
}
