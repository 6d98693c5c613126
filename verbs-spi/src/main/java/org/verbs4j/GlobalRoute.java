package org.verbs4j;

import java.util.Objects;

/**
 * The global route of an address vector, {@code struct ibv_global_route}. RoCE always needs one.
 *
 * @param dgid destination GID
 * @param flowLabel 20-bit flow label
 * @param sgidIndex index of the source GID in the local port's GID table
 * @param hopLimit hop limit (IPv6) or TTL
 * @param trafficClass traffic class (IPv6) or TOS
 * @see "ibv_create_ah(3)"
 */
public record GlobalRoute(Gid dgid, int flowLabel, int sgidIndex, int hopLimit, int trafficClass) {
    /**
     * Checks the ranges.
     *
     * @throws NullPointerException if {@code dgid} is null
     * @throws IllegalArgumentException for a flow label beyond 20 bits, or an index, hop limit or traffic class
     *     beyond 8 bits
     */
    public GlobalRoute {
        Objects.requireNonNull(dgid, "dgid");
        if ((flowLabel & ~0xfffff) != 0) {
            throw new IllegalArgumentException("flowLabel is 20 bits: " + flowLabel);
        }
        checkByte("sgidIndex", sgidIndex);
        checkByte("hopLimit", hopLimit);
        checkByte("trafficClass", trafficClass);
    }

    /**
     * {@return a route to {@code dgid} from source GID {@code sgidIndex}, hop limit 64}
     *
     * @param dgid the destination GID
     * @param sgidIndex the index of the source GID in the local port's table
     */
    public static GlobalRoute to(Gid dgid, int sgidIndex) {
        return new GlobalRoute(dgid, 0, sgidIndex, 64, 0);
    }

    static void checkByte(String name, int v) {
        if (v < 0 || v > 255) {
            throw new IllegalArgumentException(name + " is 0..255: " + v);
        }
    }
}
