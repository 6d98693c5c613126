package org.verbs4j.provider.ffm;

import java.lang.foreign.Arena;
import java.lang.reflect.Method;
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
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * Measures the bytes the hot paths allocate per operation on a real device (the soft-RoCE VM), with
 * the thread allocation counter of {@code com.sun.management.ThreadMXBean}: a WR session
 * (start, wrId, wrFlags, rdmaWrite, setSge, complete), {@code postSend} of a reused list,
 * {@code postRecv} of a reused WR, and {@code poll}. A stand-in for the JMH {@code -prof gc} run where
 * JMH is too slow to run (qemu/TCG); it prints figures and asserts nothing.
 *
 * <p>{@code java --enable-native-access=ALL-UNNAMED -cp ... org.verbs4j.provider.ffm.AllocationCheck [warmup] [measured]}
 */
public final class AllocationCheck {
    private AllocationCheck() {}

    interface Op {
        void run();
    }

    public static void main(String[] args) throws ReflectiveOperationException {
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int measured = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        FfmProvider provider = new FfmProvider();
        provider.ensureAvailability();
        // Reflection: the test classes compile inside the provider's module, which does not read jdk.management.
        Object mx = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        Method allocated = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        try (Context ctx = provider.devices().get(0).open(); Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(256);
            int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
            MemoryRegion src = pd.registerMemory(arena.allocate(4096, 4096), access, arena);
            MemoryRegion dst = pd.registerMemory(arena.allocate(4096, 4096), access, arena);
            QpInitAttributes attrs = QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(128).maxRecvWr(128)
                    .sendOps(WrOpcode.RDMA_WRITE, WrOpcode.SEND).build();
            QueuePair a = pd.createQp(attrs);
            QueuePair b = pd.createQp(attrs);
            FfmRxeLoopbackTest.connect(ctx, a, b);
            WorkCompletionBatch batch = new WorkCompletionBatch(16);
            int lkey = src.lkey();
            int rkey = dst.rkey();
            long from = src.address();
            long to = dst.address();
            SendWr write = new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(from, 64, lkey)).rdma(to, rkey);
            List<SendWr> writes = List.of(write);
            SendWr send = new SendWr().wrId(3).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(from, 64, lkey));
            RecvWr recv = new RecvWr(4, new Sge(to, 64, dst.lkey()));

            Op session = () -> {
                WrSession s = a.startWr();
                s.wrId(1);
                s.wrFlags(SendFlags.SIGNALED);
                s.rdmaWrite(rkey, to);
                s.setSge(lkey, from, 64);
                s.complete();
                drain(cq, batch, 1);
            };
            Op postSend = () -> {
                a.postSend(writes);
                drain(cq, batch, 1);
            };
            Op sendRecv = () -> {
                b.postRecv(recv);
                a.postSend(send);
                drain(cq, batch, 2);
            };
            for (var e : List.of(java.util.Map.entry("WrSession rdmaWrite+setSge+complete, poll", session),
                    java.util.Map.entry("postSend(List) RDMA_WRITE, poll", postSend),
                    java.util.Map.entry("postRecv + postSend SEND, poll x2", sendRecv))) {
                for (int i = 0; i < warmup; i++) {
                    e.getValue().run();
                }
                long before = (long) allocated.invoke(mx);
                long t0 = System.nanoTime();
                for (int i = 0; i < measured; i++) {
                    e.getValue().run();
                }
                long t1 = System.nanoTime();
                long bytes = (long) allocated.invoke(mx) - before;
                System.out.printf("%-45s %10.3f bytes/op  (%d ops after %d warm-up; %.1f us/op in this VM)%n",
                        e.getKey(), (double) bytes / measured, measured, warmup, (t1 - t0) / 1000.0 / measured);
            }
        }
    }

    private static void drain(CompletionQueue cq, WorkCompletionBatch batch, int n) {
        int got = 0;
        while (got < n) {
            int k = cq.poll(batch);
            for (int i = 0; i < k; i++) {
                if (batch.status(i) != WcStatus.SUCCESS) {
                    throw new IllegalStateException("completion failed: " + batch.get(i));
                }
            }
            got += k;
        }
    }
}
