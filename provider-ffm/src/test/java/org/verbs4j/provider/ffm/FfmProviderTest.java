package org.verbs4j.provider.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.verbs4j.ProviderUnavailableException;
import org.verbs4j.provider.ffm.internal.Poller;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException.Reason;
import org.verbs4j.spi.VerbsProvider;

class FfmProviderTest {
    @Test
    void identity() {
        FfmProvider p = new FfmProvider();
        assertEquals("ffm", p.name());
        assertEquals(300, p.priority());
        assertEquals(VerbsProvider.SPI_VERSION, p.spiVersion());
    }

    @Test
    void serviceLoaderFindsIt() {
        assertTrue(ServiceLoader.load(VerbsProvider.class).stream()
                .anyMatch(s -> s.type() == FfmProvider.class));
    }

    @Test
    void withoutRdmaTheCauseSaysWhy() {
        FfmProvider p = new FfmProvider();
        assumeFalse(p.isAvailable(), "this machine has an RDMA device; the unavailable path cannot be seen here");
        Throwable cause = p.unavailabilityCause();
        IbverbsUnavailableException e = assertInstanceOf(IbverbsUnavailableException.class, cause);
        assertTrue(e.reason() != Reason.DISABLED, "the kill switch is not set: " + e.getMessage());
        switch (e.reason()) {
            case KERNEL_WITHOUT_RDMA -> {
                assertTrue(e.getMessage().contains("found no RDMA device"), e.getMessage());
                assertTrue(e.getMessage().contains("ENOSYS"), e.getMessage());
            }
            case NO_DEVICE -> assertTrue(e.getMessage().contains("found no RDMA device"), e.getMessage());
            case LIBRARY_MISSING -> assertTrue(e.getMessage().contains("libibverbs.so.1"), e.getMessage());
            default -> assertNotNull(e.getMessage());
        }
        if (e.reason() == Reason.KERNEL_WITHOUT_RDMA || e.reason() == Reason.NO_DEVICE) {
            assertTrue(e.getMessage().startsWith("libibverbs (rdma-core "), e.getMessage());
        }
        ProviderUnavailableException thrown = assertThrows(ProviderUnavailableException.class, p::devices);
        assertSame(cause, thrown.getCause());
        assertTrue(thrown.getMessage().contains("'ffm' is unavailable"), thrown.getMessage());
    }

    @Test
    void theCauseIsComputedOnce() {
        FfmProvider p = new FfmProvider();
        assertSame(p.unavailabilityCause(), p.unavailabilityCause());
        assertEquals(p.unavailabilityCause() == null, p.isAvailable(), "available exactly when there is no cause");
    }

    @Test
    void theKillSwitchTurnsItOff() {
        String old = System.getProperty(FfmProvider.DISABLED_PROPERTY);
        System.setProperty(FfmProvider.DISABLED_PROPERTY, "true");
        try {
            FfmProvider p = new FfmProvider();
            assertFalse(p.isAvailable());
            IbverbsUnavailableException e = assertInstanceOf(IbverbsUnavailableException.class,
                    p.unavailabilityCause());
            assertEquals(Reason.DISABLED, e.reason());
            assertTrue(e.getMessage().contains("verbs4j.ffm.disabled=true"), e.getMessage());
            assertThrows(ProviderUnavailableException.class, p::ensureAvailability);
        } finally {
            if (old == null) {
                System.clearProperty(FfmProvider.DISABLED_PROPERTY);
            } else {
                System.setProperty(FfmProvider.DISABLED_PROPERTY, old);
            }
        }
    }

    @Test
    void pollerRefusesANegativeTimeoutBeforeAnyNativeCall() {
        assertThrows(IllegalArgumentException.class,
                () -> Poller.awaitReadable(0, -1, java.util.concurrent.TimeUnit.MILLISECONDS, "test"));
    }
}
