package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;
import org.verbs4j.Errno;

/**
 * The one declaration of libibverbs' control-path functions ({@link LibIbverbs}) and context ops
 * ({@link LibIbverbsOps}, issue 28) against itself and against the installed {@code verbs.h}: each method is its C
 * function (or struct member) by name, parameter count and widths, with an errno convention its result type can
 * carry; and gcc accepts each declared C signature as the type of the real function, and each op's as the type of
 * its struct member.
 */
class LibIbverbsDeclarationTest {
    private static List<Method> methods() {
        return methods(LibIbverbs.class);
    }

    private static List<Method> methods(Class<?> declaration) {
        return Arrays.stream(declaration.getMethods()).sorted(Comparator.comparing(Method::getName)).toList();
    }

    /** The declarations of exported functions ({@link CFunction}), each with its header and how many it holds. */
    static Stream<Arguments> functionDeclarations() {
        return Stream.of(Arguments.of(LibIbverbs.class, "infiniband/verbs.h", 30),
                Arguments.of(LibRdmaCmFunctions.class, "rdma/rdma_cma.h", 20));
    }

    /** The parameters of a C declaration, without names: {@code "struct ibv_pd *"}, {@code "int"}. */
    private static List<String> cParams(String decl) {
        String inner = decl.substring(decl.indexOf('(') + 1, decl.lastIndexOf(')')).trim();
        List<String> out = new ArrayList<>();
        if (inner.equals("void") || inner.isEmpty()) {
            return out;
        }
        for (String p : inner.split(",")) {
            out.add(p.trim().replaceAll("\\w+$", "").trim());
        }
        return out;
    }

