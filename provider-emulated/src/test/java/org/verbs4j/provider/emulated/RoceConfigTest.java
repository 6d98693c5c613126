package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;

import org.junit.jupiter.api.Test;

class RoceConfigTest {
    @Test
    void parsesAddressesWithAndWithoutPorts() {
        assertEquals(List.of(new InetSocketAddress("10.0.0.1", 4791), new InetSocketAddress("127.0.0.2", 5000)),
                RoceConfig.parse(" 10.0.0.1 , 127.0.0.2:5000,", "p"));
        assertEquals(List.of(), RoceConfig.parse(" , ", "p"));
    }

    @Test
    void refusesWhatIsNotAnIpv4AddressAndPort() {
        for (String bad : new String[] {"localhost", "::1", "10.0.0.1:0", "10.0.0.1:70000", "10.0.0.1:x", "1.2.3"}) {
            var e = assertThrows(IllegalArgumentException.class, () -> RoceConfig.parse(bad, "verbs4j.emulated.roce"));
            assertTrue(e.getMessage().startsWith("verbs4j.emulated.roce: '" + bad + "'"), e.getMessage());
        }
    }
}
