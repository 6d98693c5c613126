package org.verbs4j.examples;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.verbs4j.AccessFlags;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.MemoryRegion;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.Sge;
import org.verbs4j.Verbs;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/*
 * RC ping-pong: two RC QPs on one device, connected to each other, trade SEND messages. The client sends
 * "ping i", the server receives it and answers "pong i", for a few rounds.
 *
 * What it shows:
 * - a receive is posted (postRecv) before the message that needs it arrives, or the sender gets RNR NAKs;
 * - SEND goes through a WR session (startWr ... complete) and is SIGNALED, so it gives a send completion;
 * - each QP has its own send CQ and receive CQ, and the byte count of a receive is WorkCompletionBatch.byteLen.
 *
 * Run: java -cp "examples/target/classes:$(cat examples/target/classpath.txt)" \
 *          org.verbs4j.examples.RcPingPong [rounds]
 */
public final class RcPingPong {
    private static final int PORT = 1;
    private static final int SLOT = 64;
    private static final int SEND_AT = 0;
    private static final int RECV_AT = SLOT;

    private RcPingPong() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        try (Context ctx = Verbs.provider().devices().get(0).open()) {
            for (String line : run(ctx, rounds)) {
                System.out.println(line);
            }
        }
    }

    /** Plays {@code rounds} rounds and returns what each side received, in order ("server got ping 0", ...). */
    static List<String> run(Context ctx, int rounds) {
        List<String> log = new ArrayList<>();
        int gidIndex = Endpoint.preferredGidIndex(ctx, PORT);
        try (Arena arena = Arena.ofConfined();
             ProtectionDomain pd = ctx.allocPd();
             Side client = new Side(ctx, pd, arena);
             Side server = new Side(ctx, pd, arena)) {
            // The exchange: each side's GID, QPN and first PSN (no rkey: SEND needs no remote access).
            Endpoint c = new Endpoint(ctx.queryGid(PORT, gidIndex), client.qp.qpNum(), 100, 0, 0);
            Endpoint s = new Endpoint(ctx.queryGid(PORT, gidIndex), server.qp.qpNum(), 200, 0, 0);
            RcConnection.connect(client.qp, PORT, gidIndex, c, s, 0);
            RcConnection.connect(server.qp, PORT, gidIndex, s, c, 0);

            for (int i = 0; i < rounds; i++) {
                client.postRecv(i);
                server.postRecv(i);
                client.send(i, "ping " + i);
                log.add("server got " + server.receive());
                server.send(i, "pong " + i);
                log.add("client got " + client.receive());
            }
        }
        return log;
    }

    /** One QP with its CQs and a registered buffer: bytes 0..63 to send from, 64..127 to receive into. */
    private static final class Side implements AutoCloseable {
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        final MemorySegment buf;
        final MemoryRegion mr;
        final QueuePair qp;
        final WorkCompletionBatch wc = new WorkCompletionBatch(1);

        Side(Context ctx, ProtectionDomain pd, Arena arena) {
            sendCq = ctx.createCq(16);
            recvCq = ctx.createCq(16);
            buf = arena.allocate(2 * SLOT, 64);
            mr = pd.registerMemory(buf, AccessFlags.LOCAL_WRITE, arena);
            qp = pd.createQp(QpInitAttributes.builder(QpType.RC).sendCq(sendCq).recvCq(recvCq)
                    .sendOps(WrOpcode.SEND).build());
        }

        void postRecv(long wrId) {
            qp.postRecv(new RecvWr(wrId, Sge.of(mr, RECV_AT, SLOT)));
        }

        void send(long wrId, String text) {
            byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
            MemorySegment.copy(bytes, 0, buf, ValueLayout.JAVA_BYTE, SEND_AT, bytes.length);
            try (WrSession s = qp.startWr()) {
                s.wrId(wrId);
                s.wrFlags(SendFlags.SIGNALED);
                s.send();
                s.setSge(mr.lkey(), mr.address() + SEND_AT, bytes.length);
                s.complete();
            }
            // The send buffer belongs to the device until its completion is polled.
            Completions.await(sendCq, wc, 1);
        }

        String receive() {
            Completions.await(recvCq, wc, 1);
            byte[] got = buf.asSlice(RECV_AT, wc.byteLen(0)).toArray(ValueLayout.JAVA_BYTE);
            return new String(got, StandardCharsets.US_ASCII);
        }

        @Override
        public void close() {
            qp.close();
            mr.close();
            recvCq.close();
            sendCq.close();
        }
    }
}
