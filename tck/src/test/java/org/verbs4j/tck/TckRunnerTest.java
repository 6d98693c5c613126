package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TckRunnerTest {
    @Test
    void anUnavailableProviderIsOneSkipWithItsCause(@TempDir Path reports) throws Exception {
        TckReport r = TckRunner.run(new MissingProvider("ghost", "libghost.so is not installed"),
                TckRunner.Options.defaults().reportDir(reports));
        assertEquals("ghost", r.provider());
        assertEquals(0, r.passed());
        assertEquals(0, r.failed());
        assertEquals(1, r.skipped(), "one skipped result, not one per rule: " + r);
        assertEquals(1, r.areas().size());
        TckReport.AreaResult only = r.areas().getFirst();
        assertEquals(TckReport.PROVIDER_AREA, only.area());
        assertTrue(only.skipReasons().getFirst().contains("libghost.so is not installed"), only.skipReasons().toString());
        try (var files = Files.list(reports)) {
            assertTrue(files.anyMatch(f -> f.getFileName().toString().endsWith(".xml")), "a JUnit XML report is written");
        }
    }

    @Test
    void anUnknownAreaIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> TckRunner.Options.defaults().areas(Set.of("Warp drive")));
    }

    @Test
    void aGidIndexOutsideMinusOneTo255IsRefused() {
        assertEquals(255, TckRunner.Options.defaults().gidIndex(255).gidIndex());
        assertEquals(-1, TckRunner.Options.defaults().gidIndex());
        assertThrows(IllegalArgumentException.class, () -> TckRunner.Options.defaults().gidIndex(256));
        assertThrows(IllegalArgumentException.class, () -> TckRunner.Options.defaults().gidIndex(-2));
    }

    @Test
    void anUnknownProviderNameIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> TckRunner.run("no-such-provider", TckRunner.Options.defaults()));
    }
}
