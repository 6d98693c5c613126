package org.verbs4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class GidEntryTest {
    private static final Gid LINK_LOCAL = Gid.parse("fe80::2:ff:fe0a:1");
    private static final Gid GLOBAL_V6 = Gid.parse("2001:db8::1");
    private static final Gid V4 = Gid.ofIpv4(new byte[] {10, 0, 0, 1});
    private static final Gid V4_LINK_LOCAL = Gid.ofIpv4(new byte[] {(byte) 169, (byte) 254, 1, 2});

    private static GidEntry e(Gid gid, int index, GidType type) {
        return new GidEntry(gid, index, 1, type, 3);
    }

    private static int preferred(GidEntry... entries) {
        return GidEntry.preferred(List.of(entries), 1).orElseThrow().gidIndex();
    }

    @Test
    @DisplayName("rxe's table (each address as RoCE v1, then v2): the IPv4 RoCE v2 entry, as perftest picks it")
    void rxeTable() {
        assertEquals(3, preferred(e(LINK_LOCAL, 0, GidType.ROCE_V1), e(LINK_LOCAL, 1, GidType.ROCE_V2),
                e(V4, 2, GidType.ROCE_V1), e(V4, 3, GidType.ROCE_V2)));
    }

    @Test
    @DisplayName("perftest's order: IPv4-mapped over scope, scope over RoCE version, version over index")
    void scoreOrder() {
        assertEquals(1, preferred(e(GLOBAL_V6, 0, GidType.ROCE_V2), e(V4, 1, GidType.ROCE_V1)));
        assertEquals(1, preferred(e(V4_LINK_LOCAL, 0, GidType.ROCE_V2), e(V4, 1, GidType.ROCE_V1)));
        assertEquals(1, preferred(e(LINK_LOCAL, 0, GidType.ROCE_V2), e(GLOBAL_V6, 1, GidType.ROCE_V1)));
        assertEquals(1, preferred(e(GLOBAL_V6, 0, GidType.ROCE_V1), e(GLOBAL_V6, 1, GidType.ROCE_V2)));
        assertEquals(0, preferred(e(V4, 0, GidType.ROCE_V2), e(V4, 1, GidType.ROCE_V2)));
        assertEquals(0, preferred(e(LINK_LOCAL, 0, GidType.IB)));
    }

    @Test
    @DisplayName("only the asked port's entries count; a port with none has no preferred entry")
    void portFilter() {
        List<GidEntry> two = List.of(new GidEntry(V4, 0, 2, GidType.ROCE_V2, 0), e(LINK_LOCAL, 5, GidType.ROCE_V2));
        assertEquals(5, GidEntry.preferred(two, 1).orElseThrow().gidIndex());
        assertFalse(GidEntry.preferred(two, 3).isPresent());
    }

    @Test
    @DisplayName("link-local is fe80::/10, or 169.254.0.0/16 for an IPv4-mapped GID")
    void linkLocal() {
        assertTrue(e(LINK_LOCAL, 0, GidType.ROCE_V2).isLinkLocal());
        assertTrue(e(Gid.parse("febf::1"), 0, GidType.ROCE_V2).isLinkLocal());
        assertFalse(e(Gid.parse("fec0::1"), 0, GidType.ROCE_V2).isLinkLocal());
        assertTrue(e(V4_LINK_LOCAL, 0, GidType.ROCE_V2).isLinkLocal());
        assertFalse(e(V4, 0, GidType.ROCE_V2).isLinkLocal());
        assertTrue(e(V4, 0, GidType.ROCE_V2).isIpv4Mapped());
        assertFalse(e(GLOBAL_V6, 0, GidType.ROCE_V2).isIpv4Mapped());
    }

    /**
     * A one-port context whose GID table holds {@code table} (null entries are zero GIDs), on a port of the given link
     * layer; {@code queryGidTable} lists the non-zero entries as RoCE v2, or throws EOPNOTSUPP when {@code listed} is
     * false.
     */
    private static Context context(LinkLayer link, boolean listed, Gid... table) {
        return (Context) Proxy.newProxyInstance(Context.class.getClassLoader(), new Class<?>[] {Context.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "queryPort" -> {
                        if ((int) args[0] != 1) {
                            throw new VerbsException("ibv_query_port", Errno.EINVAL, "no port " + args[0]);
                        }
                        yield new PortAttributes(PortState.ACTIVE, Mtu.MTU_1024, Mtu.MTU_1024, table.length, 0,
                                1 << 30, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 5, link, 0, 0);
                    }
                    case "queryGid" -> table[(int) args[1]] == null ? Gid.ZERO : table[(int) args[1]];
                    case "queryGidTable" -> {
                        if (!listed) {
                            throw new VerbsException("ibv_query_gid_table", Errno.EOPNOTSUPP, "no GID table");
                        }
                        List<GidEntry> entries = new ArrayList<>();
                        for (int i = 0; i < table.length; i++) {
                            if (table[i] != null) {
                                entries.add(new GidEntry(table[i], i, 1, GidType.ROCE_V2, 3));
                            }
                        }
                        yield entries;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    @DisplayName("defaultIndex: on RoCE perftest's choice, the IPv4 GID; without a GID table to list, the first "
            + "non-zero GID; on InfiniBand the first non-zero GID; 0 when every GID is zero; a missing port's EINVAL")
    void defaultIndex() {
        assertEquals(2, GidEntry.defaultIndex(context(LinkLayer.ETHERNET, true, null, LINK_LOCAL, V4), 1));
        assertEquals(1, GidEntry.defaultIndex(context(LinkLayer.ETHERNET, false, null, LINK_LOCAL, V4), 1));
        assertEquals(1, GidEntry.defaultIndex(context(LinkLayer.INFINIBAND, true, null, LINK_LOCAL, V4), 1));
        assertEquals(0, GidEntry.defaultIndex(context(LinkLayer.ETHERNET, true, null, null), 1));
        VerbsException e = assertThrows(VerbsException.class,
                () -> GidEntry.defaultIndex(context(LinkLayer.ETHERNET, true, V4), 2));
        assertEquals(Errno.EINVAL, e.errno());
    }
}
