package org.verbs4j.provider.emulated.engine;

import java.lang.ref.WeakReference;

/**
 * A map from 24-bit numbers (QPNs) to objects that looks up without locking or boxing: an open-addressed
 * table, replaced as a whole on every change.
 *
 * <p>It holds its values weakly. A device's QPs live as long as their context is reachable (the context holds
 * every object made from it); a context dropped unclosed must be collected with them (issue 26), and its QPs,
 * once collected, are no longer found, as if destroyed. Collected entries go at the next change.
 *
 * @param <T> the value type
 */
public final class QpnTable<T> {
    private static final class Table {
        final int[] keys;
        final Object[] values;

        Table(int size) {
            keys = new int[size];
            values = new Object[size];
        }
    }

    private volatile Table table = new Table(64);
    private int count;

    /** The value for {@code qpn}, or null. */
    @SuppressWarnings("unchecked")
    public T get(int qpn) {
        Table t = table;
        int mask = t.keys.length - 1;
        for (int i = mix(qpn) & mask; ; i = (i + 1) & mask) {
            Object v = t.values[i];
            if (v == null) {
                return null;
            }
            if (t.keys[i] == qpn) {
                return ((WeakReference<T>) v).get();
            }
        }
    }

    public synchronized void put(int qpn, T value) {
        Table t = table;
        Table n = new Table(count * 4 + 8 > t.keys.length ? t.keys.length * 2 : t.keys.length);
        count = copyExcept(t, n, qpn);
        insert(n, qpn, new WeakReference<>(value));
        count++;
        table = n;
    }

    public synchronized void remove(int qpn) {
        Table t = table;
        Table n = new Table(t.keys.length);
        count = copyExcept(t, n, qpn);
        table = n;
    }

    /** Copies every entry of {@code from} but {@code qpn}'s and the collected ones; returns how many. */
    private static int copyExcept(Table from, Table to, int qpn) {
        int copied = 0;
        for (int i = 0; i < from.keys.length; i++) {
            Object v = from.values[i];
            if (v != null && from.keys[i] != qpn && ((WeakReference<?>) v).get() != null) {
                insert(to, from.keys[i], v);
                copied++;
            }
        }
        return copied;
    }

    private static void insert(Table t, int key, Object value) {
        int mask = t.keys.length - 1;
        int i = mix(key) & mask;
        while (t.values[i] != null) {
            i = (i + 1) & mask;
        }
        t.keys[i] = key;
        t.values[i] = value;
    }

    private static int mix(int k) {
        return (k * 0x9E3779B9) >>> 7;
    }
}
