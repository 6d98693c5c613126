package org.verbs4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.spi.VerbsProvider;

@DisplayName("Verbs resolves one provider as DESIGN.md 'Choosing a provider' says")
class VerbsSelectionTest {

    private static VerbsProvider provider(String name, int priority, boolean available) {
        VerbsProvider p = mock(VerbsProvider.class);
        when(p.name()).thenReturn(name);
        when(p.priority()).thenReturn(priority);
        when(p.spiVersion()).thenReturn(VerbsProvider.SPI_VERSION);
        when(p.isAvailable()).thenReturn(available);
        if (!available) {
            when(p.unavailabilityCause()).thenReturn(new IllegalStateException(name + " found no RDMA device"));
        }
        return p;
    }

    @Test
    @DisplayName("without a request, the available provider with the highest priority wins")
    void priorityWins() {
        VerbsProvider emulated = provider("emulated", 100, true);
        VerbsProvider jnr = provider("jnr", 200, true);
        VerbsProvider ffm = provider("ffm", 300, true);
        ProviderSelection s = Verbs.select(List.of(emulated, ffm, jnr), null);
        assertSame(ffm, s.chosen());
        assertTrue(s.rejected().get("jnr").contains("lower priority"), s.rejected().toString());
        assertTrue(s.rejected().get("emulated").contains("lower priority"), s.rejected().toString());
        assertEquals(3, s.found().size());
    }

    @Test
    @DisplayName("an unavailable provider loses to a lower-priority available one, and the cause is recorded")
    void unavailableIsSkipped() {
        VerbsProvider ffm = provider("ffm", 300, false);
        VerbsProvider jnr = provider("jnr", 200, false);
        VerbsProvider emulated = provider("emulated", 100, true);
        ProviderSelection s = Verbs.select(List.of(ffm, jnr, emulated), null);
        assertSame(emulated, s.chosen());
        assertEquals("unavailable: ffm found no RDMA device", s.rejected().get("ffm"));
        assertEquals("unavailable: jnr found no RDMA device", s.rejected().get("jnr"));
    }

    @Test
    @DisplayName("a provider named by the property is used even when a higher-priority one is available")
    void namedProviderIsUsed() {
        VerbsProvider ffm = provider("ffm", 300, true);
        VerbsProvider emulated = provider("emulated", 100, true);
        ProviderSelection s = Verbs.select(List.of(ffm, emulated), "emulated");
        assertSame(emulated, s.chosen());
        assertTrue(s.reason().contains(Verbs.PROVIDER_PROPERTY));
        assertTrue(s.rejected().get("ffm").contains("not the requested provider"));
    }

    @Test
    @DisplayName("a named provider that is unavailable fails resolution with its cause attached, without falling back")
    void namedUnavailableFails() {
        VerbsProvider ffm = provider("ffm", 300, false);
        VerbsProvider emulated = provider("emulated", 100, true);
        ProviderUnavailableException e = assertThrows(ProviderUnavailableException.class,
                () -> Verbs.select(List.of(ffm, emulated), "ffm"));
        assertEquals("ffm found no RDMA device", e.getCause().getMessage());
        assertTrue(e.getMessage().contains("'ffm'"), e.getMessage());
    }

    @Test
    @DisplayName("a named provider that is not on the path fails and lists the providers found")
    void namedMissingFails() {
        VerbsProvider emulated = provider("emulated", 100, true);
        ProviderUnavailableException e = assertThrows(ProviderUnavailableException.class,
                () -> Verbs.select(List.of(emulated), "jnr"));
        assertTrue(e.getMessage().contains("not on the path"), e.getMessage());
        assertTrue(e.getMessage().contains("[emulated]"), e.getMessage());
    }

    @Test
    @DisplayName("a provider that throws ServiceConfigurationError is skipped and the others still resolve")
    @SuppressWarnings("unchecked")
    void brokenProviderIsSkipped() {
        VerbsProvider emulated = provider("emulated", 100, true);
        Iterator<VerbsProvider> it = mock(Iterator.class);
        when(it.hasNext()).thenReturn(true, true, false);
        when(it.next()).thenThrow(new ServiceConfigurationError("org.example.Broken could not be instantiated"))
                .thenReturn(emulated);
        ProviderSelection s = Verbs.select(() -> it, null);
        assertSame(emulated, s.chosen());
        assertTrue(s.rejected().values().stream().anyMatch(v -> v.contains("org.example.Broken")), s.rejected().toString());
    }

