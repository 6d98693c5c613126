package org.verbs4j.provider.jnr.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks every hand-written layout against the installed {@code infiniband/verbs.h}: a C program that
 * prints {@code sizeof} and {@code offsetof} for each struct and field is generated from the layout
 * classes, compiled with gcc and run, and its numbers must equal the Java constants.
 */
class LayoutTest {
    static final List<Class<?>> LAYOUTS = List.of(IbvAhAttr.class, IbvAsyncEvent.class, IbvCompChannel.class,
            IbvContext.class, IbvCq.class, IbvCqEx.class, IbvCqInitAttrEx.class, IbvDeviceAttr.class,
            IbvDeviceAttrEx.class, IbvMr.class, IbvMw.class, IbvMwBind.class, IbvMwBindInfo.class,
            IbvParentDomainInitAttr.class, IbvPollCqAttr.class, IbvPortAttr.class, IbvQp.class, IbvQpAttr.class,
            IbvQpCap.class, IbvQpEx.class, IbvQpInitAttr.class, IbvQpInitAttrEx.class, IbvRecvWr.class,
            IbvSendWr.class, IbvSge.class, IbvSrq.class, IbvSrqAttr.class, IbvSrqInitAttr.class, IbvTdInitAttr.class,
            IbvWc.class, VerbsContext.class);

    private static final Path HEADER = Path.of("/usr/include/infiniband/verbs.h");

    /** "struct member" -> Java value, for every constant of every layout class. */
    private static Map<String, Long> javaValues() throws IllegalAccessException {
        Map<String, Long> values = new LinkedHashMap<>();
        for (Class<?> c : LAYOUTS) {
            String struct = null;
            List<Field> offsets = new ArrayList<>();
            Long size = null;
            for (Field f : c.getFields()) {
                if (!Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                if (f.getName().equals("C_NAME")) {
                    struct = (String) f.get(null);
                } else if (f.getName().equals("SIZEOF")) {
                    size = f.getLong(null);
                } else if (f.getName().endsWith("$OFFSET")) {
                    offsets.add(f);
                }
            }
            assertTrue(struct != null && size != null && !offsets.isEmpty(), c + " is not a layout class");
            values.put(struct + " sizeof", size);
            for (Field f : offsets) {
                String member = f.getName().substring(0, f.getName().length() - "$OFFSET".length()).replace('$', '.');
                values.put(struct + " " + member, f.getLong(null));
            }
        }
        return values;
    }

    @Test
    @DisplayName("every struct size and field offset the provider uses matches the installed verbs.h")
    void layoutsMatchInstalledHeader(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isRegularFile(HEADER), "libibverbs-dev is not installed: no " + HEADER);
        Map<String, Long> expected = javaValues();
        StringBuilder c = new StringBuilder("#include <stdio.h>\n#include <stddef.h>\n#include <infiniband/verbs.h>\n"
                + "int main(void) {\n");
        for (String key : expected.keySet()) {
            String[] p = key.split(" ");
            String value = p[1].equals("sizeof") ? "sizeof(struct " + p[0] + ")"
                    : "offsetof(struct " + p[0] + ", " + p[1] + ")";
            c.append("    printf(\"%s %zu\\n\", \"").append(key).append("\", ").append(value).append(");\n");
        }
        c.append("    return 0;\n}\n");
        Path src = dir.resolve("layouts.c");
        Path exe = dir.resolve("layouts");
        Files.writeString(src, c);
        run(dir, "gcc", "-Wall", "-o", exe.toString(), src.toString());
        String out = run(dir, exe.toString());
        Map<String, Long> actual = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            int sp = line.lastIndexOf(' ');
            actual.put(line.substring(0, sp), Long.parseLong(line.substring(sp + 1).trim()));
        }
        assertEquals(expected.size(), actual.size(), "the C program printed a different number of values");
        List<String> wrong = new ArrayList<>();
        expected.forEach((k, v) -> {
            if (!v.equals(actual.get(k))) {
                wrong.add(k + ": Java " + v + ", verbs.h " + actual.get(k));
            }
        });
        assertTrue(wrong.isEmpty(), "layouts differ from verbs.h: " + wrong);
        assertTrue(expected.size() > 250, "too few values checked: " + expected.size());
    }

    private static String run(Path dir, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", cmd) + " did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + " failed:\n" + out);
        return out;
    }
}
