package org.verbs4j.provider.emulated.engine;

import java.lang.ref.WeakReference;

/**
 * A device's lkey/rkey table. A key is {@code index << 8 | variant}: the upper 24 bits select the entry, and
 * the low 8 bits change whenever a window is re-bound, so a stale key no longer matches.
 *
 * <p>Lookups take no lock: they read a volatile array and compare the whole key. Changes are made under
 * the table's monitor.
 *
 * <p>It holds its entries weakly: a key lives as long as its region or window, and they as long as their
 * context is reachable (the context holds every object made from it). A context dropped unclosed must be
 * collected with them (issue 26); a collected entry's keys then match nothing, as after deregistration, and its
 * slot is never reused, since the last key a window had there is unknown.
 */
public final class KeyTable {
    /** Per slot: null (free), or a {@code WeakReference<MemoryKey>}. */
    private volatile Object[] entries = new Object[256];
    /** Per slot, the variant its last key had, so a reused slot never hands out a stale key again. */
    private int[] variants = new int[256];
    private int next = 1;
    private int freeHint = 1;

    /**
     * Allocates a new entry, invalid until its owner fills and validates it. Its key's low 8 bits differ from
     * those of the slot's previous key.
     */
    public synchronized MemoryKey allocate(int kind, Object pd, Object owner) {
        Object[] e = entries;
        int index = -1;
        for (int i = freeHint; i < next; i++) {
            if (e[i] == null) {
                index = i;
                break;
            }
        }
        if (index < 0) {
            if (next == e.length) {
                if (next >= (1 << 24)) {
                    return null;
                }
                Object[] grown = new Object[e.length * 2];
                System.arraycopy(e, 0, grown, 0, e.length);
                variants = java.util.Arrays.copyOf(variants, grown.length);
                entries = e = grown;
            }
            index = next++;
        }
        freeHint = index + 1;
        MemoryKey k = new MemoryKey(index, kind, pd, owner);
        int variant = (variants[index] + 1) & 0xff;
        variants[index] = variant;
        k.key = index << 8 | variant;
        e[index] = new WeakReference<>(k);
        entries = e;
        return k;
    }

    /** Frees an entry; its keys never match again until the slot is reused with a new variant. */
    public synchronized void release(MemoryKey k) {
        k.valid = false;
        Object[] e = entries;
        if (e[k.index] instanceof WeakReference<?> r && r.get() == k) {
            e[k.index] = null;
            // A window's key may have moved on since allocation; the next key must differ from the last one.
            variants[k.index] = k.key & 0xff;
            entries = e;
            if (k.index < freeHint) {
                freeHint = k.index;
            }
        }
    }

    /** The entry whose current key is exactly {@code key} and is valid, or null. */
    public MemoryKey lookup(int key) {
        Object[] e = entries;
        int index = key >>> 8;
        if (index >= e.length) {
            return null;
        }
        Object r = e[index];
        MemoryKey k = r == null ? null : (MemoryKey) ((WeakReference<?>) r).get();
        if (k == null || !k.valid || k.key != key) {
            return null;
        }
        return k;
    }
}
