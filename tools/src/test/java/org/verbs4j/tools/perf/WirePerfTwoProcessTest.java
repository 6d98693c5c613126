package org.verbs4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.tools.Main;

/**
 * {@code verbs4j perf TEST --server} and {@code verbs4j perf TEST 127.0.80.1} in two JVMs of their own, on the
 * emulated provider's wire devices ({@code roce0} of each, RoCE v2 over UDP on 127.0.80.1 and 127.0.80.2): every
 * test perf has, and UC and UD where perftest runs them, with tiny iteration counts. Each JVM runs the whole list
 * in order ({@link Peer}); this class checks the rows each side printed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WirePerfTwoProcessTest {
    private static final Pattern BW_ROW =
            Pattern.compile("(?m)^ (\\d+)\\s+(\\d+)\\s+([\\d.]+)\\s+([\\d.]+)\\s+([\\d.]+)\\s*$");
    private static final Pattern LAT_ROW = Pattern.compile("(?m)^ (\\d+)\\s+(\\d+)(\\s+[\\d.]+){7}\\s*$");
    private static final int ITERS = 20;

    /**
     * The runs, each the same flags on both sides; sizes above the 4096-byte MTU cut messages into packets. RC runs
     * retransmit after about a second ({@code -u 18}) rather than perftest's 67 ms: on a loaded machine a JVM that
     * starts up may leave its receive thread without a CPU for longer than 8 tries of 67 ms.
     */
    static List<String> runs() {
        return Stream.of(
                "write_bw -s 5000 -n 20 --perform_warm_up=false",
                "read_bw -s 5000 -n 20 --perform_warm_up=false",
                "send_bw -s 5000 -n 20",
                "atomic_bw -n 20 --perform_warm_up=false",
                "write_lat -s 64 -n 20",
                "read_lat -s 5000 -n 20",
                "send_lat -s 64 -n 20",
                "atomic_lat -n 20",
                "write_bw -c UC -s 5000 -n 20 --perform_warm_up=false",
                "send_bw -c UD -s 1024 -n 20",
                "send_lat -c UD -s 64 -n 20",
                "write_bw -b -s 64 -n 20 --perform_warm_up=false",
                "write_bw -a -n 3 --perform_warm_up=false").map(r -> r + " -u 18").toList();
    }

    private final Map<String, Result> server = new HashMap<>();
    private final Map<String, Result> client = new HashMap<>();

    record Result(int exit, String out, String err) {}

    @BeforeAll
    void runBothJvms() throws Exception {
        int udp = freeUdpPort();
        int tcp = freeTcpPort();
        List<String> runs = runs();
        CompletableFuture<String> srv = CompletableFuture.supplyAsync(() -> peer("127.0.80.1:" + udp, tcp, "--server"));
        String cli = peer("127.0.80.2:" + udp, tcp, "127.0.80.1");
        parse(srv.get(5, TimeUnit.MINUTES), runs, server);
        parse(cli, runs, client);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("runs")
    @DisplayName("two JVMs on wire devices: both sides finish the test and print perftest's rows")
    void bothSidesPrintTheirRows(String run) {
        Result s = server.get(run);
        Result c = client.get(run);
        assertEquals(Main.EXIT_OK, c.exit(), () -> "client: " + c.err() + c.out() + "\nserver: " + s.err() + s.out());
        assertEquals(Main.EXIT_OK, s.exit(), () -> "server: " + s.err() + s.out() + "\nclient: " + c.err() + c.out());
        assertTrue(c.out().contains("Device         : roce0") && c.out().contains("Mode            : client"), c.out());
        assertTrue(s.out().contains("Device         : roce0") && s.out().contains("Mode            : server"), s.out());
        assertTrue(s.out().contains("* Waiting for client to connect... *"), "the server says when it listens: " + s.out());
        assertFalse(c.out().contains("Waiting for client"), c.out());
        String test = run.split(" ")[0];
        boolean sweep = run.contains(" -a ");
        boolean bidir = run.contains(" -b ");
        if (test.endsWith("_bw")) {
            List<Matcher> cRows = rows(BW_ROW, c.out());
            List<Matcher> sRows = rows(BW_ROW, s.out());
            assertEquals(sweep ? 23 : 1, cRows.size(), c.out());
            Matcher first = cRows.getFirst();
            int size = sweep ? 2 : test.equals("atomic_bw") ? 8 : sizeOf(run);
            assertEquals(size, Integer.parseInt(first.group(1)), c.out());
            assertEquals(bidir ? 2L * ITERS : sweep ? 3 : ITERS, Long.parseLong(first.group(2)), c.out());
            assertTrue(Double.parseDouble(first.group(5)) > 0, "a message rate: " + c.out());
            assertEquals(1, sRows.size(), s.out());
            if (test.equals("send_bw")) {
                // Each side its own end: the server counted every message it received.
                assertEquals(ITERS, Long.parseLong(sRows.getFirst().group(2)), s.out());
            } else if (!bidir) {
                // The server prints the client's (last) report.
                assertEquals(cRows.getLast().group(), sRows.getFirst().group(), s.out());
            }
        } else {
            List<Matcher> cRows = rows(LAT_ROW, c.out());
            List<Matcher> sRows = rows(LAT_ROW, s.out());
            assertEquals(1, cRows.size(), c.out());
            assertTrue(Long.parseLong(cRows.getFirst().group(2)) >= ITERS - 1, c.out());
            if (test.equals("read_lat") || test.equals("atomic_lat")) {
                assertTrue(sRows.isEmpty(), "only the client posts and prints: " + s.out());
            } else {
                assertEquals(1, sRows.size(), s.out());
                assertTrue(Long.parseLong(sRows.getFirst().group(2)) >= ITERS - 1, s.out());
            }
        }
        assertFalse(c.err().contains("Exception") || s.err().contains("Exception"), c.err() + s.err());
    }

    @org.junit.jupiter.api.Test
    @DisplayName("two-process mode on an in-JVM emulated device is refused with what to do instead")
    void inJvmDeviceIsRefused() {
        // This JVM has no wire device: its emulated provider lists emu0 only.
        org.verbs4j.tools.Run r = org.verbs4j.tools.Run.of("perf", "write_bw", "--provider", "emulated", "--server",
                "-p", "1");
        assertEquals(Main.EXIT_USAGE, r.exitCode(), r::out);
        assertTrue(r.err().contains("'emu0' lives inside this JVM") && r.err().contains("verbs4j.emulated.roce"),
                r::err);
    }

    private static int sizeOf(String run) {
        String[] a = run.split(" ");
        for (int i = 0; i < a.length - 1; i++) {
            if (a[i].equals("-s")) {
                return Integer.parseInt(a[i + 1]);
            }
        }
        throw new AssertionError(run);
    }

    private static List<Matcher> rows(Pattern p, String out) {
        List<Matcher> rows = new ArrayList<>();
        Matcher m = p.matcher(out);
        while (m.find()) {
            rows.add(p.matcher(m.group()));
            rows.getLast().find();
        }
        return rows;
    }

    /** Runs {@link Peer} in a JVM of its own with one wire device bound to {@code roce}; returns its stdout. */
    private static String peer(String roce, int tcp, String role) {
        try {
            ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Dverbs4j.provider=emulated", "-Dverbs4j.emulated.roce=" + roce, "-cp",
                    System.getProperty("java.class.path"), Peer.class.getName(), role, Integer.toString(tcp))
                    .redirectErrorStream(true);
            Process p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void parse(String all, List<String> runs, Map<String, Result> into) {
        for (int i = 0; i < runs.size(); i++) {
            int b = all.indexOf(Peer.BEGIN + i + "\n");
            int x = all.indexOf(Peer.EXIT + i + " ");
            if (b < 0 || x < 0) {
                into.put(runs.get(i), new Result(-1, all, "run " + i + " did not finish"));
                continue;
            }
            String body = all.substring(b + (Peer.BEGIN + i + "\n").length(), x);
            int e = body.indexOf(Peer.ERR);
            int code = Integer.parseInt(all.substring(x + (Peer.EXIT + i + " ").length(), all.indexOf('\n', x)).trim());
            into.put(runs.get(i), new Result(code, body.substring(0, e), body.substring(e + Peer.ERR.length())));
        }
    }

    private static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.80.1"), 0))) {
            return s.getLocalPort();
        }
    }

    private static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * One side: runs {@code verbs4j perf RUN ROLE -p PORT+i} for each run of {@link #runs()}, in this JVM, with
     * the run's output between markers.
     */
    public static final class Peer {
        static final String BEGIN = "=== begin ";
        static final String ERR = "=== stderr\n";
        static final String EXIT = "=== exit ";

        private Peer() {}

        public static void main(String[] args) {
            String role = args[0];
            int tcp = Integer.parseInt(args[1]);
            List<String> runs = runs();
            for (int i = 0; i < runs.size(); i++) {
                List<String> argv = new ArrayList<>(List.of("perf"));
                argv.addAll(List.of(runs.get(i).split(" ")));
                argv.addAll(List.of(role, "-p", Integer.toString(tcp + i)));
                StringWriter out = new StringWriter();
                StringWriter err = new StringWriter();
                int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), argv.toArray(String[]::new));
                System.out.print(BEGIN + i + "\n" + out + ERR + err + EXIT + i + " " + code + "\n");
                System.out.flush();
            }
        }
    }
}
