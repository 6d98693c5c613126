package org.verbs4j.tools.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Gid;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.Mtu;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcFlags;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tools.cli.Providers;

/**
 * One end of the wire device's interop check against Linux rxe (issue 15), run by the soft-RoCE guest step
 * {@code softroce/steps/wire-interop.sh}: role {@code rxe} opens a kernel rxe device through the FFM provider,
 * role {@code wire} the emulated provider's RoCE v2 wire device; the two meet over a TCP socket, exchange GID,
 * QPN, PSN, rkey and address, and run the same list of cases in lockstep. In each case one side is the
 * requester and posts one signaled WR (the burst case: twelve at once, which the requester pipelines); the responder prepares its memory and receives first, and checks its
 * memory, its receive completion and the canary bytes behind the data afterwards. Every case runs in both
 * directions.
 *
 * <p>Usage: {@code WireInterop rxe|wire DEVICE GID_INDEX TCP_ADDRESS:PORT [HOOK [PHASE...]]}. Role {@code rxe}
 * listens on the TCP address, role {@code wire} connects to it. With a HOOK (a command), role {@code rxe} runs
 * {@code HOOK PHASE} before each lossy phase and {@code HOOK none} after it; the phases are {@code loss} and
 * {@code reorder} unless others are named (the hook knows what each name means: netem loss, or one fault at every
 * Nth packet of each opcode, see {@code softroce/steps/wire-faults.sh}). Without a hook only the clean phase runs.
 * Prints one line per case ({@code PASS}/{@code FAIL}) and, on role {@code rxe}, a summary line starting
 * {@code wire-interop:}; exits 1 if any case failed on either side.
 *
 * <p>System properties: {@code wireinterop.provider} sets this side's provider ({@code ffm} for role rxe,
 * {@code emulated} for role wire by default), so that role rxe may run on a second wire device on a host without
 * rxe, and role wire on a second rxe device for rxe against rxe, the arbiter of the lossy phases;
 * {@code wireinterop.name} names this side in the case names ({@code rxe} and {@code java} by default);
 * {@code wireinterop.clean=false} (role rxe) runs the lossy phases only, without the clean phase and UD;
 * {@code wireinterop.abortAfter} is how many failed cases in a row stop the run (3; both sides give the same).
 */
public final class WireInterop {
    private static final int REMOTE = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
    private static final int MR_ACCESS = AccessFlags.LOCAL_WRITE | REMOTE | AccessFlags.MW_BIND;
    private static final long MIB = 1 << 20;
    /** The source area (what this side sends) and the destination area (where the peer's data lands). */
    private static final long SRC = 0;
    private static final long DST = 2 * MIB;
    private static final long REGION = 4 * MIB;
    private static final int CANARY_BYTES = 64;
    /** The distance between the burst case's regions, bytes. */
    private static final long BURST_STRIDE = 8192;
    private static final byte CANARY = (byte) 0xa5;
    private static final int UD_QKEY = 0x1234abcd;
    private static final int PORT = 1;
    /** 4.096 us x 2^16: about 268 ms, so that a JVM under TCG is not retried out by a slow receive thread. */
    private static final int TIMEOUT = 16;
    private static final int[] SIZES = {1, 1023, 1024, 1025, 4097, 65536, (int) MIB};
    private static final int[] LOSSY_SIZES = {1, 1500, 65536};
    /** At the lossy sizes: every request opcode of RC at each position it takes (ONLY, FIRST and LAST, MIDDLE). */
    private static final WrOpcode[] LOSSY_OPS = {WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.SEND,
        WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_READ};
    private static final long POLL_MS = 20_000;
    /**
     * After this many failed cases in a row the run stops: the wire is broken, and each failure costs a timeout.
     * The arbiter, which records what rxe fails, sets it higher ({@code wireinterop.abortAfter}).
     */
    private static final int ABORT_AFTER = Integer.getInteger("wireinterop.abortAfter", 3);

    private final boolean rxe;
    private final String me;
    /** The peer's name, from its hello. */
    private String other;
    private final int gidIndex;
    private final Context ctx;
    private final ProtectionDomain pd;
    private final CompletionQueue scq;
    private final CompletionQueue rcq;
    private final MemorySegment buf;
    private final MemoryRegion mr;
    private final Gid gid;
    private final WorkCompletionBatch wc = new WorkCompletionBatch(1);
    private BufferedReader in;
    private PrintWriter out;
    private Gid peerGid;

    private QueuePair qp;
    private int caseNo;
    private String phase = "clean";
    private boolean lossy;
    private final List<String> failures = new ArrayList<>();
    private final List<String> passed = new ArrayList<>();
    /** One line per lossy phase: its time, the cases this side failed in it, its RETRY_EXC_ERRs. */
    private final List<String> phaseLines = new ArrayList<>();
    private int retryExceeded;
    private int failedInARow;
    /** The rkey the last SEND_WITH_INV invalidated, which the bad-rkey case then uses (requester side). */
    private int invalidatedRkey;
    /** The requester's verdict on the current case, as the responder heard it. */
    private String lastRequesterError;

