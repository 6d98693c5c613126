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

    public Sge() {}

    /**
     * @param addr the buffer's address (an offset for {@link AccessFlags#ZERO_BASED} regions)
     * @param length the buffer's length, bytes, as an unsigned 32-bit value
     * @param lkey the region's 32-bit lkey
     */
    public Sge(long addr, int length, int lkey) {
        set(addr, length, lkey);
    }

    /** {@return the whole region} */
    public static Sge of(MemoryRegion mr) {
        if (mr.length() > 0xffffffffL) {
            throw new IllegalArgumentException("an SGE spans at most 4 GiB - 1; the region is " + mr.length() + " bytes");
        }
        return new Sge(mr.address(), (int) mr.length(), mr.lkey());
    }

    /**
     * {@code length} bytes at {@code offset} into the region.
     *
     * @throws IndexOutOfBoundsException if the range is not inside the region
     */
    public static Sge of(MemoryRegion mr, long offset, int length) {
        if (offset < 0 || length < 0 || offset + length > mr.length()) {
            throw new IndexOutOfBoundsException("[" + offset + ", " + offset + "+" + length + ") is outside the "
                    + mr.length() + "-byte region");
        }
        return new Sge(mr.address() + offset, length, mr.lkey());
    }

    public Sge set(long addr, int length, int lkey) {
        this.addr = addr;
        this.length = length;
        this.lkey = lkey;
        return this;
    }

    public long addr() {
        return addr;
    }

    public Sge addr(long addr) {
        this.addr = addr;
        return this;
    }

    /** {@return the length, bytes (unsigned 32-bit: use {@link Integer#toUnsignedLong})} */
    public int length() {
        return length;
    }

    public Sge length(int length) {
        this.length = length;
        return this;
    }

    public int lkey() {
        return lkey;
    }

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
