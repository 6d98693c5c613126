package org.verbs4j.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * What Maven Central requires of every published pom (name, description, url, licenses, developers, scm),
 * given once in the parent and inherited by every module, and again in the standalone BOM; and the files
 * a published project carries. scripts/publish-check shows the artifacts themselves (jar, sources, Javadoc).
 */
@DisplayName("Every published pom carries the metadata Maven Central requires")
class PublicationMetadataTest {

    private static final Path ROOT = Path.of(System.getProperty("verbs4j.root", "..")).toAbsolutePath().normalize();

    private static Element pom(String path) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(ROOT.resolve(path).toFile()).getDocumentElement();
    }

    private static Element child(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private static String text(Element parent, String... path) {
        Element e = parent;
        for (String p : path) {
            e = e == null ? null : child(e, p);
        }
        return e == null ? null : e.getTextContent().trim();
    }

    private static void assertCentralMetadata(Element pom, String where) {
        for (String required : List.of("name", "description", "url")) {
            String v = text(pom, required);
            assertTrue(v != null && !v.isBlank(), where + " lacks <" + required + ">");
        }
        assertEquals("Apache-2.0", text(pom, "licenses", "license", "name"), where + ": the license");
        assertEquals("https://www.apache.org/licenses/LICENSE-2.0.txt", text(pom, "licenses", "license", "url"), where);
        assertNotNull(text(pom, "developers", "developer", "name"), where + " lacks a developer name");
        for (String scm : List.of("connection", "developerConnection", "url")) {
            assertNotNull(text(pom, "scm", scm), where + " lacks <scm><" + scm + ">");
        }
    }

    @Test
    @DisplayName("the parent pom has url, licenses, developers and scm, and children inherit the url unchanged")
    void parentHasMetadata() throws Exception {
        Element parent = pom("pom.xml");
        assertCentralMetadata(parent, "pom.xml");
        assertEquals("false", parent.getAttribute("child.project.url.inherit.append.path"),
                "without it each module's url would get its artifactId appended, a page that does not exist");
        assertEquals("false", child(parent, "scm").getAttribute("child.scm.url.inherit.append.path"));
    }

    @Test
    @DisplayName("every published module inherits from the parent and does not blank out its metadata")
    void modulesInherit() throws Exception {
        for (String module : List.of("verbs-spi", "provider-emulated", "provider-native-common", "provider-ffm",
                "provider-jnr", "tck", "tools")) {
            Element pom = pom(module + "/pom.xml");
            assertEquals("verbs4j-parent", text(pom, "parent", "artifactId"), module + " must inherit the metadata");
            assertNotNull(text(pom, "name"), module + " lacks <name>");
            assertNotNull(text(pom, "description"), module + " lacks <description>");
            for (String own : List.of("licenses", "developers", "scm", "url")) {
                assertEquals(null, child(pom, own), module + " overrides <" + own + ">; keep it in the parent");
            }
        }
    }

    @Test
    @DisplayName("the standalone BOM carries the same metadata and its own release profile")
    void bomHasMetadata() throws Exception {
        Element bom = pom("bom/pom.xml");
        assertCentralMetadata(bom, "bom/pom.xml");
        assertTrue(Files.readString(ROOT.resolve("bom/pom.xml")).contains("central-publishing-maven-plugin"),
                "the BOM has no parent, so its release profile must publish it too");
    }

    @Test
    @DisplayName("the release profile attaches sources and Javadoc, signs only with a key, and publishes to Central")
    void releaseProfile() throws Exception {
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        int release = parent.indexOf("<id>release</id>");
        assertTrue(release > 0, "no release profile");
        String profile = parent.substring(release, parent.indexOf("</profile>", release));
        for (String plugin : List.of("maven-source-plugin", "maven-javadoc-plugin", "maven-gpg-plugin",
                "central-publishing-maven-plugin")) {
            assertTrue(profile.contains("<artifactId>" + plugin + "</artifactId>"), "release lacks " + plugin);
        }
        assertTrue(parent.contains("<gpg.skip>true</gpg.skip>"), "signing must be skipped when no key is given");
        assertTrue(parent.contains("<failOnWarnings>${verbs4j.javadoc.strict}</failOnWarnings>")
                && parent.contains("<verbs4j.javadoc.strict>true</verbs4j.javadoc.strict>"),
                "doclint warnings must fail the Javadoc build");
    }

    @Test
    @DisplayName("LICENSE is the Apache License 2.0, and NOTICE, CHANGELOG.md and CONTRIBUTING.md exist")
    void projectFiles() throws Exception {
        String license = Files.readString(ROOT.resolve("LICENSE"));
        assertTrue(license.contains("Apache License") && license.contains("Version 2.0, January 2004"), "LICENSE");
        for (String f : List.of("NOTICE", "CHANGELOG.md", "CONTRIBUTING.md")) {
            assertFalse(Files.readString(ROOT.resolve(f)).isBlank(), f + " is missing or empty");
        }
    }
}