    private WireInterop(boolean rxe, Context ctx, int gidIndex, Arena arena) {
        this.rxe = rxe;
        this.me = System.getProperty("wireinterop.name", rxe ? "rxe" : "java");
        this.other = rxe ? "java" : "rxe";
        this.ctx = ctx;
        this.gidIndex = gidIndex;
        this.pd = ctx.allocPd();
        this.scq = ctx.createCq(256);
        this.rcq = ctx.createCq(256);
        this.buf = arena.allocate(REGION, 4096);
        this.mr = pd.registerMemory(buf, MR_ACCESS, arena);
        this.gid = ctx.queryGid(PORT, gidIndex);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: WireInterop rxe|wire DEVICE GID_INDEX TCP_ADDRESS:PORT [HOOK [PHASE...]]");
            System.exit(2);
        }
        boolean rxe = args[0].equals("rxe");
        VerbsProvider provider = Providers.resolve(System.getProperty("wireinterop.provider",
                rxe ? "ffm" : "emulated"));
        String hook = args.length > 4 ? args[4] : null;
        String[] modes = args.length > 5 ? Arrays.copyOfRange(args, 5, args.length)
                : new String[] {"loss", "reorder"};
        String[] hp = args[3].split(":");
        InetSocketAddress tcp = new InetSocketAddress(hp[0], Integer.parseInt(hp[1]));
        int status;
        try (Arena arena = Arena.ofShared();
             Context ctx = Providers.device(provider, args[1]).open()) {
            WireInterop w = new WireInterop(rxe, ctx, Integer.parseInt(args[2]), arena);
            status = w.run(tcp, hook, modes);
        }
        System.exit(status);
    }

    private int run(InetSocketAddress tcp, String hook, String[] modes) throws Exception {
        try (Socket s = rxe ? accept(tcp) : connect(tcp)) {
            s.setSoTimeout(300_000);
            s.setTcpNoDelay(true);
            in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
            out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.US_ASCII);
            // Raw hex: Gid.parse goes through InetAddress, which turns an IPv4-mapped GID into 4 bytes.
            say("hello " + HexFormat.of().formatHex(gid.toBytes()) + " " + me);
            String[] hello = expect("hello").split(" ");
            peerGid = Gid.of(HexFormat.of().parseHex(hello[1]));
            other = hello.length > 2 ? hello[2] : other;
            log("%s GID %s (index %d), peer %s GID %s", me, gid, gidIndex, other, peerGid);
            // Role rxe decides whether the clean phase runs; the peer follows.
            boolean clean;
            if (rxe) {
                clean = !"false".equals(System.getProperty("wireinterop.clean"));
                say("clean " + clean);
            } else {
                clean = Boolean.parseBoolean(word(expect("clean"), 1));
            }
            if (clean) {
                cleanPhase();
                ud();
            }
            // The lossy phases: role rxe asks its hook for netem and tells the peer, which follows.
            int lossyPhases;
            if (rxe) {
                lossyPhases = hook == null ? 0 : modes.length;
                say("lossy " + lossyPhases);
            } else {
                lossyPhases = Integer.parseInt(word(expect("lossy"), 1));
            }
            for (int m = 0; m < lossyPhases; m++) {
                if (rxe) {
                    hook(hook, modes[m]);
                    say("phase " + modes[m]);
                    phase = modes[m];
                } else {
                    phase = word(expect("phase"), 1);
                }
                lossy = true;
                int exceededBefore = retryExceeded;
                int failedBefore = failures.size();
                long t0 = System.nanoTime();
                lossyPhase();
                if (rxe) {
                    hook(hook, "none");
                }
                phaseLines.add(String.format(Locale.ROOT, "phase %s: %d s, %d failed here, %d RETRY_EXC_ERR", phase,
                        (System.nanoTime() - t0) / 1_000_000_000L, failures.size() - failedBefore,
                        retryExceeded - exceededBefore));
            }
            for (String p : phaseLines) {
                log("%s", p);
            }
            // Each side's verdict, so that both exit alike, and its RETRY_EXC_ERRs (counted where the requester saw them).
            say("verdict " + failures.size() + " " + retryExceeded);
            String[] verdict = expect("verdict").split(" ");
            int peerFailures = Integer.parseInt(verdict[1]);
            int peerExceeded = verdict.length > 2 ? Integer.parseInt(verdict[2]) : 0;
            if (rxe) {
                String summary = String.format(Locale.ROOT,
                        "wire-interop: %d cases passed, %d failed (%s side %d, %s side %d); %s%d lossy phase(s)%s, "
                                + "%d RETRY_EXC_ERR",
                        passed.size(), failures.size() + peerFailures, me, failures.size(), other, peerFailures,
                        clean ? "RC both ways: SEND, SEND_IMM, WRITE, WRITE_IMM, READ at " + sizesText()
                                + " B, CMP_SWP, FETCH_ADD, SEND_INV, bad rkey, RNR; UD both ways; " : "",
                        lossyPhases, lossyPhases == 0 ? "" : " (" + String.join(" ",
                                Arrays.copyOf(modes, lossyPhases)) + ")", retryExceeded + peerExceeded);
                System.out.println(summary);
            }
            for (String f : failures) {
                System.out.println("failed: " + f);
            }
            return failures.isEmpty() && peerFailures == 0 ? 0 : 1;
        }
    }

    /** "rxe->java" when role rxe requests, else "java->rxe" (or the sides' own names). */
    private String direction(boolean rxeRequests) {
        String lead = rxe ? me : other;
        String follow = rxe ? other : me;
        return rxeRequests ? lead + "->" + follow : follow + "->" + lead;
    }

    private static String sizesText() {
        StringBuilder b = new StringBuilder();
        for (int s : SIZES) {
            b.append(b.isEmpty() ? "" : ",").append(s);
        }
        return b.toString();
    }

    private static Socket accept(InetSocketAddress tcp) throws IOException {
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(tcp);
            ss.setSoTimeout(600_000);
            return ss.accept();
        }
    }

    private static Socket connect(InetSocketAddress tcp) throws Exception {
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (true) {
            try {
                Socket s = new Socket();
                s.connect(tcp, 5000);
                return s;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    private void hook(String hook, String mode) throws Exception {
        Process p = new ProcessBuilder(hook, mode).inheritIO().start();
        int rc = p.waitFor();
        if (rc != 0) {
            throw new IllegalStateException("hook '" + hook + " " + mode + "' exited " + rc);
        }
        log("netem: %s", mode);
    }

    // ------------------------------------------------------------------ phases

    private void cleanPhase() {
        for (boolean rxeRequests : new boolean[] {true, false}) {
            boolean req = rxeRequests == rxe;
            String dir = direction(rxeRequests);
            // A PSN near the top of the 24-bit space: the PSNs wrap within the first cases.
            connectRc(7, 0xfffff0 - 0x100 * (rxeRequests ? 1 : 2));
            for (int size : SIZES) {
                for (WrOpcode op : new WrOpcode[] {WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.SEND,
                    WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_READ}) {
                    dataCase(dir, req, op, size);
                }
            }
            burstCase(dir, req);
            atomicCase(dir, req, WrOpcode.ATOMIC_CMP_AND_SWP, true);
            atomicCase(dir, req, WrOpcode.ATOMIC_CMP_AND_SWP, false);
            atomicCase(dir, req, WrOpcode.ATOMIC_FETCH_AND_ADD, true);
            rnrRecoveryCase(dir, req, 100);
            // 100 packets: both requesters ask for an ACK in the middle (rxe every 64 packets, ours every 16). The wire
            // device finds no receive only at the last packet, so its RNR NAK must name a PSN after what it has
            // acknowledged; rxe NAKs at the first.
            rnrRecoveryCase(dir, req, 100 * 1024);
            sendInvCase(dir, req);
            // Ends with both QPs in ERR.
            badRkeyCase(dir, req);
            connectRc(1, 0x100);
            rnrExceededCase(dir, req);
        }
    }

    private void lossyPhase() {
        for (boolean rxeRequests : new boolean[] {true, false}) {
            boolean req = rxeRequests == rxe;
            String dir = direction(rxeRequests);
            connectRc(7, 0x1000);
            for (int size : LOSSY_SIZES) {
                for (WrOpcode op : LOSSY_OPS) {
                    dataCase(dir, req, op, size);
                }
            }
            burstCase(dir, req);
            atomicCase(dir, req, WrOpcode.ATOMIC_FETCH_AND_ADD, true);
            atomicCase(dir, req, WrOpcode.ATOMIC_CMP_AND_SWP, true);
        }
    }

    // ------------------------------------------------------------------ RC connection

    /** A new RC QP on each side, connected to the other's; the old one (if any) is closed. */
    private void connectRc(int rnrRetry, int psn) {
        if (qp != null) {
            qp.close();
        }
        drain(scq);
        drain(rcq);
        qp = pd.createQp(QpInitAttributes.builder(QpType.RC).sendCq(scq).recvCq(rcq).maxSendWr(64).maxRecvWr(64)
                .maxSendSge(2).maxRecvSge(2).build());
        int myPsn = (psn + (rxe ? 0 : 0x10)) & 0xffffff;
        say("qp " + qp.qpNum() + " " + myPsn);
        String[] w = expect("qp").split(" ");
        int peerQpn = Integer.parseInt(w[1]);
        int peerPsn = Integer.parseInt(w[2]);
        qp.modify(QpAttributes.toInit(PORT, 0, REMOTE));
        // min_rnr_timer 1: 0.01 ms, so that an RNR retry is quick.
        qp.modify(QpAttributes.toRtr(AhAttributes.roce(peerGid, gidIndex, PORT), Mtu.MTU_1024, peerQpn, peerPsn, 4,
                1));
        qp.modify(QpAttributes.toRts(myPsn, TIMEOUT, 7, rnrRetry, 4));
        // Both sides in RTS before the first request.
        say("rts");
        expect("rts");
    }

    // ------------------------------------------------------------------ cases

    private void dataCase(String dir, boolean req, WrOpcode op, int size) {
        String name = phase + " " + dir + " " + op + " " + size + " B";
        int seed = ++caseNo;
        boolean recv = op != WrOpcode.RDMA_WRITE && op != WrOpcode.RDMA_READ;
        int imm = 0x5eed0000 + seed;
        if (req) {
            String[] ready = expect("ready").split(" ");
            int rkey = Integer.parseUnsignedInt(ready[1]);
            long addr = Long.parseLong(ready[2]);
            String err = null;
            if (op == WrOpcode.RDMA_READ) {
                canary(DST, size + CANARY_BYTES);
            } else {
                fill(SRC, size, seed);
            }
            SendWr wr = new SendWr().wrId(seed).opcode(op).sendFlags(SendFlags.SIGNALED);
            long local = op == WrOpcode.RDMA_READ ? DST : SRC;
            wr.sgList(Sge.of(mr, local, size));
            if (op == WrOpcode.RDMA_WRITE || op == WrOpcode.RDMA_WRITE_WITH_IMM || op == WrOpcode.RDMA_READ) {
                wr.rdma(addr, rkey);
            }
            if (op == WrOpcode.RDMA_WRITE_WITH_IMM || op == WrOpcode.SEND_WITH_IMM) {
                wr.immData(imm);
            }
            err = postAndAwait(wr, seed, expectedOpcode(op));
            if (err == null && op == WrOpcode.RDMA_READ) {
                err = check(DST, size, seed);
            }
            finishRequester(name, err);
        } else {
            if (op == WrOpcode.RDMA_READ) {
                fill(DST, size, seed);
            } else {
                canary(DST, size + CANARY_BYTES);
            }
            if (recv) {
                // A receive buffer longer than the message, so that the canary after it can show an overrun.
                qp.postRecv(new RecvWr(seed, Sge.of(mr, DST, op == WrOpcode.RDMA_WRITE_WITH_IMM ? 0
                        : size + CANARY_BYTES)));
            }
            say("ready " + Integer.toUnsignedString(mr.rkey()) + " " + (mr.address() + DST));
            String err = requesterDone();
            if (err == null && recv) {
                WcOpcode want = op == WrOpcode.RDMA_WRITE_WITH_IMM ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV;
                err = awaitRecv(seed, want, size, op == WrOpcode.SEND ? null : imm);
            }
            if (err == null && op != WrOpcode.RDMA_READ) {
                err = check(DST, size, seed);
            }
            finishResponder(name, err);
        }
    }

    /**
     * Twelve signaled WRs posted at once, so that they are in flight together: 8 RDMA WRITEs and then 4 RDMA
     * READs (as many as {@code max_rd_atomic}) of 4097 bytes each, in regions {@link #BURST_STRIDE} apart. Each
     * completes exactly once, in order, with its bytes; under loss, RETRY_EXC_ERR is allowed as for one WR.
     */
    private void burstCase(String dir, boolean req) {
        String name = phase + " " + dir + " burst of 8 RDMA WRITEs and 4 RDMA READs, 4097 B each";
        int seed = ++caseNo;
        int writes = 8;
        int reads = 4;
        int size = 4097;
        if (req) {
            String[] ready = expect("ready").split(" ");
            int rkey = Integer.parseUnsignedInt(ready[1]);
            long addr = Long.parseLong(ready[2]);
            List<SendWr> wrs = new ArrayList<>();
            for (int i = 0; i < writes; i++) {
                fill(SRC + i * BURST_STRIDE, size, seed + i);
                wrs.add(new SendWr().wrId(seed * 100L + i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                        .sgList(Sge.of(mr, SRC + i * BURST_STRIDE, size)).rdma(addr + i * BURST_STRIDE, rkey));
            }
            for (int j = 0; j < reads; j++) {
                canary(DST + j * BURST_STRIDE, size + CANARY_BYTES);
                wrs.add(new SendWr().wrId(seed * 100L + writes + j).opcode(WrOpcode.RDMA_READ)
                        .sendFlags(SendFlags.SIGNALED).sgList(Sge.of(mr, DST + j * BURST_STRIDE, size))
                        .rdma(addr + (writes + j) * BURST_STRIDE, rkey));
            }
            String err;
            try {
                qp.postSend(wrs);
                err = awaitBurst(seed * 100L, wrs.size());
            } catch (RuntimeException e) {
                err = "postSend failed: " + e;
            }
            for (int j = 0; j < reads && err == null; j++) {
                err = check(DST + j * BURST_STRIDE, size, seed + writes + j);
            }
            finishRequester(name, err);
        } else {
            for (int i = 0; i < writes; i++) {
                canary(DST + i * BURST_STRIDE, size + CANARY_BYTES);
            }
            for (int j = 0; j < reads; j++) {
                fill(DST + (writes + j) * BURST_STRIDE, size, seed + writes + j);
            }
            say("ready " + Integer.toUnsignedString(mr.rkey()) + " " + (mr.address() + DST));
            String err = requesterDone();
            for (int i = 0; i < writes && err == null; i++) {
                err = check(DST + i * BURST_STRIDE, size, seed + i);
            }
            finishResponder(name, err);
        }
    }

    /** The burst's completions: wr_ids {@code base} to {@code base + n - 1}, each once, in order, each a success. */
    private String awaitBurst(long base, int n) {
        for (int k = 0; k < n; k++) {
            if (!pollOne(scq)) {
                return "no completion for WR " + k + " of " + n + " in " + POLL_MS / 1000 + " s";
            }
            WcStatus st = wc.status(0);
            if (lossy && st == WcStatus.RETRY_EXC_ERR) {
                retryExceeded++;
                return "RETRY_EXC_ERR";
            }
            if (wc.wrId(0) != base + k || st != WcStatus.SUCCESS) {
                return "completion " + k + " is wr_id " + wc.wrId(0) + " " + st + ", expected " + (base + k) + " SUCCESS";
            }
        }
        return scq.poll(wc) != 0 ? "a completion beyond the burst: " + wc.get(0) : null;
    }

    private void atomicCase(String dir, boolean req, WrOpcode op, boolean match) {
        boolean cas = op == WrOpcode.ATOMIC_CMP_AND_SWP;
        String name = phase + " " + dir + " " + (cas ? match ? "CMP_SWP (equal)" : "CMP_SWP (not equal)"
                : "FETCH_ADD");
        int seed = ++caseNo;
        long original = 0x0102030405060708L * seed;
        long operand = cas ? match ? original : original + 1 : 0x1111L * seed;
        long swap = 0x7766554433221100L + seed;
        long after = cas ? match ? swap : original : original + operand;
        if (req) {
            String[] ready = expect("ready").split(" ");
            int rkey = Integer.parseUnsignedInt(ready[1]);
            long addr = Long.parseLong(ready[2]);
            buf.set(ValueLayout.JAVA_LONG, DST, 0x5a5a5a5a5a5a5a5aL);
            SendWr wr = new SendWr().wrId(seed).opcode(op).sendFlags(SendFlags.SIGNALED)
                    .atomic(addr, operand, swap, rkey).sgList(Sge.of(mr, DST, 8));
            String err = postAndAwait(wr, seed, cas ? WcOpcode.COMP_SWAP : WcOpcode.FETCH_ADD);
            long got = buf.get(ValueLayout.JAVA_LONG, DST);
            if (err == null && got != original) {
                err = String.format("returned 0x%x, the original was 0x%x", got, original);
            }
            finishRequester(name, err);
        } else {
            buf.set(ValueLayout.JAVA_LONG, DST, original);
            say("ready " + Integer.toUnsignedString(mr.rkey()) + " " + (mr.address() + DST));
            String err = requesterDone();
            long now = buf.get(ValueLayout.JAVA_LONG, DST);
            if (err == null && now != after) {
                err = String.format("memory holds 0x%x, expected 0x%x", now, after);
            }
            finishResponder(name, err);
        }
    }

    /**
     * A SEND of {@code size} bytes finds no receive; the responder posts one 300 ms later and the SEND completes
     * (rnr_retry 7).
     */
    private void rnrRecoveryCase(String dir, boolean req, int size) {
        String name = phase + " " + dir + " SEND " + size + " B after RNR NAKs (receive posted 300 ms late)";
        int seed = ++caseNo;
        if (req) {
            expect("ready");
            fill(SRC, size, seed);
            String err = postAndAwait(new SendWr().wrId(seed).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(mr, SRC, size)), seed, WcOpcode.SEND);
            finishRequester(name, err);
        } else {
            canary(DST, size + CANARY_BYTES);
            say("ready 0 0");
            sleep(300);
            qp.postRecv(new RecvWr(seed, Sge.of(mr, DST, size + CANARY_BYTES)));
            String err = requesterDone();
            if (err == null) {
                err = awaitRecv(seed, WcOpcode.RECV, size, null);
            }
            if (err == null) {
                err = check(DST, size, seed);
            }
            finishResponder(name, err);
        }
    }

    /** With rnr_retry 1 and no receive ever posted, the SEND ends with RNR_RETRY_EXC_ERR. */
    private void rnrExceededCase(String dir, boolean req) {
        String name = phase + " " + dir + " SEND without a receive, rnr_retry 1: RNR_RETRY_EXC_ERR";
        int seed = ++caseNo;
        if (req) {
            expect("ready");
            fill(SRC, 16, seed);
            String err = postAndAwait(new SendWr().wrId(seed).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(mr, SRC, 16)), seed, WcOpcode.SEND, WcStatus.RNR_RETRY_EXC_ERR);
            finishRequester(name, err);
        } else {
            say("ready 0 0");
            String err = requesterDone();
            if (err == null && rcq.poll(wc) != 0) {
                err = "a receive completion appeared: " + wc.get(0);
            }
            finishResponder(name, err);
        }
    }

    /**
     * The responder binds a type 2 window over its destination area; the requester's SEND_WITH_INV names its
     * rkey; the data arrives and the window is invalid afterwards (the bad-rkey case that follows writes to it).
     */
    private void sendInvCase(String dir, boolean req) {
        String name = phase + " " + dir + " SEND_WITH_INV of a bound type 2 window";
        int seed = ++caseNo;
        int size = 2000;
        if (req) {
            String[] ready = expect("ready").split(" ");
            invalidatedRkey = Integer.parseUnsignedInt(ready[1]);
            fill(SRC, size, seed);
            String err = postAndAwait(new SendWr().wrId(seed).opcode(WrOpcode.SEND_WITH_INV)
                    .invalidateRkey(invalidatedRkey).sendFlags(SendFlags.SIGNALED).sgList(Sge.of(mr, SRC, size)),
                    seed, WcOpcode.SEND);
            finishRequester(name, err);
        } else {
            String err = null;
            MemoryWindow mw = pd.allocMw(MwType.TYPE_2);
            int rkey = (mw.rkey() & ~0xff) | ((mw.rkey() + 1) & 0xff);
            qp.postSend(new SendWr().wrId(1_000_000 + seed).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                    .bindMw(mw, rkey, new MwBindInfo(mr, mr.address() + DST, MIB, AccessFlags.REMOTE_WRITE)));
            if (!pollOne(scq)) {
                err = "the window's bind did not complete";
            } else if (wc.status(0) != WcStatus.SUCCESS) {
                err = "the window's bind completed with " + wc.status(0);
            }
            canary(DST + 4096, size + CANARY_BYTES);
            qp.postRecv(new RecvWr(seed, Sge.of(mr, DST + 4096, size + CANARY_BYTES)));
            say("ready " + Integer.toUnsignedString(rkey) + " " + (mr.address() + DST));
            String e2 = requesterDone();
            err = err != null ? err : e2;
            if (err == null) {
                err = awaitRecv(seed, WcOpcode.RECV, size, null);
            }
            if (err == null) {
                // rxe 6.1 never sets IBV_WC_WITH_INV (softroce/known-deviations.md D-006); the emulator does.
                boolean withInv = (wc.wcFlags(0) & WcFlags.WITH_INV) != 0;
                if (withInv && wc.immData(0) != rkey) {
                    err = "WITH_INV names rkey 0x" + Integer.toHexString(wc.immData(0)) + ", not 0x"
                            + Integer.toHexString(rkey);
                } else if (!withInv && !rxe) {
                    err = "the receive of a SEND_WITH_INV lacks WITH_INV";
                }
            }
            if (err == null) {
                err = check(DST + 4096, size, seed);
            }
            finishResponder(name, err);
        }
    }

    /** An RDMA WRITE with the invalidated window's rkey: REM_ACCESS_ERR at the requester, nothing written. */
    private void badRkeyCase(String dir, boolean req) {
        String name = phase + " " + dir + " RDMA WRITE with an invalidated rkey: REM_ACCESS_ERR";
        int seed = ++caseNo;
        if (req) {
            String[] ready = expect("ready").split(" ");
            long addr = Long.parseLong(ready[2]);
            fill(SRC, 64, seed);
            String err = postAndAwait(new SendWr().wrId(seed).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .rdma(addr, invalidatedRkey).sgList(Sge.of(mr, SRC, 64)), seed, WcOpcode.RDMA_WRITE,
                    WcStatus.REM_ACCESS_ERR);
            finishRequester(name, err);
        } else {
            canary(DST, 64 + CANARY_BYTES);
            say("ready 0 " + (mr.address() + DST));
            String err = requesterDone();
            if (err == null) {
                for (int i = 0; i < 64 + CANARY_BYTES; i++) {
                    if (buf.get(ValueLayout.JAVA_BYTE, DST + i) != CANARY) {
                        err = "byte " + i + " was written through an invalidated rkey";
                        break;
                    }
                }
            }
            finishResponder(name, err);
        }
    }

    /** UD both ways: SEND and SEND_WITH_IMM up to the MTU, the GRH, and a datagram with a wrong Q_Key dropped. */
    private void ud() {
        QueuePair ud = pd.createQp(QpInitAttributes.builder(QpType.UD).sendCq(scq).recvCq(rcq).maxSendWr(16)
                .maxRecvWr(16).build());
        ud.modify(QpAttributes.toInitUd(PORT, 0, UD_QKEY));
        ud.modify(QpAttributes.toState(QpState.RTR));
        ud.modify(QpAttributes.toRtsUnreliable(0));
        say("ud " + ud.qpNum());
        int peerQpn = Integer.parseInt(word(expect("ud"), 1));
        AddressHandle ah = pd.createAh(AhAttributes.roce(peerGid, gidIndex, PORT));
        for (boolean rxeRequests : new boolean[] {true, false}) {
            boolean req = rxeRequests == rxe;
            String dir = direction(rxeRequests);
            for (int size : new int[] {1, 512, 1024}) {
                for (WrOpcode op : new WrOpcode[] {WrOpcode.SEND, WrOpcode.SEND_WITH_IMM}) {
                    udCase(ud, ah, peerQpn, dir + " UD " + op + " " + size + " B", req, op, size, false);
                }
            }
            udCase(ud, ah, peerQpn, dir + " UD SEND with a wrong Q_Key is dropped", req, WrOpcode.SEND, 64, true);
        }
        ud.close();
        ah.close();
    }

    private void udCase(QueuePair ud, AddressHandle ah, int peerQpn, String name, boolean req, WrOpcode op, int size,
                        boolean wrongQkey) {
        int seed = ++caseNo;
        int imm = 0x0dd00000 + seed;
        if (req) {
            expect("ready");
            fill(SRC, size, seed);
            SendWr wr = new SendWr().wrId(seed).opcode(op).sendFlags(SendFlags.SIGNALED)
                    .ud(ah, peerQpn, wrongQkey ? UD_QKEY ^ 0x10 : UD_QKEY).sgList(Sge.of(mr, SRC, size));
            if (op == WrOpcode.SEND_WITH_IMM) {
                wr.immData(imm);
            }
            ud.postSend(wr);
            String err = awaitSend(seed, WcOpcode.SEND, WcStatus.SUCCESS);
            finishRequester(name, err);
        } else {
            canary(DST, 40 + size + CANARY_BYTES);
            ud.postRecv(new RecvWr(seed, Sge.of(mr, DST, 40 + size + CANARY_BYTES)));
            say("ready 0 0");
            String err = requesterDone();
            if (err == null && wrongQkey) {
                sleep(300);
                if (rcq.poll(wc) != 0) {
                    err = "a datagram with a wrong Q_Key was delivered: " + wc.get(0);
                }
                // The receive stays posted; it is the last UD case in this direction, and the QP is closed after
                // the UD cases.
            } else if (err == null) {
                err = awaitRecv(seed, WcOpcode.RECV, 40 + size, op == WrOpcode.SEND ? null : imm);
                if (err == null && (wc.wcFlags(0) & WcFlags.GRH) == 0) {
                    err = "the receive lacks the GRH flag";
                }
                if (err == null && wc.srcQp(0) != peerQpn) {
                    err = "source QPN " + wc.srcQp(0) + ", expected " + peerQpn;
                }
                if (err == null) {
                    err = checkGrh();
                }
                if (err == null) {
                    err = check(DST + 40, size, seed);
                }
            }
            finishResponder(name, err);
        }
    }

    /** rxe's GRH for IPv4: 20 zero bytes, then the IPv4 header from the peer's address to ours. */
    private String checkGrh() {
        for (int i = 0; i < 20; i++) {
            if (buf.get(ValueLayout.JAVA_BYTE, DST + i) != 0) {
                return "GRH byte " + i + " is not 0";
            }
        }
        if (buf.get(ValueLayout.JAVA_BYTE, DST + 20) != 0x45) {
            return "GRH byte 20 is not 0x45 (IPv4, 5 words)";
        }
        if (buf.get(ValueLayout.JAVA_BYTE, DST + 29) != 17) {
            return "GRH's IPv4 protocol is not UDP";
        }
        byte[] peer = peerGid.toBytes();
        byte[] mine = gid.toBytes();
        for (int i = 0; i < 4; i++) {
            if (buf.get(ValueLayout.JAVA_BYTE, DST + 32 + i) != peer[12 + i]) {
                return "GRH's IPv4 source is not the peer's address";
            }
            if (buf.get(ValueLayout.JAVA_BYTE, DST + 36 + i) != mine[12 + i]) {
                return "GRH's IPv4 destination is not this side's address";
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ case plumbing

    private static WcOpcode expectedOpcode(WrOpcode op) {
        return switch (op) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
            case RDMA_READ -> WcOpcode.RDMA_READ;
            default -> WcOpcode.SEND;
        };
    }

    private String postAndAwait(SendWr wr, long wrId, WcOpcode opcode) {
        return postAndAwait(wr, wrId, opcode, WcStatus.SUCCESS);
    }

    /** Posts one signaled WR and waits for its one completion; under loss RETRY_EXC_ERR is also accepted. */
    private String postAndAwait(SendWr wr, long wrId, WcOpcode opcode, WcStatus expected) {
        try {
            qp.postSend(wr);
        } catch (RuntimeException e) {
            return "postSend failed: " + e;
        }
        return awaitSend(wrId, opcode, expected);
    }

    private String awaitSend(long wrId, WcOpcode opcode, WcStatus expected) {
        if (!pollOne(scq)) {
            return "no send completion in " + POLL_MS / 1000 + " s";
        }
        WcStatus st = wc.status(0);
        if (wc.wrId(0) != wrId) {
            return "completion for wr_id " + wc.wrId(0) + ", expected " + wrId + " (" + st + ")";
        }
        if (lossy && st == WcStatus.RETRY_EXC_ERR) {
            retryExceeded++;
            return "RETRY_EXC_ERR";
        }
        if (st != expected) {
            return "send completed with " + st + ", expected " + expected;
        }
        if (st == WcStatus.SUCCESS && wc.opcode(0) != opcode) {
            return "send completion opcode " + wc.opcode(0) + ", expected " + opcode;
        }
        // Exactly once: nothing else completes.
        if (scq.poll(wc) != 0) {
            return "a second send completion: " + wc.get(0);
        }
        return null;
    }

    private String awaitRecv(long wrId, WcOpcode opcode, int byteLen, Integer imm) {
        if (!pollOne(rcq)) {
            return "no receive completion in " + POLL_MS / 1000 + " s";
        }
        if (wc.wrId(0) != wrId || wc.status(0) != WcStatus.SUCCESS) {
            return "receive completion wr_id " + wc.wrId(0) + " " + wc.status(0) + ", expected " + wrId + " SUCCESS";
        }
        if (wc.opcode(0) != opcode) {
            return "receive opcode " + wc.opcode(0) + ", expected " + opcode;
        }
        if (wc.byteLen(0) != byteLen) {
            return "receive byte_len " + wc.byteLen(0) + ", expected " + byteLen;
        }
        boolean hasImm = (wc.wcFlags(0) & WcFlags.WITH_IMM) != 0;
        if (imm != null && (!hasImm || wc.immData(0) != imm)) {
            return "immediate data " + (hasImm ? "0x" + Integer.toHexString(wc.immData(0)) : "missing")
                    + ", expected 0x" + Integer.toHexString(imm);
        }
        if (imm == null && hasImm) {
            return "immediate data where none was sent";
        }
        return null;
    }

    private boolean pollOne(CompletionQueue cq) {
        long deadline = System.nanoTime() + POLL_MS * 1_000_000;
        int spins = 0;
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                return true;
            }
            if (++spins > 1000) {
                sleep(1);
            }
        }
        return false;
    }

    private static void drain(CompletionQueue cq) {
        WorkCompletionBatch b = new WorkCompletionBatch(64);
        while (cq.poll(b) > 0) {
            b.clear();
        }
    }

    /** The requester's side of a case's end: tell the responder, hear its check, record both. */
    private void finishRequester(String name, String err) {
        say("done " + (err == null ? "ok" : err.replace('\n', ' ')));
        String checked = expect("checked").substring("checked ".length());
        record(name, true, err, checked.equals("ok") ? null : checked);
    }

    /** The responder's side: the requester's verdict arrived first ({@link #requesterDone}); answer with ours. */
    private void finishResponder(String name, String err) {
        say("checked " + (err == null ? "ok" : err.replace('\n', ' ')));
        record(name, false, lastRequesterError, err);
    }

    /** Waits for the requester's "done"; returns null, or "requester failed" (the responder checks nothing). */
    private String requesterDone() {
        String done = expect("done").substring("done ".length());
        lastRequesterError = done.equals("ok") ? null : done;
        return lastRequesterError == null ? null : "(requester failed)";
    }

    private void record(String name, boolean iRequest, String requesterErr, String responderErr) {
        String reqSide = iRequest ? me : other;
        String respSide = iRequest ? other : me;
        if (requesterErr == null && responderErr == null) {
            failedInARow = 0;
            passed.add(name);
            log("PASS %s", name);
            return;
        }
        if (lossy && "RETRY_EXC_ERR".equals(requesterErr)) {
            // Allowed under loss when retry_cnt runs out; the QPs are in ERR: start a new pair.
            passed.add(name);
            log("PASS %s (RETRY_EXC_ERR: retry_cnt ran out)", name);
            reconnect();
            return;
        }
        String why = (requesterErr != null ? "requester (" + reqSide + "): " + requesterErr : "")
                + (requesterErr != null && responderErr != null && !responderErr.equals("(requester failed)") ? "; "
                : "")
                + (responderErr != null && !responderErr.equals("(requester failed)") ? "responder (" + respSide
                + "): " + responderErr : "");
        // Only the side that found a fault counts it, so the two sides' counts add up to the cases that failed.
        boolean mine = iRequest ? requesterErr != null : responderErr != null && requesterErr == null;
        if (mine) {
            failures.add(name + ": " + why);
        }
        log("FAIL %s: %s", name, why);
        // Both sides see the same verdicts, so both stop at the same case.
        if (++failedInARow >= ABORT_AFTER) {
            throw new IllegalStateException(ABORT_AFTER + " cases failed in a row; stopping");
        }
        reconnect();
    }

    /** After a failure the QPs may be in ERR: both sides take a fresh pair. */
    private void reconnect() {
        connectRc(7, 0x2000 + caseNo * 0x100);
    }

    // ------------------------------------------------------------------ memory

    private static byte pattern(long i, int seed) {
        return (byte) (i * 131 + seed * 29 + (i >>> 10) * 7 + 1);
    }

    private void fill(long at, int size, int seed) {
        for (long i = 0; i < size; i++) {
            buf.set(ValueLayout.JAVA_BYTE, at + i, pattern(i, seed));
        }
    }

    private void canary(long at, int size) {
        buf.asSlice(at, size).fill(CANARY);
    }

    /** Null if {@code size} bytes at {@code at} hold the pattern and the canary after them is intact. */
    private String check(long at, int size, int seed) {
        for (long i = 0; i < size; i++) {
            byte b = buf.get(ValueLayout.JAVA_BYTE, at + i);
            if (b != pattern(i, seed)) {
                return String.format("byte %d of %d is 0x%02x, expected 0x%02x", i, size, b & 0xff,
                        pattern(i, seed) & 0xff);
            }
        }
        for (int i = 0; i < CANARY_BYTES; i++) {
            if (buf.get(ValueLayout.JAVA_BYTE, at + size + i) != CANARY) {
                return "the canary byte " + i + " after the data was overwritten";
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ the control channel

    private void say(String line) {
        out.println(line);
    }

    /** The next control line, which must start with {@code word}. */
    private String expect(String word) {
        String line;
        try {
            line = in.readLine();
        } catch (IOException e) {
            throw new UncheckedIOException("the " + other + " side's control channel failed", e);
        }
        if (line == null) {
            throw new IllegalStateException("the " + other + " side closed the control channel, expecting '" + word
                    + "'");
        }
        if (!line.equals(word) && !line.startsWith(word + " ")) {
            throw new IllegalStateException("expected '" + word + "' from the " + other + " side, got '" + line
                    + "'");
        }
        return line;
    }

    private static String word(String line, int i) {
        return line.split(" ")[i];
    }

    private void log(String fmt, Object... args) {
        System.out.println("[" + me + "] " + String.format(Locale.ROOT, fmt, args));
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
