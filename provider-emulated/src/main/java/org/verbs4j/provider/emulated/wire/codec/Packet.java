package org.verbs4j.provider.emulated.wire.codec;

import static org.verbs4j.provider.emulated.wire.codec.Opcode.AETH;
import static org.verbs4j.provider.emulated.wire.codec.Opcode.ATOMIC_ACK_ETH;
import static org.verbs4j.provider.emulated.wire.codec.Opcode.ATOMIC_ETH;
import static org.verbs4j.provider.emulated.wire.codec.Opcode.BTH_BYTES;
import static org.verbs4j.provider.emulated.wire.codec.Opcode.DETH;
import static org.verbs4j.provider.emulated.wire.codec.Opcode.FETH;
import static org.verbs4j.provider.emulated.wire.codec.Opcode.ICRC_BYTES;
import static org.verbs4j.provider.emulated.wire.codec.Opcode.IETH;
import static org.verbs4j.provider.emulated.wire.codec.Opcode.IMMDT;
import static org.verbs4j.provider.emulated.wire.codec.Opcode.PAYLOAD;
import static org.verbs4j.provider.emulated.wire.codec.Opcode.RETH;
import static org.verbs4j.provider.emulated.wire.codec.Opcode.XRCETH;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The headers of one RoCE v2 packet (the UDP payload: BTH, extended headers, payload, pad, ICRC), as
 * fields, with their encoding and a validating parse (IBA vol. 1, 9.2 to 9.5; rxe's {@code rxe_hdr.h}).
 * A field the opcode does not carry keeps a stale value and is neither written nor read. Mutable and
 * reused; nothing here allocates. Buffers are addressed from index 0 and must be big-endian (the
 * {@code ByteBuffer} default).
 *
 * <p>To send: set {@link #opcode} and the fields of its headers and {@link #payloadLength}, call
 * {@link #writeHeaders}, put the payload at {@link #payloadOffset()}, then {@link #seal}. To receive:
 * {@link #parse}, which checks every field a packet can get wrong on its own and the ICRC; a QP then checks
 * what depends on its state (QPN, PSN, Q_Key, MTU, rkeys).
 */
public final class Packet {
    // AETH syndrome (IBA 9.7.5.1): bits 6..5 the type, bits 4..0 a credit count, an RNR timer or a NAK code.
    public static final int AETH_ACK = 0x00;
    public static final int AETH_RNR_NAK = 0x20;
    public static final int AETH_NAK = 0x60;
    public static final int AETH_TYPE_MASK = 0x60;
    /** An ACK's credit field when the responder does not limit credits. */
    public static final int AETH_CREDITS_UNLIMITED = 0x1f;
    public static final int NAK_PSN_SEQUENCE_ERROR = 0;
    public static final int NAK_INVALID_REQUEST = 1;
    public static final int NAK_REMOTE_ACCESS_ERROR = 2;
    public static final int NAK_REMOTE_OPERATIONAL_ERROR = 3;
    public static final int NAK_INVALID_RD_REQUEST = 4;
    /** The default partition key. */
    public static final int DEFAULT_PKEY = 0xffff;
    /** PSNs, QPNs and MSNs are 24 bits. */
    public static final int MASK_24 = 0xffffff;

    // BTH.
    public int opcode;
    public boolean solicited;
    public boolean migReq;
    /** Pad bytes after the payload (0..3): set by {@link #writeHeaders}, read by {@link #parse}. */
    public int padCount;
    public int pkey = DEFAULT_PKEY;
    public boolean fecn;
    public boolean becn;
    public int destQpn;
    public boolean ackReq;
    public int psn;
    // XRCETH: the SRQ an XRC request is for.
    public int xrcSrqn;
    // RETH.
    public long va;
    public int rkey;
    public int dmaLength;
    // AETH.
    public int syndrome;
    public int msn;
    // AtomicETH (va and rkey are shared with the RETH fields).
    public long swapAdd;
    public long compare;
    // AtomicAckETH.
    public long origRemoteData;
    // ImmDt and IETH.
    public int immediate;
    public int invalidateRkey;
    // DETH.
    public int qkey;
    public int srcQpn;
    // FETH: the flush type and level bits as the wire has them.
    public int feth;
    /** The payload's length without the pad, bytes. */
    public int payloadLength;

    /** Where the payload starts in the packet (the length of the BTH and extended headers). */
    public int payloadOffset() {
        return Opcode.headerLength(opcode);
    }

    /** The UDP payload's total length: headers, payload, pad and ICRC. */
    public int packetLength() {
        return Opcode.headerLength(opcode) + payloadLength + padCount + ICRC_BYTES;
    }

    /**
     * Writes the BTH and the extended headers of {@link #opcode} into {@code buf} from index 0, and sets
     * {@link #padCount} from {@link #payloadLength}; returns the payload's offset.
     *
     * @throws IllegalArgumentException if the opcode is invalid, or a payload is set for an opcode without one
     */
    public int writeHeaders(ByteBuffer buf) {
        int info = Opcode.info(opcode);
        if (info == 0) {
            throw new IllegalArgumentException("invalid opcode " + Opcode.name(opcode));
        }
        if ((info & PAYLOAD) == 0 && payloadLength != 0) {
            throw new IllegalArgumentException(Opcode.name(opcode) + " carries no payload");
        }
        padCount = -payloadLength & 3;
        buf.order(ByteOrder.BIG_ENDIAN);
        buf.put(0, (byte) opcode);
        buf.put(1, (byte) ((solicited ? 0x80 : 0) | (migReq ? 0x40 : 0) | padCount << 4));
        buf.putShort(2, (short) pkey);
        buf.putInt(4, (fecn ? 0x80000000 : 0) | (becn ? 0x40000000 : 0) | destQpn & MASK_24);
        buf.putInt(8, (ackReq ? 0x80000000 : 0) | psn & MASK_24);
        int o = BTH_BYTES;
        if ((info & XRCETH) != 0) {
            buf.putInt(o, xrcSrqn & MASK_24);
            o += Opcode.XRCETH_BYTES;
        }
        if ((info & DETH) != 0) {
            buf.putInt(o, qkey);
            buf.putInt(o + 4, srcQpn & MASK_24);
            o += Opcode.DETH_BYTES;
        }
        if ((info & FETH) != 0) {
            buf.putInt(o, feth);
            o += Opcode.FETH_BYTES;
        }
        if ((info & RETH) != 0) {
            buf.putLong(o, va);
            buf.putInt(o + 8, rkey);
            buf.putInt(o + 12, dmaLength);
            o += Opcode.RETH_BYTES;
        }
        if ((info & AETH) != 0) {
            buf.putInt(o, syndrome << 24 | msn & MASK_24);
            o += Opcode.AETH_BYTES;
        }
        if ((info & ATOMIC_ETH) != 0) {
            buf.putLong(o, va);
            buf.putInt(o + 8, rkey);
            buf.putLong(o + 12, swapAdd);
            buf.putLong(o + 20, compare);
            o += Opcode.ATOMIC_ETH_BYTES;
        }
        if ((info & ATOMIC_ACK_ETH) != 0) {
            buf.putLong(o, origRemoteData);
            o += Opcode.ATOMIC_ACK_ETH_BYTES;
        }
        if ((info & IMMDT) != 0) {
            buf.putInt(o, immediate);
            o += Opcode.IMMDT_BYTES;
        }
        if ((info & IETH) != 0) {
            buf.putInt(o, invalidateRkey);
            o += Opcode.IETH_BYTES;
        }
        return o;
    }

    /**
     * After {@link #writeHeaders} and the payload: zeroes the pad bytes, writes the ICRC for the addressing
     * in {@code ip}, and returns the packet's length.
     */
    public int seal(ByteBuffer buf, Icrc icrc, Ipv4Udp ip) {
        int end = payloadOffset() + payloadLength;
        for (int i = 0; i < padCount; i++) {
            buf.put(end + i, (byte) 0);
        }
        int length = end + padCount + ICRC_BYTES;
        icrc.write(buf, length, ip);
        return length;
    }

    /**
     * Reads a received packet of {@code length} bytes from {@code buf} index 0 into these fields, checking
     * what the packet can get wrong by itself: its length against its opcode's headers, the opcode, the
     * transport version, the P_Key, the pad count, a payload where none belongs, the AETH syndrome, and
     * (if {@code icrc} is not null) the ICRC for the addressing in {@code ip}. Returns null if the packet
     * is well formed, else why not; the fields are then unspecified.
     */
    public Reject parse(ByteBuffer buf, int length, Icrc icrc, Ipv4Udp ip) {
        buf.order(ByteOrder.BIG_ENDIAN);
        if (length < BTH_BYTES + ICRC_BYTES || length > buf.capacity()) {
            return Reject.TRUNCATED;
        }
        opcode = buf.get(0) & 0xff;
        int info = Opcode.info(opcode);
        if (info == 0) {
            return Reject.BAD_OPCODE;
        }
        int flags = buf.get(1);
        if ((flags & 0x0f) != 0) {
            return Reject.BAD_TRANSPORT_VERSION;
        }
        int headers = Opcode.headerLength(opcode);
        if (length < headers + ICRC_BYTES) {
            return Reject.TRUNCATED;
        }
        solicited = (flags & 0x80) != 0;
        migReq = (flags & 0x40) != 0;
        padCount = flags >> 4 & 3;
        pkey = buf.getShort(2) & 0xffff;
        if ((pkey & 0x7fff) != 0x7fff) {
            return Reject.BAD_PKEY;
        }
        int w = buf.getInt(4);
        fecn = w < 0;
        becn = (w & 0x40000000) != 0;
        destQpn = w & MASK_24;
        w = buf.getInt(8);
        ackReq = w < 0;
        psn = w & MASK_24;
        int rest = length - headers - ICRC_BYTES;
        if (padCount > rest || (rest & 3) != 0) {
            return Reject.BAD_PAD;
        }
        payloadLength = rest - padCount;
        if ((info & PAYLOAD) == 0 && rest != 0) {
            return Reject.UNEXPECTED_PAYLOAD;
        }
        int o = BTH_BYTES;
        if ((info & XRCETH) != 0) {
            xrcSrqn = buf.getInt(o) & MASK_24;
            o += Opcode.XRCETH_BYTES;
        }
        if ((info & DETH) != 0) {
            qkey = buf.getInt(o);
            srcQpn = buf.getInt(o + 4) & MASK_24;
            o += Opcode.DETH_BYTES;
        }
        if ((info & FETH) != 0) {
            feth = buf.getInt(o);
            o += Opcode.FETH_BYTES;
        }
        if ((info & RETH) != 0) {
            va = buf.getLong(o);
            rkey = buf.getInt(o + 8);
            dmaLength = buf.getInt(o + 12);
            o += Opcode.RETH_BYTES;
        }
        if ((info & AETH) != 0) {
            w = buf.getInt(o);
            syndrome = w >>> 24;
            msn = w & MASK_24;
            if (!validSyndrome(syndrome)) {
                return Reject.BAD_AETH;
            }
            o += Opcode.AETH_BYTES;
        }
        if ((info & ATOMIC_ETH) != 0) {
            va = buf.getLong(o);
            rkey = buf.getInt(o + 8);
            swapAdd = buf.getLong(o + 12);
            compare = buf.getLong(o + 20);
            o += Opcode.ATOMIC_ETH_BYTES;
        }
        if ((info & ATOMIC_ACK_ETH) != 0) {
            origRemoteData = buf.getLong(o);
            o += Opcode.ATOMIC_ACK_ETH_BYTES;
        }
        if ((info & IMMDT) != 0) {
            immediate = buf.getInt(o);
            o += Opcode.IMMDT_BYTES;
        }
        if ((info & IETH) != 0) {
            invalidateRkey = buf.getInt(o);
        }
        if (icrc != null && !icrc.check(buf, length, ip)) {
            return Reject.BAD_ICRC;
        }
        return null;
    }

    /** Whether an AETH syndrome is one IBA defines: an ACK, an RNR NAK, or a NAK with codes 0 to 4. */
    static boolean validSyndrome(int syndrome) {
        if ((syndrome & 0x80) != 0) {
            return false;
        }
        return switch (syndrome & AETH_TYPE_MASK) {
            case AETH_ACK, AETH_RNR_NAK -> true;
            case AETH_NAK -> (syndrome & 0x1f) <= NAK_INVALID_RD_REQUEST;
            default -> false;
        };
    }

    /** A one-line description for logs and test messages. */
    @Override
    public String toString() {
        return Opcode.name(opcode) + " qpn=0x" + Integer.toHexString(destQpn) + " psn=" + psn
                + (ackReq ? " ackreq" : "") + " payload=" + payloadLength;
    }
}
