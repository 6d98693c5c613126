package org.verbs4j.spi.support;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * The live registered memory of one protection domain, for checking an address before the library
 * dereferences it on the CPU (inline data, emulated gathers): a provider adds a region's segment at
 * registration, removes it at deregistration, and asks {@link #find} on its post path.
 *
 * <p>Lookups take no lock and allocate nothing: the table is a copy-on-write array, read through one
 * volatile field. Registration and deregistration copy it, which is cheap next to {@code ibv_reg_mr(3)}.
 * A segment whose scope is no longer alive (its arena was closed under a live region) is never found.
 *
 * <p>A native post that copies inline data finds each range with {@link #hold}, which also holds the region
 * object ({@link AbstractVerbsObject#enterCall()}) until the library has copied it: the region's close, on any
 * thread, waits for that post, and
 * {@link org.verbs4j.ProtectionDomain#registerMemory(MemorySegment, int, java.lang.foreign.Arena)} closes the
 * region before its arena frees the memory. What this does not cover: an arena closed directly by another
 * thread, with its region still open, during such a post; that is a race in the caller.
 */
public final class RegionTable {
    /** One immutable snapshot: the segments, and their [start, end) addresses as plain longs for the scan. */
    private record Snapshot(MemorySegment[] segments, AbstractVerbsObject[] regions, long[] starts, long[] ends) {}

    private static final Snapshot EMPTY = new Snapshot(new MemorySegment[0], new AbstractVerbsObject[0], new long[0],
            new long[0]);

    private volatile Snapshot table = EMPTY;

    /** Creates an empty table. */
    public RegionTable() {
        // Regions are added as they are registered.
    }

    /**
     * Adds a registered segment. The same memory may be registered more than once.
     *
     * @param segment the registered memory
     */
    public void add(MemorySegment segment) {
        add(segment, null);
    }

    /**
     * Adds a registered segment with the region object that {@link #hold} holds for a native copy.
     *
     * @param segment the registered memory
     * @param region the memory region registered over it, or null when nothing is ever held
     */
    public synchronized void add(MemorySegment segment, AbstractVerbsObject region) {
        Objects.requireNonNull(segment, "segment");
        Snapshot t = table;
        int n = t.segments.length;
        MemorySegment[] segments = Arrays.copyOf(t.segments, n + 1);
        AbstractVerbsObject[] regions = Arrays.copyOf(t.regions, n + 1);
        long[] starts = Arrays.copyOf(t.starts, n + 1);
        long[] ends = Arrays.copyOf(t.ends, n + 1);
        segments[n] = segment;
        regions[n] = region;
        starts[n] = segment.address();
        ends[n] = segment.address() + segment.byteSize();
        table = new Snapshot(segments, regions, starts, ends);
    }

    /**
     * Removes one registration of {@code segment} (compared by identity); does nothing if it is absent.
     *
     * @param segment the memory of the region being deregistered
     */
    public synchronized void remove(MemorySegment segment) {
        Snapshot t = table;
        for (int i = 0; i < t.segments.length; i++) {
            if (t.segments[i] == segment) {
                table = new Snapshot(without(t.segments, i, new MemorySegment[t.segments.length - 1]),
                        without(t.regions, i, new AbstractVerbsObject[t.regions.length - 1]),
                        without(t.starts, i), without(t.ends, i));
                return;
            }
        }
    }

    private static <T> T[] without(T[] a, int i, T[] n) {
        System.arraycopy(a, 0, n, 0, i);
        System.arraycopy(a, i + 1, n, i, a.length - i - 1);
        return n;
    }

    private static long[] without(long[] a, int i) {
        long[] n = new long[a.length - 1];
        System.arraycopy(a, 0, n, 0, i);
        System.arraycopy(a, i + 1, n, i, a.length - i - 1);
        return n;
    }

    /**
     * The live registered segment that holds all of {@code [address, address + length)}, or null.
     *
     * @param address a virtual address (inline data ignores the lkey, so this is never zero-based)
     * @param length bytes, 0 or more
     * @return the live registered segment holding the whole range, or null
     */
    public MemorySegment find(long address, long length) {
        if (length < 0) {
            return null;
        }
        Snapshot t = table;
        int i = next(t, address, length, 0);
        return i < 0 ? null : t.segments[i];
    }

    /** The index of the first live segment at or after {@code from} that holds the whole range, or -1. */
    private static int next(Snapshot t, long address, long length, int from) {
        long[] starts = t.starts;
        long[] ends = t.ends;
        for (int i = from; i < starts.length; i++) {
            // address - start <= (end - start) - length: no overflow for any address or length
            if (address >= starts[i] && address - starts[i] <= ends[i] - starts[i] - length
                    && t.segments[i].scope().isAlive()) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Finds, as {@link #find} does, a live region that holds all of {@code [address, address + length)}, and
     * holds its region object for a native call that reads the range; the caller ends the hold with
     * {@link AbstractVerbsObject#exitCall()} once the library has read it. A region whose close has begun is
     * passed over. Allocates nothing.
     *
     * @param address a virtual address
     * @param length bytes, 0 or more
     * @return the region held, or null if no open region added with its object holds the range
     */
    public AbstractVerbsObject hold(long address, long length) {
        if (length < 0) {
            return null;
        }
        Snapshot t = table;
        for (int i = next(t, address, length, 0); i >= 0; i = next(t, address, length, i + 1)) {
            AbstractVerbsObject r = t.regions[i];
            if (r != null && r.enterCall()) {
                return r;
            }
        }
        return null;
    }

    /**
     * {@return whether {@link #find} would find a segment}
     * @param address see above
     * @param length see above
     */
    public boolean contains(long address, long length) {
        return find(address, length) != null;
    }

    /** {@return the number of live registrations, for tests and diagnostics} */
    public int size() {
        return table.segments.length;
    }
}
