package org.verbs4j.provider.ffm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks every hand-written layout of {@link Structs} against the installed {@code infiniband/verbs.h}:
 * a C program compiled with gcc prints {@code sizeof} of each struct and {@code offsetof} of each named
 * field, and each must equal the Java layout's.
 */
class StructLayoutTest {
    private static final Path HEADER = Path.of("/usr/include/infiniband/verbs.h");

    /** The expected values, keyed {@code struct} or {@code struct.field.path}. */
    private static Map<String, Long> javaValues() {
        Map<String, Long> values = new LinkedHashMap<>();
        for (StructLayout s : Structs.all()) {
            String name = s.name().orElseThrow();
            values.put(name, s.byteSize());
            collect(values, name, "", s, 0);
        }
        return values;
    }

    private static void collect(Map<String, Long> out, String struct, String prefix, GroupLayout g, long base) {
        long offset = 0;
        boolean union = g instanceof java.lang.foreign.UnionLayout;
        for (MemoryLayout m : g.memberLayouts()) {
            long at = base + (union ? 0 : offset);
            if (!(m instanceof PaddingLayout) && m.name().isPresent()) {
                String n = m.name().get();
                String path = n.startsWith(LayoutBuilder.ANONYMOUS) ? prefix
                        : prefix.isEmpty() ? n : prefix + "." + n;
                if (!n.startsWith(LayoutBuilder.ANONYMOUS)) {
                    out.put(struct + "." + path, at);
                }
                if (m instanceof GroupLayout inner) {
                    collect(out, struct, path, inner, at);
                }
            }
            if (!union) {
                offset += m.byteSize();
            }
        }
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
    void layoutsMatchTheInstalledHeader(@TempDir Path dir) throws Exception {
        assumeTrue(Files.exists(HEADER), "infiniband/verbs.h is not installed (apt-get install libibverbs-dev)");
        assumeTrue(gccPresent(), "gcc is not installed");
        Map<String, Long> expected = javaValues();
        StringBuilder c = new StringBuilder("""
                #include <stddef.h>
                #include <stdio.h>
                #include <poll.h>
                #include <infiniband/verbs.h>
                int main(void) {
                """);
        for (String key : expected.keySet()) {
            int dot = key.indexOf('.');
            String expr = dot < 0 ? "sizeof(struct " + key + ")"
                    : "offsetof(struct " + key.substring(0, dot) + ", " + key.substring(dot + 1) + ")";
            c.append("    printf(\"%s %zu\\n\", \"").append(key).append("\", ").append(expr).append(");\n");
        }
        c.append("    return 0;\n}\n");
        Path src = dir.resolve("layouts.c");
        Path exe = dir.resolve("layouts");
        Files.writeString(src, c.toString());
        Process cc = new ProcessBuilder("gcc", "-o", exe.toString(), src.toString()).redirectErrorStream(true).start();
        String ccOut = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(cc.waitFor(120, TimeUnit.SECONDS), "gcc timed out");
        assertEquals(0, cc.exitValue(), "gcc failed on the generated program:\n" + ccOut);
        Process run = new ProcessBuilder(exe.toString()).redirectErrorStream(true).start();
        List<String> lines = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        assertTrue(run.waitFor(30, TimeUnit.SECONDS));
        Map<String, Long> actual = new LinkedHashMap<>();
        for (String line : lines) {
            String[] kv = line.split(" ");
            actual.put(kv[0], Long.parseLong(kv[1]));
        }
        List<String> mismatches = new ArrayList<>();
        expected.forEach((k, v) -> {
            if (!v.equals(actual.get(k))) {
                mismatches.add(k + ": Java " + v + ", C " + actual.get(k));
            }
        });
        assertEquals(expected.size(), actual.size(), "the C program printed another number of values");
        assertTrue(mismatches.isEmpty(), "layouts differ from verbs.h:\n" + String.join("\n", mismatches));
        assertTrue(expected.size() > 300, "too few fields checked: " + expected.size());
    }

    @Test
    void wrFlushIsTheWordAfterWrAtomicWrite() {
        assertEquals(LayoutBuilder.offset(Structs.ibv_qp_ex.LAYOUT, "wr_atomic_write") + 8,
                Structs.ibv_qp_ex.wr_flush$off);
        assertEquals(Structs.ibv_qp_ex.LAYOUT.byteSize(), Structs.ibv_qp_ex.wr_flush$off,
                "in rdma-core 44 ibv_qp_ex ends with wr_atomic_write");
    }
}
