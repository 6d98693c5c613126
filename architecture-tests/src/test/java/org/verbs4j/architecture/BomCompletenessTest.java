package org.verbs4j.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/** The BOM lists every published artifact of the reactor, and nothing else. */
@DisplayName("The BOM is complete")
class BomCompletenessTest {

    private static final Path ROOT = Path.of(System.getProperty("verbs4j.root", "..")).toAbsolutePath().normalize();

    private static Document parse(Path pom) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(pom.toFile());
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                out.add(e);
            }
        }
        return out;
    }

    private static String childText(Element parent, String name) {
        List<Element> c = children(parent, name);
        return c.isEmpty() ? null : c.get(0).getTextContent().trim();
    }

    /** artifactIds of the reactor's modules that are published: not packaging pom, not verbs4j.published=false. */
    private static Set<String> publishedModules() throws Exception {
        Element root = parse(ROOT.resolve("pom.xml")).getDocumentElement();
        Set<String> published = new TreeSet<>();
        for (Element modules : children(root, "modules")) {
            for (Element module : children(modules, "module")) {
                Element pom = parse(ROOT.resolve(module.getTextContent().trim()).resolve("pom.xml")).getDocumentElement();
                String packaging = childText(pom, "packaging");
                boolean unpublished = false;
                for (Element props : children(pom, "properties")) {
                    unpublished |= "false".equals(childText(props, "verbs4j.published"));
                }
                if (!"pom".equals(packaging) && !unpublished) {
                    published.add(childText(pom, "artifactId"));
                }
            }
        }
        return published;
    }

    private static Set<String> bomEntries() throws Exception {
        Set<String> listed = new TreeSet<>();
        NodeList deps = parse(ROOT.resolve("bom/pom.xml")).getElementsByTagName("dependency");
        for (int i = 0; i < deps.getLength(); i++) {
            Element d = (Element) deps.item(i);
            assertEquals("org.verbs4j", childText(d, "groupId"), "the BOM lists only verbs4j artifacts");
            assertEquals("${project.version}", childText(d, "version"), childText(d, "artifactId")
                    + " must use the BOM's own version");
            listed.add(childText(d, "artifactId"));
        }
        return listed;
    }

    @Test
    @DisplayName("every published module is in the BOM, and the BOM names no artifact that is not built")
    void bomMatchesPublishedModules() throws Exception {
        Set<String> published = publishedModules();
        assertFalse(published.isEmpty(), "no published module was found under " + ROOT);
        assertTrue(published.contains("verbs4j-spi"), "the reactor was not read: " + published);
        Set<String> missing = new TreeSet<>(published);
        missing.removeAll(bomEntries());
        assertTrue(missing.isEmpty(), "published but missing from bom/pom.xml: " + missing);
        Set<String> extra = new TreeSet<>(bomEntries());
        extra.removeAll(published);
        assertTrue(extra.isEmpty(), "bom/pom.xml lists artifacts the build does not publish: " + extra);
    }

    @Test
    @DisplayName("the BOM has its own parent, not the project parent, and the project's version")
    void bomIsStandalone() throws Exception {
        Element bom = parse(ROOT.resolve("bom/pom.xml")).getDocumentElement();
        assertTrue(children(bom, "parent").isEmpty(), "bom/pom.xml must not inherit the project parent");
        Element parent = parse(ROOT.resolve("pom.xml")).getDocumentElement();
        assertEquals(childText(parent, "version"), childText(bom, "version"), "the BOM's version follows the project's");
    }
}
