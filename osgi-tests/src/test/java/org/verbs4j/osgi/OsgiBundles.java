package org.verbs4j.osgi;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/** Where the tests find the bundles: the jars on the test class path, and the consumer bundle they pack. */
final class OsgiBundles {

    private OsgiBundles() {}

    /**
     * The consumer class, by name only: the test JVM never loads it (nor any verbs4j class), only the framework.
     */
    static final String CONSUMER = "org.verbs4j.osgi.consumer.VerbsConsumer";

    /**
     * The packaged jar of this dependency, named by the build (osgi-tests/pom.xml: the system property
     * {@code verbs4j.osgi.jar.ARTIFACT}, the file Maven resolved), or null if the build resolved a classes
     * directory instead (a build that stopped before package, such as {@code ./mvnw test}).
     *
     * @param artifactId the dependency's artifactId, such as {@code verbs4j-spi} or {@code asm}
     * @return the jar, or null
     * @throws IllegalStateException if the build did not name it
     */
    static Path jar(String artifactId) {
        String file = System.getProperty("verbs4j.osgi.jar." + artifactId);
        if (file == null || file.startsWith("${")) {
            throw new IllegalStateException("the build sets no verbs4j.osgi.jar." + artifactId
                    + " (run the tests through Maven: ./mvnw -pl osgi-tests -am verify)");
        }
        Path p = Path.of(file);
        return Files.isRegularFile(p) && file.endsWith(".jar") ? p : null;
    }

    /**
     * Packs the consumer classes ({@code org.verbs4j.osgi.consumer}, compiled with the tests) into a bundle that
     * imports only the verbs4j API packages.
     *
     * @param dir where to write it
     * @return the bundle's jar
     * @throws IOException if it cannot be written
     */
    static Path consumerBundle(Path dir) throws IOException {
        Path classes;
        try {
            classes = Path.of(OsgiBundles.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
        String pkg = CONSUMER.substring(0, CONSUMER.lastIndexOf('.')).replace('.', '/');
        Manifest mf = new Manifest();
        Attributes a = mf.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue("Bundle-ManifestVersion", "2");
        a.putValue("Bundle-SymbolicName", "org.verbs4j.osgi.consumer");
        a.putValue("Bundle-Version", "1.0.0");
        a.putValue("Import-Package", "org.verbs4j;version=\"[0.1,1)\",org.verbs4j.spi;version=\"[0.1,1)\"");
        Path jar = dir.resolve("consumer.jar");
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(classes.resolve(pkg))) {
            s.filter(f -> f.toString().endsWith(".class")).forEach(files::add);
        }
        try (OutputStream os = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(os, mf)) {
            for (Path f : files) {
                out.putNextEntry(new JarEntry(pkg + "/" + f.getFileName()));
                out.write(Files.readAllBytes(f));
                out.closeEntry();
            }
        }
        return jar;
    }
}
