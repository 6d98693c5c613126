package org.verbs4j.provider.emulated.wire.codec;

/**
 * The BTH opcodes a RoCE v2 endpoint speaks (IBA vol. 1, 9.2, table 35; the same table as Linux rxe's
 * {@code rxe_opcode.c}): for each opcode, the extended headers it carries in wire order, whether it carries
 * a payload, where it stands in a message (FIRST, MIDDLE, LAST, ONLY) and whether it is a request or a
 * response. An opcode missing from the table is invalid and a packet that carries it is rejected.
 *
 * <p>An opcode is a transport prefix (top three bits: {@link #RC}, {@link #UC}, {@link #UD}, {@link #XRC}) plus
 * an operation (low five bits). XRC has RC's operations; its requests carry an XRCETH, the number of the SRQ the
 * message is for, right after the BTH (IBA 9.2, 9.3.7), and its responses are RC's headers under the XRC prefix.
 */
public final class Opcode {
    // Transport prefixes.
    public static final int RC = 0x00;
    public static final int UC = 0x20;
    public static final int UD = 0x60;
    public static final int XRC = 0xa0;
    /** The transport prefix's mask. */
    public static final int TRANSPORT_MASK = 0xe0;

    // Operations (the low five bits).
    public static final int SEND_FIRST = 0x00;
    public static final int SEND_MIDDLE = 0x01;
    public static final int SEND_LAST = 0x02;
    public static final int SEND_LAST_WITH_IMMEDIATE = 0x03;
    public static final int SEND_ONLY = 0x04;
    public static final int SEND_ONLY_WITH_IMMEDIATE = 0x05;
    public static final int RDMA_WRITE_FIRST = 0x06;
    public static final int RDMA_WRITE_MIDDLE = 0x07;
    public static final int RDMA_WRITE_LAST = 0x08;
    public static final int RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x09;
    public static final int RDMA_WRITE_ONLY = 0x0a;
    public static final int RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x0b;
    public static final int RDMA_READ_REQUEST = 0x0c;
    public static final int RDMA_READ_RESPONSE_FIRST = 0x0d;
    public static final int RDMA_READ_RESPONSE_MIDDLE = 0x0e;
    public static final int RDMA_READ_RESPONSE_LAST = 0x0f;
    public static final int RDMA_READ_RESPONSE_ONLY = 0x10;
    public static final int ACKNOWLEDGE = 0x11;
    public static final int ATOMIC_ACKNOWLEDGE = 0x12;
    public static final int COMPARE_SWAP = 0x13;
    public static final int FETCH_ADD = 0x14;
    public static final int SEND_LAST_WITH_INVALIDATE = 0x16;
    public static final int SEND_ONLY_WITH_INVALIDATE = 0x17;
    public static final int FLUSH = 0x1c;
    public static final int ATOMIC_WRITE = 0x1d;

    // Extended headers, in the order they follow the BTH on the wire.
    public static final int DETH = 1;
    public static final int FETH = 1 << 1;
    public static final int RETH = 1 << 2;
    public static final int AETH = 1 << 3;
    public static final int ATOMIC_ETH = 1 << 4;
    public static final int ATOMIC_ACK_ETH = 1 << 5;
    public static final int IMMDT = 1 << 6;
    public static final int IETH = 1 << 7;
    /** XRC requests: the XRCETH, which comes before every other extended header. */
    public static final int XRCETH = 1 << 14;
    /** The opcode carries a payload (possibly empty). */
    public static final int PAYLOAD = 1 << 8;
    // Position in a message; ONLY is FIRST and LAST together.
    public static final int FIRST = 1 << 9;
    public static final int LAST = 1 << 10;
    public static final int MIDDLE = 1 << 11;
    public static final int ONLY = FIRST | LAST;
    // Direction.
    public static final int REQUEST = 1 << 12;
    public static final int RESPONSE = 1 << 13;