    @Test
    @DisplayName("a ServiceLoader whose hasNext keeps failing does not loop forever")
    @SuppressWarnings("unchecked")
    void endlessErrorsStop() {
        Iterator<VerbsProvider> it = mock(Iterator.class);
        when(it.hasNext()).thenThrow(new ServiceConfigurationError("malformed provider configuration"));
        assertThrows(ProviderUnavailableException.class, () -> Verbs.select(() -> it, null));
    }

    @Test
    @DisplayName("with no provider available, resolution fails with every cause suppressed on the exception")
    void noneAvailable() {
        VerbsProvider ffm = provider("ffm", 300, false);
        VerbsProvider jnr = provider("jnr", 200, false);
        ProviderUnavailableException e = assertThrows(ProviderUnavailableException.class,
                () -> Verbs.select(List.of(ffm, jnr), null));
        assertEquals(2, e.getSuppressed().length);
        assertTrue(e.getMessage().contains("[ffm, jnr]"), e.getMessage());
    }

    @Test
    @DisplayName("with no provider on the path at all, resolution fails and says what to add")
    void nothingOnPath() {
        ProviderUnavailableException e = assertThrows(ProviderUnavailableException.class,
                () -> Verbs.select(List.of(), null));
        assertTrue(e.getMessage().contains("verbs4j-provider-emulated"), e.getMessage());
    }

    @Test
    @DisplayName("a provider built against another SPI version is refused and never asked for availability")
    void spiVersionMismatch() {
        VerbsProvider old = provider("old", 999, true);
        when(old.spiVersion()).thenReturn(VerbsProvider.SPI_VERSION + 1);
        VerbsProvider emulated = provider("emulated", 100, true);
        ProviderSelection s = Verbs.select(List.of(old, emulated), null);
        assertSame(emulated, s.chosen());
        assertTrue(s.rejected().get("old").contains("SPI version"), s.rejected().toString());
        verify(old, never()).isAvailable();
    }

    @Test
    @DisplayName("an availability check that throws counts as unavailable with that exception as the cause")
    void throwingAvailability() {
        VerbsProvider ffm = provider("ffm", 300, true);
        when(ffm.isAvailable()).thenThrow(new UnsatisfiedLinkError("libibverbs.so.1: cannot open shared object"));
        VerbsProvider emulated = provider("emulated", 100, true);
        ProviderSelection s = Verbs.select(List.of(ffm, emulated), null);
        assertSame(emulated, s.chosen());
        assertTrue(s.rejected().get("ffm").contains("libibverbs.so.1"), s.rejected().toString());
    }

    @Test
    @DisplayName("the system property is read before the environment variable")
    void propertyBeforeEnvironment() {
        Map<String, String> props = Map.of(Verbs.PROVIDER_PROPERTY, "JNR");
        Map<String, String> env = Map.of(Verbs.PROVIDER_ENV, "ffm");
        assertEquals("jnr", Verbs.requestedName(props::get, env::get));
    }

    @Test
    @DisplayName("the environment variable is used when the property is not set")
    void environmentWhenNoProperty() {
        Map<String, String> env = Map.of(Verbs.PROVIDER_ENV, " emulated ");
        assertEquals("emulated", Verbs.requestedName(k -> null, env::get));
    }

    @Test
    @DisplayName("a blank property and no environment variable request nothing")
    void nothingRequested() {
        Map<String, String> props = Map.of(Verbs.PROVIDER_PROPERTY, "  ");
        assertNull(Verbs.requestedName(props::get, k -> null));
    }

    @Test
    @DisplayName("ServiceLoader finds providers registered in META-INF/services")
    void serviceLoaderFindsRegisteredProviders() {
        List<VerbsProvider> found = Verbs.providers();
        assertTrue(found.stream().anyMatch(p -> p instanceof TestOnlyProvider), found.toString());
        assertSame(TestOnlyProvider.class, Verbs.provider("test-only").getClass());
    }

    @Test
    @DisplayName("ensureAvailability throws with the unavailability cause attached")
    void ensureAvailabilityCarriesCause() {
        VerbsProvider ffm = mock(VerbsProvider.class, org.mockito.Mockito.CALLS_REAL_METHODS);
        when(ffm.isAvailable()).thenReturn(false);
        when(ffm.name()).thenReturn("ffm");
        IllegalStateException cause = new IllegalStateException("no device");
        when(ffm.unavailabilityCause()).thenReturn(cause);
        ProviderUnavailableException e = assertThrows(ProviderUnavailableException.class, ffm::ensureAvailability);
        assertSame(cause, e.getCause());
    }

