package org.verbs4j.examples;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
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
 * The peer of rdma-core's {@code rping} ({@code rdmacm-utils}, {@code librdmacm/examples/rping.c}), so a verbs4j
 * endpoint and the C tool can be run against each other. Each ping, as rping does it: the client SENDs the
 * address, rkey and size of its source buffer (16 bytes: a big-endian 64-bit address, 32-bit rkey and 32-bit
 * size); the server RDMA READs the source and SENDs a "go ahead"; the client SENDs its sink buffer; the server
 * RDMA WRITEs what it read there and SENDs a second "go ahead"; the client checks that the sink holds its source
 * (rping's {@code -V}). After the last ping the client disconnects.
 *
 * <p>Run {@code main} as {@code server PORT} or {@code client HOST PORT [COUNT SIZE]} (rping's defaults: port
 * 7174, size 64); {@code ExamplesTest} runs both ends in one JVM.
 */
public final class Rping {
    private Rping() {}

    /** {@code struct rping_rdma_info}: buf, rkey, size, big-endian. */
    static final int INFO_BYTES = 16;
    /** rping's largest ping, bytes ({@code RPING_BUFSIZE} - 1). */
    static final int MAX_SIZE = 64 * 1024 - 1;
    private static final long WAIT_MS = 20_000;
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** rping's queues: 16 send WRs, 2 receive WRs. */
    static RcOptions options() {
        return RcOptions.defaults().withQueueDepth(16, 2).withTimeoutMs(30_000);
    }

    /** The buffers of one end: receive and send slots for the 16-byte messages, then two data buffers. */
    private record Buffers(MemorySegment all, MemoryRegion mr, long recv, long send, long first, long second) {
        static Buffers of(RcEndpoint ep, Arena arena, int size) {
            MemorySegment all = arena.allocate(2L * INFO_BYTES + 2L * size, 64);
            MemoryRegion mr = ep.pd().registerMemory(all, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ
                    | AccessFlags.REMOTE_WRITE, arena);
            return new Buffers(all, mr, 0, INFO_BYTES, 2L * INFO_BYTES, 2L * INFO_BYTES + size);
        }

        void postRecv(RcEndpoint ep) {
            ep.qp().postRecv(new RecvWr(1, Sge.of(mr, recv, INFO_BYTES)));
        }

        /** SENDs the 16-byte info of the data buffer at {@code offset}; a server's "go ahead" is all zeros. */
        void sendInfo(RcEndpoint ep, long offset, int size) {
            all.set(BE64, send, offset < 0 ? 0 : mr.address() + offset);
            all.set(BE32, send + 8, offset < 0 ? 0 : mr.rkey());
            all.set(BE32, send + 12, offset < 0 ? 0 : size);
            ep.qp().postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(mr, send, INFO_BYTES)));
        }
    }

    /**
     * The client's side: connect, then {@code count} pings of {@code size} bytes, each checked, then disconnect.
     *
     * @return a line saying what was checked
     */
    static String play(VerbsProvider provider, InetSocketAddress server, Arena arena, int count, int size) {
        if (size < 26 || size > MAX_SIZE) {
            throw new IllegalArgumentException("size is 26.." + MAX_SIZE + " bytes, as rping's, not " + size);
        }
        try (RcEndpoint ep = RcEndpoint.connect(provider, server, options())) {
            Buffers b = Buffers.of(ep, arena, size);
            List<Done> early = new ArrayList<>();
            try {
                int start = 'A';
                for (int ping = 0; ping < count; ping++) {
                    fill(b.all().asSlice(b.first(), size), ping, start);
                    start = start == 'z' ? 'A' : start + 1;
                    b.postRecv(ep);
                    b.sendInfo(ep, b.first(), size);
                    await(ep, early, WcOpcode.SEND, false);
                    await(ep, early, WcOpcode.RECV, false);
                    b.postRecv(ep);
                    b.sendInfo(ep, b.second(), size);
                    await(ep, early, WcOpcode.SEND, false);
                    await(ep, early, WcOpcode.RECV, false);
                    if (b.all().asSlice(b.first(), size).mismatch(b.all().asSlice(b.second(), size)) >= 0) {
                        throw new IllegalStateException("ping " + ping + ": the sink does not hold the source");
                    }
                }
                ep.disconnect();
                Cmatose.awaitDisconnected(ep);
            } finally {
                b.mr().close();
            }
        }
        return count + " pings of " + size + " bytes checked; disconnected";
    }

    /** rping's ping data: {@code "rdma-ping-N: "}, then letters from {@code start} to 'z' round, then a NUL. */
    private static void fill(MemorySegment buf, int ping, int start) {
        byte[] head = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        int size = (int) buf.byteSize();
        int c = start;
        for (int i = 0; i < size; i++) {
            byte v;
            if (i < head.length) {
                v = head[i];
            } else {
                v = (byte) c;
                c = c == 'z' ? 'A' : c + 1;
            }
            buf.set(ValueLayout.JAVA_BYTE, i, v);
        }
        buf.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);
    }

    /**
     * The server's side: accept one client and answer its pings until it disconnects.
     *
     * @return a line saying how many pings were served
     */
    static String serve(RcListener listener, Arena arena) {
        try (RcEndpoint ep = listener.accept()) {
            Buffers b = Buffers.of(ep, arena, MAX_SIZE);
            List<Done> early = new ArrayList<>();
            int pings = 0;
            try {
                b.postRecv(ep);
                while (true) {
                    if (!await(ep, early, WcOpcode.RECV, true)) {
                        break;
                    }
                    long addr = b.all().get(BE64, b.recv());
                    int rkey = b.all().get(BE32, b.recv() + 8);
                    int len = Math.min(b.all().get(BE32, b.recv() + 12), MAX_SIZE);
                    b.postRecv(ep);
                    ep.qp().postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                            .rdma(addr, rkey).sgList(Sge.of(b.mr(), b.first(), len)));
                    await(ep, early, WcOpcode.RDMA_READ, false);
                    b.sendInfo(ep, -1, 0);
                    await(ep, early, WcOpcode.SEND, false);
                    if (!await(ep, early, WcOpcode.RECV, true)) {
                        break;
                    }
                    long sink = b.all().get(BE64, b.recv());
                    int sinkKey = b.all().get(BE32, b.recv() + 8);
                    b.postRecv(ep);
                    int strlen = 0;
                    while (strlen < len && b.all().get(ValueLayout.JAVA_BYTE, b.first() + strlen) != 0) {
                        strlen++;
                    }
                    ep.qp().postSend(new SendWr().wrId(4).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                            .rdma(sink, sinkKey).sgList(Sge.of(b.mr(), b.first(), Math.min(len, strlen + 1))));
                    await(ep, early, WcOpcode.RDMA_WRITE, false);
                    b.sendInfo(ep, -1, 0);
                    await(ep, early, WcOpcode.SEND, false);
                    pings++;
                }
            } finally {
                b.mr().close();
            }
            return pings + " pings served; the client disconnected";
        }
    }

    /** A completion's fields, kept when it arrives before the one a step waits for. */
    private record Done(WcOpcode opcode, WcStatus status, int byteLen) {}

    /**
     * Polls until a completion of {@code opcode} arrives (or one that came earlier is kept), which must be a
     * success; a RECV must carry 16 bytes. Completions of the other kind are kept: the ACK of a SEND may come
     * after the peer's answer to it.
     *
     * @param ep the endpoint
     * @param early the completions that came before their step
     * @param opcode the kind to wait for
     * @param watchDisconnect whether the peer's DISCONNECTED ends the wait
     * @return false if the peer disconnected first (this side then disconnects too)
     */
    private static boolean await(RcEndpoint ep, List<Done> early, WcOpcode opcode,
                                 boolean watchDisconnect) {
        WorkCompletionBatch batch = new WorkCompletionBatch(1);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (true) {
            for (Iterator<Done> it = early.iterator(); it.hasNext(); ) {
                Done d = it.next();
                if (d.opcode() == opcode) {
                    it.remove();
                    if (d.status() != WcStatus.SUCCESS || opcode == WcOpcode.RECV && d.byteLen() != INFO_BYTES) {
                        throw new IllegalStateException("expected a successful " + opcode + ", got " + d);
                    }
                    return true;
                }
            }
            if (ep.cq().poll(batch) > 0) {
                WorkCompletion wc = batch.get(0);
                if (wc.status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException("WR " + wc.wrId() + " completed with " + wc.status());
                }
                early.add(new Done(wc.opcode(), wc.status(), wc.byteLen()));
                continue;
            }
            if (watchDisconnect) {
                try (CmEvent e = ep.channel().getEvent(1, TimeUnit.MILLISECONDS)) {
                    if (e != null && e.type() == CmEventType.DISCONNECTED) {
                        ep.disconnect();
                        return false;
                    }
                    if (e != null) {
                        throw new IllegalStateException("unexpected " + e);
                    }
                }
            } else {
                Thread.onSpinWait();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no " + opcode + " completion within " + WAIT_MS + " ms");
            }
        }
    }

    /**
     * Runs one end as its own process, against rping or another of these.
     *
     * @param args {@code server PORT} or {@code client HOST PORT [COUNT SIZE]}
     */
    public static void main(String[] args) {
        VerbsProvider provider = Verbs.provider();
        try (Arena arena = Arena.ofShared()) {
            if (args.length >= 2 && args[0].equals("server")) {
                try (RcListener listener = RcListener.listen(provider,
                        new InetSocketAddress(Integer.parseInt(args[1])), options())) {
                    System.out.println("rping server (" + provider.name() + ") listening on " + CmPingPong.hostPort(listener.address()));
                    System.out.println("rping server: " + serve(listener, arena));
                }
            } else if (args.length >= 3 && args[0].equals("client")) {
                int count = args.length > 3 ? Integer.parseInt(args[3]) : 10;
                int size = args.length > 4 ? Integer.parseInt(args[4]) : 64;
                System.out.println("rping client (" + provider.name() + "): " + play(provider,
                        new InetSocketAddress(args[1], Integer.parseInt(args[2])), arena, count, size));
            } else {
                System.err.println("usage: server PORT | client HOST PORT [COUNT SIZE]");
                System.exit(2);
            }
        }
    }
}
