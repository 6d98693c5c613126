package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Java code kept in Markdown between {@code <!-- NAME -->} and {@code <!-- /NAME -->}, cut out and compiled with the
 * JDK's compiler against the test class path, so documentation cannot drift from the API.
 */
final class DocBlocks {
    static final Path ROOT = Path.of(System.getProperty("verbs4j.root", "..")).toAbsolutePath().normalize();

    private DocBlocks() {}

    /** The one {@code ```java} block between the markers {@code <!-- marker -->} of a file under the root. */
    static String extract(String file, String marker) throws IOException {
        return extract(file, marker, "java");
    }

    /** The one {@code ```language} block between the markers {@code <!-- marker -->} of a file under the root. */
    static String extract(String file, String marker, String language) throws IOException {
        String text = Files.readString(ROOT.resolve(file));
        String start = "<!-- " + marker + " -->";
        String end = "<!-- /" + marker + " -->";
        int from = text.indexOf(start);
        int to = text.indexOf(end);
        assertTrue(from >= 0 && to > from, file + " has no " + start + " ... " + end + " block");
        String block = text.substring(from + start.length(), to).strip();
        String fence = "```" + language + "\n";
        assertTrue(block.startsWith(fence) && block.endsWith("```"),
                file + ": the block is one " + fence.strip() + " fence directly between the markers");
        return block.substring(fence.length(), block.length() - 3);
    }

    /**
     * Compiles {@code source} as {@code className.java} with {@code -Xlint:all -Werror} into {@code dir/classes}.
     *
     * @return the class output directory
     */
    static Path compile(String what, String className, String source, Path dir) throws IOException {
        Path file = dir.resolve("src").resolve(className + ".java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, source);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "the tests run on a JRE without javac");
        StringWriter diagnostics = new StringWriter();
        try (StandardJavaFileManager files = javac.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
            List<String> options = List.of("-classpath", System.getProperty("java.class.path"), "-d",
                    classes.toString(), "-proc:none", "-Xlint:all", "-Werror");
            boolean ok = javac.getTask(diagnostics, files, null, options, null, files.getJavaFileObjects(file)).call();
            assertTrue(ok, what + " does not compile:\n" + diagnostics);
        }
        return classes;
    }
}
