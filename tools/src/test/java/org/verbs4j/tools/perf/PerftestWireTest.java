package org.verbs4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Gid;
import org.verbs4j.Mtu;

/**
 * perftest's messages, byte for byte. The expected texts are what perftest 4.5's {@code sprintf} with
 * {@code KEY_PRINT_FMT} / {@code KEY_PRINT_FMT_GID} prints for the same values (checked once with gcc).
 */
class PerftestWireTest {
    private static final String KEYS_NO_GID = "0012:0010:abcdef:123456:deadbeef:00007f0012345678:00000000";
    private static final String KEYS_GID = "0000:0010:000011:000022:00001234:00007f0012345678:"
            + "00:00:00:00:00:00:00:00:00:00:ff:ff:c0:00:02:01:00000000:";

    @Test
    @DisplayName("keys without a GID are KEY_PRINT_FMT in 59 bytes, NUL-padded")
    void keysWithoutGid() {
        PeerInfo p = new PeerInfo(0x12, 0xabcdef, 0x123456, 0xdeadbeef, 0x7f0012345678L, Gid.ZERO);
        byte[] msg = PerftestWire.keys(new PerftestWire.Keys(p, 16, 0), false);
        assertEquals(59, msg.length);
        assertEquals(KEYS_NO_GID, new String(msg, 0, KEYS_NO_GID.length(), StandardCharsets.US_ASCII));
        assertEquals(0, msg[KEYS_NO_GID.length()]);
        assertEquals(new PerftestWire.Keys(p, 16, 0), PerftestWire.keysOf(msg, false));
    }

    @Test
    @DisplayName("-R's keys are perftest 4.5-0.17's struct pingpong_dest on x86-64, integers big-endian: 56 bytes, and parse back")
    void binaryKeys() {
        Gid gid = Gid.ofIpv4(new byte[] {(byte) 192, 0, 2, 1});
        PeerInfo p = new PeerInfo(0x12, 0xabcdef, 0x123456, 0xdeadbeef, 0x7f0012345678L, gid);
        byte[] msg = PerftestWire.binaryKeys(new PerftestWire.Keys(p, 16, 7), 1);
        byte[] expected = new byte[56];
        byte[][] fields = {
            {0, 0, 0, 0x12}, {0, 0, 0, 16}, {0, (byte) 0xab, (byte) 0xcd, (byte) 0xef}, {0, 0x12, 0x34, 0x56},
            {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef}};
        for (int i = 0; i < fields.length; i++) {
            System.arraycopy(fields[i], 0, expected, 4 * i, 4); // lid, out_reads, qpn, psn, rkey; 4 bytes of padding
        }
        System.arraycopy(new byte[] {0, 0, 0x7f, 0, 0x12, 0x34, 0x56, 0x78}, 0, expected, 24, 8); // vaddr
        System.arraycopy(gid.toBytes(), 0, expected, 32, 16);
        expected[51] = 7; // srqn
        expected[55] = 1; // gid_index
        assertArrayEquals(expected, msg);
        PerftestWire.Keys back = PerftestWire.binaryKeysOf(msg);
        assertEquals(new PerftestWire.Keys(p, 16, 7), back);
        assertThrows(IllegalArgumentException.class, () -> PerftestWire.binaryKeysOf(new byte[59]));
    }

    @Test
    @DisplayName("keys with a GID are KEY_PRINT_FMT_GID in 108 bytes, and parse back")
    void keysWithGid() {
        Gid gid = Gid.ofIpv4(new byte[] {(byte) 192, 0, 2, 1});
        PeerInfo p = new PeerInfo(0, 0x11, 0x22, 0x1234, 0x7f0012345678L, gid);
        byte[] msg = PerftestWire.keys(new PerftestWire.Keys(p, 16, 0), true);
        assertEquals(108, msg.length);
        assertEquals(KEYS_GID, PerftestWire.versionOf(msg));
        assertEquals(0, msg[107]);
        PerftestWire.Keys back = PerftestWire.keysOf(msg, true);
        assertEquals(p, back.peer());
        assertEquals(16, back.outReads());
    }

    @Test
    @DisplayName("keys in the other format are refused with a hint to give -x to both sides")
    void keysOfTheOtherFormat() {
        byte[] noGid = Arrays.copyOf(KEYS_NO_GID.getBytes(StandardCharsets.US_ASCII), 108);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PerftestWire.keysOf(noGid, true));
        assertTrue(e.getMessage().contains("-x"), e.getMessage());
        byte[] junk = Arrays.copyOf("0012:zz:abcdef:123456:deadbeef:00007f0012345678:00000000"
                .getBytes(StandardCharsets.US_ASCII), 59);
        assertThrows(IllegalArgumentException.class, () -> PerftestWire.keysOf(junk, false));
    }

    @Test
    @DisplayName("the version is '6.06' in 16 bytes; a verbs4j peer adds its settings' CRC after the NUL")
    void version() {
        byte[] v = PerftestWire.version("write_bw RC qps=1 sizes=65536x5000");
        assertEquals(16, v.length);
        assertEquals("6.06", PerftestWire.versionOf(v));
        assertEquals(6.06, PerftestWire.versionNumber(PerftestWire.versionOf(v)), 1e-9);
        assertEquals(8, PerftestWire.digestOf(v).length());
        assertNotEquals(PerftestWire.digestOf(v), PerftestWire.digestOf(PerftestWire.version("send_bw")));
        // What a C perftest sends: strncpy of "6.06" into 16 bytes, NUL-padded.
        byte[] c = Arrays.copyOf("6.06".getBytes(StandardCharsets.US_ASCII), 16);
        assertEquals("6.06", PerftestWire.versionOf(c));
        assertNull(PerftestWire.digestOf(c));
        assertEquals(5.7, PerftestWire.versionNumber("5.70"), 1e-9);
        assertEquals(0, PerftestWire.versionNumber("x"), 1e-9);
    }

    @Test
    @DisplayName("the MTU travels as the ibv_mtu value in one digit and a NUL (sprintf %d into 2 bytes)")
    void mtu() {
        assertArrayEquals(new byte[] {'3', 0}, PerftestWire.mtu(Mtu.MTU_1024));
        assertEquals(Mtu.MTU_4096, PerftestWire.mtuOf(new byte[] {'5', 0}));
        assertNull(PerftestWire.mtuOf(new byte[] {'9', 0}));
    }

    @Test
    @DisplayName("report numbers are big-endian, as hton_long and hton_double")
    void reportNumbers() {
        assertArrayEquals(new byte[] {0x40, (byte) 0x93, 0x4a, 0, 0, 0, 0, 0}, PerftestWire.float64(1234.5));
        assertEquals(1234.5, PerftestWire.float64(PerftestWire.float64(1234.5)));
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0x13, (byte) 0x88}, PerftestWire.int64(5000));
        assertArrayEquals(new byte[] {0, 0, 0x10, 0}, PerftestWire.int32(PerftestWire.PAGE_SIZE));
        assertArrayEquals(new byte[] {'d', 'o', 'n', 'e', 0}, PerftestWire.DONE);
    }
}