    private static Class<?> javaTypeOf(String cType) {
        if (cType.endsWith("*") || cType.equals("size_t") || cType.equals("ssize_t") || cType.equals("uint64_t")
                || cType.equals("__be64")) {
            return long.class;
        }
        if (cType.equals("void")) {
            return void.class;
        }
        return int.class; // int, unsigned int, uint32_t, uint8_t, an enum: 32 bits or narrower
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("functionDeclarations")
    @DisplayName("each declared method is its C function: name, parameter widths, and a convention its result can carry")
    void declarationsAreTheirCFunctions(Class<?> declaration, String header, int atLeast) {
        assertTrue(methods(declaration).size() >= atLeast, "too few declared: " + methods(declaration).size());
        for (Method m : methods(declaration)) {
            CFunction c = m.getAnnotation(CFunction.class);
            assertNotNull(c, m + " has no @CFunction");
            String decl = c.value();
            String head = decl.substring(0, decl.indexOf('('));
            assertTrue(head.endsWith(" " + m.getName()) || head.endsWith("*" + m.getName()),
                    m.getName() + " is not the function of " + decl);
            String result = head.substring(0, head.length() - m.getName().length()).trim();
            List<String> params = cParams(decl);
            assertEquals(params.size(), m.getParameterCount(), decl);
            for (int i = 0; i < params.size(); i++) {
                assertEquals(javaTypeOf(params.get(i)), m.getParameterTypes()[i], decl + ", parameter " + i);
            }
            assertEquals(javaTypeOf(result), m.getReturnType(), decl + ", result");
            switch (c.errno()) {
                case RETURNED, CODE_SETS -> assertEquals(int.class, m.getReturnType(), decl);
                case NULL_SETS -> assertTrue(result.endsWith("*"), decl);
                case NONE -> { }
            }
        }
    }

    private static List<Method> ops() {
        return Arrays.stream(LibIbverbsOps.class.getMethods()).sorted(Comparator.comparing(Method::getName)).toList();
    }

    /** An op's member declaration as a function declaration of that name: {@code int (*f)(int x)} to {@code int f(int x)}. */
    private static String asFunction(String member, String field, String name) {
        String pointer = "(*" + field + ")";
        assertTrue(member.contains(pointer), member + " does not declare the pointer " + pointer);
        return member.replace(pointer, name);
    }

    @Test
    @DisplayName("each declared op is its struct member: name, the op's address first, parameter widths, a convention its result can carry")
    void opsAreTheirMembers() {
        assertTrue(ops().size() >= 12, "too few ops declared: " + ops().size());
        for (Method m : ops()) {
            COp op = m.getAnnotation(COp.class);
            assertNotNull(op, m + " has no @COp");
            assertTrue(op.struct().equals("ibv_context_ops") || op.struct().equals("verbs_context")
                    || op.struct().equals("ibv_dm"), op.struct());
            String decl = asFunction(op.value(), m.getName(), m.getName());
            String head = decl.substring(0, decl.indexOf('('));
            String result = head.substring(0, head.length() - m.getName().length()).trim();
            List<String> params = cParams(decl);
            assertEquals(params.size() + 1, m.getParameterCount(), decl);
            assertEquals(long.class, m.getParameterTypes()[0], decl + ": the op's address comes first");
            for (int i = 0; i < params.size(); i++) {
                assertEquals(javaTypeOf(params.get(i)), m.getParameterTypes()[i + 1], decl + ", parameter " + i);
            }
            assertEquals(javaTypeOf(result), m.getReturnType(), decl + ", result");
            switch (op.errno()) {
                case RETURNED -> assertEquals(int.class, m.getReturnType(), decl);
                case NULL_SETS -> assertTrue(result.endsWith("*"), decl);
                case NONE -> { }
            }
        }
    }

    @Test
    @DisplayName("gcc takes every declared op's C signature as the type of its member in verbs.h")
    void opSignaturesMatchTheInstalledHeader(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isRegularFile(Path.of("/usr/include/infiniband/verbs.h")),
                "infiniband/verbs.h is not installed (libibverbs-dev)");
        assumeTrue(gccPresent(), "gcc is not installed");
        StringBuilder c = new StringBuilder("#include <infiniband/verbs.h>\n");
        int n = 0;
        for (Method m : ops()) {
            COp op = m.getAnnotation(COp.class);
            String check = "check_op_" + n++;
            c.append(asFunction(op.value(), m.getName(), check)).append(";\n");
            c.append("__typeof__(((struct ").append(op.struct()).append(" *)0)->").append(m.getName())
                    .append(") ").append(check).append("_member = ").append(check).append(";\n");
        }
        Path src = dir.resolve("ops.c");
        Files.writeString(src, c);
        run(dir, "gcc", "-c", "-Werror=incompatible-pointer-types", "-o", dir.resolve("ops.o").toString(),
                src.toString());
    }

    /** An op whose address is not a long, which the binder must refuse. */
    interface OpWithoutAddress {
        @COp(struct = "verbs_context", value = "int (*dealloc_td)(struct ibv_td *td)", errno = ErrnoConvention.RETURNED)
        int dealloc_td(int fn, long td);
    }

    @Test
    @DisplayName("an op at address 0 answers -EOPNOTSUPP without a call; others are called at their address, in the contract")
    void opPresenceAndConventions() {
        List<String> calls = new ArrayList<>();
        LibIbverbsOps ops = DeclaredLibrary.bind(LibIbverbsOps.class, m -> {
            assertTrue(DeclaredLibrary.isOp(m), m.toString());
            return args -> {
                calls.add(m.getName() + " " + args[0]);
                return m.getReturnType() == long.class ? 0 : Errno.EBUSY; // NULL, or the errno itself
            };
        }, () -> Errno.ENOMEM);
        assertEquals(-Errno.EOPNOTSUPP, ops.dealloc_td(0, 0x10));
        assertEquals(-Errno.EOPNOTSUPP, ops.alloc_td(0, 0x10, 0x20));
        assertEquals(List.of(), calls, "no call through a NULL op");
        assertEquals(-Errno.EBUSY, ops.dealloc_td(0x1000, 0x10));
        assertEquals(-Errno.ENOMEM, ops.alloc_td(0x2000, 0x10, 0x20));
        assertEquals(List.of("dealloc_td 4096", "alloc_td 8192"), calls);
        assertThrows(IllegalArgumentException.class,
                () -> DeclaredLibrary.bind(OpWithoutAddress.class, m -> args -> 0, () -> 0));
    }