    // Header sizes, bytes.
    public static final int BTH_BYTES = 12;
    public static final int DETH_BYTES = 8;
    public static final int FETH_BYTES = 4;
    public static final int RETH_BYTES = 16;
    public static final int AETH_BYTES = 4;
    public static final int ATOMIC_ETH_BYTES = 28;
    public static final int ATOMIC_ACK_ETH_BYTES = 8;
    public static final int IMMDT_BYTES = 4;
    public static final int IETH_BYTES = 4;
    public static final int ICRC_BYTES = 4;
    public static final int XRCETH_BYTES = 4;

    /** The extended headers in wire order, and their sizes. */
    private static final int[] HEADERS = {XRCETH, DETH, FETH, RETH, AETH, ATOMIC_ETH, ATOMIC_ACK_ETH, IMMDT, IETH};
    private static final int[] HEADER_BYTES = {XRCETH_BYTES, DETH_BYTES, FETH_BYTES, RETH_BYTES, AETH_BYTES,
        ATOMIC_ETH_BYTES, ATOMIC_ACK_ETH_BYTES, IMMDT_BYTES, IETH_BYTES};

    /** Per opcode: its header and position bits; 0 for an invalid opcode. */
    private static final int[] INFO = new int[256];
    /** Per opcode: BTH plus extended headers, bytes. */
    private static final int[] LENGTH = new int[256];
    private static final String[] NAME = new String[256];

    static {
        int req = REQUEST;
        // The operations RC and UC share (UC has no READ, atomics, FLUSH or acknowledgements).
        int[][] connected = {
            {SEND_FIRST, PAYLOAD | FIRST | req},
            {SEND_MIDDLE, PAYLOAD | MIDDLE | req},
            {SEND_LAST, PAYLOAD | LAST | req},
            {SEND_LAST_WITH_IMMEDIATE, IMMDT | PAYLOAD | LAST | req},
            {SEND_ONLY, PAYLOAD | ONLY | req},
            {SEND_ONLY_WITH_IMMEDIATE, IMMDT | PAYLOAD | ONLY | req},
            {RDMA_WRITE_FIRST, RETH | PAYLOAD | FIRST | req},
            {RDMA_WRITE_MIDDLE, PAYLOAD | MIDDLE | req},
            {RDMA_WRITE_LAST, PAYLOAD | LAST | req},
            {RDMA_WRITE_LAST_WITH_IMMEDIATE, IMMDT | PAYLOAD | LAST | req},
            {RDMA_WRITE_ONLY, RETH | PAYLOAD | ONLY | req},
            {RDMA_WRITE_ONLY_WITH_IMMEDIATE, RETH | IMMDT | PAYLOAD | ONLY | req},
        };
        String[] names = {"SEND_FIRST", "SEND_MIDDLE", "SEND_LAST", "SEND_LAST_WITH_IMMEDIATE", "SEND_ONLY",
            "SEND_ONLY_WITH_IMMEDIATE", "RDMA_WRITE_FIRST", "RDMA_WRITE_MIDDLE", "RDMA_WRITE_LAST",
            "RDMA_WRITE_LAST_WITH_IMMEDIATE", "RDMA_WRITE_ONLY", "RDMA_WRITE_ONLY_WITH_IMMEDIATE"};
        for (int i = 0; i < connected.length; i++) {
            define(RC | connected[i][0], connected[i][1], "RC_" + names[i]);
            define(UC | connected[i][0], connected[i][1], "UC_" + names[i]);
        }
        define(RC | RDMA_READ_REQUEST, RETH | ONLY | req, "RC_RDMA_READ_REQUEST");
        define(RC | RDMA_READ_RESPONSE_FIRST, AETH | PAYLOAD | FIRST | RESPONSE, "RC_RDMA_READ_RESPONSE_FIRST");
        define(RC | RDMA_READ_RESPONSE_MIDDLE, PAYLOAD | MIDDLE | RESPONSE, "RC_RDMA_READ_RESPONSE_MIDDLE");
        define(RC | RDMA_READ_RESPONSE_LAST, AETH | PAYLOAD | LAST | RESPONSE, "RC_RDMA_READ_RESPONSE_LAST");
        define(RC | RDMA_READ_RESPONSE_ONLY, AETH | PAYLOAD | ONLY | RESPONSE, "RC_RDMA_READ_RESPONSE_ONLY");
        define(RC | ACKNOWLEDGE, AETH | ONLY | RESPONSE, "RC_ACKNOWLEDGE");
        define(RC | ATOMIC_ACKNOWLEDGE, AETH | ATOMIC_ACK_ETH | ONLY | RESPONSE, "RC_ATOMIC_ACKNOWLEDGE");
        define(RC | COMPARE_SWAP, ATOMIC_ETH | ONLY | req, "RC_COMPARE_SWAP");
        define(RC | FETCH_ADD, ATOMIC_ETH | ONLY | req, "RC_FETCH_ADD");
        define(RC | SEND_LAST_WITH_INVALIDATE, IETH | PAYLOAD | LAST | req, "RC_SEND_LAST_WITH_INVALIDATE");
        define(RC | SEND_ONLY_WITH_INVALIDATE, IETH | PAYLOAD | ONLY | req, "RC_SEND_ONLY_WITH_INVALIDATE");
        define(RC | FLUSH, FETH | RETH | ONLY | req, "RC_FLUSH");
        define(RC | ATOMIC_WRITE, RETH | PAYLOAD | ONLY | req, "RC_ATOMIC_WRITE");
        // XRC: every RC opcode but FLUSH and ATOMIC_WRITE (IBA table 35, 101xxxxx), requests with an XRCETH.
        for (int op = 0; op < 0x20; op++) {
            int info = INFO[RC | op];
            if (info != 0 && op != FLUSH && op != ATOMIC_WRITE) {
                define(XRC | op, (info & REQUEST) != 0 ? info | XRCETH : info, "XRC" + NAME[RC | op].substring(2));
            }
        }
        define(UD | SEND_ONLY, DETH | PAYLOAD | ONLY | req, "UD_SEND_ONLY");
        define(UD | SEND_ONLY_WITH_IMMEDIATE, DETH | IMMDT | PAYLOAD | ONLY | req, "UD_SEND_ONLY_WITH_IMMEDIATE");
    }

