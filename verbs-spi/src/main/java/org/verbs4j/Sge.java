package org.verbs4j;

/**
 * A scatter/gather element, {@code struct ibv_sge}: a local buffer inside a registered region.
 * Mutable, so one instance can be reused for every post without allocating.
 *
 * @see "ibv_post_send(3)"
 */
public final class Sge {
    private long addr;
    private int length;
    private int lkey;

    /** An empty SGE: address 0, length 0, lkey 0; set it before use. */
    public Sge() {}

    /**
     * An SGE over a buffer.
     *
     * @param addr the buffer's address (an offset for {@link AccessFlags#ZERO_BASED} regions)
     * @param length the buffer's length, bytes, as an unsigned 32-bit value
     * @param lkey the region's 32-bit lkey
     */
    public Sge(long addr, int length, int lkey) {
        set(addr, length, lkey);
    }

    /**
     * An SGE over a whole region.
     *
     * @param mr the region
     * @return the SGE
     * @throws IllegalArgumentException if the region is 4 GiB or larger
     */
    public static Sge of(MemoryRegion mr) {
        java.util.Objects.requireNonNull(mr, "mr");
        if (mr.length() > 0xffffffffL) {
            throw new IllegalArgumentException("an SGE spans at most 4 GiB - 1; the region is " + mr.length() + " bytes");
        }
        return new Sge(mr.address(), (int) mr.length(), mr.lkey());
    }

    /**
     * {@code length} bytes at {@code offset} into the region.
     *
     * @param mr the region
     * @param offset where the buffer starts, bytes from the region's start
     * @param length the buffer's length, bytes
     * @return the SGE
     * @throws NullPointerException if {@code mr} is null
     * @throws IndexOutOfBoundsException if the range is not inside the region ({@code offset + length} is
     *     computed without overflow, so a huge offset is refused too)
     */
    public static Sge of(MemoryRegion mr, long offset, int length) {
        java.util.Objects.requireNonNull(mr, "mr");
        if (offset < 0 || length < 0 || offset > mr.length() - length) {
            throw new IndexOutOfBoundsException("[" + offset + ", " + offset + "+" + length + ") is outside the "
                    + mr.length() + "-byte region");
        }
        return new Sge(mr.address() + offset, length, mr.lkey());
    }

    /**
     * Sets every field.
     *
     * @param addr the buffer's address
     * @param length the buffer's length, bytes, unsigned 32-bit
     * @param lkey the region's lkey
     * @return this
     */
    public Sge set(long addr, int length, int lkey) {
        this.addr = addr;
        this.length = length;
        this.lkey = lkey;
        return this;
    }

    /** {@return the buffer's address} */
    public long addr() {
        return addr;
    }

    /**
     * Sets the buffer's address.
     *
     * @param addr the address (an offset for {@link AccessFlags#ZERO_BASED} regions)
     * @return this
     */
    public Sge addr(long addr) {
        this.addr = addr;
        return this;
    }

    /** {@return the length, bytes (unsigned 32-bit: use {@link Integer#toUnsignedLong})} */
    public int length() {
        return length;
    }

    /**
     * Sets the buffer's length.
     *
     * @param length bytes, unsigned 32-bit
     * @return this
     */
    public Sge length(int length) {
        this.length = length;
        return this;
    }

    /** {@return the region's lkey} */
    public int lkey() {
        return lkey;
    }

    /**
     * Sets the region's lkey.
     *
     * @param lkey the lkey
     * @return this
     */
    public Sge lkey(int lkey) {
        this.lkey = lkey;
        return this;
    }

    @Override
    public String toString() {
        return "Sge[addr=0x" + Long.toHexString(addr) + ", length=" + Integer.toUnsignedString(length) + ", lkey=0x"
                + Integer.toHexString(lkey) + "]";
    }
}
