package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.verbs4j.ProviderUnavailableException;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.spi.support.AbstractWrSession;

/**
 * The provider skeleton of tck/README.md (between the {@code tck:skeleton} markers) compiles against the real SPI
 * and shared layer, and behaves as the README says: an unavailable provider that names its cause.
 */
@DisplayName("tck/README.md's provider skeleton compiles against the SPI")
class TckReadmeSkeletonTest {

    @Test
    @DisplayName("AcmeProvider and AcmeWrSession compile without warnings; the provider reports its cause")
    void skeletonCompiles(@TempDir Path dir) throws Exception {
        String source = DocBlocks.extract("tck/README.md", "tck:skeleton");
        Path classes = DocBlocks.compile("tck/README.md's skeleton", "AcmeProvider", source, dir);
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                TckReadmeSkeletonTest.class.getClassLoader())) {
            VerbsProvider acme = (VerbsProvider) loader.loadClass("AcmeProvider").getConstructor().newInstance();
            assertEquals("acme", acme.name());
            assertEquals(VerbsProvider.SPI_VERSION, acme.spiVersion());
            assertFalse(acme.isAvailable());
            assertEquals("libacme is not installed", acme.unavailabilityCause().getMessage());
            assertThrows(ProviderUnavailableException.class, acme::devices);
            assertEquals(AbstractWrSession.class, loader.loadClass("AcmeWrSession").getSuperclass());
        }
    }
}
