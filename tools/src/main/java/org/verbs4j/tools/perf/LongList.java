package org.verbs4j.tools.perf;

import java.util.Arrays;

/** A growable list of longs, so timing samples are not boxed. */
final class LongList {
    private long[] a = new long[1024];
    private int n;

    void add(long v) {
        if (n == a.length) {
            a = Arrays.copyOf(a, n * 2);
        }
        a[n++] = v;
    }

    long get(int i) {
        return a[i];
    }

    long last() {
        return a[n - 1];
    }

    int size() {
        return n;
    }

    long[] toArray() {
        return Arrays.copyOf(a, n);
    }
}
