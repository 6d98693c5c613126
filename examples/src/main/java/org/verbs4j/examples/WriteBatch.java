package org.verbs4j.examples;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.verbs4j.AccessFlags;
import org.verbs4j.Capabilities;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.MemoryRegion;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.Verbs;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/*
 * A batch of RDMA WRITEs posted at once: through a WR session (ibv_wr_start ... ibv_wr_complete) when the
 * device offers it for the QP type and opcode, else through postSend with a list of SendWr (ibv_post_send).
 *
 * What it shows:
 * - the choice is made on the device's capabilities, as data: Capabilities.wrSession() and
 *   Capabilities.supports(QpType.RC, WrOpcode.RDMA_WRITE); a QP created with sendOps the device cannot
 *   support fails at creation, so only ask for them when the session path will be used;
 * - a whole batch goes to the device in one call: complete() posts every WR built since startWr(), or none;
 * - only the last WR is SIGNALED. RC completes in order, so its completion means the whole batch is done,
 *   and one poll replaces one per WR (keep a signaled WR at least every send-queue depth).
 *
 * Run: java -cp "examples/target/classes:$(cat examples/target/classpath.txt)" \
 *          org.verbs4j.examples.WriteBatch [batch size] [--post-send]
 *      (--post-send takes the fallback path even where sessions are available)
 */
public final class WriteBatch {
    private static final int PORT = 1;
    private static final int SLOT = 64;

    private WriteBatch() {}

    /**
     * What the batch did.
     *
     * @param api "WR session" or "postSend"
     * @param slots the first byte of each slot of the remote buffer after the batch (slot i was written with i+1)
     * @param completions the completions polled for the whole batch
     */
    record Outcome(String api, byte[] slots, int completions) {}

    public static void main(String[] args) {
        int batch = 16;
        boolean forcePostSend = false;
        for (String a : args) {
            if (a.equals("--post-send")) {
                forcePostSend = true;
            } else {
                batch = Integer.parseInt(a);
            }
        }
        try (Context ctx = Verbs.provider().devices().get(0).open()) {
            Outcome o = run(ctx, batch, forcePostSend);
            System.out.println("posted " + batch + " RDMA WRITEs through " + o.api() + ", polled " + o.completions()
                    + " completion(s)");
            StringBuilder slots = new StringBuilder();
            for (byte b : o.slots()) {
                slots.append(' ').append(b);
            }
            System.out.println("first byte of each remote slot:" + slots);
        }
    }

    static Outcome run(Context ctx, int batch, boolean forcePostSend) {
        if (batch < 1 || batch > 32) {
            throw new IllegalArgumentException("batch size is 1..32 (the send queue here has 64 entries): " + batch);
        }
        Capabilities caps = ctx.capabilities();
        boolean session = !forcePostSend && caps.wrSession() && caps.supports(QpType.RC, WrOpcode.RDMA_WRITE);
        int gidIndex = Endpoint.preferredGidIndex(ctx, PORT);
        try (Arena arena = Arena.ofConfined();
             ProtectionDomain pd = ctx.allocPd();
             CompletionQueue cq = ctx.createCq(64);
             CompletionQueue serverCq = ctx.createCq(16)) {
            MemorySegment local = arena.allocate((long) batch * SLOT, 64);
            MemorySegment remote = arena.allocate((long) batch * SLOT, 64);
            for (int i = 0; i < batch; i++) {
                local.asSlice((long) i * SLOT, SLOT).fill((byte) (i + 1));
            }
            QpInitAttributes.Builder clientAttrs = QpInitAttributes.builder(QpType.RC).cq(cq);
            if (session) {
                clientAttrs.sendOps(WrOpcode.RDMA_WRITE);
            }
            try (MemoryRegion localMr = pd.registerMemory(local, 0, arena);
                 MemoryRegion remoteMr = pd.registerMemory(remote,
                         AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE, arena);
                 QueuePair client = pd.createQp(clientAttrs.build());
                 QueuePair server = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(serverCq).build())) {
                Endpoint toServer = Endpoint.of(ctx, PORT, gidIndex, server, 11, remoteMr);
                Endpoint toClient = new Endpoint(ctx.queryGid(PORT, gidIndex), client.qpNum(), 12, 0, 0);
                RcConnection.connect(client, PORT, gidIndex, toClient, toServer, 0);
                RcConnection.connect(server, PORT, gidIndex, toServer, toClient, AccessFlags.REMOTE_WRITE);

                if (session) {
                    try (WrSession s = client.startWr()) {
                        for (int i = 0; i < batch; i++) {
                            s.wrId(i);
                            s.wrFlags(i == batch - 1 ? SendFlags.SIGNALED : 0);
                            s.rdmaWrite(toServer.rkey(), toServer.addr() + (long) i * SLOT);
                            s.setSge(localMr.lkey(), localMr.address() + (long) i * SLOT, SLOT);
                        }
                        s.complete();
                    }
                } else {
                    List<SendWr> wrs = new ArrayList<>(batch);
                    for (int i = 0; i < batch; i++) {
                        wrs.add(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE)
                                .sendFlags(i == batch - 1 ? SendFlags.SIGNALED : 0)
                                .rdma(toServer.addr() + (long) i * SLOT, toServer.rkey())
                                .sgList(Sge.of(localMr, (long) i * SLOT, SLOT)));
                    }
                    // Stops at the first WR the device refuses (PostSendException names it); those before it stay posted.
                    client.postSend(wrs);
                }
                WorkCompletionBatch wc = new WorkCompletionBatch(4);
                Completions.await(cq, wc, 1);
                if (wc.wrId(0) != batch - 1) {
                    throw new IllegalStateException("expected the last WR's completion, got WR " + wc.wrId(0));
                }
                byte[] slots = new byte[batch];
                for (int i = 0; i < batch; i++) {
                    slots[i] = remote.get(ValueLayout.JAVA_BYTE, (long) i * SLOT);
                }
                return new Outcome(session ? "WR session" : "postSend", slots, wc.size());
            }
        }
    }
}
