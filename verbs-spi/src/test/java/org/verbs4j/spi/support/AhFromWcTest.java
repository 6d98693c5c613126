package org.verbs4j.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Proxy;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.verbs4j.AhAttributes;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.LinkLayer;
import org.verbs4j.Mtu;
import org.verbs4j.PortAttributes;
import org.verbs4j.PortState;
import org.verbs4j.VerbsException;
import org.verbs4j.WcFlags;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;

/** The header forms {@code ibv_init_ah_from_wc} tells apart, each field it takes, and its refusals. */
class AhFromWcTest {
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort BE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final Gid LINK_LOCAL = Gid.parse("fe80::1");
    private static final Gid LOCAL_V4 = Gid.ofIpv4(new byte[] {10, 0, 0, 2});
    private static final Gid REMOTE_V4 = Gid.ofIpv4(new byte[] {10, 0, 0, 1});
    private static final Gid REMOTE_V6 = Gid.parse("fe80::9");
    /** A port whose GID table is {link-local, 10.0.0.2, zero, zero}. */
    private static final Context CONTEXT = (Context) Proxy.newProxyInstance(Context.class.getClassLoader(),
            new Class<?>[] {Context.class}, (proxy, method, args) -> switch (method.getName()) {
                case "queryPort" -> new PortAttributes(PortState.ACTIVE, Mtu.MTU_1024, Mtu.MTU_1024, 4, 0, 1 << 30, 0,
                        0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 5, LinkLayer.ETHERNET, 0, 0);
                case "queryGid" -> switch ((int) args[1]) {
                    case 0 -> LINK_LOCAL;
                    case 1 -> LOCAL_V4;
                    default -> Gid.ZERO;
                };
                default -> throw new UnsupportedOperationException(method.getName());
            });

    private static WorkCompletion wc(int flags) {
        return new WorkCompletion(1, WcStatus.SUCCESS, WcOpcode.RECV, 0, 48, 0, 1, 2, flags, 0, 7, 3, 1);
    }

    private static MemorySegment ipv4(Gid from, Gid to, boolean ipv6VersionToo) {
        MemorySegment g = MemorySegment.ofArray(new byte[40]);
        if (ipv6VersionToo) {
            g.set(BE_INT, 0, 0x6000_0000);
        }
        g.set(ValueLayout.JAVA_BYTE, 20, (byte) 0x45);
        g.set(ValueLayout.JAVA_BYTE, 21, (byte) 0x28);
        g.set(ValueLayout.JAVA_BYTE, 28, (byte) 33);
        g.set(ValueLayout.JAVA_BYTE, 29, (byte) 17);
        g.set(BE_INT, 32, (int) from.interfaceId());
        g.set(BE_INT, 36, (int) to.interfaceId());
        int sum = 0;
        for (int i = 20; i < 40; i += 2) {
            sum += g.get(BE_SHORT, i) & 0xffff;
        }
        sum = (sum & 0xffff) + (sum >>> 16);
        g.set(BE_SHORT, 30, (short) ~((sum & 0xffff) + (sum >>> 16)));
        return g;
    }

    private static MemorySegment ipv6(Gid from, Gid to, int nextHeader) {
        MemorySegment g = MemorySegment.ofArray(new byte[40]);
        g.set(BE_INT, 0, 0x6000_0000 | 0x5a << 20 | 0x12345);
        g.set(ValueLayout.JAVA_BYTE, 6, (byte) nextHeader);
        g.set(ValueLayout.JAVA_BYTE, 7, (byte) 9);
        MemorySegment.copy(MemorySegment.ofArray(from.toBytes()), 0, g, 8, 16);
        MemorySegment.copy(MemorySegment.ofArray(to.toBytes()), 0, g, 24, 16);
        return g;
    }

