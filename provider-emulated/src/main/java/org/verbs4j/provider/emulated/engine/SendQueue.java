package org.verbs4j.provider.emulated.engine;

import java.lang.foreign.MemorySegment;

/**
 * A QP's send queue: a ring of preallocated {@link SendWqe} slots, each with its own inline buffer, so that
 * posting fills a slot in place and allocates nothing.
 *
 * <p>{@link #head} and {@link #tail} are sequence numbers that only grow: {@code slot(head)} is the oldest
 * WQE the requester has not finished, {@code slot(tail)} the next free slot. Posting fills slots from the
 * tail and then moves it; the requester executes from the head. Every access holds the QP's lock.
 */
public final class SendQueue {
    private final SendWqe[] slots;
    /** {@code capacity() - 1}: a sequence number's slot is {@code seq & mask}. */
    public final int mask;
    /** The sequence number of the oldest unfinished WQE. */
    public long head;
    /** The sequence number of the next free slot. */
    public long tail;

    /**
     * @param capacity  the number of slots, a power of two
     * @param maxSge    the gather list length of each slot
     * @param maxInline the inline buffer of each slot, bytes
     */
    public SendQueue(int capacity, int maxSge, int maxInline) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("the send queue's capacity must be a power of two: " + capacity);
        }
        this.slots = new SendWqe[capacity];
        this.mask = capacity - 1;
        int inlineSlot = Math.max(1, maxInline);
        MemorySegment inline = MemorySegment.ofArray(new byte[inlineSlot * capacity]);
        for (int i = 0; i < capacity; i++) {
            slots[i] = new SendWqe(maxSge, inline.asSlice((long) i * inlineSlot, inlineSlot));
        }
    }

    /** The number of slots. */
    public int capacity() {
        return slots.length;
    }

    /** The slot of sequence number {@code seq}. */
    public SendWqe slot(long seq) {
        return slots[(int) (seq & mask)];
    }

    /** Whether every slot holds a posted, unfinished WQE. */
    public boolean isFull() {
        return tail - head >= slots.length;
    }

    /** The number of free slots. */
    public int room() {
        return (int) (slots.length - (tail - head));
    }

    /** Drops every posted WQE without completing it (a QP moved to RESET or destroyed). */
    public void clear() {
        head = tail;
    }
}
