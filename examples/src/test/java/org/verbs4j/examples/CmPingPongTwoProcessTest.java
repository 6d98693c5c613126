package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link CmPingPong} as two processes on the emulated provider, as examples/README.md runs it: each JVM has one wire
 * device ({@code -Dverbs4j.emulated.roce}) on a loopback address, at a UDP port free in this run, and the two meet
 * through the IB CM on the devices' QP1s.
 */
class CmPingPongTwoProcessTest {
    private static final String SERVER_IP = "127.0.117.3";
    private static final String CLIENT_IP = "127.0.117.4";

    private static Process start(String device, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Dverbs4j.provider=emulated",
                "-Dverbs4j.emulated.roce=" + device, "-cp", System.getProperty("java.class.path"),
                CmPingPong.class.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    @Test
    @DisplayName("CmPingPong's server and client in two JVMs connect over their wire devices and pong each ping")
    void twoProcesses() throws Exception {
        int port;
        try (DatagramChannel probe = DatagramChannel.open()) {
            probe.bind(new InetSocketAddress(InetAddress.getByName(SERVER_IP), 0));
            port = ((InetSocketAddress) probe.getLocalAddress()).getPort();
        }
        Process server = start(SERVER_IP + ":" + port, "server", "7471", "3");
        Process client = null;
        try (BufferedReader s = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8))) {
            String first = s.readLine();
            // The wildcard address as a user types it, not InetSocketAddress's "0.0.0.0/0.0.0.0:7471" (issue 31).
            assertEquals("listening on 0.0.0.0:7471", first, "the server's first line");
            client = start(CLIENT_IP + ":" + port, "client", SERVER_IP, "7471", "3");
            List<String> clientLines = new ArrayList<>();
            try (BufferedReader c = new BufferedReader(new InputStreamReader(client.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String l = c.readLine(); l != null; l = c.readLine()) {
                    clientLines.add(l);
                }
            }
            assertTrue(client.waitFor(60, TimeUnit.SECONDS));
            assertEquals(List.of("ping-pong server", "pong 0", "pong 1", "pong 2"), clientLines);
            assertEquals(0, client.exitValue());
            assertEquals("client: ping-pong client", s.readLine());
            assertTrue(server.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, server.exitValue());
        } finally {
            server.destroyForcibly();
            if (client != null) {
                client.destroyForcibly();
            }
        }
    }
}
