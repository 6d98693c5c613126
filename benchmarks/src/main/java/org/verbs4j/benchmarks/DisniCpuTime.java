package org.verbs4j.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.RdmaVerbs;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostSend;

/**
 * DiSNI (IBM's JNI verbs binding, {@code com.ibm.disni:disni}) posting {@link WriteStream}'s stream on the null
 * libibverbs, by thread CPU time per WR: the DiSNI companion of {@link NullverbsCpuTime} and {@code post_rate -c}
 * (issue 30). It needs DiSNI's native library built by {@code benchmarks/c/build-disni}, on
 * {@code java.library.path}, and the null libibverbs and null librdmacm on {@code LD_LIBRARY_PATH}.
 *
 * <p>The stream is {@link WriteStream}'s: WR {@code n} has wr_id {@code n}, writes {@value WriteStream#MESSAGE}
 * bytes from offset {@code (n % 32) * 64} of the source buffer to the same offset of the destination (one SGE), is
 * signaled when {@code n % 32 == 31}, and the CQ is polled (DiSNI's stateful {@code SVCPollCq}, 16 entries) before
 * a batch would overrun the 256-deep send queue. The WRs are posted with DiSNI's stateful {@code SVCPostSend}, made
 * once for the batch and re-executed; before each execution every WR's wr_id, send flags, remote address and SGE
 * address are rewritten through DiSNI's modifier objects, the same four fields {@code post_rate}'s
 * {@code post_send_batch} rewrites in its {@code ibv_send_wr} list:
 * <ul>
 *   <li>{@code disniKept}: the modifiers ({@code SendWRMod}, its {@code RdmaMod} and {@code SgeMod}) fetched once
 *       and kept;</li>
 *   <li>{@code disniFetched}: fetched again for every WR of every post ({@code getWrMod(i)}, {@code getRdmaMod()},
 *       {@code getSgeMod(0)}), as DiSNI's own examples do.</li>
 * </ul>
 * DiSNI reaches its context through an {@code rdma_cm_id}: the null librdmacm gives every id null0's context and
 * creates its QP in RTS. The QP has no peer (null0 completes a WRITE without one).
 *
 * <p>Per configuration: {@code WARMUP_MS} of wall time, then {@code ITERS} iterations of at least {@code ITER_MS}
 * of thread CPU time, the clock read every 64 operations of 32 WRs. Each API's rows run in a JVM of their own
 * ({@link ApiFork}), as {@link NullverbsCpuTime}'s do; {@code APIS} (comma-separated) runs just those in this JVM.
 * Writes JSON in {@code post_rate}'s shape.
 *
 * <pre>java -Djava.library.path=benchmarks/target/disni -cp benchmarks.jar org.verbs4j.benchmarks.DisniCpuTime
 *     OUT.json [WARMUP_MS ITERS ITER_MS [APIS]]</pre>
 */
public final class DisniCpuTime {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final int OPS_PER_CHECK = 64;
    private static final int WRS = 32;
    private static final int SIGNALED = IbvSendWR.IBV_SEND_SIGNALED;