    @Test
    @DisplayName("the conventions fold each failure shape into -errno, and pass success on")
    void conventions() {
        assertEquals(-Errno.EBUSY, ErrnoConvention.RETURNED.toContract(Errno.EBUSY, 0));
        assertEquals(-Errno.ENOMEM, ErrnoConvention.RETURNED.toContract(-1, Errno.ENOMEM));
        assertEquals(-Errno.EIO, ErrnoConvention.RETURNED.toContract(-1, 0));
        assertEquals(-Errno.ENOMEM, ErrnoConvention.NULL_SETS.toContract(0, Errno.ENOMEM));
        assertTrue(ErrnoConvention.RETURNED.failed(Errno.EINVAL) && !ErrnoConvention.RETURNED.failed(0));
        assertTrue(ErrnoConvention.NULL_SETS.failed(0) && !ErrnoConvention.NULL_SETS.failed(0x1000));
        assertTrue(!ErrnoConvention.NONE.failed(-1) && ErrnoConvention.NONE.toContract(-1, 5) == -1);
        assertTrue(!ErrnoConvention.NONNEGATIVE.failed(0) && !ErrnoConvention.NONNEGATIVE.failed(7));
        assertTrue(ErrnoConvention.NONNEGATIVE.failed(-1) && ErrnoConvention.NONNEGATIVE.failed(0xffff_ffffL));
        assertEquals(-Errno.ENOENT, ErrnoConvention.NONNEGATIVE.toContract(-1, Errno.ENOENT));
        assertEquals(-Errno.EINVAL, ErrnoConvention.NONNEGATIVE.toContract(-Errno.EINVAL, 0));
        // ibv_rereg_mr's codes: -4 (IBV_REREG_MR_ERR_CMD) is not EINTR, the errno says why
        assertTrue(ErrnoConvention.CODE_SETS.failed(-4) && !ErrnoConvention.CODE_SETS.failed(0));
        assertEquals(-Errno.EOPNOTSUPP, ErrnoConvention.CODE_SETS.toContract(-4, Errno.EOPNOTSUPP));
        assertEquals(-Errno.EIO, ErrnoConvention.CODE_SETS.toContract(-1, 0));
        assertEquals(-Errno.EOPNOTSUPP, ErrnoConvention.CODE_SETS.toContract(Errno.EOPNOTSUPP, 0));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("functionDeclarations")
    @DisplayName("gcc takes every declared C signature as the type of the function its header declares")
    void signaturesMatchTheInstalledHeader(Class<?> declaration, String header, int atLeast, @TempDir Path dir)
            throws Exception {
        assumeTrue(Files.isRegularFile(Path.of("/usr/include", header)), header + " is not installed");
        assumeTrue(gccPresent(), "gcc is not installed");
        StringBuilder c = new StringBuilder("#include <" + header + ">\n");
        int n = 0;
        for (Method m : methods(declaration)) {
            String decl = m.getAnnotation(CFunction.class).value();
            String pointer = decl.replaceFirst("\\b" + m.getName() + "\\(", "(*check_" + n++ + ")(");
            c.append(pointer).append(" = ").append(m.getName()).append(";\n");
        }
        Path src = dir.resolve("signatures.c");
        Files.writeString(src, c);
        run(dir, "gcc", "-c", "-Werror=incompatible-pointer-types", "-Werror=implicit-function-declaration",
                "-o", dir.resolve("signatures.o").toString(), src.toString());
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

    private static void run(Path dir, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), String.join(" ", cmd) + " did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + " failed:\n" + out);
    }
}
