package org.verbs4j.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.felix.framework.FrameworkFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.wiring.BundleWiring;
import org.osgi.framework.wiring.FrameworkWiring;
import org.verbs4j.osgi.consumer.VerbsConsumer;

/**
 * The published jars as bundles in a real framework: Apache Felix 7 with Apache Aries SPI Fly as the Service
 * Loader Mediator (OSGi Compendium 133). A consumer bundle selects a provider through {@code Verbs}, whose
 * {@code ServiceLoader} call SPI Fly processes, and does one RDMA WRITE on it; selection follows the provider
 * bundle's lifecycle.
 */
@DisplayName("OSGi: Felix with SPI Fly finds the providers through Verbs")
class FelixServiceLoaderMediatorTest {

    /** The mediator and its ASM bundles, then verbs4j's bundles, in start order (SPI Fly first: it weaves). */
    private static final List<String> BUNDLES = List.of("asm", "asm-tree", "asm-analysis", "asm-commons",
            "asm-util", "org.apache.aries.spifly.dynamic.bundle", "verbs4j-spi", "verbs4j-provider-native-common",
            "verbs4j-provider-emulated", "verbs4j-provider-ffm");
    /** What the consumer's WRITE carries (its constant, compiled in: the test never loads the class). */
    private static final String MESSAGE = VerbsConsumer.MESSAGE;

    @TempDir
    Path tmp;

    private Framework framework;
    private final Map<String, Bundle> bySymbolicName = new HashMap<>();
    private final Map<String, Path> jarOf = new HashMap<>();
    private Function<String, Map<String, Object>> consumer;

    @BeforeEach
    @SuppressWarnings("unchecked")
    void bootFelixWithSpiFly() throws Exception {
        List<Path> jars = new ArrayList<>();
        for (String prefix : BUNDLES) {
            Path jar = OsgiBundles.jar(prefix);
            assumeTrue(jar != null, "the build resolved no packaged " + prefix
                    + " jar (a classes directory): the bundles exist from the package phase on, run ./mvnw verify");
            jars.add(jar);
        }
        jars.add(OsgiBundles.consumerBundle(tmp));

        Map<String, String> config = new HashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, tmp.resolve("felix-cache").toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        framework = new FrameworkFactory().newFramework(config);
        framework.start();
        List<Bundle> installed = new ArrayList<>();
        for (Path jar : jars) {
            Bundle b = framework.getBundleContext().installBundle(jar.toUri().toString());
            bySymbolicName.put(b.getSymbolicName(), b);
            jarOf.put(b.getSymbolicName(), jar);
            installed.add(b);
        }
        for (Bundle b : installed) {
            b.start();
        }
        Bundle consumerBundle = bySymbolicName.get("org.verbs4j.osgi.consumer");
        consumer = (Function<String, Map<String, Object>>) consumerBundle.loadClass(OsgiBundles.CONSUMER)
                .getConstructor().newInstance();
    }

    @AfterEach
    void stopFramework() throws Exception {
        if (framework != null) {
            framework.stop();
            FrameworkEvent e = framework.waitForStop(20_000);
            assertEquals(FrameworkEvent.STOPPED, e.getType(), "Felix did not stop within 20 s: " + e);
        }
    }

    private Bundle bundle(String symbolicName) {
        Bundle b = bySymbolicName.get(symbolicName);
        assertNotNull(b, symbolicName + " is not installed");
        return b;
    }

    private static ClassLoader loaderOf(Bundle b) {
        BundleWiring wiring = b.adapt(BundleWiring.class);
        assertNotNull(wiring, b + " has no wiring (not resolved)");
        return wiring.getClassLoader();
    }

    @Test
    @DisplayName("every verbs4j bundle resolves and starts, the mediator's extenders are wired to them")
    void bundlesResolveAndStart() {
        for (String bsn : List.of("org.verbs4j.spi", "org.verbs4j.provider.nativecommon",
                "org.verbs4j.provider.emulated", "org.verbs4j.provider.ffm", "org.verbs4j.osgi.consumer")) {
            assertEquals(Bundle.ACTIVE, bundle(bsn).getState(), bsn + " is not ACTIVE");
        }
        BundleWiring spi = bundle("org.verbs4j.spi").adapt(BundleWiring.class);
        assertEquals("org.apache.aries.spifly.dynamic.bundle", spi.getRequiredWires("osgi.extender").get(0)
                .getProvider().getBundle().getSymbolicName(), "verbs-spi's processor extender");
        BundleWiring emulated = bundle("org.verbs4j.provider.emulated").adapt(BundleWiring.class);
        assertEquals("org.apache.aries.spifly.dynamic.bundle", emulated.getRequiredWires("osgi.extender").get(0)
                .getProvider().getBundle().getSymbolicName(), "the emulated provider's registrar extender");
    }

