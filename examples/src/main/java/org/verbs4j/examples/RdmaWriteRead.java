package org.verbs4j.examples;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.verbs4j.AccessFlags;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.MemoryRegion;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.Verbs;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/*
 * RDMA WRITE and RDMA READ, with the key exchange written out.
 *
 * One-sided operations need, from the remote side, the rkey and the address of a buffer it registered with
 * REMOTE_WRITE / REMOTE_READ access. Here the "server" registers a buffer, publishes {GID, QPN, PSN, rkey,
 * address} (an Endpoint), and the client writes a message into it and reads it back into another place of
 * its own buffer. The server's CPU takes no part: no receive is posted and no completion appears on its side.
 *
 * In two processes the Endpoint records would cross a TCP socket; every value in them is plain data.
 *
 * Run: java -cp "examples/target/classes:$(cat examples/target/classpath.txt)" \
 *          org.verbs4j.examples.RdmaWriteRead [message]
 */
public final class RdmaWriteRead {
    private static final int PORT = 1;
    private static final int SIZE = 4096;
    /** Where in the client's buffer the RDMA READ lands. */
    private static final int READ_BACK_AT = 2048;

    private RdmaWriteRead() {}

    /**
     * What the example leaves behind: the server's buffer after the WRITE, and the client's copy after the READ.
     *
     * @param atServer the text found in the server's buffer
     * @param readBack the text the READ brought back to the client
     */
    record Outcome(String atServer, String readBack) {}

    public static void main(String[] args) {
        String message = args.length > 0 ? args[0] : "hello over RDMA";
        try (Context ctx = Verbs.provider().devices().get(0).open()) {
            Outcome o = run(ctx, message);
            System.out.println("server buffer after RDMA WRITE: " + o.atServer());
            System.out.println("client buffer after RDMA READ:  " + o.readBack());
        }
    }

    static Outcome run(Context ctx, String message) {
        byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        if (bytes.length >= READ_BACK_AT) {
            throw new IllegalArgumentException("message is " + bytes.length + " bytes; at most " + (READ_BACK_AT - 1));
        }
        int gidIndex = Endpoint.preferredGidIndex(ctx, PORT);
        try (Arena arena = Arena.ofConfined();
             ProtectionDomain pd = ctx.allocPd();
             CompletionQueue clientCq = ctx.createCq(16);
             CompletionQueue serverCq = ctx.createCq(16)) {
            MemorySegment clientBuf = arena.allocate(SIZE, 4096);
            MemorySegment serverBuf = arena.allocate(SIZE, 4096);
            // The client's buffer is written by the READ's response: LOCAL_WRITE. The server's is the target of
            // the client's WRITE and READ: REMOTE_WRITE and REMOTE_READ (REMOTE_WRITE needs LOCAL_WRITE too).
            try (MemoryRegion clientMr = pd.registerMemory(clientBuf, AccessFlags.LOCAL_WRITE, arena);
                 MemoryRegion serverMr = pd.registerMemory(serverBuf,
                         AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ, arena);
                 QueuePair client = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(clientCq)
                         .sendOps(WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ).build());
                 QueuePair server = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(serverCq).build())) {

                // --- The exchange. The server sends: its GID, QPN, first PSN, and the rkey and address the
                // client may write to and read from.
                Endpoint fromServer = new Endpoint(ctx.queryGid(PORT, gidIndex), server.qpNum(), 0x2000,
                        serverMr.rkey(), serverMr.address());
                // The client sends its GID, QPN and first PSN; it exposes no buffer, so rkey and address are 0.
                Endpoint fromClient = new Endpoint(ctx.queryGid(PORT, gidIndex), client.qpNum(), 0x1000, 0, 0);

                // Both QPs go RESET -> INIT -> RTR -> RTS with the other's values. Only the server grants remote
                // access; the client's QP is only ever a requester.
                RcConnection.connect(client, PORT, gidIndex, fromClient, fromServer, 0);
                RcConnection.connect(server, PORT, gidIndex, fromServer, fromClient,
                        AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);

                // --- RDMA WRITE: local bytes 0..n of the client's buffer go to the server's address, under its rkey.
                MemorySegment.copy(MemorySegment.ofArray(bytes), 0, clientBuf, 0, bytes.length);
                WorkCompletionBatch wc = new WorkCompletionBatch(1);
                try (WrSession s = client.startWr()) {
                    s.wrId(1);
                    s.wrFlags(SendFlags.SIGNALED);
                    s.rdmaWrite(fromServer.rkey(), fromServer.addr());
                    s.setSge(clientMr.lkey(), clientMr.address(), bytes.length);
                    s.complete();
                }
                // On RC the completion means the server's HCA acknowledged the data.
                Completions.await(clientCq, wc, 1);
                String atServer = new String(serverBuf.asSlice(0, bytes.length).toArray(
                        ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);

                // --- RDMA READ: the same server bytes come back to offset 2048 of the client's buffer.
                try (WrSession s = client.startWr()) {
                    s.wrId(2);
                    s.wrFlags(SendFlags.SIGNALED);
                    s.rdmaRead(fromServer.rkey(), fromServer.addr());
                    s.setSge(clientMr.lkey(), clientMr.address() + READ_BACK_AT, bytes.length);
                    s.complete();
                }
                Completions.await(clientCq, wc, 1);
                String readBack = new String(clientBuf.asSlice(READ_BACK_AT, bytes.length).toArray(
                        ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                if (serverCq.poll(wc) != 0) {
                    throw new IllegalStateException("one-sided operations gave the server a completion: " + wc.get(0));
                }
                return new Outcome(atServer, readBack);
            }
        }
    }
}
