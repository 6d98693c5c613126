import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * scripts/publish-check's SBOM check, run as a source file: {@code java scripts/SbomCheck.java ROOT DEPLOY_REPO
 * VERSION ARTIFACT:MODULE_DIR...}. For each published artifact, the CycloneDX SBOM deployed beside its jar
 * ({@code ARTIFACT-*-cyclonedx.xml}) must describe that artifact (metadata component group, name, version and
 * purl) and list, as components, every dependency of the module's pom.xml in compile or runtime scope. Prints
 * one line per problem and exits 1 if there is any.
 */
public class SbomCheck {

    private static Document parse(Path xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(xml.toFile());
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e
                    && name.equals(e.getLocalName() != null ? e.getLocalName() : e.getTagName())) {
                out.add(e);
            }
        }
        return out;
    }

    private static String text(Element parent, String name) {
        List<Element> c = children(parent, name);
        return c.isEmpty() ? null : c.get(0).getTextContent().trim();
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        Path repo = Path.of(args[1]);
        String version = args[2];
        List<String> problems = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            String artifact = args[i].split(":")[0];
            Path moduleDir = root.resolve(args[i].split(":")[1]);
            Path dir = repo.resolve("org/verbs4j").resolve(artifact).resolve(version);
            List<Path> sboms;
            try (var s = Files.list(dir)) {
                sboms = s.filter(p -> p.getFileName().toString().endsWith("-cyclonedx.xml")).sorted().toList();
            } catch (java.io.IOException e) {
                sboms = List.of();
            }
            if (sboms.isEmpty()) {
                problems.add(artifact + ": no CycloneDX SBOM (*-cyclonedx.xml) deployed in " + dir);
                continue;
            }
            DocumentBuilderFactory nsf = DocumentBuilderFactory.newInstance();
            nsf.setNamespaceAware(true);
            nsf.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Element bom = nsf.newDocumentBuilder().parse(sboms.getLast().toFile()).getDocumentElement();
            if (!"bom".equals(bom.getLocalName()) || bom.getNamespaceURI() == null
                    || !bom.getNamespaceURI().startsWith("http://cyclonedx.org/schema/bom/")) {
                problems.add(artifact + ": " + sboms.getLast() + " is not a CycloneDX BOM");
                continue;
            }
            Element component = children(children(bom, "metadata").stream().findFirst().orElse(bom), "component")
                    .stream().findFirst().orElse(null);
            String purl = "pkg:maven/org.verbs4j/" + artifact + "@" + version + "?type=jar";
            if (component == null || !"org.verbs4j".equals(text(component, "group"))
                    || !artifact.equals(text(component, "name")) || !version.equals(text(component, "version"))
                    || !purl.equals(text(component, "purl"))) {
                problems.add(artifact + ": the SBOM's metadata component is not " + purl);
            }
            Set<String> listed = new TreeSet<>();
            for (Element components : children(bom, "components")) {
                for (Element c : children(components, "component")) {
                    listed.add(text(c, "group") + ":" + text(c, "name"));
                }
            }
            Element pom = parse(moduleDir.resolve("pom.xml")).getDocumentElement();
            for (Element deps : children(pom, "dependencies")) {
                for (Element d : children(deps, "dependency")) {
                    String scope = text(d, "scope");
                    if (scope == null || scope.equals("compile") || scope.equals("runtime")) {
                        String ga = text(d, "groupId") + ":" + text(d, "artifactId");
                        if (!listed.contains(ga)) {
                            problems.add(artifact + ": the SBOM does not list its dependency " + ga);
                        }
                    }
                }
            }
        }
        problems.forEach(p -> System.out.println("  " + p));
        System.exit(problems.isEmpty() ? 0 : 1);
    }
}