    private Opcode() {}

    private static void define(int opcode, int info, String name) {
        INFO[opcode] = info;
        NAME[opcode] = name;
        int len = BTH_BYTES;
        for (int i = 0; i < HEADERS.length; i++) {
            if ((info & HEADERS[i]) != 0) {
                len += HEADER_BYTES[i];
            }
        }
        LENGTH[opcode] = len;
    }

    /** Whether {@code opcode} (0..255) is in the table. */
    public static boolean isValid(int opcode) {
        return INFO[opcode & 0xff] != 0;
    }

    /** The opcode's header, payload, position and direction bits; 0 if it is invalid. */
    public static int info(int opcode) {
        return INFO[opcode & 0xff];
    }

    /** Whether the opcode has every bit of {@code bits}. */
    public static boolean is(int opcode, int bits) {
        return (INFO[opcode & 0xff] & bits) == bits;
    }

    /** The bytes from the start of the BTH to the end of the last extended header; 0 if invalid. */
    public static int headerLength(int opcode) {
        return LENGTH[opcode & 0xff];
    }

    /**
     * The offset of extended header {@code header} (one of {@link #XRCETH} .. {@link #IETH}) from the start of
     * the BTH, or -1 if the opcode does not carry it.
     */
    public static int offset(int opcode, int header) {
        int info = INFO[opcode & 0xff];
        if ((info & header) == 0) {
            return -1;
        }
        int off = BTH_BYTES;
        for (int i = 0; HEADERS[i] != header; i++) {
            if ((info & HEADERS[i]) != 0) {
                off += HEADER_BYTES[i];
            }
        }
        return off;
    }

    /** The operation without its transport prefix. */
    public static int operation(int opcode) {
        return opcode & ~TRANSPORT_MASK & 0xff;
    }

    /** The transport prefix ({@link #RC}, {@link #UC}, {@link #UD}, ...). */
    public static int transport(int opcode) {
        return opcode & TRANSPORT_MASK;
    }

    /** The name of the opcode as IBA and rxe spell it (without the {@code IB_OPCODE_} prefix). */
    public static String name(int opcode) {
        String n = NAME[opcode & 0xff];
        return n != null ? n : String.format("INVALID_0x%02x", opcode & 0xff);
    }
}
