package org.verbs4j.provider.emulated.engine;

import java.lang.foreign.MemorySegment;

import org.verbs4j.AccessFlags;

/**
 * Moving a message's bytes: gathering a send WQE's data (inline, or its SGEs as resolved at execution) and
 * scattering it into a receive WR's buffers. Every copy goes through {@link OrderedCopy}, so each WQE's data
 * lands in ascending address order. Callers hold the receive queue's monitor while scattering.
 */
public final class Transfer {
    private Transfer() {}

    /** Writes the WQE's data (inline or gathered from its SGEs) to {@code dst} in ascending order. */
    public static void gather(SendWqe w, MemorySegment dst, long dstOff) {
        if (w.isInline) {
            OrderedCopy.copy(w.inline, 0, dst, dstOff, w.inlineLength);
            return;
        }
        long at = dstOff;
        for (int i = 0, n = w.numSge; i < n; i++) {
            long len = Integer.toUnsignedLong(w.sgeLength[i]);
            OrderedCopy.copy(w.sgeSegment[i], w.sgeOffset[i], dst, at, len);
            at += len;
        }
    }


    /**
     * Checks every SGE of a receive WR against the receiving QP's key table and PD (lkey, PD, LOCAL_WRITE,
     * bounds) and records its segment and offset in the queue's scratch arrays.
     */
    public static boolean resolveScatter(KeyTable keys, Object pd, RecvQueue q, int slot) {
        for (int i = 0, n = q.numSge(slot); i < n; i++) {
            MemoryKey k = keys.lookup(q.sgeLkey(slot, i));
            if (k == null || k.kind != MemoryKey.KIND_MR || k.pd != pd
                    || (k.access & AccessFlags.LOCAL_WRITE) == 0) {
                return false;
            }
            long off = k.offsetOf(q.sgeAddr(slot, i), q.sgeLength(slot, i));
            if (off < 0) {
                return false;
            }
            q.resolvedSegment[i] = k.segment;
            q.resolvedOffset[i] = off;
        }
        return true;
    }

    /** Copies {@code len} bytes from {@code src} into the receive WR's buffers starting at message byte {@code at}. */
    public static long scatterChunk(RecvQueue q, int slot, long at, MemorySegment src, long srcOff, long len) {
        long skip = at;
        for (int i = 0, n = q.numSge(slot); i < n && len > 0; i++) {
            long sgeLen = q.sgeLength(slot, i);
            if (skip >= sgeLen) {
                skip -= sgeLen;
                continue;
            }
            long chunk = Math.min(len, sgeLen - skip);
            OrderedCopy.copy(src, srcOff, q.resolvedSegment[i], q.resolvedOffset[i] + skip, chunk);
            srcOff += chunk;
            len -= chunk;
            at += chunk;
            skip = 0;
        }
        return at;
    }

    /** Copies the WQE's data into the receive WR's buffers, from message byte {@code at}. */
    public static void scatter(SendWqe w, RecvQueue q, int slot, long at) {
        if (w.isInline) {
            scatterChunk(q, slot, at, w.inline, 0, w.inlineLength);
            return;
        }
        for (int i = 0, n = w.numSge; i < n; i++) {
            long len = Integer.toUnsignedLong(w.sgeLength[i]);
            at = scatterChunk(q, slot, at, w.sgeSegment[i], w.sgeOffset[i], len);
        }
    }

    /**
     * Copies message bytes {@code at .. at + len} of the WQE's data (inline, or its SGEs as resolved at
     * execution) to {@code dst}: one packet's payload.
     */
    public static void gatherChunk(SendWqe w, long at, MemorySegment dst, long dstOff, long len) {
        if (w.isInline) {
            MemorySegment.copy(w.inline, at, dst, dstOff, len);
            return;
        }
        sgeCopy(w, at, dst, dstOff, len, false);
    }

    /** Copies {@code len} bytes from {@code src} into the WQE's resolved SGEs from message byte {@code at}. */
    public static void scatterToSges(SendWqe w, long at, MemorySegment src, long srcOff, long len) {
        sgeCopy(w, at, src, srcOff, len, true);
    }

    private static void sgeCopy(SendWqe w, long at, MemorySegment other, long otherOff, long len, boolean intoSges) {
        long skip = at;
        for (int i = 0, n = w.numSge; i < n && len > 0; i++) {
            long sgeLen = Integer.toUnsignedLong(w.sgeLength[i]);
            if (skip >= sgeLen) {
                skip -= sgeLen;
                continue;
            }
            long chunk = Math.min(len, sgeLen - skip);
            if (intoSges) {
                OrderedCopy.copy(other, otherOff, w.sgeSegment[i], w.sgeOffset[i] + skip, chunk);
            } else {
                MemorySegment.copy(w.sgeSegment[i], w.sgeOffset[i] + skip, other, otherOff, chunk);
            }
            otherOff += chunk;
            len -= chunk;
            skip = 0;
        }
    }
}
