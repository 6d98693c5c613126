package org.verbs4j;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

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

    /** {@return whether the GID is link-local: {@code fe80::/10}, or {@code 169.254.0.0/16} when IPv4-mapped} */
    public boolean isLinkLocal() {
        return isIpv4Mapped() ? (gid.interfaceId() >>> 16 & 0xffff) == 0xa9fe : gid.subnetPrefix() >>> 54 == 0x3fa;
    }

    /**
     * The entry of a port that perftest takes as its source GID when it is given no {@code -x}
     * ({@code get_best_gid_index}): the highest score, the lowest index among equals, where an IPv4-mapped GID scores
     * 100, a GID that is not link-local 10, and the type RoCE v2 2, RoCE v1 1. So the IPv4 RoCE v2 GID comes first,
     * then an IPv4 RoCE v1 one, then a global IPv6 one, RoCE v2 before v1.
     *
     * @param entries GID table entries, as {@link Context#queryGidTable()} gives them
     * @param portNum the port, 1-based
     * @return the preferred entry of that port; empty if the port has none
     * @throws NullPointerException if {@code entries} is null
     */
    public static Optional<GidEntry> preferred(List<GidEntry> entries, int portNum) {
        return entries.stream().filter(e -> e.portNum() == portNum)
                .max(Comparator.comparingInt(GidEntry::perftestScore)
                        .thenComparing(Comparator.comparingInt(GidEntry::gidIndex).reversed()));
    }

    /**
     * The source GID index to take on a port when none is given: the rule of {@code verbs4j perf} without {@code -x}
     * and of the TCK without a GID index. On an Ethernet (RoCE) port it is the {@link #preferred} entry of the port's
     * GID table, as perftest takes it (the IPv4 RoCE v2 GID where there is one). On InfiniBand, on a port with no valid
     * entry, or where the provider cannot list its table ({@code ibv_query_gid_table(3)} not supported), it is the
     * port's first non-zero GID ({@code ibv_query_gid(3)}), and 0 if every entry is zero.
     *
     * @param ctx the device's context
     * @param portNum the port, 1-based
     * @return the GID index, 0-based
     * @throws NullPointerException if {@code ctx} is null
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException as {@link Context#queryPort} and {@link Context#queryGid} throw it, for example
     *     {@code EINVAL} for a port the device does not have
     * @see "ibv_query_gid_table(3)"
     */
    public static int defaultIndex(Context ctx, int portNum) {
        PortAttributes attributes = ctx.queryPort(portNum);
        if (attributes.linkLayer() == LinkLayer.ETHERNET) {
            try {
                Optional<GidEntry> best = preferred(ctx.queryGidTable(), portNum);
                if (best.isPresent()) {
                    return best.get().gidIndex();
                }
            } catch (VerbsException | UnsupportedOperationException e) {
                // No GID table to read: the first non-zero entry, below.
            }
        }
        for (int i = 0; i < attributes.gidTblLen(); i++) {
            if (!ctx.queryGid(portNum, i).isZero()) {
                return i;
            }
        }
        return 0;
    }

    private int perftestScore() {
        return (isIpv4Mapped() ? 100 : 0) + (isLinkLocal() ? 0 : 10)
                + (type == GidType.ROCE_V2 ? 2 : type == GidType.ROCE_V1 ? 1 : 0);
    }
}
