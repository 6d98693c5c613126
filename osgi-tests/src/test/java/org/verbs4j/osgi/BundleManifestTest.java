package org.verbs4j.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each published jar's OSGi manifest against its JPMS module-info: the bundle's symbolic name is the module's
 * name; Export-Package is exactly the module's exports (an export qualified to other verbs4j modules carries the
 * mandatory attribute {@code verbs4j.internal}; one qualified to a module outside verbs4j is left out); the
 * Service Loader Mediator capabilities follow {@code uses} and {@code provides VerbsProvider}.
 */
class BundleManifestTest {

    private static final String SERVICE = "org.verbs4j.spi.VerbsProvider";

    /** A manifest header's clauses, split at the commas outside quotes. */
    static List<String> clauses(String header) {
        List<String> out = new ArrayList<>();
        if (header == null) {
            return out;
        }
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (char c : header.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            }
            if (c == ',' && !quoted) {
                out.add(cur.toString().trim());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        if (!cur.isEmpty()) {
            out.add(cur.toString().trim());
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"verbs4j-spi", "verbs4j-provider-emulated", "verbs4j-provider-native-common",
            "verbs4j-provider-ffm", "verbs4j-provider-jnr", "verbs4j-tck", "verbs4j-tools"})
    void manifestMatchesModuleInfo(String artifact) throws IOException {
        Path jar = OsgiBundles.jar(artifact);
        assumeTrue(jar != null, "the build resolved no packaged " + artifact + " jar: run ./mvnw verify");
        try (JarFile jf = new JarFile(jar.toFile())) {
            ModuleDescriptor module = ModuleDescriptor.read(jf.getInputStream(jf.getEntry("module-info.class")));
            Attributes mf = jf.getManifest().getMainAttributes();
            assertEquals("2", mf.getValue("Bundle-ManifestVersion"), jar + " is no OSGi R4+ bundle");
            assertEquals(module.name(), mf.getValue("Bundle-SymbolicName"), "Bundle-SymbolicName of " + jar);
            assertNotNull(mf.getValue("Bundle-Version"), "Bundle-Version of " + jar);

            Set<String> expected = new TreeSet<>();
            for (ModuleDescriptor.Exports e : module.exports()) {
                if (!e.isQualified()) {
                    expected.add(e.source());
                } else if (e.targets().stream().allMatch(t -> t.startsWith("org.verbs4j."))) {
                    expected.add(e.source() + " (mandatory verbs4j.internal)");
                }
            }
            Set<String> exported = new TreeSet<>();
            for (String clause : clauses(mf.getValue("Export-Package"))) {
                String pkg = clause.split(";")[0].trim();
                exported.add(clause.contains("mandatory:=\"verbs4j.internal\"") && clause.contains("verbs4j.internal=true")
                        ? pkg + " (mandatory verbs4j.internal)" : pkg);
            }
            assertEquals(expected, exported, "Export-Package of " + jar + " against module-info's exports");

            String provide = String.valueOf(mf.getValue("Provide-Capability"));
            String require = String.valueOf(mf.getValue("Require-Capability"));
            boolean provides = module.provides().stream().anyMatch(p -> p.service().equals(SERVICE));
            assertEquals(provides, provide.contains("osgi.serviceloader;osgi.serviceloader=\"" + SERVICE + "\""),
                    "Provide-Capability osgi.serviceloader of " + jar + ": " + provide);
            assertEquals(provides, require.contains("(osgi.extender=osgi.serviceloader.registrar)"),
                    "the registrar extender requirement of " + jar + ": " + require);
            if (provides) {
                assertNotNull(jf.getEntry("META-INF/services/" + SERVICE), "META-INF/services of " + jar);
            }
            // The processor: the module that calls ServiceLoader (verbs-spi's Verbs); the others go through Verbs.
            boolean processes = module.name().equals("org.verbs4j.spi");
            assertTrue(!processes || module.uses().contains(SERVICE), "verbs-spi uses " + SERVICE);
            assertEquals(processes, require.contains("(osgi.extender=osgi.serviceloader.processor)"),
                    "the processor extender requirement of " + jar + ": " + require);
            // No bundle requires osgi.serviceloader: the wire would tie verbs-spi's revision to each provider's.
            assertTrue(!require.contains("(osgi.serviceloader="), "an osgi.serviceloader requirement in " + jar);
        }
    }
}
