package org.verbs4j.provider.nativecommon.internal;

/**
 * Native memory by address, as the shared object model reads and writes the libibverbs structs it shares with the
 * library: fields at the offsets of the one layout description ({@code *Structs}). No native call; every address
 * is in live native memory the caller owns or the library gave it.
 */
public interface NativeMemoryAccess {
    /**
     * Reads a 32-bit field.
     *
     * @param address the field's address in live native memory
     * @return its value
     */
    int getInt(long address);

    /**
     * Writes a 32-bit field.
     *
     * @param address the field's address in live native memory
     * @param value the value
     */
    void putInt(long address, int value);

    /**
     * Reads a 64-bit field.
     *
     * @param address the field's address in live native memory
     * @return its value
     */
    long getLong(long address);

    /**
     * Writes a 64-bit field.
     *
     * @param address the field's address in live native memory
     * @param value the value
     */
    void putLong(long address, long value);

    /**
     * Reads a 16-bit field.
     *
     * @param address the field's address in live native memory
     * @return its value, sign-extended
     */
    short getShort(long address);

    /**
     * Writes a 16-bit field.
     *
     * @param address the field's address in live native memory
     * @param value the value
     */
    void putShort(long address, short value);

    /**
     * Reads an 8-bit field.
     *
     * @param address the field's address in live native memory
     * @return its value, sign-extended
     */
    byte getByte(long address);

    /**
     * Writes an 8-bit field.
     *
     * @param address the field's address in live native memory
     * @param value the value
     */
    void putByte(long address, byte value);

    /**
     * Reads an unsigned 16-bit field.
     *
     * @param address the field's address in live native memory
     * @return its value, 0..65535
     */
    int getU16(long address);

    /**
     * Reads an unsigned 8-bit field.
     *
     * @param address the field's address in live native memory
     * @return its value, 0..255
     */
    int getU8(long address);

    /**
     * Copies native memory into an array.
     *
     * @param address the first byte, in live native memory
     * @param into the array, filled whole
     */
    void getBytes(long address, byte[] into);

    /**
     * Copies an array into native memory.
     *
     * @param address the first byte, in live native memory
     * @param from the array, copied whole
     */
    void putBytes(long address, byte[] from);
}
