package org.verbs4j.tools.perf;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.zip.CRC32;
import org.verbs4j.Gid;
import org.verbs4j.Mtu;

/**
 * The bytes of perftest's out-of-band TCP exchange, as the perftest 4.5 release that Debian 12 ships
 * ({@code perftest 4.5+0.17}, which calls itself version 6.06) writes and reads them in
 * {@code perftest_communication.c}. Every message has a fixed length; both sides write the same kind of message
 * at the same step, the client first.
 *
 * <ul>
 *   <li>version: 16 bytes, a NUL-terminated version string ({@code exchange_versions});</li>
 *   <li>system data: the page size, then the cache line size, each a 4-byte big-endian int
 *       ({@code check_sys_data}); perftest's sender walks the remote address over the larger page size ("cycle
 *       buffer") in steps of the message size, so the receiving buffer must span it;</li>
 *   <li>MTU: 2 bytes, the {@code enum ibv_mtu} value as one decimal digit and a NUL ({@code check_mtu});</li>
 *   <li>keys: {@code KEY_PRINT_FMT} (59 bytes with the NUL) or, when a GID is in use,
 *       {@code KEY_PRINT_FMT_GID} (108 bytes): LID, outstanding reads, QPN, PSN, rkey, buffer address, the 16 GID
 *       bytes and the SRQ number, in hex ({@code ctx_hand_shake}); the same message is the "sync" between steps;</li>
 *   <li>bandwidth report: size and iterations as 8-byte big-endian integers, then peak, average and message rate
 *       as big-endian doubles, each its own exchange ({@code xchg_bw_reports});</li>
 *   <li>{@code "done"} with its NUL, written and not read, before closing ({@code ctx_close_connection}).</li>
 * </ul>
 *
 * <p>verbs4j puts a CRC of its own settings after the NUL of its version string, where perftest has zeros
 * and reads nothing, so two verbs4j peers can check they run the same test while a C peer sees "6.06".
 */
final class PerftestWire {
    /** The perftest version verbs4j speaks. */
    static final String VERSION = "6.06";
    /** perftest refuses peers older than this ({@code check_version_compatibility}). */
    static final double MIN_PEER_VERSION = 5.70;
    static final int VERSION_BYTES = 16;
    static final int KEY_BYTES = 59;
    static final int KEY_BYTES_GID = 108;
    static final int MTU_BYTES = 2;
    /** perftest's default cycle buffer (the page size) and cache line size, exchanged as system data. */
    static final int PAGE_SIZE = 4096;
    static final int CACHE_LINE = 64;
    /** The largest cycle buffer a peer may ask this side to span, bytes (perftest's is a page). */
    static final int MAX_CYCLE_BUFFER = 64 << 20;
    /** {@code write(fd, "done", sizeof "done")}. */
    static final byte[] DONE = {'d', 'o', 'n', 'e', 0};
    private static final byte DIGEST_MARK = 'J';

    private PerftestWire() {}

    /**
     * One side's connection data, perftest's {@code struct pingpong_dest} as it travels.
     *
     * @param peer LID, QPN, PSN, rkey, buffer address and GID
     * @param outReads the RDMA READs and atomics this side accepts at once (the peer's initiator depth)
     * @param srqn the SRQ number (0: none)
     */
    record Keys(PeerInfo peer, int outReads, int srqn) {}

    /** The version message: {@link #VERSION}, its NUL, and verbs4j's mark with the CRC of {@code digest}. */
    static byte[] version(String digest) {
        byte[] b = new byte[VERSION_BYTES];
        byte[] v = VERSION.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(v, 0, b, 0, v.length);
        CRC32 crc = new CRC32();
        crc.update(digest.getBytes(StandardCharsets.UTF_8));
        byte[] tag = String.format("%08x", crc.getValue()).getBytes(StandardCharsets.US_ASCII);
        b[v.length + 1] = DIGEST_MARK;
        System.arraycopy(tag, 0, b, v.length + 2, tag.length);
        return b;
    }

    /** The version string of a version message: the bytes before the first NUL. */
    static String versionOf(byte[] msg) {
        int end = 0;
        while (end < msg.length && msg[end] != 0) {
            end++;
        }
        return new String(msg, 0, end, StandardCharsets.US_ASCII);
    }

