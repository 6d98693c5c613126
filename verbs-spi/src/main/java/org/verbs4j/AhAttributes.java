package org.verbs4j;

/**
 * An address vector, {@code struct ibv_ah_attr}: where a UD message goes, or a connected QP's path.
 *
 * @param grh the global route, or null when not global (InfiniBand within a subnet)
 * @param dlid destination LID (0 on RoCE)
 * @param sl service level, 0..15
 * @param srcPathBits source path bits
 * @param staticRate static rate code, 0 for the port's rate
 * @param portNum local port, 1-based
 * @see "ibv_create_ah(3)"
 */
public record AhAttributes(GlobalRoute grh, int dlid, int sl, int srcPathBits, int staticRate, int portNum) {
    /**
     * Checks the ranges.
     *
     * @throws IllegalArgumentException for a {@code dlid} beyond 16 bits, an {@code sl} outside 0..15, a path
     *     bits or rate value beyond 8 bits, or a {@code portNum} outside 1..255
     */
    public AhAttributes {
        if (dlid < 0 || dlid > 0xffff) {
            throw new IllegalArgumentException("dlid is 16 bits: " + dlid);
        }
        if (sl < 0 || sl > 15) {
            throw new IllegalArgumentException("sl is 0..15: " + sl);
        }
        GlobalRoute.checkByte("srcPathBits", srcPathBits);
        GlobalRoute.checkByte("staticRate", staticRate);
        if (portNum < 1 || portNum > 255) {
            throw new IllegalArgumentException("portNum is 1..255 (ports are 1-based): " + portNum);
        }
    }

    /**
     * {@return a RoCE address vector: global, to {@code dgid} through {@code portNum} from source GID {@code sgidIndex}}
     *
     * @param dgid the destination GID
     * @param sgidIndex the index of the source GID in the local port's table
     * @param portNum the local port, 1-based
     */
    public static AhAttributes roce(Gid dgid, int sgidIndex, int portNum) {
        return new AhAttributes(GlobalRoute.to(dgid, sgidIndex), 0, 0, 0, 0, portNum);
    }

    /** {@return whether the address vector carries a global route ({@code is_global})} */
    public boolean isGlobal() {
        return grh != null;
    }
}
