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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks the one layout description of {@link StructCatalog} against the installed headers: a C program
 * compiled with gcc prints {@code sizeof} of every struct and {@code offsetof} of every named member, nested
 * ones included, and each must equal the description's. Both bindings read their layouts from it, so this is
 * the only layout test against C.
 */
class StructLayoutTest {
    private static final Path INCLUDE = Path.of("/usr/include");

    /** The expected values, keyed {@code struct} (its size) or {@code struct member.path} (an offset). */
    private static Map<String, Long> described() {
        Map<String, Long> values = new LinkedHashMap<>();
        StructCatalog.all().forEach(f -> values.putAll(StructCatalog.sizesAndOffsets(f)));
        return values;
    }

    private static boolean gccPresent() {
        try {
            Process p = new ProcessBuilder("gcc", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    @Test
    @DisplayName("every struct size and member offset described matches the installed headers")
    void layoutsMatchTheInstalledHeaders(@TempDir Path dir) throws Exception {
        Set<String> headers = new LinkedHashSet<>();
        StructCatalog.all().forEach(f -> headers.add(f.header()));
        for (String h : headers) {
            assumeTrue(Files.isRegularFile(INCLUDE.resolve(h)), h + " is not installed (libibverbs-dev)");
        }
        assumeTrue(gccPresent(), "gcc is not installed");
        Map<String, Long> expected = described();
        StringBuilder c = new StringBuilder("#include <stddef.h>\n#include <stdio.h>\n");
        headers.forEach(h -> c.append("#include <").append(h).append(">\n"));
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
        assertTrue(wrong.isEmpty(), "layouts differ from the headers:\n" + String.join("\n", wrong));
        assertTrue(expected.size() > 400, "too few values checked: " + expected.size());
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
