package org.verbs4j.provider.ffm.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;

/**
 * Reads and writes control-path struct fields by their dotted C path. Each call computes the offset,
 * so these are for setup and queries only; the data path uses the VarHandles of {@link Structs}.
 */
public final class Fields {
    private Fields() {}

    public static int i32(MemorySegment s, MemoryLayout l, String path) {
        return s.get(JAVA_INT, LayoutBuilder.off(l, path));
    }

    public static long i64(MemorySegment s, MemoryLayout l, String path) {
        return s.get(JAVA_LONG, LayoutBuilder.off(l, path));
    }

    /** An unsigned 16-bit field. */
    public static int u16(MemorySegment s, MemoryLayout l, String path) {
        return s.get(JAVA_SHORT, LayoutBuilder.off(l, path)) & 0xffff;
    }

    /** An unsigned 8-bit field. */
    public static int u8(MemorySegment s, MemoryLayout l, String path) {
        return s.get(JAVA_BYTE, LayoutBuilder.off(l, path)) & 0xff;
    }

    public static void i32(MemorySegment s, MemoryLayout l, String path, int v) {
        s.set(JAVA_INT, LayoutBuilder.off(l, path), v);
    }

    public static void i64(MemorySegment s, MemoryLayout l, String path, long v) {
        s.set(JAVA_LONG, LayoutBuilder.off(l, path), v);
    }

    public static void u16(MemorySegment s, MemoryLayout l, String path, int v) {
        s.set(JAVA_SHORT, LayoutBuilder.off(l, path), (short) v);
    }

    public static void u8(MemorySegment s, MemoryLayout l, String path, int v) {
        s.set(JAVA_BYTE, LayoutBuilder.off(l, path), (byte) v);
    }

    /** A NUL-terminated char array field. */
    public static String string(MemorySegment s, MemoryLayout l, String path) {
        return s.asSlice(LayoutBuilder.off(l, path)).getString(0);
    }
}
