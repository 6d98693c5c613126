package org.verbs4j.provider.jnr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.verbs4j.AccessFlags;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.MemoryRegion;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * The hot paths over a real device (rxe0 in the soft-RoCE VM): a WR-session RDMA WRITE, a postSend RDMA
 * WRITE, and a SEND/RECV round with postRecv, each polled to its completion. Run with {@code -prof gc}:
 * {@code gc.alloc.rate.norm} is the bytes allocated per operation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 5)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class HotPathBenchmark {
    private static final int ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

    private Arena arena;
    private Context ctx;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private QueuePair qp1;
    private QueuePair qp2;
    private MemoryRegion mr;
    private final WorkCompletionBatch batch = new WorkCompletionBatch(16);
    private List<SendWr> writeList;
    private SendWr send;
    private RecvWr recv;

    @Setup(Level.Trial)
    public void connect() {
        JnrProvider provider = new JnrProvider();
        provider.ensureAvailability();
        String wanted = System.getenv().getOrDefault("VERBS4J_RDMA_DEVICE", "rxe0");
        Device device = provider.devices().stream().filter(d -> d.name().equals(wanted)).findFirst()
                .orElse(provider.devices().get(0));
        ctx = device.open();
        pd = ctx.allocPd();
        cq = ctx.createCq(256);
        arena = Arena.ofShared();
        MemorySegment buf = arena.allocate(8192, 4096);
        mr = pd.registerMemory(buf, ACCESS, arena);
        QpInitAttributes attrs = QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(64).maxRecvWr(64)
                .sendOps(WrOpcode.RDMA_WRITE, WrOpcode.SEND).build();
        qp1 = pd.createQp(attrs);
        qp2 = pd.createQp(attrs);
        int gidIndex = Integer.parseInt(System.getenv().getOrDefault("VERBS4J_RDMA_GID_INDEX", "0"));
        AhAttributes av = AhAttributes.roce(ctx.queryGid(1, gidIndex), gidIndex, 1);
        for (QueuePair[] p : new QueuePair[][] {{qp1, qp2}, {qp2, qp1}}) {
            p[0].modify(QpAttributes.toInit(1, 0, ACCESS));
            p[0].modify(QpAttributes.toRtr(av, ctx.queryPort(1).activeMtu(), p[1].qpNum(), 0, 1, 12));
            p[0].modify(QpAttributes.toRts(0, 14, 7, 7, 1));
        }
        writeList = List.of(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(mr.address(), 64, mr.lkey())).rdma(mr.address() + 4096, mr.rkey()));
        send = new SendWr().wrId(3).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(mr.address(), 64, mr.lkey()));
        recv = new RecvWr(4, new Sge(mr.address() + 2048, 64, mr.lkey()));
    }

    @TearDown(Level.Trial)
    public void close() {
        ctx.close();
        arena.close();
    }

    private int drain(int completions) {
        int seen = 0;
        while (seen < completions) {
            seen += cq.poll(batch);
        }
        return seen;
    }

    @Benchmark
    public int wrSessionRdmaWrite() {
        WrSession s = qp1.startWr();
        s.wrId(1);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(mr.rkey(), mr.address() + 4096);
        s.setSge(mr.lkey(), mr.address(), 64);
        s.complete();
        return drain(1);
    }

    @Benchmark
    public int postSendRdmaWrite() {
        qp1.postSend(writeList);
        return drain(1);
    }

    @Benchmark
    public int postRecvSendRecv() {
        qp2.postRecv(recv);
        qp1.postSend(send);
        return drain(2);
    }
}
