package org.verbs4j.provider.emulated.engine;

import java.lang.foreign.MemorySegment;

/**
 * One entry of a device's key table: what an lkey or rkey currently grants. Memory regions and memory
 * windows share the table, as they share the key space on a real device.
 *
 * <p>The fields are written under the table's lock and read without it; {@link #valid} is volatile and
 * written last, so a reader that sees it true sees the rest of the binding.
 */
public final class MemoryKey {
    /** A memory region's key. */
    public static final int KIND_MR = 0;
    /** A type 1 memory window's key. */
    public static final int KIND_MW1 = 1;
    /** A type 2 memory window's key. */
    public static final int KIND_MW2 = 2;

    /** The table slot, the upper 24 bits of every key this entry ever has. */
    public final int index;
    public final int kind;
    /** The protection domain, compared by identity. */
    public final Object pd;
    /** The object behind the key: the region or window. */
    public final Object owner;

    /** The current 32-bit key. */
    public volatile int key;
    /** Whether the key grants anything now. */
    public volatile boolean valid;
    /** The registered segment that backs the accessible range. */
    public MemorySegment segment;
    /** The address of the first byte of {@link #segment}, in the key's address space (0 when zero-based). */
    public long segmentBase;
    /** The first accessible address, in the key's address space. */
    public long start;
    /** The accessible length, bytes. */
    public long length;
    /** {@code AccessFlags} bits granted. */
    public int access;
    /** For a bound type 2 window, the QPN it was bound through; remote access must arrive on that QP. */
    public int boundQpn;
    /** For a bound window, the region it is bound to. */
    public Object boundMr;

    public MemoryKey(int index, int kind, Object pd, Object owner) {
        this.index = index;
        this.kind = kind;
        this.pd = pd;
        this.owner = owner;
    }

    /**
     * The offset into {@link #segment} of {@code [addr, addr + len)}, or -1 if that range is not inside the
     * accessible range.
     */
    public long offsetOf(long addr, long len) {
        if (len < 0 || addr < start || len > length || addr - start > length - len) {
            return -1;
        }
        return addr - segmentBase;
    }
}
