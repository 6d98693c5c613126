package org.verbs4j.provider.emulated.engine;

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
    /** Messages up to this size are copied word by word, which is cheaper than a bulk copy call. */
    private static final int SMALL = 256;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;

    private OrderedCopy() {}

    /** Copies {@code len} bytes; both ranges have been bounds-checked by the caller. */
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
        if (len <= SMALL) {
            long i = 0;
            for (; i + 8 <= body; i += 8) {
                dst.set(WORD, dstOff + i, src.get(WORD, srcOff + i));
            }
            for (; i < body; i++) {
                dst.set(ValueLayout.JAVA_BYTE, dstOff + i, src.get(ValueLayout.JAVA_BYTE, srcOff + i));
            }
            VarHandle.releaseFence();
            dst.set(WORD, dstOff + body, src.get(WORD, srcOff + body));
            return;
        }
        long done = 0;
        while (done < body) {
            long n = Math.min(RUN, body - done);
            MemorySegment.copy(src, srcOff + done, dst, dstOff + done, n);
            done += n;
            VarHandle.releaseFence();
        }
        MemorySegment.copy(src, srcOff + body, dst, dstOff + body, 8);
    }
}
