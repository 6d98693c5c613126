package org.verbs4j;

/**
 * A path MTU, {@code enum ibv_mtu}.
 *
 * @see "ibv_query_port(3)"
 */
public enum Mtu {
    /** {@code IBV_MTU_256}: 256 bytes. */
    MTU_256(1, 256),
    /** {@code IBV_MTU_512}: 512 bytes. */
    MTU_512(2, 512),
    /** {@code IBV_MTU_1024}: 1024 bytes. */
    MTU_1024(3, 1024),
    /** {@code IBV_MTU_2048}: 2048 bytes. */
    MTU_2048(4, 2048),
    /** {@code IBV_MTU_4096}: 4096 bytes. */
    MTU_4096(5, 4096);

    private final int value;
    private final int bytes;

    Mtu(int value, int bytes) {
        this.value = value;
        this.bytes = bytes;
    }

    /** {@return the {@code IBV_MTU_*} value} */
    public int value() {
        return value;
    }

    /** {@return the MTU in bytes} */
    public int bytes() {
        return bytes;
    }

    /**
     * The MTU with the given {@code IBV_MTU_*} value.
     *
     * @param value the {@code IBV_MTU_*} value
     * @return the MTU
     * @throws IllegalArgumentException if no MTU has that value
     */
    public static Mtu of(int value) {
        for (Mtu m : values()) {
            if (m.value == value) {
                return m;
            }
        }
        throw new IllegalArgumentException("no ibv_mtu has the value " + value);
    }

    /**
     * The MTU of the given size in bytes.
     *
     * @param bytes 256, 512, 1024, 2048 or 4096
     * @return the MTU
     * @throws IllegalArgumentException unless bytes is 256, 512, 1024, 2048 or 4096
     */
    public static Mtu ofBytes(int bytes) {
        for (Mtu m : values()) {
            if (m.bytes == bytes) {
                return m;
            }
        }
        throw new IllegalArgumentException("an MTU is 256, 512, 1024, 2048 or 4096 bytes, not " + bytes);
    }
}
