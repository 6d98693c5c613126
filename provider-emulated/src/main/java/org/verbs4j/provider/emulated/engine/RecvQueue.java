package org.verbs4j.provider.emulated.engine;

import org.verbs4j.RecvWr;
import org.verbs4j.Sge;
import org.verbs4j.spi.support.Arguments;

/**
 * A receive queue of a QP or an SRQ: a ring of preallocated receive WQEs, each holding its scatter list
 * in primitive arrays. Posting copies a {@link RecvWr} into a slot; nothing is allocated.
 *
 * <p>Every method must be called holding the queue's monitor ({@code synchronized (queue)}): receives are
 * posted by the owner and consumed by whichever thread delivers a message.
 */
public final class RecvQueue {
    private final long[] wrId;
    private final int[] numSge;
    private final long[] addr;
    private final int[] length;
    private final int[] lkey;
    private final int maxSge;
    /** Scratch for the thread delivering a message (under the monitor): each SGE's segment and offset. */
    public final java.lang.foreign.MemorySegment[] resolvedSegment;
    public final long[] resolvedOffset;
    private long head;
    private long tail;

    public RecvQueue(int maxWr, int maxSge) {
        this.maxSge = Math.max(1, maxSge);
        wrId = new long[maxWr];
        numSge = new int[maxWr];
        addr = new long[maxWr * this.maxSge];
        length = new int[maxWr * this.maxSge];
        lkey = new int[maxWr * this.maxSge];
        resolvedSegment = new java.lang.foreign.MemorySegment[this.maxSge];
        resolvedOffset = new long[this.maxSge];
    }

    public int capacity() {
        return wrId.length;
    }

    public int maxSge() {
        return maxSge;
    }

    public int size() {
        return (int) (tail - head);
    }

    public boolean isEmpty() {
        return head == tail;
    }

    /** Appends a WR; the caller has checked room and the SGE count. */
    public void add(RecvWr wr) {
        Arguments.sges(wr.sgList(), wr.numSge(), "sgList");
        int slot = (int) (tail % wrId.length);
        wrId[slot] = wr.wrId();
        int n = wr.numSge();
        numSge[slot] = n;
        Sge[] sges = wr.sgList();
        int base = slot * maxSge;
        for (int i = 0; i < n; i++) {
            Sge s = sges[i];
            addr[base + i] = s.addr();
            length[base + i] = s.length();
            lkey[base + i] = s.lkey();
        }
        tail++;
    }

    /** The slot of the oldest WR; the queue must not be empty. */
    public int headSlot() {
        return (int) (head % wrId.length);
    }

    /** Removes the oldest WR. */
    public void pop() {
        head++;
    }

    /** Drops every WR. */
    public void clear() {
        head = tail;
    }

    public long wrId(int slot) {
        return wrId[slot];
    }

    public int numSge(int slot) {
        return numSge[slot];
    }

    public long sgeAddr(int slot, int i) {
        return addr[slot * maxSge + i];
    }

    /** The SGE's length, bytes, unsigned. */
    public long sgeLength(int slot, int i) {
        return Integer.toUnsignedLong(length[slot * maxSge + i]);
    }

    public int sgeLkey(int slot, int i) {
        return lkey[slot * maxSge + i];
    }

    /** The total length of the slot's scatter list, bytes. */
    public long totalLength(int slot) {
        long total = 0;
        int n = numSge[slot];
        for (int i = 0; i < n; i++) {
            total += sgeLength(slot, i);
        }
        return total;
    }
}
