package org.verbs4j.provider.emulated.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Copies the data of one WQE so that it lands in ascending address order, which is what the emulator
 * reports through {@code ibv_query_qp_data_in_order(3)}.
 *
 * <p>The message is written front to back in runs of at most 64 KiB, with a release fence after each
 * run, so no byte of a run becomes visible to another thread before every byte of the runs below it.
 * The final 8 bytes of the message are written last, after a fence: a reader that polls the last byte
 * (or the last 8-byte word) of a message and sees the new value also sees all the data before it, which
 * is the WHOLE_MSG promise ("the reader may poll for data instead of polling for completion").
 */
public final class OrderedCopy {
    private static final int RUN = 64 * 1024;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;

    private OrderedCopy() {}

    /**
     * Copies {@code len} bytes; both ranges have been bounds-checked by the caller. Small messages take the same
     * path as large ones: on JDK 25 one bulk {@link MemorySegment#copy} of a short run (checked once) costs less than
     * a loop of word accesses (each checked), about 5 against 9 ns for a 64-byte WRITE.
     */
    public static void copy(MemorySegment src, long srcOff, MemorySegment dst, long dstOff, long len) {
        VarHandle.releaseFence();
        if (len <= 0) {
            return;
        }
        if (len <= 8) {
            MemorySegment.copy(src, srcOff, dst, dstOff, len);
            return;
        }
        long body = len - 8;
        long done = 0;
        while (done < body) {
            long n = Math.min(RUN, body - done);
            MemorySegment.copy(src, srcOff + done, dst, dstOff + done, n);
            done += n;
            VarHandle.releaseFence();
        }
        // The last word in one 8-byte store, so that a reader polling it sees it whole.
        dst.set(WORD, dstOff + body, src.get(WORD, srcOff + body));
    }
}
