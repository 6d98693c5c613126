package org.verbs4j.provider.emulated.wire.codec;

/**
 * Why a received packet was dropped. A receiving device counts each reason; nothing in a rejected packet is
 * executed. The packet-level reasons come from {@link Packet#parse}; the QP-level ones from the endpoint
 * that matches a packet to a QP.
 */
public enum Reject {
    /** Shorter than a BTH and an ICRC, or than its opcode's headers. */
    TRUNCATED,
    /** An opcode missing from the {@link Opcode} table. */
    BAD_OPCODE,
    /** A BTH transport header version other than 0. */
    BAD_TRANSPORT_VERSION,
    /** A P_Key outside the default partition (the low 15 bits are not all ones). */
    BAD_PKEY,
    /** A pad count larger than the payload it pads, or a payload that is not a multiple of 4 bytes with it. */
    BAD_PAD,
    /** An opcode without a payload that carries one. */
    UNEXPECTED_PAYLOAD,
    /** An AETH with the reserved syndrome type, or a NAK code IBA does not define. */
    BAD_AETH,
    /** The ICRC does not match the packet. */
    BAD_ICRC,
    /** A destination QPN that no QP of the device has, or a QP of another type. */
    UNKNOWN_QP,
    /** A QP that does not take this opcode in its state. */
    BAD_STATE,
    /** A UD packet whose Q_Key is not the QP's. */
    BAD_QKEY,
    /** A request from an address or QPN other than the connected peer's. */
    FOREIGN_SOURCE,
    /** A packet whose payload exceeds the path MTU, or a FIRST or MIDDLE packet shorter than it. */
    BAD_LENGTH,
    /** A PSN outside the window the QP expects (a response to nothing outstanding, for example). */
    BAD_PSN,
}