    /** Runs the action with the org.verbs4j logger's records (System.Logger's default backend is JUL) captured. */
    private static List<LogRecord> logged(Runnable action) {
        Logger jul = Logger.getLogger("org.verbs4j");
        List<LogRecord> records = new ArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Level before = jul.getLevel();
        jul.setLevel(Level.ALL);
        jul.addHandler(h);
        try {
            action.run();
        } finally {
            jul.removeHandler(h);
            jul.setLevel(before);
        }
        return records;
    }

    @Test
    @DisplayName("the choice is logged at DEBUG with each loser's reason, and nothing at INFO or above")
    void choiceIsDebugOnly() {
        VerbsProvider ffm = provider("ffm", 300, false);
        VerbsProvider emulated = provider("emulated", 100, true);
        List<LogRecord> records = logged(() -> Verbs.select(List.of(ffm, emulated), null));
        assertTrue(records.stream().noneMatch(r -> r.getLevel().intValue() >= Level.INFO.intValue()),
                "select() must not log at INFO or above: " + records.stream().map(LogRecord::getMessage).toList());
        assertTrue(records.stream().anyMatch(r -> r.getLevel() == Level.FINE
                        && r.getMessage().contains("'emulated' chosen")
                        && r.getMessage().contains("'ffm' lost: unavailable: ffm found no RDMA device")),
                "the DEBUG (FINE) line names the choice and why ffm lost: "
                        + records.stream().map(LogRecord::getMessage).toList());
    }

    @Test
    @DisplayName("the one INFO notice is given only when the emulated device stands in for an unavailable native one")
    void fallbackNoticeOnlyWhenEmulatedStandsIn() {
        VerbsProvider ffm = provider("ffm", 300, false);
        VerbsProvider emulated = provider("emulated", 100, true);
        String notice = Verbs.fallbackNotice(Verbs.select(List.of(ffm, emulated), null));
        assertNotNull(notice, "emulated chosen because ffm is unavailable");
        assertTrue(notice.contains("'ffm' unavailable: ffm found no RDMA device"), notice);
        assertTrue(notice.contains("Verbs.providers()"), notice);
        assertNull(Verbs.fallbackNotice(Verbs.select(List.of(emulated), null)), "only emulated on the path");
        VerbsProvider jnr = provider("jnr", 200, true);
        assertNull(Verbs.fallbackNotice(Verbs.select(List.of(ffm, jnr, emulated), null)), "a native one was chosen");
        assertNull(Verbs.fallbackNotice(Verbs.select(List.of(ffm, emulated), "emulated")),
                "asked for by name: ffm lost because it was not requested, not because it is unavailable");
    }

    @Test
    @DisplayName("the 'no provider' message names each provider's cause and has no stray placeholder")
    void noProviderMessageIsClean() {
        VerbsProvider ffm = provider("ffm", 300, false);
        VerbsProvider jnr = provider("jnr", 200, false);
        List<LogRecord> records = new ArrayList<>();
        ProviderUnavailableException[] thrown = new ProviderUnavailableException[1];
        records.addAll(logged(() -> thrown[0] = assertThrows(ProviderUnavailableException.class,
                () -> Verbs.select(List.of(ffm, jnr), null))));
        String m = thrown[0].getMessage();
        assertEquals("no verbs4j provider is available; found [ffm, jnr]; 'ffm' lost: unavailable: ffm found no RDMA "
                + "device; 'jnr' lost: unavailable: jnr found no RDMA device. Put verbs4j-provider-emulated on the "
                + "path to run without RDMA hardware.", m);
        ProviderUnavailableException empty = assertThrows(ProviderUnavailableException.class,
                () -> Verbs.select(List.of(), null));
        assertEquals("no verbs4j provider is available; found []. Put verbs4j-provider-emulated on the path to run "
                + "without RDMA hardware.", empty.getMessage());
        for (LogRecord r : records) {
            assertFalse(r.getMessage().contains("{}"), "stray placeholder in a log line: " + r.getMessage());
            assertTrue(r.getLevel().intValue() < Level.INFO.intValue(),
                    "a library logs a failure it throws at DEBUG at most: " + r.getMessage());
        }
    }
}
