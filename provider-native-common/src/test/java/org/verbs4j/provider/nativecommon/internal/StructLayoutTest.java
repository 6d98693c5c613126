package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Checks the one layout description of {@link StructCatalog} against the installed headers, one family (one
 * header) at a time: a C program compiled with gcc prints {@code sizeof} of every struct and {@code offsetof}
 * of every named member, nested ones included, and each must equal the description's. Both bindings read their
 * layouts from it, so this is the only layout test against C. A family whose header is not installed is
 * skipped on its own, saying so ({@code rdma/rdma_cma.h} without {@code librdmacm-dev}); the others still run.
 */
class StructLayoutTest {
    private static final Path INCLUDE = Path.of("/usr/include");

    /** The package that installs each header not part of libc. */
    private static final Map<String, String> PACKAGE = Map.of(
            "infiniband/verbs.h", "libibverbs-dev", "rdma/rdma_cma.h", "librdmacm-dev");

    private static boolean gccPresent() {
        try {
            Process p = new ProcessBuilder("gcc", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    static Stream<Arguments> families() {
        return StructCatalog.all().stream().map(f -> Arguments.of(f.header(), f));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("families")
    @DisplayName("every struct size and member offset described matches the installed header")
    void layoutsMatchTheInstalledHeader(String header, StructCatalog.Family family, @TempDir Path dir)
            throws Exception {
        assumeTrue(Files.isRegularFile(INCLUDE.resolve(header)),
                header + " is not installed (" + PACKAGE.getOrDefault(header, "libc6-dev") + "): its "
                        + family.structs().size() + " structs are not checked");
        assumeTrue(gccPresent(), "gcc is not installed");
        Map<String, Long> expected = StructCatalog.sizesAndOffsets(family);
        StringBuilder c = new StringBuilder("#include <stddef.h>\n#include <stdio.h>\n");
        c.append("#include <").append(header).append(">\n");
        c.append("int main(void) {\n");
        for (String key : expected.keySet()) {
            int sp = key.indexOf(' ');
            String expr = sp < 0 ? "sizeof(struct " + key + ")"
                    : "offsetof(struct " + key.substring(0, sp) + ", " + key.substring(sp + 1) + ")";
            c.append("    printf(\"%s %zu\\n\", \"").append(key).append("\", ").append(expr).append(");\n");
        }
        c.append("    return 0;\n}\n");
        Path src = dir.resolve("layouts.c");
        Path exe = dir.resolve("layouts");
        Files.writeString(src, c);
        run(dir, "gcc", "-Wall", "-o", exe.toString(), src.toString());
        Map<String, Long> actual = new LinkedHashMap<>();
        for (String line : run(dir, exe.toString()).split("\n")) {
            int sp = line.lastIndexOf(' ');
            actual.put(line.substring(0, sp), Long.parseLong(line.substring(sp + 1).trim()));
        }
        assertEquals(expected.size(), actual.size(), "the C program printed another number of values");
        List<String> wrong = new ArrayList<>();
        expected.forEach((k, v) -> {
            if (!v.equals(actual.get(k))) {
                wrong.add(k + ": described " + v + ", C " + actual.get(k));
            }
        });
        assertTrue(wrong.isEmpty(), "layouts differ from " + header + ":\n" + String.join("\n", wrong));
        long sizes = expected.keySet().stream().filter(k -> k.indexOf(' ') < 0).count();
        System.out.println("[StructLayoutTest] " + header + ": " + sizes + " sizes and " + (expected.size() - sizes)
                + " member offsets match gcc");
    }

    @Test
    @DisplayName("the catalog has not shrunk: over 400 sizes and offsets of verbs.h, over 100 of rdma_cma.h")
    void theCatalogHasNotShrunk() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        StructCatalog.all().forEach(f -> counts.put(f.header(), StructCatalog.sizesAndOffsets(f).size()));
        assertTrue(counts.get("infiniband/verbs.h") > 400, counts.toString());
        assertTrue(counts.get("rdma/rdma_cma.h") > 100, counts.toString());
    }

    @Test
    @DisplayName("wr_flush (rdma-core 45) is the word after wr_atomic_write, where rdma-core 44's ibv_qp_ex ends")
    void wrFlushIsTheWordAfterWrAtomicWrite() {
        assertEquals(QpStructs.ibv_qp_ex.DESC.offset("wr_atomic_write") + 8, QpStructs.ibv_qp_ex.wr_flush$off);
        assertEquals(QpStructs.ibv_qp_ex.SIZEOF, QpStructs.ibv_qp_ex.wr_flush$off);
    }

    private static String run(Path dir, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), String.join(" ", cmd) + " did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + " failed:\n" + out);
        return out;
    }
}
