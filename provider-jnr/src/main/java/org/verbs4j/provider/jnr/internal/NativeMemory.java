package org.verbs4j.provider.jnr.internal;

import com.kenai.jffi.MemoryIO;

/**
 * Raw native memory through jffi's {@link MemoryIO}, with the accessors the layouts need. Addresses are
 * not checked: callers pass only memory they own or that libibverbs gave them.
 */
public final class NativeMemory {
    private static final MemoryIO IO = MemoryIO.getInstance();

    private NativeMemory() {}

    /**
     * Allocates zeroed native memory.
     *
     * @throws OutOfMemoryError if malloc fails
     */
    public static long allocate(long bytes) {
        long a = IO.allocateMemory(Math.max(bytes, 8), true);
        if (a == 0) {
            throw new OutOfMemoryError("malloc of " + bytes + " bytes failed");
        }
        return a;
    }

    public static void free(long address) {
        if (address != 0) {
            IO.freeMemory(address);
        }
    }

    public static void clear(long address, long bytes) {
        IO.setMemory(address, bytes, (byte) 0);
    }

    public static void copy(long from, long to, long bytes) {
        IO.copyMemory(from, to, bytes);
    }

    public static byte getByte(long a) {
        return IO.getByte(a);
    }

    public static int getU8(long a) {
        return IO.getByte(a) & 0xff;
    }

    public static int getU16(long a) {
        return IO.getShort(a) & 0xffff;
    }

    public static int getInt(long a) {
        return IO.getInt(a);
    }

    public static long getLong(long a) {
        return IO.getLong(a);
    }

    public static long getAddress(long a) {
        return IO.getAddress(a);
    }

    public static void putByte(long a, int v) {
        IO.putByte(a, (byte) v);
    }

    public static void putShort(long a, int v) {
        IO.putShort(a, (short) v);
    }

    public static void putInt(long a, int v) {
        IO.putInt(a, v);
    }

    public static void putLong(long a, long v) {
        IO.putLong(a, v);
    }

    public static void putAddress(long a, long v) {
        IO.putAddress(a, v);
    }

    public static void getBytes(long a, byte[] dst, int off, int len) {
        IO.getByteArray(a, dst, off, len);
    }

    public static void putBytes(long a, byte[] src, int off, int len) {
        IO.putByteArray(a, src, off, len);
    }

    /** The NUL-terminated string at {@code a}, read as UTF-8, or null for a null pointer. */
    public static String getString(long a) {
        return a == 0 ? null : new String(IO.getZeroTerminatedByteArray(a), java.nio.charset.StandardCharsets.UTF_8);
    }
}
