package org.verbs4j.provider.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.ServiceLoader;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.ProviderUnavailableException;
import org.verbs4j.spi.VerbsProvider;

class JnrProviderTest {
    @Test
    @DisplayName("the provider is named jnr, ranks 200 and speaks this SPI version")
    void identity() {
        JnrProvider p = new JnrProvider();
        assertEquals("jnr", p.name());
        assertEquals(200, p.priority());
        assertEquals(VerbsProvider.SPI_VERSION, p.spiVersion());
    }

    @Test
    @DisplayName("ServiceLoader finds the provider through META-INF/services")
    void registered() {
        assertTrue(ServiceLoader.load(VerbsProvider.class).stream().anyMatch(pr -> pr.type() == JnrProvider.class));
    }

    @Test
    @DisplayName("without RDMA, the provider is unavailable and says whether the library, the kernel or the devices are missing")
    void unavailableWithCause() {
        JnrProvider p = new JnrProvider();
        assumeFalse(p.isAvailable(), "this machine has RDMA devices");
        Throwable cause = p.unavailabilityCause();
        assertNotNull(cause);
        String m = cause.getMessage();
        assertTrue(m.contains("libibverbs"), m);
        assertTrue(m.contains("ENOSYS") || m.contains("found no RDMA device") || m.contains("could not be loaded"), m);
        ProviderUnavailableException e = assertThrows(ProviderUnavailableException.class, p::ensureAvailability);
        assertSame(cause, e.getCause());
        assertThrows(ProviderUnavailableException.class, p::devices);
        // Computed once: a second provider reports the same cause.
        assertSame(cause, new JnrProvider().unavailabilityCause());
    }

    @Test
    @DisplayName("-Dverbs4j.jnr.disabled=true turns the provider off, with the property named in the cause")
    void killSwitch() {
        String old = System.getProperty(JnrProvider.DISABLED_PROPERTY);
        System.setProperty(JnrProvider.DISABLED_PROPERTY, "true");
        try {
            JnrProvider p = new JnrProvider();
            assertFalse(p.isAvailable());
            assertTrue(p.unavailabilityCause().getMessage().contains(JnrProvider.DISABLED_PROPERTY));
            assertThrows(ProviderUnavailableException.class, p::devices);
        } finally {
            if (old == null) {
                System.clearProperty(JnrProvider.DISABLED_PROPERTY);
            } else {
                System.setProperty(JnrProvider.DISABLED_PROPERTY, old);
            }
        }
    }
}