    private DisniCpuTime() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length < 1) {
            System.err.println("usage: DisniCpuTime OUT.json [WARMUP_MS ITERS ITER_MS [APIS]]");
            System.exit(2);
        }
        long warmupMs = args.length > 1 ? Long.parseLong(args[1]) : 1000;
        int iters = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        long iterNs = (args.length > 3 ? Long.parseLong(args[3]) : 200) * 1_000_000L;
        List<String> apis = List.of("disniKept", "disniFetched");
        List<String> results = new ArrayList<>();
        if (args.length > 4) {
            try (Device dev = new Device()) {
                for (String api : args[4].split(",")) {
                    if (!apis.contains(api)) {
                        throw new IllegalArgumentException("no API " + api + "; one of " + apis);
                    }
                    for (int batch : new int[] {1, 8, 32}) {
                        results.add(post(dev, api, batch, warmupMs, iters, iterNs));
                    }
                }
            }
        } else {
            for (String api : apis) {
                results.add(ApiFork.rows(DisniCpuTime.class, out -> List.of(out.toString(), Long.toString(warmupMs),
                        Integer.toString(iters), Long.toString(iterNs / 1_000_000), api)));
            }
        }
        String json = String.format(Locale.ROOT, "{\"tool\":\"DisniCpuTime\",\"provider\":\"disni\",\"clock\":"
                + "\"thread-cpu\",\"warmup_ms\":%d,\"iteration_ms\":%d,\"results\":[%s]}%n", warmupMs,
                iterNs / 1_000_000, String.join(",", results));
        Files.writeString(Path.of(args[0]), json);
        System.out.print(json);
    }

    /** null0 through DiSNI: an event channel, an id holding the context, a PD and the two registered buffers. */
    private static final class Device implements AutoCloseable {
        final RdmaCm cm;
        final RdmaVerbs verbs;
        final RdmaEventChannel channel;
        final IbvContext context;
        final IbvPd pd;
        final IbvCompChannel compChannel;
        final IbvMr src;
        final IbvMr dst;

        Device() throws IOException {
            cm = RdmaCm.open();
            verbs = RdmaVerbs.open();
            channel = cm.createEventChannel();
            RdmaCmId id = cm.createId(channel, RdmaCm.RDMA_PS_TCP);
            cm.bindAddr(id, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            context = id.getVerbs();
            if (context == null) {
                throw new IOException("DiSNI's rdma_cm_id has no verbs context");
            }
            pd = verbs.allocPd(context);
            compChannel = verbs.createCompChannel(context);
            int bytes = WriteStream.SLOTS * WriteStream.MESSAGE;
            src = verbs.regMr(pd, ByteBuffer.allocateDirect(bytes), IbvMr.IBV_ACCESS_LOCAL_WRITE).execute().getMr();
            dst = verbs.regMr(pd, ByteBuffer.allocateDirect(bytes),
                    IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE).execute().getMr();
            cm.destroyCmId(id);
        }

        @Override
        public void close() throws IOException {
            verbs.deregMr(src).execute().free();
            verbs.deregMr(dst).execute().free();
            verbs.destroyCompChannel(compChannel);
            verbs.deallocPd(pd);
            cm.destroyEventChannel(channel);
        }
    }

    /** One QP, its CQ and the stateful post and poll calls: WriteStream's stream through DiSNI. */
    private static final class Stream implements AutoCloseable {
        private final Device dev;
        private final RdmaCmId id;
        private final IbvCQ cq;
        private final int batch;
        private final SVCPostSend post;
        private final SVCPollCq poll;
        private final IbvWC[] wcs = new IbvWC[16];
        private final SVCPostSend.SendWRMod[] wrMods;
        private final SVCPostSend.RdmaMod[] rdmaMods;
        private final SVCPostSend.SgeMod[] sgeMods;
        private final long local;
        private final long remote;
        private long posted;
        private long retired;

        Stream(Device dev, int batch) throws IOException {
            this.dev = dev;
            this.batch = batch;
            id = dev.cm.createId(dev.channel, RdmaCm.RDMA_PS_TCP);
            cq = dev.verbs.createCQ(dev.context, dev.compChannel, 4 * WriteStream.SQ_DEPTH / WriteStream.SIGNAL_EVERY
                    + 16, 0);
            IbvQPInitAttr attr = new IbvQPInitAttr();
            attr.cap().setMax_send_wr(WriteStream.SQ_DEPTH);
            attr.cap().setMax_recv_wr(1);
            attr.cap().setMax_send_sge(1);
            attr.cap().setMax_recv_sge(1);
            attr.setQp_type(IbvQP.IBV_QPT_RC);
            attr.setSend_cq(cq);
            attr.setRecv_cq(cq);
            IbvQP qp = dev.cm.createQP(id, dev.pd, attr);
            local = dev.src.getAddr();
            remote = dev.dst.getAddr();
            List<IbvSendWR> wrs = new ArrayList<>(batch);
            for (int i = 0; i < batch; i++) {
                IbvSge sge = new IbvSge();
                sge.setAddr(local);
                sge.setLength(WriteStream.MESSAGE);
                sge.setLkey(dev.src.getLkey());
                LinkedList<IbvSge> sgl = new LinkedList<>();
                sgl.add(sge);
                IbvSendWR wr = new IbvSendWR();
                wr.setOpcode(IbvSendWR.IBV_WR_RDMA_WRITE);
                wr.setSg_list(sgl);
                wr.getRdma().setRemote_addr(remote);
                wr.getRdma().setRkey(dev.dst.getRkey());
                wrs.add(wr);
            }
            post = dev.verbs.postSend(qp, wrs, null);
            for (int i = 0; i < wcs.length; i++) {
                wcs[i] = new IbvWC();
            }
            poll = dev.verbs.pollCQ(cq, wcs, wcs.length);
            wrMods = new SVCPostSend.SendWRMod[batch];
            rdmaMods = new SVCPostSend.RdmaMod[batch];
            sgeMods = new SVCPostSend.SgeMod[batch];
            for (int i = 0; i < batch; i++) {
                wrMods[i] = post.getWrMod(i);
                rdmaMods[i] = wrMods[i].getRdmaMod();
                sgeMods[i] = wrMods[i].getSgeMod(0);
            }
        }

        private static int flags(long n) {
            return n % WriteStream.SIGNAL_EVERY == WriteStream.SIGNAL_EVERY - 1 ? SIGNALED : 0;
        }

        /** One post with the modifiers kept since the stream was made. */
        void keptBatch() throws IOException {
            makeRoom();
            long n = posted;
            for (int i = 0; i < batch; i++, n++) {
                long offset = (n % WriteStream.SLOTS) * WriteStream.MESSAGE;
                SVCPostSend.SendWRMod wr = wrMods[i];
                wr.setWr_id(n);
                wr.setSend_flags(flags(n));
                rdmaMods[i].setRemote_addr(remote + offset);
                sgeMods[i].setAddr(local + offset);
            }
            post.execute();
            posted = n;
        }

        /** One post with the modifiers fetched again for every WR. */
        void fetchedBatch() throws IOException {
            makeRoom();
            long n = posted;
            for (int i = 0; i < batch; i++, n++) {
                long offset = (n % WriteStream.SLOTS) * WriteStream.MESSAGE;
                SVCPostSend.SendWRMod wr = post.getWrMod(i);
                wr.setWr_id(n);
                wr.setSend_flags(flags(n));
                wr.getRdmaMod().setRemote_addr(remote + offset);
                wr.getSgeMod(0).setAddr(local + offset);
            }
            post.execute();
            posted = n;
        }

        private void makeRoom() throws IOException {
            while (posted - retired + batch > WriteStream.SQ_DEPTH) {
                pollOnce();
            }
        }

        private void pollOnce() throws IOException {
            int got = poll.execute().getPolls();
            for (int i = 0; i < got; i++) {
                if (wcs[i].getStatus() != IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal()
                        || wcs[i].getOpcode() != IbvWC.IbvWcOpcode.IBV_WC_RDMA_WRITE.getOpcode()
                        || wcs[i].getWr_id() % WriteStream.SIGNAL_EVERY != WriteStream.SIGNAL_EVERY - 1) {
                    throw new IllegalStateException("WRITE " + wcs[i].getWr_id() + " completed with status "
                            + wcs[i].getStatus() + ", opcode " + wcs[i].getOpcode() + ": not the stream's");
                }
                retired = wcs[i].getWr_id() + 1;
            }
        }

        /** Waits until every signaled WR has completed (null0 completes them at once). */
        void drain() throws IOException {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (retired < posted - posted % WriteStream.SIGNAL_EVERY) {
                pollOnce();
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("WRITEs up to " + posted + " did not complete within 60 s");
                }
            }
        }

        @Override
        public void close() throws IOException {
            post.free();
            poll.free();
            dev.cm.destroyQP(id);
            dev.verbs.destroyCQ(cq);
            dev.cm.destroyCmId(id);
        }
    }

    private interface Op {
        void run() throws IOException;
    }

    private static String post(Device dev, String api, int batch, long warmupMs, int iters, long iterNs)
            throws IOException {
        try (Stream s = new Stream(dev, batch)) {
            int posts = WRS / batch;
            Op op = api.equals("disniKept") ? () -> {
                for (int i = 0; i < posts; i++) {
                    s.keptBatch();
                }
            } : () -> {
                for (int i = 0; i < posts; i++) {
                    s.fetchedBatch();
                }
            };
            long until = System.nanoTime() + warmupMs * 1_000_000L;
            while (System.nanoTime() < until) {
                for (int i = 0; i < OPS_PER_CHECK; i++) {
                    op.run();
                }
            }
            double[] v = new double[iters];
            double sum = 0;
            for (int it = 0; it < iters; it++) {
                long start = THREADS.getCurrentThreadCpuTime();
                long end;
                long wrs = 0;
                do {
                    for (int i = 0; i < OPS_PER_CHECK; i++) {
                        op.run();
                    }
                    wrs += (long) WRS * OPS_PER_CHECK;
                    end = THREADS.getCurrentThreadCpuTime();
                } while (end - start < iterNs);
                v[it] = (double) (end - start) / wrs;
                sum += v[it];
            }
            s.drain();
            StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
                    "{\"api\":\"%s\",\"batch\":%d,\"ns_per_wr\":%.3f,\"iterations\":[", api, batch, sum / iters));
            for (int i = 0; i < iters; i++) {
                out.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.3f", v[i]));
            }
            return out.append("]}").toString();
        }
    }
}
