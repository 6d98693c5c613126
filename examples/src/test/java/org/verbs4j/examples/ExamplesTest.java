package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Context;
import org.verbs4j.RcListener;
import org.verbs4j.Verbs;
import org.verbs4j.spi.VerbsProvider;

/**
 * Runs every example's {@code main} on the emulated provider (the build sets {@code verbs4j.provider=emulated})
 * and checks what it printed, which each example reads back from the buffers and completions; then runs its
 * {@code run} method and checks the effect itself: the bytes that arrived, the counter's value.
 */
@DisplayName("Every example runs and does what it says")
class ExamplesTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private PrintStream saved;
    private Context ctx;

    @BeforeEach
    void open() {
        saved = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        ctx = Verbs.provider("emulated").devices().get(0).open();
    }

    @AfterEach
    void close() {
        System.setOut(saved);
        ctx.close();
    }

    private List<String> printed() {
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    @DisplayName("the build runs the examples on the emulated provider")
    void providerIsEmulated() {
        assertEquals("emulated", Verbs.requestedName());
        assertEquals("emulated", Verbs.provider().name());
    }

    @Test
    @DisplayName("RcPingPong: each side receives the other's messages, in order")
    void pingPong() {
        RcPingPong.main(new String[] {"3"});
        assertEquals(List.of("server got ping 0", "client got pong 0", "server got ping 1", "client got pong 1",
                "server got ping 2", "client got pong 2"), printed());
        List<String> log = RcPingPong.run(ctx, 10);
        assertEquals(20, log.size());
        assertEquals("server got ping 9", log.get(18));
        assertEquals("client got pong 9", log.get(19));
    }

    @Test
    @DisplayName("RdmaWriteRead: the WRITE puts the message in the server's buffer and the READ brings it back")
    void writeRead() {
        RdmaWriteRead.main(new String[] {"written by main"});
        assertEquals(List.of("server buffer after RDMA WRITE: written by main",
                "client buffer after RDMA READ:  written by main"), printed());
        String message = "x".repeat(2000);
        assertEquals(new RdmaWriteRead.Outcome(message, message), RdmaWriteRead.run(ctx, message));
    }

    @Test
    @DisplayName("UdSend: the payload follows a 40-byte GRH slot, byte_len counts it, src_qp names the sender")
    void udSend() {
        UdSend.main(new String[] {"dgram"});
        assertTrue(printed().getFirst().startsWith("received \"dgram\": byte_len 45 (40-byte GRH + 5), GRH flag true"),
                printed().toString());
        UdSend.Outcome o = UdSend.run(ctx, "sixteen bytes!!!");
        assertEquals("sixteen bytes!!!", o.payload());
        assertEquals(UdSend.GRH_BYTES + 16, o.byteLen());
        assertTrue(o.grh(), "wc_flags has GRH");
        assertEquals(o.senderQpn(), o.srcQp());
    }

    @Test
    @DisplayName("Atomics: fetch_add returns each value before the add; cmp_swp takes a free lock and misses a taken one")
    void atomics() {
        Atomics.main(new String[] {"3"});
        assertEquals(List.of("fetch_add returned [0, 1, 2], counter is now 3", "cmp_swp(0 -> 42) returned 0: taken",
                "cmp_swp(0 -> 43) returned 42: missed; lock word is 42"), printed());
        Atomics.Outcome o = Atomics.run(ctx, 7);
        assertArrayEquals(new long[] {0, 1, 2, 3, 4, 5, 6}, o.fetched());
        assertEquals(7, o.counter());
        assertEquals(0, o.lockReturned());
        assertEquals(42, o.retryReturned());
        assertEquals(42, o.lockWord());
    }

    @Test
    @DisplayName("WriteBatch: a WR session where the device has one, postSend otherwise; every slot arrives")
    void writeBatch() {
        WriteBatch.main(new String[] {"4"});
        WriteBatch.main(new String[] {"4", "--post-send"});
        assertEquals(List.of("posted 4 RDMA WRITEs through WR session, polled 1 completion(s)",
                "first byte of each remote slot: 1 2 3 4",
                "posted 4 RDMA WRITEs through postSend, polled 1 completion(s)",
                "first byte of each remote slot: 1 2 3 4"), printed());
        byte[] expected = new byte[32];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = (byte) (i + 1);
        }
        for (boolean forcePostSend : new boolean[] {false, true}) {
            WriteBatch.Outcome o = WriteBatch.run(ctx, 32, forcePostSend);
            assertEquals(forcePostSend ? "postSend" : "WR session", o.api());
            assertArrayEquals(expected, o.slots());
            assertEquals(1, o.completions(), "only the last WR is signaled");
        }
    }

    @Test
    @DisplayName("ChooseProvider: lists every provider with its cause, names the choice, refuses an unknown name")
    void chooseProvider() {
        ChooseProvider.main(new String[0]);
        List<String> lines = printed();
        assertEquals("verbs4j.provider / VERBS4J_PROVIDER: emulated", lines.getFirst());
        for (String name : List.of("emulated", "ffm", "jnr")) {
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("  " + name + " ")), name + " is not listed: " + lines);
        }
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("  emulated  priority 100  available")), lines.toString());
        assertTrue(lines.contains("device emu0, GUID " + String.format("%016x", ctx.device().guid())), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("chosen: emulated (")), lines.toString());
        assertTrue(lines.getLast().startsWith("Verbs.provider(\"no-such-provider\"): ")
                && lines.getLast().contains("no-such-provider"), lines.getLast());
    }

    @Test
    @DisplayName("CmPingPong: the connection manager connects client and server, greets both ways, pongs each ping")
    void cmPingPong() throws Exception {
        VerbsProvider provider = Verbs.provider();
        try (Arena arena = Arena.ofShared(); RcListener listener = CmPingPong.listen(provider, 0)) {
            InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    listener.address().getPort());
            CompletableFuture<List<String>> client =
                    CompletableFuture.supplyAsync(() -> CmPingPong.play(provider, server, arena, 3));
            assertEquals("ping-pong client", CmPingPong.serve(listener, arena, 3));
            assertEquals(List.of("ping-pong server", "pong 0", "pong 1", "pong 2"), client.get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    @DisplayName("Cmatose: ucmatose's exchange, server SENDs first, client answers, both disconnect")
    void cmatose() throws Exception {
        VerbsProvider provider = Verbs.provider();
        try (Arena arena = Arena.ofShared();
             RcListener listener = RcListener.listen(provider, new InetSocketAddress(0), Cmatose.options(10))) {
            InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    listener.address().getPort());
            CompletableFuture<String> client =
                    CompletableFuture.supplyAsync(() -> Cmatose.play(provider, server, arena, 10, 100));
            assertEquals("10 messages of 100 bytes sent and 10 received; disconnected",
                    Cmatose.serve(listener, arena, 10, 100));
            assertEquals("10 messages of 100 bytes received and 10 sent; disconnected",
                    client.get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    @DisplayName("Rping: rping's exchange, the server RDMA READs each ping and RDMA WRITEs it back, the client checks it")
    void rping() throws Exception {
        VerbsProvider provider = Verbs.provider();
        try (Arena arena = Arena.ofShared();
             RcListener listener = RcListener.listen(provider, new InetSocketAddress(0), Rping.options())) {
            InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    listener.address().getPort());
            CompletableFuture<String> client =
                    CompletableFuture.supplyAsync(() -> Rping.play(provider, server, arena, 5, 64));
            assertEquals("5 pings served; the client disconnected", Rping.serve(listener, arena));
            assertEquals("5 pings of 64 bytes checked; disconnected", client.get(30, TimeUnit.SECONDS));
        }
    }
}
