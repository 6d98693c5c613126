package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.verbs4j.MemoryRegion;

/** Buffer patterns and comparisons for data-path rules. */
public final class Data {
    private Data() {}

    /**
     * Fills memory with a pattern that differs for each seed and each offset.
     *
     * @param seg the memory to fill, all of it
     * @param seed which pattern
     */
    public static void fill(MemorySegment seg, int seed) {
        for (long i = 0; i < seg.byteSize(); i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, pattern(seed, i));
        }
    }

    /**
     * Fills the whole region with {@link #fill(MemorySegment, int)}'s pattern.
     *
     * @param mr the region to fill
     * @param seed which pattern
     */
    public static void fill(MemoryRegion mr, int seed) {
        fill(mr.segment(), seed);
    }

    /**
     * One byte of a pattern.
     *
     * @param seed which pattern
     * @param offset the byte's offset in the pattern
     * @return the pattern's byte at that offset
     */
    public static byte pattern(int seed, long offset) {
        return (byte) (seed * 31 + offset * 7 + (offset >>> 8) + 1);
    }

    /**
     * Fails unless {@code seg[offset .. offset+length)} holds a pattern starting at {@code patternOffset}.
     *
     * @param what names the data in the failure message
     * @param seg the memory to check
     * @param offset where the check starts in {@code seg}, bytes
     * @param length how many bytes to check
     * @param seed which pattern
     * @param patternOffset the offset in the pattern that {@code seg[offset]} must hold
     */
    public static void assertPattern(String what, MemorySegment seg, long offset, long length, int seed, long patternOffset) {
        for (long i = 0; i < length; i++) {
            byte expected = pattern(seed, patternOffset + i);
            byte actual = seg.get(ValueLayout.JAVA_BYTE, offset + i);
            if (expected != actual) {
                fail(what + ": byte " + (offset + i) + " is " + actual + " but " + expected
                        + " was expected; the data was not moved, moved partly, or landed at the wrong address");
            }
        }
    }

    /**
     * Fails unless the first {@code length} bytes of {@code dst} equal the first bytes of {@code src}.
     *
     * @param what names the data in the failure message
     * @param src the memory that was sent or written
     * @param dst the memory that received it
     * @param length how many bytes to compare
     */
    public static void assertSame(String what, MemorySegment src, MemorySegment dst, long length) {
        long m = src.asSlice(0, length).mismatch(dst.asSlice(0, length));
        if (m >= 0) {
            fail(what + ": the buffers differ first at byte " + m + " of " + length);
        }
    }

    /**
     * Fails unless {@code seg[offset .. offset+length)} is all {@code value}: memory that must not change.
     *
     * @param what names the memory in the failure message
     * @param seg the memory to check
     * @param offset where the check starts, bytes
     * @param length how many bytes to check
     * @param value the byte every one of them must hold
     */
    public static void assertFilled(String what, MemorySegment seg, long offset, long length, byte value) {
        for (long i = 0; i < length; i++) {
            byte b = seg.get(ValueLayout.JAVA_BYTE, offset + i);
            if (b != value) {
                fail(what + ": byte " + (offset + i) + " is " + b + ", expected " + value
                        + " (memory that must not change was written)");
            }
        }
    }

    /**
     * Reads 8 bytes in native order, as an atomic operation's target.
     *
     * @param seg the memory
     * @param offset where, bytes; need not be aligned
     * @return the 64-bit value
     */
    public static long u64(MemorySegment seg, long offset) {
        return seg.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
    }

    /**
     * Writes 8 bytes in native order, as an atomic operation's target.
     *
     * @param seg the memory
     * @param offset where, bytes; need not be aligned
     * @param value the 64-bit value
     */
    public static void u64(MemorySegment seg, long offset, long value) {
        seg.set(ValueLayout.JAVA_LONG_UNALIGNED, offset, value);
    }
}
