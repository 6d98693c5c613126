package org.verbs4j.examples;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.verbs4j.AccessFlags;
import org.verbs4j.AtomicCapability;
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
 * Atomics: a remote counter incremented with fetch_add, then a lock word taken and missed with cmp_swp.
 *
 * What it shows:
 * - atomics act on one 8-byte word at an 8-byte-aligned remote address, in a region registered with
 *   REMOTE_ATOMIC (and a QP that allows it);
 * - the word's ORIGINAL value comes back into the local 8-byte SGE: fetch_add returns the value before the
 *   add; cmp_swp returns the value before the compare, so the caller sees whether the swap happened
 *   (returned == compare);
 * - a device says whether it has atomics in Context.capabilities().atomics(); NONE means none at all.
 *
 * Run: java -cp "examples/target/classes:$(cat examples/target/classpath.txt)" \
 *          org.verbs4j.examples.Atomics [increments]
 */
public final class Atomics {
    private static final int PORT = 1;
    private static final long UNLOCKED = 0;
    private static final long OWNER = 42;

    private Atomics() {}

    /**
     * What the atomics did.
     *
     * @param fetched the value each fetch_add returned, in order
     * @param counter the remote counter at the end
     * @param lockReturned what the first cmp_swp (0 -> 42) returned
     * @param retryReturned what the second cmp_swp (0 -> 43, lock already taken) returned
     * @param lockWord the remote lock word at the end
     */
    record Outcome(long[] fetched, long counter, long lockReturned, long retryReturned, long lockWord) {}

    public static void main(String[] args) {
        int increments = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        try (Context ctx = Verbs.provider().devices().get(0).open()) {
            if (ctx.capabilities().atomics() == AtomicCapability.NONE) {
                System.out.println(ctx.device().name() + " has no atomics (capabilities().atomics() is NONE)");
                return;
            }
            Outcome o = run(ctx, increments);
            System.out.println("fetch_add returned " + Arrays.toString(o.fetched()) + ", counter is now "
                    + o.counter());
            System.out.println("cmp_swp(0 -> 42) returned " + o.lockReturned() + ": "
                    + (o.lockReturned() == UNLOCKED ? "taken" : "missed"));
            System.out.println("cmp_swp(0 -> 43) returned " + o.retryReturned() + ": "
                    + (o.retryReturned() == UNLOCKED ? "taken" : "missed") + "; lock word is " + o.lockWord());
        }
    }

    static Outcome run(Context ctx, int increments) {
        int gidIndex = Endpoint.preferredGidIndex(ctx, PORT);
        int remoteAccess = AccessFlags.REMOTE_ATOMIC;
        try (Arena arena = Arena.ofConfined();
             ProtectionDomain pd = ctx.allocPd();
             CompletionQueue cq = ctx.createCq(16);
             CompletionQueue serverCq = ctx.createCq(16)) {
            // Remote: word 0 is the counter, word 1 the lock. Local: where the original values come back.
            MemorySegment remote = arena.allocate(16, 8);
            MemorySegment local = arena.allocate(8, 8);
            try (MemoryRegion remoteMr = pd.registerMemory(remote, AccessFlags.LOCAL_WRITE | remoteAccess, arena);
                 MemoryRegion localMr = pd.registerMemory(local, AccessFlags.LOCAL_WRITE, arena);
                 QueuePair client = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq)
                         .sendOps(WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.ATOMIC_CMP_AND_SWP).build());
                 QueuePair server = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(serverCq).build())) {
                Endpoint toServer = Endpoint.of(ctx, PORT, gidIndex, server, 7, remoteMr);
                Endpoint toClient = new Endpoint(ctx.queryGid(PORT, gidIndex), client.qpNum(), 9, 0, 0);
                RcConnection.connect(client, PORT, gidIndex, toClient, toServer, 0);
                RcConnection.connect(server, PORT, gidIndex, toServer, toClient, remoteAccess);
                long counterAddr = toServer.addr();
                long lockAddr = toServer.addr() + 8;
                WorkCompletionBatch wc = new WorkCompletionBatch(1);

                long[] fetched = new long[increments];
                for (int i = 0; i < increments; i++) {
                    try (WrSession s = client.startWr()) {
                        s.wrId(i);
                        s.wrFlags(SendFlags.SIGNALED);
                        s.atomicFetchAdd(toServer.rkey(), counterAddr, 1);
                        s.setSge(localMr.lkey(), localMr.address(), 8);
                        s.complete();
                    }
                    Completions.await(cq, wc, 1);
                    fetched[i] = local.get(ValueLayout.JAVA_LONG, 0);
                }

                long lockReturned = compareAndSwap(client, cq, wc, toServer.rkey(), lockAddr, UNLOCKED, OWNER,
                        localMr, local);
                long retryReturned = compareAndSwap(client, cq, wc, toServer.rkey(), lockAddr, UNLOCKED, OWNER + 1,
                        localMr, local);
                return new Outcome(fetched, remote.get(ValueLayout.JAVA_LONG, 0), lockReturned, retryReturned,
                        remote.get(ValueLayout.JAVA_LONG, 8));
            }
        }
    }

    /** One cmp_swp: if the remote word equals {@code compare}, it becomes {@code swap}; returns its old value. */
    private static long compareAndSwap(QueuePair qp, CompletionQueue cq, WorkCompletionBatch wc, int rkey, long addr,
                                       long compare, long swap, MemoryRegion localMr, MemorySegment local) {
        try (WrSession s = qp.startWr()) {
            s.wrId(100 + swap);
            s.wrFlags(SendFlags.SIGNALED);
            s.atomicCmpSwp(rkey, addr, compare, swap);
            s.setSge(localMr.lkey(), localMr.address(), 8);
            s.complete();
        }
        Completions.await(cq, wc, 1);
        return local.get(ValueLayout.JAVA_LONG, 0);
    }
}
