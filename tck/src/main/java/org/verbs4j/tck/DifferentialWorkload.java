package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AtomicCapability;
import org.verbs4j.Capabilities;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;
import org.verbs4j.spi.VerbsProvider;

/**
 * The differential test: the same seeded random workload of mixed WRs over a connected RC pair, run on two
 * providers, must leave identical memory on both sides and give identical completion streams (wr_id, status,
 * opcode, byte_len). Subclass it with the two providers; {@link #run} is also usable on its own.
 *
 * <p>Only opcodes both devices execute are drawn. The fields compared are those {@code ibv_poll_cq(3)} defines:
 * the opcode only on success, byte_len only for receives, RDMA READ and atomics. {@link #firstDifference} is the
 * comparison, for callers that compare more than two providers ({@code verbs4j tck --differential}).
 */
public abstract class DifferentialWorkload {
    /** The seed of a run unless the system property {@code verbs4j.tck.seed} says otherwise. */
    public static final long DEFAULT_SEED = 0x5EEDL;
    /** WRs of a run unless {@link #operations()} says otherwise. */
    public static final int DEFAULT_OPERATIONS = 200;
    /** Bytes of each memory area of the workload. */
    static final int AREA = 16 * 1024;
    private static final int MAX_MESSAGE = 1024;
    private static final int BATCH = 16;

    /** Subclasses name the two providers. */
    protected DifferentialWorkload() {}

    /** {@return the reference provider} */
    protected abstract VerbsProvider first();

    /** {@return the provider compared with the reference} */
    protected abstract VerbsProvider second();

    /** {@return the device of {@link #first()}, or null for its first device} */
    protected String firstDevice() {
        return null;
    }

    /** {@return the device of {@link #second()}, or null for its first device} */
    protected String secondDevice() {
        return null;
    }

    /** {@return the seed; the system property {@code verbs4j.tck.seed} overrides it to replay a run} */
    protected long seed() {
        return Long.getLong("verbs4j.tck.seed", DEFAULT_SEED);
    }

    /** {@return the number of WRs per run} */
    protected int operations() {
        return DEFAULT_OPERATIONS;
    }

    /**
     * One completion, reduced to the fields {@code ibv_poll_cq(3)} defines for it.
     *
     * @param wrId the work request ID
     * @param status the completion status
     * @param opcode the opcode, or null when the status is not success (then it is undefined)
     * @param byteLen the bytes transferred for receives, RDMA READ and atomics, else -1 (undefined)
     */
    public record Completion(long wrId, WcStatus status, WcOpcode opcode, int byteLen) {
        static Completion of(WorkCompletion wc) {
            boolean ok = wc.status() == WcStatus.SUCCESS;
            WcOpcode op = ok ? wc.opcode() : null;
            boolean hasLength = ok && (op.isReceive() || op == WcOpcode.RDMA_READ || op == WcOpcode.COMP_SWAP
                    || op == WcOpcode.FETCH_ADD);
            return new Completion(wc.wrId(), wc.status(), op, hasLength ? wc.byteLen() : -1);
        }
    }

    /**
     * What a run left behind.
     *
     * @param requester the completions of the requesting QP, in order
     * @param responder the completions of the responding QP, in order
     * @param requesterMemory the requester's memory after the run
     * @param responderMemory the responder's memory after the run
     */
    public record Outcome(List<Completion> requester, List<Completion> responder, byte[] requesterMemory,
                          byte[] responderMemory) {}

    /**
     * The opcodes the workload may draw on a device: those it posts on RC, atomics only when it has them.
     *
     * @param caps the device's capabilities
     * @return the drawable opcodes, possibly empty
     */
    public static Set<WrOpcode> drawable(Capabilities caps) {
        Set<WrOpcode> ops = EnumSet.noneOf(WrOpcode.class);
        for (WrOpcode op : List.of(WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE,
                WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ, WrOpcode.ATOMIC_FETCH_AND_ADD,
                WrOpcode.ATOMIC_CMP_AND_SWP)) {
            if (caps.supports(QpType.RC, op) && (!op.isAtomic() || caps.atomics() != AtomicCapability.NONE)) {
                ops.add(op);
            }
        }
        return ops;
    }

    private record Op(WrOpcode opcode, int localOffset, int remoteOffset, int length, long a, long b, int imm) {
        boolean consumesReceive() {
            return opcode == WrOpcode.SEND || opcode == WrOpcode.SEND_WITH_IMM || opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
        }
    }

