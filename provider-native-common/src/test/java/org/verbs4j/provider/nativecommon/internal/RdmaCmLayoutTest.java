package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
import org.verbs4j.ConnectionParameters;

/**
 * Checks {@link RdmaCmLayout} against the installed {@code rdma/rdma_cma.h}: a C program compiled with gcc
 * prints {@code sizeof} of each struct and {@code offsetof} of each member path, and each must equal the Java
 * description's. Then the encodings {@link LibRdmaCm} builds on it.
 */
class RdmaCmLayoutTest {
    private static final Path HEADER = Path.of("/usr/include/rdma/rdma_cma.h");

    private static Map<String, Long> javaValues() {
        Map<String, Long> values = new LinkedHashMap<>();
        for (RdmaCmLayout.Struct s : RdmaCmLayout.all()) {
            values.put(s.name(), s.size());
            new java.util.TreeMap<>(s.offsets()).forEach((path, off) -> values.put(s.name() + "." + path, off));
        }
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
    @DisplayName("every size and offset of RdmaCmLayout is what gcc says of the installed rdma_cma.h")
    void layoutsMatchTheInstalledHeader(@TempDir Path dir) throws Exception {
        assumeTrue(Files.exists(HEADER), "rdma/rdma_cma.h is not installed (apt-get install librdmacm-dev)");
        assumeTrue(gccPresent(), "gcc is not installed");
        Map<String, Long> expected = javaValues();
        StringBuilder c = new StringBuilder("#include <stddef.h>\n#include <stdio.h>\n#include <netinet/in.h>\n"
                + "#include <rdma/rdma_cma.h>\nint main(void) {\n");
        for (String key : expected.keySet()) {
            int dot = key.indexOf('.');
            String expr = dot < 0 ? "sizeof(struct " + key + ")"
                    : "offsetof(struct " + key.substring(0, dot) + ", " + key.substring(dot + 1) + ")";
            c.append("    printf(\"%s %zu\\n\", \"").append(key).append("\", ").append(expr).append(");\n");
        }
        c.append("    return 0;\n}\n");
        Path src = dir.resolve("rdma_cma_layouts.c");
        Path exe = dir.resolve("rdma_cma_layouts");
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
        assertTrue(mismatches.isEmpty(), "layouts differ from rdma_cma.h:\n" + String.join("\n", mismatches));
        assertTrue(expected.size() > 60, "too few members checked: " + expected.size());
    }

    @Test
    @DisplayName("an unknown member path is refused, naming the members there are")
    void unknownMember() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RdmaCmLayout.RDMA_CM_ID.offset("nope"));
        assertTrue(e.getMessage().contains("port_num"), e.getMessage());
    }

    @Test
    @DisplayName("IPv4 and IPv6 addresses round-trip through sockaddr_in and sockaddr_in6, port in network order")
    void sockaddrRoundTrip() throws Exception {
        InetSocketAddress v4 = new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 7471);
        byte[] b = LibRdmaCm.sockaddr(v4);
        assertEquals(128, b.length);
        assertEquals(2, b[0], "AF_INET, little-endian sa_family_t");
        assertEquals(0x1d, b[2] & 0xff, "7471 = 0x1d2f, high byte first");
        assertEquals(0x2f, b[3] & 0xff);
        assertArrayEquals(new byte[] {(byte) 192, 0, 2, 1}, java.util.Arrays.copyOfRange(b, 4, 8));
        assertEquals(v4, LibRdmaCm.address(b, 0));
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("fe80::1"), 65535);
        byte[] b6 = LibRdmaCm.sockaddr(v6);
        assertEquals(10, b6[0], "AF_INET6");
        assertEquals(v6.getPort(), LibRdmaCm.address(b6, 0).getPort());
        assertEquals(v6.getAddress().getHostAddress().replace("%0", ""),
                LibRdmaCm.address(b6, 0).getAddress().getHostAddress());
        assertNull(LibRdmaCm.address(new byte[128], 0), "AF_UNSPEC: no address");
    }

    @Test
    @DisplayName("rdma_conn_param carries the private data after itself, its length, the depths, retries and QPN")
    void connParam() {
        byte[] data = {1, 2, 3};
        ConnectionParameters p = new ConnectionParameters(data, 4, 5, 6, 7);
        long at = 0x1000;
        byte[] b = LibRdmaCm.connParam(p, 0xabcdef, true, at);
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int size = (int) RdmaCmLayout.RDMA_CONN_PARAM.size();
        assertEquals(size + 3, b.length);
        assertEquals(at + size, bb.getLong(0), "private_data points just after the struct");
        assertEquals(3, b[(int) RdmaCmLayout.RDMA_CONN_PARAM.offset("private_data_len")]);
        assertEquals(4, b[(int) RdmaCmLayout.RDMA_CONN_PARAM.offset("responder_resources")]);
        assertEquals(5, b[(int) RdmaCmLayout.RDMA_CONN_PARAM.offset("initiator_depth")]);
        assertEquals(6, b[(int) RdmaCmLayout.RDMA_CONN_PARAM.offset("retry_count")]);
        assertEquals(7, b[(int) RdmaCmLayout.RDMA_CONN_PARAM.offset("rnr_retry_count")]);
        assertEquals(1, b[(int) RdmaCmLayout.RDMA_CONN_PARAM.offset("srq")]);
        assertEquals(0xabcdef, bb.getInt((int) RdmaCmLayout.RDMA_CONN_PARAM.offset("qp_num")));
        assertArrayEquals(data, java.util.Arrays.copyOfRange(b, size, size + 3));
        byte[] none = LibRdmaCm.connParam(ConnectionParameters.defaults(), 1, false, at);
        assertEquals(0, ByteBuffer.wrap(none).order(ByteOrder.LITTLE_ENDIAN).getLong(0), "no data: a NULL pointer");
    }
}
