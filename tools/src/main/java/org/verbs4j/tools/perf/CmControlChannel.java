package org.verbs4j.tools.perf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayDeque;
import org.verbs4j.AccessFlags;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.CompletionQueue;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Context;
import org.verbs4j.MemoryRegion;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.tools.cli.UsageException;

/**
 * With {@code -R}, the two-process run's out-of-band link is itself an RC QP the connection manager connected,
 * as in perftest's {@code rdma_cm} mode ({@code use_rdma_cm}): each message of {@link PerftestWire} is one SEND
 * into one of the peer's posted receives (the keys as perftest's binary {@code struct pingpong_dest}), and the
 * test QPs' connect requests then go to the same port. No TCP connection is made.
 */
final class CmControlChannel implements ControlChannel {
    /** The largest message of the handshake, bytes ({@link PerftestWire#KEY_BYTES_GID} and the others fit). */
    private static final int SLOT = 256;
    /** Receives kept posted: a message that arrives before the previous one is read still finds one. */
    private static final int RECVS = 4;
    /** How long a control message or its SEND completion may take, milliseconds. */
    private static final long WAIT_MS = 30_000;

    private final CmLink link;
    private final CmId id;
    private final boolean client;
    private final Arena arena = Arena.ofShared();
    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final MemorySegment buffer;
    private final MemoryRegion mr;
    private final QueuePair qp;
    private final WorkCompletionBatch batch = new WorkCompletionBatch(1);
    /** Receive completions taken by {@link #hasInput} and not yet read. */
    private final ArrayDeque<int[]> arrived = new ArrayDeque<>();

    private CmControlChannel(CmLink link, CmId id, boolean client) {
        this.link = link;
        this.id = id;
        this.client = client;
        Context c = id.context();
        this.pd = c.allocPd();
        this.sendCq = c.createCq(RECVS);
        this.recvCq = c.createCq(RECVS);
        this.buffer = arena.allocate((long) SLOT * (RECVS + 1), 4096);
        this.mr = pd.registerMemory(buffer, AccessFlags.LOCAL_WRITE, arena);
        this.qp = id.createQp(pd, QpInitAttributes.builder(QpType.RC).sendCq(sendCq).recvCq(recvCq)
                .maxSendWr(RECVS).maxRecvWr(RECVS).maxSendSge(1).maxRecvSge(1).build());
        for (int i = 0; i < RECVS; i++) {
            postRecv(i);
        }
    }

    /**
     * Listens on {@code port} of every device, as perftest's server, runs {@code listening} once
     * {@code rdma_listen} has returned, and takes the first connect request, however long the client takes.
     */
    static CmControlChannel accept(CmLink link, int port, Runnable listening) {
        link.listen(new InetSocketAddress(port));
        listening.run();
        CmControlChannel[] made = new CmControlChannel[1];
        CmId id = link.accept(x -> (made[0] = new CmControlChannel(link, x, false)).qp, parameters(), 0);
        link.await(id, CmEventType.ESTABLISHED, "rdma_accept of the control connection");
        return made[0];
    }

    /** Connects to a server's listener. */
    static CmControlChannel connect(CmLink link, String host, int port) {
        InetSocketAddress dst;
        try {
            dst = new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new UsageException("unknown host '" + host + "'", e);
        }
        CmControlChannel[] made = new CmControlChannel[1];
        link.connectRetrying(dst, x -> (made[0] = new CmControlChannel(link, x, true)).qp, parameters(), () -> {
            if (made[0] != null) {
                made[0].close();
                made[0] = null;
            }
        }, "rdma_connect of the control connection");
        return made[0];
    }

    private static ConnectionParameters parameters() {
        return new ConnectionParameters(new byte[0], 0, 0, 7, 7);
    }

    /** The id of the control connection: its context is the one the test's endpoint stands on. */
    CmId id() {
        return id;
    }

    /** The server's address as the client reached it, for the test QPs' connect requests. */
    InetSocketAddress peer() {
        return id.remoteAddress();
    }

    private void postRecv(int slot) {
        qp.postRecv(new RecvWr(slot, Sge.of(mr, (long) (slot + 1) * SLOT, SLOT)));
    }

    @Override
    public boolean isClient() {
        return client;
    }

    @Override
    public void write(byte[] msg) {
        if (msg.length > SLOT) {
            throw new IllegalArgumentException("a control message of " + msg.length + " bytes is over " + SLOT);
        }
        MemorySegment.copy(msg, 0, buffer, ValueLayout.JAVA_BYTE, 0, msg.length);
        qp.postSend(new SendWr().wrId(RECVS).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(mr, 0, msg.length)));
        WorkCompletion wc = take(sendCq, WAIT_MS, "the control SEND");
        if (wc.status() != WcStatus.SUCCESS) {
            throw new UsageException("the control connection's SEND failed: " + wc.status());
        }
    }

    @Override
    public byte[] read(int n) {
        int[] got = arrived.isEmpty() ? receive(WAIT_MS) : arrived.poll();
        if (got == null) {
            throw new UsageException("no control message from the peer within " + WAIT_MS + " ms");
        }
        int slot = got[0];
        int len = got[1];
        if (len != n) {
            throw new UsageException("the peer sent a control message of " + len + " bytes where " + n
                    + " were expected; does it run the same test with the same flags?");
        }
        byte[] b = new byte[n];
        MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, (long) (slot + 1) * SLOT, b, 0, n);
        postRecv(slot);
        return b;
    }

    /** {slot, bytes} of the next receive, or null if none completed within the time. */
    private int[] receive(long millis) {
        WorkCompletion wc = take(recvCq, millis, null);
        if (wc == null) {
            return null;
        }
        if (wc.status() != WcStatus.SUCCESS || wc.opcode() != WcOpcode.RECV) {
            throw new UsageException("the control connection's receive ended with " + wc.status()
                    + "; the peer is gone");
        }
        return new int[] {(int) wc.wrId(), wc.byteLen()};
    }

    private WorkCompletion take(CompletionQueue cq, long millis, String what) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (true) {
            if (cq.poll(batch) > 0) {
                return batch.get(0);
            }
            if (System.nanoTime() - deadline > 0) {
                if (what == null) {
                    return null;
                }
                throw new UsageException("no completion of " + what + " within " + millis + " ms");
            }
            Thread.onSpinWait();
        }
    }

    @Override
    public boolean hasInput() {
        if (arrived.isEmpty()) {
            int[] got = receive(0);
            if (got != null) {
                arrived.add(got);
            }
        }
        return !arrived.isEmpty();
    }

    /** Nothing: perftest's {@code -R} ends after its last sync, with no "done" ({@code ctx_close_connection}). */
    @Override
    public void done() {
    }

    @Override
    public void close() {
        try {
            id.destroyQp();
            mr.close();
            recvCq.close();
            sendCq.close();
            pd.close();
        } finally {
            arena.close();
        }
    }
}
