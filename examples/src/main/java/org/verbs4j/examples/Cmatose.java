package org.verbs4j.examples;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import org.verbs4j.AccessFlags;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventType;
import org.verbs4j.MemoryRegion;
import org.verbs4j.RcEndpoint;
import org.verbs4j.RcListener;
import org.verbs4j.RcOptions;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.Verbs;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.spi.VerbsProvider;

/**
 * The peer of rdma-core's {@code ucmatose} ({@code rdmacm-utils}, {@code librdmacm/examples/cmatose.c}) for one
 * connection, so a verbs4j endpoint and the C tool can be run against each other. The exchange, as ucmatose
 * does it: the server, once connected, SENDs {@code count} messages of {@code size} bytes, then waits for as many
 * from the client, then disconnects; the client receives the server's messages, SENDs its own, and disconnects
 * when the server has. No message content is checked (ucmatose sends an unset buffer); the counts, byte lengths
 * and the disconnect handshake are.
 *
 * <p>Run {@code main} as {@code server PORT [COUNT SIZE]} or {@code client HOST PORT [COUNT SIZE]} (ucmatose's
 * defaults: port 7471, 10 messages of 100 bytes); {@code ExamplesTest} runs both ends in one JVM.
 */
public final class Cmatose {
    private Cmatose() {}

    /** How long each wait (a completion, the peer's disconnect) may take, milliseconds. */
    private static final long WAIT_MS = 20_000;

    /** The options: queues deep enough for every message of each direction. */
    static RcOptions options(int count) {
        return RcOptions.defaults().withQueueDepth(Math.max(1, count), Math.max(1, count)).withTimeoutMs(30_000);
    }

    /**
     * The server's side: accept, SEND {@code count} messages, receive as many, disconnect and wait for the
     * client's answer.
     *
     * @return a line saying what was exchanged
     */
    static String serve(RcListener listener, Arena arena, int count, int size) {
        try (RcEndpoint ep = listener.accept()) {
            MemorySegment buf = arena.allocate((long) size * 2, 64);
            MemoryRegion mr = ep.pd().registerMemory(buf, AccessFlags.LOCAL_WRITE, arena);
            try {
                postRecvs(ep, mr, count, size);
                for (int i = 0; i < count; i++) {
                    ep.qp().postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                            .sgList(Sge.of(mr, 0, size)));
                }
                await(ep, count, WcOpcode.SEND, size);
                await(ep, count, WcOpcode.RECV, size);
                ep.disconnect();
                awaitDisconnected(ep);
            } finally {
                mr.close();
            }
        }
        return count + " messages of " + size + " bytes sent and " + count + " received; disconnected";
    }

    /**
     * The client's side: connect, receive the server's {@code count} messages, SEND as many, wait for the
     * server's disconnect and answer it.
     *
     * @return a line saying what was exchanged
     */
    static String play(VerbsProvider provider, InetSocketAddress server, Arena arena, int count, int size) {
        try (RcEndpoint ep = RcEndpoint.connect(provider, server, options(count))) {
            MemorySegment buf = arena.allocate((long) size * 2, 64);
            MemoryRegion mr = ep.pd().registerMemory(buf, AccessFlags.LOCAL_WRITE, arena);
            try {
                // The server may SEND before these are posted: its QP retries on RNR (7: for ever, our connect's).
                postRecvs(ep, mr, count, size);
                await(ep, count, WcOpcode.RECV, size);
                for (int i = 0; i < count; i++) {
                    ep.qp().postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                            .sgList(Sge.of(mr, 0, size)));
                }
                await(ep, count, WcOpcode.SEND, size);
                awaitDisconnected(ep);
            } finally {
                mr.close();
            }
        }
        return count + " messages of " + size + " bytes received and " + count + " sent; disconnected";
    }

    private static void postRecvs(RcEndpoint ep, MemoryRegion mr, int count, int size) {
        for (int i = 0; i < count; i++) {
            ep.qp().postRecv(new RecvWr(1000 + i, Sge.of(mr, size, size)));
        }
    }

    /** Polls {@code count} successful completions of {@code opcode}; a RECV must carry {@code size} bytes. */
    private static void await(RcEndpoint ep, int count, WcOpcode opcode, int size) {
        WorkCompletionBatch batch = new WorkCompletionBatch(1);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        for (int done = 0; done < count; ) {
            if (ep.cq().poll(batch) == 0) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(done + " of " + count + " " + opcode + " completions within "
                            + WAIT_MS + " ms");
                }
                Thread.onSpinWait();
                continue;
            }
            WorkCompletion wc = batch.get(0);
            if (wc.status() != WcStatus.SUCCESS || wc.opcode() != opcode
                    || opcode == WcOpcode.RECV && wc.byteLen() != size) {
                throw new IllegalStateException("expected a " + opcode + " of " + size + " bytes, got " + wc);
            }
            done++;
        }
    }

    /** Waits for the peer's DISCONNECTED on the endpoint's channel (Rping's too). */
    static void awaitDisconnected(RcEndpoint ep) {
        try (CmEvent e = ep.channel().getEvent(WAIT_MS, TimeUnit.MILLISECONDS)) {
            if (e == null || e.type() != CmEventType.DISCONNECTED) {
                throw new IllegalStateException("expected the peer's DISCONNECTED, got " + e);
            }
        }
    }

    /**
     * Runs one end as its own process, against ucmatose or another of these.
     *
     * @param args {@code server PORT [COUNT SIZE]} or {@code client HOST PORT [COUNT SIZE]}
     */
    public static void main(String[] args) {
        VerbsProvider provider = Verbs.provider();
        boolean server = args.length >= 2 && args[0].equals("server");
        boolean client = args.length >= 3 && args[0].equals("client");
        if (!server && !client) {
            System.err.println("usage: server PORT [COUNT SIZE] | client HOST PORT [COUNT SIZE]");
            System.exit(2);
        }
        int extra = server ? 2 : 3;
        int count = args.length > extra ? Integer.parseInt(args[extra]) : 10;
        int size = args.length > extra + 1 ? Integer.parseInt(args[extra + 1]) : 100;
        try (Arena arena = Arena.ofShared()) {
            if (server) {
                try (RcListener listener = RcListener.listen(provider,
                        new InetSocketAddress(Integer.parseInt(args[1])), options(count))) {
                    System.out.println("cmatose server (" + provider.name() + ") listening on " + CmPingPong.hostPort(listener.address()));
                    System.out.println("cmatose server: " + serve(listener, arena, count, size));
                }
            } else {
                System.out.println("cmatose client (" + provider.name() + "): " + play(provider,
                        new InetSocketAddress(args[1], Integer.parseInt(args[2])), arena, count, size));
            }
        }
    }
}
