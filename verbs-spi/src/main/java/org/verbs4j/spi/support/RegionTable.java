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
 * <p>What this does not cover: an arena closed by another thread between {@link #find} and the native
 * copy that follows it. Closing an arena while a post that reads it is in progress is a race in the caller;
 * {@link org.verbs4j.ProtectionDomain#registerMemory(MemorySegment, int, java.lang.foreign.Arena)} closes the
 * region before such an arena frees its memory.
 */
public final class RegionTable {
    private static final MemorySegment[] EMPTY = new MemorySegment[0];

    private volatile MemorySegment[] segments = EMPTY;

    /** Adds a registered segment. The same memory may be registered more than once. */
    public synchronized void add(MemorySegment segment) {
        Objects.requireNonNull(segment, "segment");
        MemorySegment[] s = segments;
        MemorySegment[] n = Arrays.copyOf(s, s.length + 1);
        n[s.length] = segment;
        segments = n;
    }

    /** Removes one registration of {@code segment} (compared by identity); does nothing if it is absent. */
    public synchronized void remove(MemorySegment segment) {
        MemorySegment[] s = segments;
        for (int i = 0; i < s.length; i++) {
            if (s[i] == segment) {
                MemorySegment[] n = new MemorySegment[s.length - 1];
                System.arraycopy(s, 0, n, 0, i);
                System.arraycopy(s, i + 1, n, i, s.length - i - 1);
                segments = n;
                return;
            }
        }
    }

    /**
     * The live registered segment that holds all of {@code [address, address + length)}, or null.
     *
     * @param address a virtual address (inline data ignores the lkey, so this is never zero-based)
     * @param length bytes, 0 or more
     */
    public MemorySegment find(long address, long length) {
        if (length < 0) {
            return null;
        }
        for (MemorySegment s : segments) {
            long base = s.address();
            if (address >= base && address - base <= s.byteSize() - length && s.scope().isAlive()) {
                return s;
            }
        }
        return null;
    }

    /** Whether {@link #find} would find a segment. */
    public boolean contains(long address, long length) {
        return find(address, length) != null;
    }

    /** The number of live registrations, for tests and diagnostics. */
    public int size() {
        return segments.length;
    }
}
