package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.provider.emulated.wire.RoceConfig;
import org.verbs4j.provider.emulated.wire.RoceEndpoint;

class RoceConfigTest {
    @Test
    void parsesAddressesWithAndWithoutPorts() {
        assertEquals(List.of(new InetSocketAddress("10.0.0.1", 4791), new InetSocketAddress("127.0.0.2", 5000)),
                RoceConfig.parse(" 10.0.0.1 , 127.0.0.2:5000,", "p"));
        assertEquals(List.of(), RoceConfig.parse(" , ", "p"));
        assertEquals(List.of(new InetSocketAddress("127.0.0.3", 0)), RoceConfig.parse("127.0.0.3:0", "p"));
    }

    @Test
    @DisplayName("Entries with port 0 bind one free port, the same on every address; a given port stays as given")
    void portZeroIsOneFreePortSharedByTheDevices() throws Exception {
        try (DatagramChannel taken = DatagramChannel.open(StandardProtocolFamily.INET)) {
            taken.bind(new InetSocketAddress("127.0.81.3", 0));
            int given = ((InetSocketAddress) taken.getLocalAddress()).getPort();
            List<RoceEndpoint> eps = RoceEndpoint.bindAll(RoceConfig.parse("127.0.81.1:0,127.0.81.2:0,127.0.81.3:" + given, "p"));
            try {
                assertTrue(eps.get(0).isBound() && eps.get(1).isBound(), "both port-0 entries bound");
                assertNotEquals(0, eps.get(0).localPort);
                assertEquals(eps.get(0).localPort, eps.get(1).localPort, "one port for both");
                assertEquals(new InetSocketAddress("127.0.81.2", eps.get(0).localPort), eps.get(1).local);
                assertFalse(eps.get(2).isBound(), "a port that is taken leaves its device DOWN");
                assertEquals(given, eps.get(2).localPort);
            } finally {
                eps.forEach(RoceEndpoint::close);
            }
        }
    }

    @Test
    void refusesWhatIsNotAnIpv4AddressAndPort() {
        for (String bad : new String[] {"localhost", "::1", "10.0.0.1:-1", "10.0.0.1:70000", "10.0.0.1:x", "1.2.3"}) {
            var e = assertThrows(IllegalArgumentException.class, () -> RoceConfig.parse(bad, "verbs4j.emulated.roce"));
            assertTrue(e.getMessage().startsWith("verbs4j.emulated.roce: '" + bad + "'"), e.getMessage());
        }
    }

    @Test
    @DisplayName("An unspecified, multicast or broadcast address is refused with a message that says why (issue 27)")
    void refusesTheWildcardAddress() {
        for (String bad : new String[] {"0.0.0.0", "0.0.0.0:0", "224.0.0.1:4791", "255.255.255.255"}) {
            var e = assertThrows(IllegalArgumentException.class, () -> RoceConfig.parse(bad, "verbs4j.emulated.roce"));
            assertTrue(e.getMessage().startsWith("verbs4j.emulated.roce: '" + bad + "'"), e.getMessage());
            assertTrue(e.getMessage().contains("one interface address"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> RoceEndpoint.bind(new InetSocketAddress("0.0.0.0", 0)));
    }
}