    @Test
    void ipv4HeaderAfterTwentyUnusedBytes() {
        AhAttributes a = AhFromWc.attributes(CONTEXT, 1, wc(WcFlags.GRH), ipv4(REMOTE_V4, LOCAL_V4, false));
        assertEquals(REMOTE_V4, a.grh().dgid(), "the DGID is the IPv4-mapped source address");
        assertEquals(1, a.grh().sgidIndex(), "the index of the destination address in the table");
        assertEquals(33, a.grh().hopLimit(), "hop limit from the TTL");
        assertEquals(0x28, a.grh().trafficClass(), "traffic class from the TOS");
        assertEquals(0, a.grh().flowLabel());
        assertEquals(7, a.dlid());
        assertEquals(3, a.sl());
        assertEquals(1, a.srcPathBits());
        assertEquals(1, a.portNum());
    }

    @Test
    void ipv6VersionWithAValidIpv4HeaderIsIpv4() {
        AhAttributes a = AhFromWc.attributes(CONTEXT, 1, wc(WcFlags.GRH), ipv4(REMOTE_V4, LOCAL_V4, true));
        assertEquals(REMOTE_V4, a.grh().dgid());
        assertEquals(1, a.grh().sgidIndex());
    }

    @Test
    void ipv6Header() {
        AhAttributes a = AhFromWc.attributes(CONTEXT, 1, wc(WcFlags.GRH), ipv6(REMOTE_V6, LINK_LOCAL, 17));
        assertEquals(REMOTE_V6, a.grh().dgid(), "the DGID is the header's SGID");
        assertEquals(0, a.grh().sgidIndex());
        assertEquals(9, a.grh().hopLimit());
        assertEquals(0x5a, a.grh().trafficClass());
        assertEquals(0x12345, a.grh().flowLabel());
        assertEquals(0, AhFromWc.attributes(CONTEXT, 1, wc(WcFlags.GRH), ipv6(REMOTE_V6, LINK_LOCAL, 0x1b))
                .grh().sgidIndex(), "RoCE v1's next header");
    }

    @Test
    void withoutGrhFlagNotGlobal() {
        AhAttributes a = AhFromWc.attributes(CONTEXT, 1, wc(0), MemorySegment.ofArray(new byte[40]));
        assertNull(a.grh());
        assertEquals(7, a.dlid());
    }

    @Test
    void refusals() {
        assertEquals(Errno.EPROTONOSUPPORT, assertThrows(VerbsException.class, () -> AhFromWc.attributes(CONTEXT, 1,
                wc(WcFlags.GRH), MemorySegment.ofArray(new byte[40]))).errno(), "neither header form");
        assertEquals(Errno.EPROTONOSUPPORT, assertThrows(VerbsException.class, () -> AhFromWc.attributes(CONTEXT, 1,
                wc(WcFlags.GRH), ipv6(REMOTE_V6, LINK_LOCAL, 6))).errno(), "TCP is no RoCE");
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> AhFromWc.attributes(CONTEXT, 1,
                wc(WcFlags.GRH), ipv4(REMOTE_V4, Gid.ofIpv4(new byte[] {(byte) 239, 1, 1, 1}), false))).errno(),
                "an IPv4 multicast destination");
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> AhFromWc.attributes(CONTEXT, 1,
                wc(WcFlags.GRH), ipv6(REMOTE_V6, Gid.parse("ff02::1"), 17))).errno(), "an IPv6 multicast destination");
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> AhFromWc.attributes(CONTEXT, 1,
                wc(WcFlags.GRH), ipv4(REMOTE_V4, REMOTE_V4, false))).errno(), "a destination the table lacks");
        assertThrows(IllegalArgumentException.class,
                () -> AhFromWc.attributes(CONTEXT, 1, wc(WcFlags.GRH), MemorySegment.ofArray(new byte[39])));
        assertThrows(NullPointerException.class, () -> AhFromWc.attributes(CONTEXT, 1, null,
                MemorySegment.ofArray(new byte[40])));
    }
}
