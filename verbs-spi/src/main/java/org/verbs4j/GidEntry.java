package org.verbs4j;

import java.util.Objects;

/**
 * A valid entry of a port's GID table with its attributes, {@code struct ibv_gid_entry}.
 *
 * @param gid the GID, never {@link Gid#ZERO}: an empty entry is no entry
 * @param gidIndex the entry's index in the port's table, 0-based
 * @param portNum the port, 1-based
 * @param type the GID's type
 * @param ndevIfindex the interface index of the network device the GID belongs to (RoCE), 0 if none
 * @see "ibv_query_gid_ex(3)"
 * @see "ibv_query_gid_table(3)"
 */
public record GidEntry(Gid gid, int gidIndex, int portNum, GidType type, int ndevIfindex) {
    /**
     * Checks the entry.
     *
     * @throws NullPointerException if {@code gid} or {@code type} is null
     */
    public GidEntry {
        Objects.requireNonNull(gid, "gid");
        Objects.requireNonNull(type, "type");
    }

    /** {@return whether the GID is IPv4-mapped, {@code ::ffff:a.b.c.d}, as RoCE v2 writes an IPv4 address} */
    public boolean isIpv4Mapped() {
        return gid.subnetPrefix() == 0 && gid.interfaceId() >>> 32 == 0xffffL;
    }
}
