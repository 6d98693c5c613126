package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
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
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.emulated.wire.RoceConfig;
import org.verbs4j.provider.emulated.wire.RoceEndpoint;

/**
 * Two JVMs doing RDMA over RoCE v2: this one's {@code roce0} (127.0.79.1) and a child JVM's {@code roce0}
 * (127.0.79.3). They exchange QPN, rkey and address on the child's stdin and stdout, as two processes would
 * over TCP; then this side SENDs into a posted receive, WRITEs and READs, and both sides check the bytes.
 */
@Tag("wire")
class WireTwoProcessTest {
    static final int SIZE = 128 * 1024;
    static final int LEN = 20_000;
    static final long WRITE_AT = 32768;
    static final long READ_AT = 100_000;
    static final int ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

    static void pattern(MemorySegment s, long off, int len, long seed) {
        Random r = new Random(seed);
        for (int i = 0; i < len; i++) {
            s.set(ValueLayout.JAVA_BYTE, off + i, (byte) r.nextInt());
        }
    }

    static boolean hasPattern(MemorySegment s, long off, int len, long seed) {
        Random r = new Random(seed);
        for (int i = 0; i < len; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, off + i) != (byte) r.nextInt()) {
                return false;
            }
        }
        return true;
    }

    static void connect(QueuePair qp, Gid peer, int peerQpn) {
        qp.modify(QpAttributes.toInit(1, 0, AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ));
        qp.modify(QpAttributes.toRtr(AhAttributes.roce(peer, 1, 1), Mtu.MTU_1024, peerQpn, 0, 1, 12));
        qp.modify(QpAttributes.toRts(0, 18, 7, 7, 1));
    }

    static WcStatus one(CompletionQueue cq, WorkCompletionBatch wc) {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                return wc.status(0);
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion within 20 s");
    }

    @Test
    @DisplayName("RC SEND, RDMA WRITE and RDMA READ between two JVMs move the right bytes")
    void twoJvms() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Child.class.getName()).redirectError(ProcessBuilder.Redirect.INHERIT);
        // The child's device on this JVM's port (a free one the build's port 0 picked): peers share one port.
        int port = RoceEndpoint.of(new EmulatedProvider().device("roce0")).localPort;
        pb.environment().put(RoceConfig.ENV, "127.0.79.3:" + port);
        Process child = pb.start();
        try (Arena arena = Arena.ofShared();
             Context ctx = new EmulatedProvider().device("roce0").open();
             BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
             PrintStream out = new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8)) {
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(16);
            MemorySegment buf = arena.allocate(SIZE, 64);
            MemoryRegion mr = pd.registerMemory(buf, ACCESS, arena);
            QueuePair qp = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq).build());
            String[] peer = in.readLine().split(" ");
            int peerQpn = Integer.parseInt(peer[0]);
            int rkey = Integer.parseUnsignedInt(peer[1]);
            long addr = Long.parseLong(peer[2]);
            out.println(qp.qpNum());
            connect(qp, Gid.ofIpv4(new byte[] {127, 0, 79, 3}), peerQpn);
            WorkCompletionBatch wc = new WorkCompletionBatch(1);

            pattern(buf, 0, LEN, 1);
            qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(mr, 0, LEN)));
            assertEquals(WcStatus.SUCCESS, one(cq, wc));
            assertEquals("recv ok", in.readLine());
            qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .rdma(addr + WRITE_AT, rkey).sgList(Sge.of(mr, 0, LEN)));
            assertEquals(WcStatus.SUCCESS, one(cq, wc));
            qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .rdma(addr + READ_AT, rkey).sgList(Sge.of(mr, 65536, LEN)));
            assertEquals(WcStatus.SUCCESS, one(cq, wc));
            assertEquals(true, hasPattern(buf, 65536, LEN, 2), "the READ brought the child's bytes");
            out.println("check");
            assertEquals("write ok", in.readLine());
        } finally {
            if (!child.waitFor(20, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
        assertEquals(0, child.exitValue());
    }

    /** The other JVM: a receive, a region to WRITE and READ, and the checks of what arrived. */
    public static final class Child {
        private Child() {}

        public static void main(String[] args) throws Exception {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            List<org.verbs4j.Device> devices = new EmulatedProvider().devices();
            try (Arena arena = Arena.ofShared();
                 Context ctx = new EmulatedProvider().device("roce0").open()) {
                ProtectionDomain pd = ctx.allocPd();
                CompletionQueue cq = ctx.createCq(16);
                MemorySegment buf = arena.allocate(SIZE, 64);
                MemoryRegion mr = pd.registerMemory(buf, ACCESS, arena);
                QueuePair qp = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq).build());
                pattern(buf, READ_AT, LEN, 2);
                System.out.println(qp.qpNum() + " " + Integer.toUnsignedString(mr.rkey()) + " " + mr.address());
                int peerQpn = Integer.parseInt(in.readLine().trim());
                connect(qp, Gid.ofIpv4(new byte[] {127, 0, 79, 1}), peerQpn);
                // A SEND that arrives before this receive meets an RNR NAK and is retried.
                qp.postRecv(new RecvWr(1, Sge.of(mr, 0, LEN)));
                WorkCompletionBatch wc = new WorkCompletionBatch(1);
                WcStatus s = one(cq, wc);
                System.out.println(s == WcStatus.SUCCESS && wc.byteLen(0) == LEN && hasPattern(buf, 0, LEN, 1)
                        ? "recv ok" : "recv bad " + s + " " + devices);
                in.readLine();
                System.out.println(hasPattern(buf, WRITE_AT, LEN, 1) ? "write ok" : "write bad");
            }
        }
    }
}
