package org.verbs4j.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.QpType;
import org.verbs4j.VerbsException;

@DisplayName("MulticastAttachments: the rules of ibv_attach_mcast/ibv_detach_mcast before the device")
class MulticastAttachmentsTest {
    private static Gid ipv4(int a, int b, int c, int d) {
        return Gid.ofIpv4(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
    }

    @Test
    @DisplayName("multicast GIDs are ff00::/8 and ::ffff:224.0.0.0/4, each edge from both sides")
    void isMulticastEdges() {
        assertTrue(MulticastAttachments.isMulticast(Gid.parse("ff00::")));
        assertTrue(MulticastAttachments.isMulticast(Gid.parse("ff0e::1")));
        assertFalse(MulticastAttachments.isMulticast(Gid.parse("feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")));
        assertTrue(MulticastAttachments.isMulticast(ipv4(224, 0, 0, 0)));
        assertFalse(MulticastAttachments.isMulticast(ipv4(223, 255, 255, 255)));
        assertTrue(MulticastAttachments.isMulticast(ipv4(239, 255, 255, 255)));
        assertFalse(MulticastAttachments.isMulticast(ipv4(240, 0, 0, 0)));
        // Not IPv4-mapped: ::fffe:224.0.0.1 and 1::ffff:224.0.0.1 are unicast IPv6.
        assertFalse(MulticastAttachments.isMulticast(new Gid(0, 0xfffe_e000_0001L)));
        assertFalse(MulticastAttachments.isMulticast(new Gid(1L << 48, 0xffff_e000_0001L)));
    }

    @Test
    @DisplayName("the LID is 16 bits: 0 and 0xFFFF pass, -1 and 0x10000 do not; a null GID is named")
    void argumentEdges() {
        Gid g = ipv4(239, 0, 0, 1);
        MulticastAttachments.checkArguments(g, 0);
        MulticastAttachments.checkArguments(g, 0xffff);
        assertThrows(IllegalArgumentException.class, () -> MulticastAttachments.checkArguments(g, -1));
        assertThrows(IllegalArgumentException.class, () -> MulticastAttachments.checkArguments(g, 0x10000));
        assertEquals("gid", assertThrows(NullPointerException.class,
                () -> MulticastAttachments.checkArguments(null, 0)).getMessage());
    }

    @Test
    @DisplayName("the device is asked once per (GID, LID), not for a non-UD QP or a unicast GID, detach-all asks for each, and after close() nothing")
    void deviceCalls() {
        List<String> calls = new ArrayList<>();
        MulticastAttachments ud = new MulticastAttachments(QpType.UD);
        Gid g = ipv4(239, 0, 0, 1);
        ud.attach(g, 1, (x, l) -> calls.add("attach " + l) ? 0 : 0);
        ud.attach(g, 1, (x, l) -> calls.add("attach again " + l) ? 0 : 0);
        ud.attach(g, 2, (x, l) -> calls.add("attach " + l) ? 0 : 0);
        assertEquals(List.of("attach 1", "attach 2"), calls);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> new MulticastAttachments(QpType.RC).attach(g, 1, (x, l) -> 0)).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> ud.attach(ipv4(10, 0, 0, 1), 1, (x, l) -> 0)).errno());
        assertEquals(Errno.ENOMEM, assertThrows(VerbsException.class,
                () -> ud.attach(ipv4(239, 0, 0, 2), 1, (x, l) -> Errno.ENOMEM)).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> ud.detach(ipv4(239, 0, 0, 2), 1, (x, l) -> 0)).errno(), "a refused attach is not attached");
        calls.clear();
        ud.detachAll((x, l) -> calls.add("detach " + l) ? Errno.EINVAL : 0);
        assertEquals(List.of("detach 1", "detach 2"), calls);
        ud.attach(g, 1, (x, l) -> calls.add("attach after detachAll") ? 0 : 0);
        ud.close((x, l) -> calls.add("detach at close " + l) ? 0 : 0);
        assertEquals(List.of("detach 1", "detach 2", "attach after detachAll", "detach at close 1"), calls);
        assertThrows(IllegalStateException.class, () -> ud.attach(g, 1, (x, l) -> 0));
        assertThrows(IllegalStateException.class, () -> ud.detach(g, 1, (x, l) -> 0));
    }
}