    private static List<Op> workload(long seed, int n, Set<WrOpcode> allowed) {
        List<WrOpcode> pool = List.copyOf(allowed);
        Random rnd = new Random(seed);
        List<Op> ops = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            WrOpcode op = pool.get(rnd.nextInt(pool.size()));
            if (op.isAtomic()) {
                int slot = 8 * rnd.nextInt(64);
                ops.add(new Op(op, 8 * (i % 256), slot, 8, rnd.nextInt(8), rnd.nextLong(), 0));
            } else {
                int len = rnd.nextInt(8) == 0 ? 0 : 1 + rnd.nextInt(MAX_MESSAGE);
                ops.add(new Op(op, rnd.nextInt(AREA - MAX_MESSAGE), rnd.nextInt(AREA - MAX_MESSAGE), len, 0, 0,
                        rnd.nextInt()));
            }
        }
        return ops;
    }

    /**
     * Runs the workload of {@code seed} on a loopback RC pair of {@code provider}'s device, over the first
     * non-zero GID of port 1.
     *
     * @param provider the provider to run on
     * @param device the device's name, or null for the provider's first device
     * @param seed the workload's seed: the same seed draws the same WRs
     * @param operations the number of WRs, at least 1
     * @param allowed the opcodes to draw from (see {@link #drawable}), not empty
     * @return the completions and memory the run left
     * @throws IllegalArgumentException if {@code operations} is below 1 or {@code allowed} is empty
     */
    public static Outcome run(VerbsProvider provider, String device, long seed, int operations, Set<WrOpcode> allowed) {
        return run(provider, device, -1, seed, operations, allowed);
    }

    /**
     * Runs the workload of {@code seed} on a loopback RC pair of {@code provider}'s device, over port 1.
     *
     * @param provider the provider to run on
     * @param device the device's name, or null for the provider's first device
     * @param gidIndex the source GID index, or -1 for the port's default (on RoCE perftest's choice, else the
     *        first non-zero GID)
     * @param seed the workload's seed: the same seed draws the same WRs
     * @param operations the number of WRs, at least 1
     * @param allowed the opcodes to draw from (see {@link #drawable}), not empty
     * @return the completions and memory the run left
     * @throws IllegalArgumentException if {@code operations} is below 1 or {@code allowed} is empty
     */
    public static Outcome run(VerbsProvider provider, String device, int gidIndex, long seed, int operations,
                              Set<WrOpcode> allowed) {
        if (operations < 1) {
            throw new IllegalArgumentException("the workload needs at least 1 WR, not " + operations);
        }
        if (allowed.isEmpty()) {
            throw new IllegalArgumentException("the workload needs at least one opcode to draw");
        }
        List<Op> ops = workload(seed, operations, allowed);
        try (Testbed tb = Testbed.open(provider, device, 1, gidIndex)) {
            QpPair p = tb.pair(QpType.RC, b -> b.maxSendWr(64).maxRecvWr(operations + 1));
            // requester: [0, AREA) data source, [AREA, 2 AREA) READ target, [2 AREA, 3 AREA) atomic results
            MemoryRegion local = tb.buffer(3L * AREA);
            // responder: [0, AREA) RDMA target, [AREA, 2 AREA) atomics, [2 AREA, ...) one receive slot per WR
            MemoryRegion remote = tb.buffer(2L * AREA + (long) MAX_MESSAGE * operations);
            Random init = new Random(~seed);
            byte[] seedBytes = new byte[(int) local.length()];
            init.nextBytes(seedBytes);
            local.segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(seedBytes));
            byte[] remoteBytes = new byte[2 * AREA];
            init.nextBytes(remoteBytes);
            remote.segment().asSlice(0, 2L * AREA).copyFrom(java.lang.foreign.MemorySegment.ofArray(remoteBytes));

            int receives = 0;
            for (Op op : ops) {
                if (op.consumesReceive()) {
                    p.recvB(receives, remote, 2L * AREA + (long) MAX_MESSAGE * receives, MAX_MESSAGE);
                    receives++;
                }
            }
            List<Completion> requester = new ArrayList<>();
            for (int start = 0; start < ops.size(); start += BATCH) {
                List<SendWr> batch = new ArrayList<>();
                for (int i = start; i < Math.min(ops.size(), start + BATCH); i++) {
                    batch.add(wr(i, ops.get(i), local, remote));
                }
                p.a().postSend(batch);
                for (WorkCompletion wc : Completions.await(p.cqA(), batch.size(), "workload WRs " + start + ".."
                        + (start + batch.size() - 1))) {
                    requester.add(Completion.of(wc));
                }
            }
            List<Completion> responder = new ArrayList<>();
            for (WorkCompletion wc : Completions.await(p.cqB(), receives, receives + " receives")) {
                responder.add(Completion.of(wc));
            }
            return new Outcome(requester, responder, local.segment().toArray(ValueLayout.JAVA_BYTE),
                    remote.segment().toArray(ValueLayout.JAVA_BYTE));
        }
    }

    private static SendWr wr(int i, Op op, MemoryRegion local, MemoryRegion remote) {
        SendWr wr = new SendWr().wrId(i).opcode(op.opcode()).sendFlags(SendFlags.SIGNALED).immData(op.imm());
        switch (op.opcode()) {
            case RDMA_READ -> wr.sgList(sges(local, AREA + op.localOffset(), op.length()))
                    .rdma(remote.address() + op.remoteOffset(), remote.rkey());
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> wr.sgList(sges(local, op.localOffset(), op.length()))
                    .rdma(remote.address() + op.remoteOffset(), remote.rkey());
            case ATOMIC_FETCH_AND_ADD, ATOMIC_CMP_AND_SWP -> wr.sgList(Sge.of(local, 2L * AREA + op.localOffset(), 8))
                    .atomic(remote.address() + AREA + op.remoteOffset(), op.a(), op.b(), remote.rkey());
            default -> wr.sgList(sges(local, op.localOffset(), op.length()));
        }
        return wr;
    }

    private static Sge[] sges(MemoryRegion mr, long offset, int length) {
        return length == 0 ? new Sge[0] : new Sge[] {Sge.of(mr, offset, length)};
    }

    /**
     * The first difference between two outcomes, or empty if they are identical: completions are compared one
     * by one (requester first, then responder), then their numbers, then both memories byte by byte.
     *
     * @param xName the name of the run that gave {@code x}, for the message
     * @param x one outcome
     * @param yName the name of the run that gave {@code y}, for the message
     * @param y the other outcome
     * @return where they differ and both values, e.g. {@code "requester completion #12: ffm gave ..., jnr gave ..."}
     */
    public static Optional<String> firstDifference(String xName, Outcome x, String yName, Outcome y) {
        return differentCompletions("requester", xName, x.requester(), yName, y.requester())
                .or(() -> differentCompletions("responder", xName, x.responder(), yName, y.responder()))
                .or(() -> differentBytes("requester memory", xName, x.requesterMemory(), yName, y.requesterMemory()))
                .or(() -> differentBytes("responder memory", xName, x.responderMemory(), yName, y.responderMemory()));
    }

    private static Optional<String> differentCompletions(String side, String xName, List<Completion> x, String yName,
                                                         List<Completion> y) {
        for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
            if (!x.get(i).equals(y.get(i))) {
                return Optional.of(side + " completion #" + i + ": " + xName + " gave " + x.get(i) + ", " + yName
                        + " gave " + y.get(i));
            }
        }
        if (x.size() != y.size()) {
            return Optional.of("the number of " + side + " completions: " + xName + " gave " + x.size() + ", "
                    + yName + " gave " + y.size());
        }
        return Optional.empty();
    }

    private static Optional<String> differentBytes(String what, String xName, byte[] x, String yName, byte[] y) {
        int m = java.util.Arrays.mismatch(x, y);
        if (m < 0) {
            return Optional.empty();
        }
        return Optional.of(what + " at byte " + m + ": " + xName + " has " + byteAt(x, m) + ", " + yName + " has "
                + byteAt(y, m));
    }

    private static String byteAt(byte[] bytes, int offset) {
        return offset < bytes.length ? String.format("0x%02x", bytes[offset] & 0xFF)
                : "nothing (its memory is " + bytes.length + " bytes)";
    }

    @Test
    @DisplayName("required_ the same seeded workload of mixed WRs gives identical memory and completion streams on both providers [TCK differential rule]")
    void required_identicalOutcomes() {
        VerbsProvider one = first();
        VerbsProvider two = second();
        assumeTrue(one.isAvailable(), () -> one.name() + " is not available: " + one.unavailabilityCause());
        assumeTrue(two.isAvailable(), () -> two.name() + " is not available: " + two.unavailabilityCause());
        Set<WrOpcode> allowed;
        try (Testbed a = Testbed.open(one, firstDevice(), 1, -1); Testbed b = Testbed.open(two, secondDevice(), 1, -1)) {
            allowed = drawable(a.caps());
            allowed.retainAll(drawable(b.caps()));
        }
        assumeTrue(allowed.contains(WrOpcode.SEND), "the devices share no opcodes");
        long seed = seed();
        Outcome x = run(one, firstDevice(), seed, operations(), allowed);
        Outcome y = run(two, secondDevice(), seed, operations(), allowed);
        firstDifference(one.name(), x, two.name(), y).ifPresent(d -> fail(d + " (seed " + seed
                + "; replay with -Dverbs4j.tck.seed=" + seed + ")"));
    }
}
