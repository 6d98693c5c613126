package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Gid;
import org.verbs4j.MemoryRegion;
import org.verbs4j.Mtu;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * The loopback example: two RC QPs, connected the way two processes connect (exchange QPN, PSN, GID,
 * rkey and address, then RTR and RTS), doing an RDMA WRITE, an RDMA READ, a SEND/RECV and two atomics,
 * and checking the bytes each time.
 */
class LoopbackExampleTest {
    private static final int ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;

    @Test
    void writeReadSendAndAtomicsBetweenTwoQps() {
        try (Arena arena = Arena.ofConfined();
             Context ctx = new EmulatedProvider().devices().get(0).open()) {
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(16);
            MemorySegment local = arena.allocate(4096, 8);
            MemorySegment remote = arena.allocate(4096, 8);
            MemoryRegion localMr = pd.registerMemory(local, ACCESS, arena);
            MemoryRegion remoteMr = pd.registerMemory(remote, ACCESS, arena);

            QpInitAttributes init = QpInitAttributes.builder(QpType.RC).cq(cq)
                    .sendOps(WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ, WrOpcode.SEND,
                            WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.ATOMIC_CMP_AND_SWP)
                    .build();
            QueuePair client = pd.createQp(init);
            QueuePair server = pd.createQp(init);

            // What each side would send the other out of band.
            Gid gid = ctx.queryGid(1, 1);
            connect(client, server.qpNum(), gid);
            connect(server, client.qpNum(), gid);
            WorkCompletionBatch wc = new WorkCompletionBatch(1);

            // RDMA WRITE: "hello, remote" lands in the server's buffer.
            byte[] hello = "hello, remote".getBytes(StandardCharsets.US_ASCII);
            MemorySegment.copy(MemorySegment.ofArray(hello), 0, local, 0, hello.length);
            try (WrSession s = client.startWr()) {
                s.wrId(1);
                s.wrFlags(SendFlags.SIGNALED);
                s.rdmaWrite(remoteMr.rkey(), remoteMr.address());
                s.setSge(localMr.lkey(), localMr.address(), hello.length);
                s.complete();
            }
            expect(cq, wc, 1, WcStatus.SUCCESS);
            assertEquals("hello, remote", remote.getString(0, StandardCharsets.US_ASCII));

            // RDMA READ: the server's bytes 0..12 come back into the client's buffer at 1024.
            try (WrSession s = client.startWr()) {
                s.wrId(2);
                s.rdmaRead(remoteMr.rkey(), remoteMr.address());
                s.setSge(localMr.lkey(), localMr.address() + 1024, hello.length + 1);
                s.complete();
            }
            expect(cq, wc, 2, WcStatus.SUCCESS);
            assertEquals("hello, remote", local.getString(1024, StandardCharsets.US_ASCII));

            // SEND/RECV: the server posts a receive first.
            server.postRecv(new RecvWr(3, Sge.of(remoteMr, 2048, 64)));
            local.set(ValueLayout.JAVA_LONG_UNALIGNED, 512, 0x0123456789abcdefL);
            try (WrSession s = client.startWr()) {
                s.wrId(4);
                s.send();
                s.setSge(localMr.lkey(), localMr.address() + 512, 8);
                s.complete();
            }
            // The send and the receive complete on the same CQ, in either order.
            WorkCompletionBatch both = new WorkCompletionBatch(2);
            assertEquals(2, cq.poll(both));
            int recv = both.wrId(0) == 3 ? 0 : 1;
            assertEquals(3, both.wrId(recv));
            assertEquals(4, both.wrId(1 - recv));
            assertEquals(WcStatus.SUCCESS, both.status(0));
            assertEquals(WcStatus.SUCCESS, both.status(1));
            assertEquals(8, both.byteLen(recv));
            assertEquals(0x0123456789abcdefL, remote.get(ValueLayout.JAVA_LONG_UNALIGNED, 2048));

            // Atomics on an 8-byte-aligned remote word; the original value comes back to the local buffer.
            remote.set(ValueLayout.JAVA_LONG, 3072, 40);
            try (WrSession s = client.startWr()) {
                s.wrId(5);
                s.atomicFetchAdd(remoteMr.rkey(), remoteMr.address() + 3072, 2);
                s.setSge(localMr.lkey(), localMr.address() + 3072, 8);
                s.wrId(6);
                s.atomicCmpSwp(remoteMr.rkey(), remoteMr.address() + 3072, 42, 7);
                s.setSge(localMr.lkey(), localMr.address() + 3080, 8);
                s.complete();
            }
            expect(cq, wc, 5, WcStatus.SUCCESS);
            expect(cq, wc, 6, WcStatus.SUCCESS);
            assertEquals(40, local.get(ValueLayout.JAVA_LONG, 3072));
            assertEquals(42, local.get(ValueLayout.JAVA_LONG, 3080));
            assertEquals(7, remote.get(ValueLayout.JAVA_LONG, 3072));
        }
    }

    private static void connect(QueuePair qp, int remoteQpn, Gid remoteGid) {
        qp.modify(QpAttributes.toInit(1, 0, AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
                | AccessFlags.REMOTE_ATOMIC));
        qp.modify(QpAttributes.toRtr(AhAttributes.roce(remoteGid, 1, 1), Mtu.MTU_1024, remoteQpn, 0, 1, 12));
        qp.modify(QpAttributes.toRts(0, 14, 7, 7, 1));
    }

    private static void expect(CompletionQueue cq, WorkCompletionBatch wc, long wrId, WcStatus status) {
        assertEquals(1, cq.poll(wc), "no completion for WR " + wrId);
        assertEquals(wrId, wc.wrId(0));
        assertEquals(status, wc.status(0));
    }
}