    /** The version as perftest compares it ({@code atof}): the leading number, or 0. */
    static double versionNumber(String version) {
        var m = java.util.regex.Pattern.compile("^\\s*(\\d+(\\.\\d*)?)").matcher(version);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /** The settings CRC a verbs4j peer put after its version string, or null for a perftest peer. */
    static String digestOf(byte[] msg) {
        int nul = versionOf(msg).length();
        if (nul + 10 > msg.length || msg[nul + 1] != DIGEST_MARK) {
            return null;
        }
        return new String(msg, nul + 2, 8, StandardCharsets.US_ASCII);
    }

    /** A 4-byte big-endian int, as {@code hton_int}. */
    static byte[] int32(int v) {
        return ByteBuffer.allocate(4).putInt(v).array();
    }

    static int int32(byte[] b) {
        return ByteBuffer.wrap(b).getInt();
    }

    /** The MTU message: the enum value ({@code IBV_MTU_256} is 1) as a digit, then a NUL. */
    static byte[] mtu(Mtu mtu) {
        return new byte[] {(byte) ('0' + mtu.value()), 0};
    }

    /**
     * The MTU a peer sent, or null when it is not a valid one (perftest then keeps its own).
     */
    static Mtu mtuOf(byte[] msg) {
        int v = msg[0] - '0';
        return v >= 1 && v <= 5 && (msg.length < 2 || msg[1] == 0) ? Mtu.of(v) : null;
    }

    /** The keys message; with a GID in {@code KEY_PRINT_FMT_GID}, else in {@code KEY_PRINT_FMT}. */
    static byte[] keys(Keys k, boolean withGid) {
        PeerInfo p = k.peer();
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%04x:%04x:%06x:%06x:%08x:%016x:",
                p.lid(), k.outReads(), p.qpn(), p.psn(), p.rkey(), p.address()));
        if (withGid) {
            for (byte g : p.gid().toBytes()) {
                s.append(String.format("%02x:", g & 0xff));
            }
            s.append(String.format("%08x:", k.srqn()));
        } else {
            s.append(String.format("%08x", k.srqn()));
        }
        byte[] text = s.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] msg = new byte[withGid ? KEY_BYTES_GID : KEY_BYTES];
        if (text.length >= msg.length) {
            throw new IllegalArgumentException("a field is wider than perftest's key format: " + s);
        }
        System.arraycopy(text, 0, msg, 0, text.length);
        return msg;
    }

    /**
     * Parses a keys message; without a GID the peer's GID is {@link Gid#ZERO}.
     *
     * @throws IllegalArgumentException if it is not in perftest's format
     */
    static Keys keysOf(byte[] msg, boolean withGid) {
        String text = versionOf(msg);
        String[] f = text.split(":", -1);
        int fields = withGid ? 6 + 16 + 1 : 7;
        if (f.length < fields) {
            throw new IllegalArgumentException("the peer sent '" + text + "', not perftest's "
                    + (withGid ? "lid:out_reads:qpn:psn:rkey:vaddr:gid[16]:srqn:" : "lid:out_reads:qpn:psn:rkey:vaddr:srqn")
                    + " (do both sides use a GID? give -x to both)");
        }
        try {
            Gid gid = Gid.ZERO;
            if (withGid) {
                byte[] raw = new byte[16];
                for (int i = 0; i < 16; i++) {
                    raw[i] = (byte) Integer.parseInt(f[6 + i], 16);
                }
                gid = Gid.of(raw);
            }
            PeerInfo p = new PeerInfo(Integer.parseInt(f[0], 16), Integer.parseInt(f[2], 16),
                    Integer.parseInt(f[3], 16), Integer.parseUnsignedInt(f[4], 16), Long.parseUnsignedLong(f[5], 16),
                    gid);
            return new Keys(p, Integer.parseInt(f[1], 16), Integer.parseUnsignedInt(f[withGid ? 22 : 6], 16));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the peer sent '" + text + "', which is not perftest's key format", e);
        }
    }

    /**
     * {@code sizeof(struct pingpong_dest)} of perftest 4.5-0.17 on x86-64: what its {@code -R} mode sends as the
     * keys message, in place of the text line ({@code rdma_write_keys}).
     */
    static final int KEY_BYTES_BINARY = 56;

    /**
     * The keys as perftest's {@code -R} sends them: {@code struct pingpong_dest} with its integers big-endian
     * (lid, out_reads, qpn, psn, rkey at 0 to 16; vaddr at 24; the 16 GID bytes at 32; srqn at 48; gid_index at 52).
     */
    static byte[] binaryKeys(Keys k, int gidIndex) {
        PeerInfo p = k.peer();
        ByteBuffer b = ByteBuffer.allocate(KEY_BYTES_BINARY);
        b.putInt(0, p.lid()).putInt(4, k.outReads()).putInt(8, p.qpn()).putInt(12, p.psn()).putInt(16, p.rkey());
        b.putLong(24, p.address()).put(32, p.gid().toBytes()).putInt(48, k.srqn()).putInt(52, gidIndex);
        return b.array();
    }

    /**
     * Parses a binary keys message.
     *
     * @throws IllegalArgumentException if it is not {@link #KEY_BYTES_BINARY} long
     */
    static Keys binaryKeysOf(byte[] msg) {
        if (msg.length != KEY_BYTES_BINARY) {
            throw new IllegalArgumentException("the peer sent " + msg.length + " bytes of keys, not perftest's "
                    + KEY_BYTES_BINARY + "-byte struct pingpong_dest");
        }
        ByteBuffer b = ByteBuffer.wrap(msg);
        byte[] gid = new byte[16];
        b.get(32, gid);
        PeerInfo p = new PeerInfo(b.getInt(0), b.getInt(8), b.getInt(12), b.getInt(16), b.getLong(24), Gid.of(gid));
        return new Keys(p, b.getInt(4), b.getInt(48));
    }

    /** An 8-byte big-endian integer ({@code hton_long}). */
    static byte[] int64(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    static long int64(byte[] b) {
        return ByteBuffer.wrap(b).getLong();
    }

    /** A big-endian double ({@code hton_double}). */
    static byte[] float64(double v) {
        return ByteBuffer.allocate(8).putDouble(v).array();
    }

    static double float64(byte[] b) {
        return ByteBuffer.wrap(b).getDouble();
    }
}