    @Test
    @DisplayName("a consumer bundle selects the emulated provider through Verbs and does an RDMA WRITE")
    void consumerSelectsEmulatedAndWrites() {
        Map<String, Object> r = consumer.apply("emulated");
        assertFalse(r.containsKey("error"), () -> "selection failed: " + r);
        assertTrue(((List<?>) r.get("providers")).contains("emulated+"), () -> "providers: " + r);
        Class<?> providerClass = (Class<?>) r.get("class");
        assertEquals("org.verbs4j.provider.emulated.EmulatedProvider", providerClass.getName());
        assertSame(loaderOf(bundle("org.verbs4j.provider.emulated")), providerClass.getClassLoader(),
                "the provider class comes from the emulated bundle");
        assertEquals(MESSAGE, r.get("written"), () -> "the WRITE: " + r);
    }

    @Test
    @DisplayName("ffm, through Verbs from the consumer bundle, where a device exists")
    void consumerSelectsFfmWhereADeviceExists() {
        Map<String, Object> r = consumer.apply("ffm");
        List<?> providers = (List<?>) r.get("providers");
        // The ffm bundle's provider is found either way; it is available only with libibverbs and a device.
        assertTrue(providers.contains("ffm+") || providers.contains("ffm-"), () -> "providers: " + r);
        assumeTrue(providers.contains("ffm+"), () -> "ffm is unavailable on this host (no RDMA device or no "
                + "libibverbs), so the ffm half is skipped: " + r.get("unavailable"));
        assertFalse(r.containsKey("error"), () -> "selection failed: " + r);
        assertSame(loaderOf(bundle("org.verbs4j.provider.ffm")), ((Class<?>) r.get("class")).getClassLoader());
        assertEquals(MESSAGE, r.get("written"), () -> "the WRITE: " + r);
    }

    @Test
    @DisplayName("selection follows the provider bundle: gone while stopped, a fresh class after update and restart")
    void selectionFollowsTheProviderBundle() throws Exception {
        Bundle emulated = bundle("org.verbs4j.provider.emulated");
        Map<String, Object> before = consumer.apply("emulated");
        Class<?> oldClass = (Class<?>) before.get("class");
        assertNotNull(oldClass, () -> "before the restart: " + before);
        ClassLoader oldLoader = loaderOf(emulated);
        assertSame(oldLoader, oldClass.getClassLoader());
        ClassLoader spiLoader = loaderOf(bundle("org.verbs4j.spi"));

        emulated.stop();
        Map<String, Object> stopped = consumer.apply("emulated");
        assertFalse(((List<?>) stopped.get("providers")).stream().anyMatch(p -> p.toString().startsWith("emulated")),
                () -> "the stopped provider is still found: " + stopped);
        assertTrue(String.valueOf(stopped.get("error")).startsWith("org.verbs4j.ProviderUnavailableException"),
                () -> "while stopped: " + stopped);

        // A new revision of the bundle (the same jar), the old one refreshed away, then started again.
        try (InputStream in = Files.newInputStream(jarOf.get("org.verbs4j.provider.emulated"))) {
            emulated.update(in);
        }
        refresh(emulated);
        emulated.start();

        Map<String, Object> after = consumer.apply("emulated");
        assertFalse(after.containsKey("error"), () -> "after the restart: " + after);
        Class<?> newClass = (Class<?>) after.get("class");
        ClassLoader newLoader = loaderOf(emulated);
        assertNotEquals(oldClass, newClass, "the provider class after the restart is the old revision's");
        assertNotEquals(oldLoader, newLoader, "the update gave the bundle no new class loader");
        assertSame(newLoader, newClass.getClassLoader(), "the provider class comes from the new revision");
        assertSame(spiLoader, loaderOf(bundle("org.verbs4j.spi")), "the provider's update refreshed verbs-spi");
        assertEquals(MESSAGE, after.get("written"), () -> "the WRITE after the restart: " + after);

        // No stale classes: every provider Verbs finds comes from a current bundle revision's class loader.
        Set<ClassLoader> current = new HashSet<>();
        for (Bundle b : framework.getBundleContext().getBundles()) {
            BundleWiring w = b.adapt(BundleWiring.class);
            if (w != null && w.getClassLoader() != null) {
                current.add(w.getClassLoader());
            }
        }
        Map<String, ClassLoader> loaders = providerLoaders();
        assertFalse(loaders.containsValue(oldLoader), () -> "the old revision's loader still serves: " + loaders);
        for (Map.Entry<String, ClassLoader> e : loaders.entrySet()) {
            assertTrue(current.contains(e.getValue()), () -> e.getKey() + " comes from a stale loader " + e);
        }
    }

    /** Each provider's class loader, by name, as the consumer's Verbs sees them now. */
    private Map<String, ClassLoader> providerLoaders() {
        Map<String, ClassLoader> out = new LinkedHashMap<>();
        for (String name : List.of("emulated", "ffm")) {
            Map<String, Object> r = consumer.apply(name);
            if (r.get("class") instanceof Class<?> c) {
                out.put(name, c.getClassLoader());
            }
        }
        return out;
    }

    /** Refreshes the bundle's wiring (the old revision goes) and waits for it, up to 20 s. */
    private void refresh(Bundle b) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        framework.adapt(FrameworkWiring.class).refreshBundles(Set.of(b), e -> {
            if (e.getType() == FrameworkEvent.PACKAGES_REFRESHED) {
                done.countDown();
            }
        });
        assertTrue(done.await(20, TimeUnit.SECONDS), "the refresh did not finish within 20 s");
    }
}
