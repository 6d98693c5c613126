package org.verbs4j;

import java.util.Objects;

/**
 * What a memory window is bound to, {@code struct ibv_mw_bind_info}.
 *
 * @param mr the region, registered with {@link AccessFlags#MW_BIND}
 * @param addr the window's first address, inside the region
 * @param length the window's length, bytes (0 unbinds a type 1 window)
 * @param mwAccessFlags the window's remote access ({@link AccessFlags}); unlike a region's, it needs no
 *     {@link AccessFlags#LOCAL_WRITE}: remote write or atomic access requires the region to have it
 * @see "ibv_bind_mw(3)"
 */
public record MwBindInfo(MemoryRegion mr, long addr, long length, int mwAccessFlags) {
    /**
     * Checks the arguments.
     *
     * @throws NullPointerException for a null {@code mr}
     * @throws IllegalArgumentException for a negative {@code length} or unknown {@code mwAccessFlags} bits
     */
    public MwBindInfo {
        Objects.requireNonNull(mr, "mr");
        if (length < 0) {
            throw new IllegalArgumentException("MW length cannot be negative: " + length);
        }
        if ((mwAccessFlags & ~AccessFlags.ALL) != 0) {
            throw new IllegalArgumentException(
                    "unknown access flag bits 0x" + Integer.toHexString(mwAccessFlags & ~AccessFlags.ALL));
        }
    }
}
