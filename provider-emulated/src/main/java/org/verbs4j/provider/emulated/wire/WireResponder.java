package org.verbs4j.provider.emulated.wire;

import static org.verbs4j.provider.emulated.engine.SendWqe.OP_CMP_SWP;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_FETCH_ADD;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_RDMA_READ;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_RDMA_WRITE;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_RDMA_WRITE_WITH_IMM;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_SEND;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_SEND_WITH_IMM;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_SEND_WITH_INV;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.verbs4j.AsyncEventType;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.WcStatus;
import org.verbs4j.provider.emulated.engine.Responder;
import org.verbs4j.provider.emulated.engine.SendWqe;
import org.verbs4j.provider.emulated.engine.Transport;
import org.verbs4j.provider.emulated.verbs.EmulatedDevice;
import org.verbs4j.provider.emulated.verbs.EmulatedQueuePair;
import org.verbs4j.provider.emulated.wire.codec.Opcode;
import org.verbs4j.provider.emulated.wire.codec.Packet;
import org.verbs4j.provider.emulated.wire.codec.Reject;

/**
 * The responder's half of the RoCE v2 protocol for one QP of a wire device (rxe's {@code rxe_resp.c}), on
 * the device's receive thread. It checks each request packet against the QP (source address, state, opcode
 * for the QP type, PSN, the order of FIRST, MIDDLE and LAST, payload length against the path MTU), gathers
 * the packets of a message, and executes the whole message through the engine's {@link Responder}, so the
 * verbs rules (keys, access, bounds, receives, completions) are the in-JVM device's. It answers on RC: an ACK
 * (when the packet asks for one), a READ response cut by the MTU, an atomic ACK, an
 * RNR NAK with the QP's {@code min_rnr_timer}, or a NAK (PSN sequence error, invalid request, remote access
 * error, remote operational error). A duplicate request is acknowledged again (if it asks for an ACK); a duplicate
 * READ is executed again; a duplicate of one of the last {@code max_dest_rd_atomic} atomics is answered from its
 * saved result.
 *
 * <p>Unlike rxe, which places each packet's data as it arrives, the data of a multi-packet SEND or WRITE is
 * placed when its last packet arrives; a message is at most the device's {@code max_msg_sz}.
 */
public final class WireResponder {
    private static final int SUCCESS = WcStatus.SUCCESS.value();
    private static final int GRH = Responder.GRH_BYTES;

    private final EmulatedQueuePair qp;
    private final WireTransport transport;

    // Answers, built and sent on the receive thread.
    private final PacketSender tx = new PacketSender();
    private final MemorySegment grh = MemorySegment.ofArray(new byte[GRH]);
    private final MemorySegment atomicResult = MemorySegment.ofArray(new long[1]);

    private InetSocketAddress peer;
    private int mtu = 1024;
    /** The PSN expected next. */
    private int epsn;
    /** The message sequence number: messages completed. */
    private int msn;
    /** Whether a PSN sequence error NAK was sent for the current {@link #epsn}. */
    private boolean nakSent;
    // The message being gathered.
    private boolean inMessage;
    private int messageFirstPsn;
    private int messageKind;
    private long messageVa;
    private int messageRkey;
    private long messageDmaLength;
    private long messageLength;
    private SendWqe request = new SendWqe(1, MemorySegment.ofArray(new byte[4096]));
    private MemorySegment readBuffer = MemorySegment.ofArray(new byte[4096]);
    // The last max_dest_rd_atomic atomics' results, for duplicates (rxe's responder resources): a ring.
    private final int[] atomicPsns = new int[EmulatedDevice.MAX_RD_ATOMIC];
    private final long[] atomicOriginals = new long[EmulatedDevice.MAX_RD_ATOMIC];
    /** How many atomics were saved since the reset; the newest is at {@code (atomicsSaved - 1) % length}. */
    private int atomicsSaved;

    WireResponder(EmulatedQueuePair qp, WireTransport transport) {
        this.qp = qp;
        this.transport = transport;
    }

    synchronized void reset(int attrMask, QpState s) {
        if ((attrMask & QpAttrMask.AV) != 0) {
            peer = qp.av == null || qp.av.grh() == null ? null : transport.addressOf(qp.av.grh().dgid());
        }
        if ((attrMask & QpAttrMask.PATH_MTU) != 0) {
            mtu = qp.pathMtuBytes();
        }
        if ((attrMask & QpAttrMask.RQ_PSN) != 0) {
            epsn = qp.rqPsnAttribute() & Packet.MASK_24;
            nakSent = false;
        }
        if (s == QpState.RESET) {
            inMessage = false;
            atomicsSaved = 0;
            msn = 0;
        }
    }

    /** A request packet for this QP, from {@code from}; null if it was taken, else why it was dropped. */
    synchronized Reject onRequest(Packet p, ByteBuffer in, InetSocketAddress from) {
        QpType type = qp.type;
        int transportPrefix = Opcode.transport(p.opcode);
        if (type == QpType.UD) {
            return transportPrefix == Opcode.UD ? datagram(p, in, from, transport.endpoint.localAddr)
                    : Reject.UNKNOWN_QP;
        }
        if (type == QpType.XRC_SEND || transportPrefix != WireTransport.prefixOf(type)) {
            // An XRC_SEND QP has no responder.
            return Reject.UNKNOWN_QP;
        }
        if (peer == null || !peer.getAddress().equals(from.getAddress())) {
            return Reject.FOREIGN_SOURCE;
        }
        if (!Responder.receives(qp.state) || qp.isClosed()) {
            return Reject.BAD_STATE;
        }
        // RC and XRC acknowledge; UC does not.
        boolean rc = type != QpType.UC;
        int d = WireTransport.psnDiff(p.psn, epsn);
        if (rc && d < 0) {
            return duplicate(p, in);
        }
        if (rc && d > 0) {
            if (!nakSent) {
                nakSent = true;
                answer(Opcode.ACKNOWLEDGE, epsn, Packet.AETH_NAK | Packet.NAK_PSN_SEQUENCE_ERROR, 0);
            }
            return Reject.BAD_PSN;
        }
        if (!rc && d != 0) {
            // UC: a lost packet ends the message it belonged to; a new one may start here.
            inMessage = false;
            epsn = p.psn;
        }
        nakSent = false;
        int op = Opcode.operation(p.opcode);
        int info = Opcode.info(p.opcode);
        boolean first = (info & Opcode.FIRST) != 0;
        boolean last = (info & Opcode.LAST) != 0;
        if (first == inMessage || !first && kindOf(op) != messageKind
                || p.payloadLength > mtu || !last && p.payloadLength != mtu) {
            inMessage = false;
            return invalid(rc, p);
        }
        if (op == Opcode.RDMA_READ_REQUEST) {
            return read(p, true);
        }
        if (op == Opcode.COMPARE_SWAP || op == Opcode.FETCH_ADD) {
            return atomic(p);
        }
        if (kindOf(op) < 0) {
            // FLUSH and ATOMIC_WRITE: operations this device does not offer on the wire.
            return invalid(rc, p);
        }
        if (first) {
            messageFirstPsn = p.psn;
            messageKind = kindOf(op);
            messageVa = p.va;
            messageRkey = p.rkey;
            messageDmaLength = Integer.toUnsignedLong(p.dmaLength);
            messageLength = 0;
            inMessage = true;
            if (messageKind == OP_RDMA_WRITE && !last) {
                // The whole range the RETH names is checked here, as rxe does: a WRITE that cannot land is NAKed
                // at its first packet and takes no PSN (its later packets, or a forger's, then find the QP in ERR).
                Reject r = checkWrite(p, rc);
                if (r != null || qp.state == QpState.ERR) {
                    inMessage = false;
                    return r;
                }
            }
        }
        if (!append(in, p.payloadOffset(), p.payloadLength)) {
            inMessage = false;
            return invalid(rc, p);
        }
        epsn = (epsn + 1) & Packet.MASK_24;
        if (!last) {
            if (rc && p.ackReq) {
                answer(Opcode.ACKNOWLEDGE, p.psn, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 0);
            }
            return null;
        }
        inMessage = false;
        if (messageKind == OP_RDMA_WRITE && messageLength != messageDmaLength) {
            return invalid(rc, p);
        }
        return execute(p, op, rc);
    }

    /**
     * Checks a multi-packet WRITE at its first packet through the engine ({@link Responder#checkWrite}): null if it
     * may go on; else the QP is in ERR (RC: NAKed with the error's code) or the message is dropped (UC).
     */
    private Reject checkWrite(Packet p, boolean rc) {
        if (messageDmaLength > qp.device.maxMessageSize()) {
            return invalid(rc, p);
        }
        SendWqe w = request;
        w.reset(0, OP_RDMA_WRITE, 0, false);
        w.rkey = messageRkey;
        w.remoteAddr = messageVa;
        w.length = messageDmaLength;
        Responder e = engine(p);
        int r = e == null ? qp.responder.invalidXrcSrq() : e.checkWrite(w);
        if (r == SUCCESS) {
            return null;
        }
        if (!rc) {
            return Reject.BAD_STATE;
        }
        return respond(r, p.psn, true);
    }

    /** The engine's opcode family of a BTH operation: SEND, RDMA_WRITE, or the operation itself. */
    private static int kindOf(int op) {
        return switch (op) {
            case Opcode.SEND_FIRST, Opcode.SEND_MIDDLE, Opcode.SEND_LAST, Opcode.SEND_LAST_WITH_IMMEDIATE,
                 Opcode.SEND_ONLY, Opcode.SEND_ONLY_WITH_IMMEDIATE, Opcode.SEND_LAST_WITH_INVALIDATE,
                 Opcode.SEND_ONLY_WITH_INVALIDATE -> OP_SEND;
            case Opcode.RDMA_WRITE_FIRST, Opcode.RDMA_WRITE_MIDDLE, Opcode.RDMA_WRITE_LAST,
                 Opcode.RDMA_WRITE_LAST_WITH_IMMEDIATE, Opcode.RDMA_WRITE_ONLY,
                 Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE -> OP_RDMA_WRITE;
            default -> -1 - op;
        };
    }

    /** Appends a payload to the message being gathered; false if the message would exceed max_msg_sz. */
    private boolean append(ByteBuffer in, int off, int len) {
        long need = messageLength + len;
        if (need > qp.device.maxMessageSize()) {
            return false;
        }
        if (need > request.inline.byteSize()) {
            long size = Math.min(qp.device.maxMessageSize(), Math.max(need, request.inline.byteSize() * 2));
            MemorySegment bigger = MemorySegment.ofArray(new byte[(int) size]);
            MemorySegment.copy(request.inline, 0, bigger, 0, messageLength);
            request = new SendWqe(1, bigger);
        }
        MemorySegment.copy(MemorySegment.ofBuffer(in), off, request.inline, messageLength, len);
        messageLength = need;
        return true;
    }

    /** Executes a gathered SEND or WRITE message through the engine's responder, and answers it. */
    private Reject execute(Packet p, int op, boolean rc) {
        SendWqe w = request;
        int opcode = switch (op) {
            case Opcode.SEND_LAST_WITH_IMMEDIATE, Opcode.SEND_ONLY_WITH_IMMEDIATE -> OP_SEND_WITH_IMM;
            case Opcode.SEND_LAST_WITH_INVALIDATE, Opcode.SEND_ONLY_WITH_INVALIDATE -> OP_SEND_WITH_INV;
            case Opcode.RDMA_WRITE_LAST_WITH_IMMEDIATE, Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE -> OP_RDMA_WRITE_WITH_IMM;
            default -> messageKind;
        };
        w.reset(0, opcode, p.solicited ? SendFlags.SOLICITED : 0, false);
        w.isInline = true;
        w.inlineLength = (int) messageLength;
        w.length = messageLength;
        w.immData = p.immediate;
        w.invalidateRkey = p.invalidateRkey;
        w.rkey = messageRkey;
        w.remoteAddr = messageVa;
        int r = executeRequest(p, w);
        if (!rc) {
            return null;
        }
        if (r == Transport.RNR_NAK) {
            // Not ready for this, the last packet: the NAK names its PSN, and the requester sends again from there
            // (IBA 9.7.5.2.8). The packets before it were accepted and may have been acknowledged already (the
            // requester asks for an ACK every few packets), so a NAK for the message's first PSN would name a PSN
            // the requester has retired: it drops such a NAK (rxe's completer does too) and times out. The
            // message gathered so far is kept for the last packet's return.
            epsn = p.psn;
            messageLength -= p.payloadLength;
            inMessage = p.psn != messageFirstPsn;
            answer(Opcode.ACKNOWLEDGE, p.psn, Packet.AETH_RNR_NAK | qp.minRnrTimer & 0x1f, 0);
            return null;
        }
        return respond(r, p.psn, p.ackReq);
    }

    /**
     * Answers a message's result on RC: an ACK if its last packet asked for one (the requester asks at the
     * newest message and at least every few packets, so one ACK covers the messages before it), or the NAK its
     * error status maps to.
     */
    private Reject respond(int status, int psn, boolean ackReq) {
        if (status == SUCCESS || status == Transport.DROPPED) {
            msn = (msn + 1) & Packet.MASK_24;
            if (ackReq) {
                answer(Opcode.ACKNOWLEDGE, psn, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 0);
            }
            return null;
        }
        int code;
        if (status == WcStatus.REM_ACCESS_ERR.value()) {
            code = Packet.NAK_REMOTE_ACCESS_ERROR;
        } else if (status == WcStatus.REM_INV_REQ_ERR.value()) {
            code = Packet.NAK_INVALID_REQUEST;
        } else if (status == WcStatus.REM_OP_ERR.value()) {
            code = Packet.NAK_REMOTE_OPERATIONAL_ERROR;
        } else {
            // The QP is in ERR: it answers nothing, and the requester times out.
            return Reject.BAD_STATE;
        }
        answer(Opcode.ACKNOWLEDGE, psn, Packet.AETH_NAK | code, 0);
        return null;
    }

    /** A malformed request: on RC an invalid-request NAK, and the QP moves to ERR (rxe does the same). */
    private Reject invalid(boolean rc, Packet p) {
        if (rc) {
            // In ERR before the NAK leaves, as for the other NAKs: a requester that sees its error sees this QP in ERR.
            qp.enterError(AsyncEventType.QP_REQ_ERR);
            answer(Opcode.ACKNOWLEDGE, p.psn, Packet.AETH_NAK | Packet.NAK_INVALID_REQUEST, 0);
        }
        return Reject.BAD_LENGTH;
    }

    /** A READ request, new ({@code advance}) or a duplicate: read through the engine, answer in MTU pieces. */
    private Reject read(Packet p, boolean advance) {
        long len = Integer.toUnsignedLong(p.dmaLength);
        if (len > qp.device.maxMessageSize()) {
            return invalid(true, p);
        }
        if (len > readBuffer.byteSize()) {
            readBuffer = MemorySegment.ofArray(new byte[(int) len]);
        }
        SendWqe w = request;
        w.reset(0, OP_RDMA_READ, 0, false);
        w.rkey = p.rkey;
        w.remoteAddr = p.va;
        w.length = len;
        w.numSge = 1;
        w.sgeSegment[0] = readBuffer;
        w.sgeOffset[0] = 0;
        w.sgeLength[0] = (int) len;
        int r = executeRequest(p, w);
        if (r != SUCCESS) {
            return respond(r, p.psn, true);
        }
        int packets = (int) Math.max(1, (len + mtu - 1) / mtu);
        for (int i = 0; i < packets; i++) {
            int op = packets == 1 ? Opcode.RDMA_READ_RESPONSE_ONLY : i == 0 ? Opcode.RDMA_READ_RESPONSE_FIRST
                    : i == packets - 1 ? Opcode.RDMA_READ_RESPONSE_LAST : Opcode.RDMA_READ_RESPONSE_MIDDLE;
            Packet o = begin(op, (p.psn + i) & Packet.MASK_24);
            o.syndrome = Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED;
            o.msn = (msn + 1) & Packet.MASK_24;
            long at = (long) i * mtu;
            o.payloadLength = (int) Math.min(mtu, len - at);
            int off = o.writeHeaders(tx.buf);
            MemorySegment.copy(readBuffer, at, tx.bufSegment, off, o.payloadLength);
            emit();
        }
        if (advance) {
            msn = (msn + 1) & Packet.MASK_24;
            epsn = (p.psn + packets) & Packet.MASK_24;
        }
        return null;
    }

    private Reject atomic(Packet p) {
        SendWqe w = request;
        boolean cas = Opcode.operation(p.opcode) == Opcode.COMPARE_SWAP;
        w.reset(0, cas ? OP_CMP_SWP : OP_FETCH_ADD, 0, false);
        w.rkey = p.rkey;
        w.remoteAddr = p.va;
        w.compareAdd = cas ? p.compare : p.swapAdd;
        w.swap = p.swapAdd;
        w.numSge = 1;
        w.sgeSegment[0] = atomicResult;
        w.sgeOffset[0] = 0;
        w.sgeLength[0] = 8;
        int r = executeRequest(p, w);
        if (r != SUCCESS) {
            return respond(r, p.psn, true);
        }
        long original = atomicResult.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        int slot = Math.floorMod(atomicsSaved++, atomicPsns.length);
        atomicPsns[slot] = p.psn;
        atomicOriginals[slot] = original;
        msn = (msn + 1) & Packet.MASK_24;
        epsn = (p.psn + 1) & Packet.MASK_24;
        answerAtomic(p.psn, original);
        return null;
    }

    /**
     * The saved result of the atomic at {@code psn}, among the last {@code max_dest_rd_atomic} (at least one)
     * atomics; false if it is not among them.
     */
    private boolean savedAtomic(int psn) {
        int n = Math.min(Integer.toUnsignedLong(atomicsSaved) < atomicPsns.length ? atomicsSaved : atomicPsns.length,
                Math.max(1, qp.maxDestRdAtomic()));
        for (int i = 1; i <= n; i++) {
            int slot = Math.floorMod(atomicsSaved - i, atomicPsns.length);
            if (atomicPsns[slot] == psn) {
                answerAtomic(psn, atomicOriginals[slot]);
                return true;
            }
        }
        return false;
    }

    private void answerAtomic(int psn, long atomicOriginal) {
        Packet o = begin(Opcode.ATOMIC_ACKNOWLEDGE, psn);
        o.syndrome = Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED;
        o.msn = msn;
        o.origRemoteData = atomicOriginal;
        o.payloadLength = 0;
        o.writeHeaders(tx.buf);
        emit();
    }

    /** A request whose PSN is before the expected one: sent again because an answer was lost. */
    private Reject duplicate(Packet p, ByteBuffer in) {
        int op = Opcode.operation(p.opcode);
        if (op == Opcode.RDMA_READ_REQUEST) {
            return read(p, false);
        }
        if (op == Opcode.COMPARE_SWAP || op == Opcode.FETCH_ADD) {
            // Older than the saved results: it cannot be answered again.
            return savedAtomic(p.psn) ? null : Reject.BAD_PSN;
        }
        if (p.ackReq) {
            answer(Opcode.ACKNOWLEDGE, (epsn - 1) & Packet.MASK_24, Packet.AETH_ACK | Packet.AETH_CREDITS_UNLIMITED, 0);
        }
        return null;
    }

    /**
     * The engine's responder for a request: the QP's own, or on XRC_RECV the one of the SRQ the packet's XRCETH
     * names, null if the QP's XRC domain has no such SRQ (the request is then invalid).
     */
    private Responder engine(Packet p) {
        return qp.type == QpType.XRC_RECV ? qp.xrcResponder(p.xrcSrqn) : qp.responder;
    }

    /** Executes a request's WQE through {@link #engine}: its answer, REM_INV_REQ_ERR for an SRQ outside the domain. */
    private int executeRequest(Packet p, SendWqe w) {
        Responder e = engine(p);
        return e == null ? qp.responder.invalidXrcSrq() : e.receive(w, qp.destQpn);
    }

    private Packet begin(int op, int psn) {
        return tx.begin(WireTransport.prefixOf(qp.type) | op, qp.destQpn, psn);
    }

    /** Sends an ACK or NAK with {@code syndrome} for {@code psn}. */
    private void answer(int op, int psn, int syndrome, int payload) {
        Packet o = begin(op, psn);
        o.syndrome = syndrome;
        o.msn = msn;
        o.payloadLength = payload;
        o.writeHeaders(tx.buf);
        emit();
    }

    private void emit() {
        tx.emit(transport.endpoint, peer);
    }

    // ---------------------------------------------------------------- UD

    /**
     * A UD datagram sent to a multicast group this QP is attached to, at the group's IPv4 address {@code group}
     * (an int): checked and delivered as one sent to the QP, its GRH's destination the group's address.
     *
     * @return null if it was taken, else why it was dropped
     */
    synchronized Reject onMulticast(Packet p, ByteBuffer in, InetSocketAddress from, int group) {
        return qp.type == QpType.UD ? datagram(p, in, from, group) : Reject.UNKNOWN_QP;
    }

    /**
     * A UD datagram to the IPv4 address {@code dst}: delivered through the engine's responder (Q_Key, a receive,
     * the GRH), whose 40 bytes are, as rxe writes them for IPv4, 20 zero bytes and then the IPv4 header.
     */
    private Reject datagram(Packet p, ByteBuffer in, InetSocketAddress from, int dst) {
        if (!Responder.receives(qp.state) || qp.isClosed()) {
            return Reject.BAD_STATE;
        }
        if (p.qkey != qp.qkey) {
            return Reject.BAD_QKEY;
        }
        messageLength = 0;
        append(in, p.payloadOffset(), p.payloadLength);
        SendWqe w = request;
        int imm = Opcode.operation(p.opcode) == Opcode.SEND_ONLY_WITH_IMMEDIATE ? OP_SEND_WITH_IMM : OP_SEND;
        w.reset(0, imm, p.solicited ? SendFlags.SOLICITED : 0, false);
        w.isInline = true;
        w.inlineLength = p.payloadLength;
        w.length = p.payloadLength;
        w.immData = p.immediate;
        fillGrh(RoceEndpoint.ipv4(from), dst, 20 + 8 + p.packetLength());
        int r = qp.responder.receiveDatagram(w, p.srcQpn, p.qkey, grh);
        return r == SUCCESS ? null : Reject.BAD_STATE;
    }

    private void fillGrh(int src, int dst, int ipLength) {
        ByteBuffer g = grh.asByteBuffer().order(ByteOrder.BIG_ENDIAN);
        for (int i = 0; i < 20; i++) {
            g.put(i, (byte) 0);
        }
        g.put(20, (byte) 0x45);
        g.put(21, (byte) 0);
        g.putShort(22, (short) ipLength);
        g.putShort(24, (short) 0);
        g.putShort(26, (short) 0x4000);
        // The TTL the sender used is not visible through a UDP socket: Linux's default stands in.
        g.put(28, (byte) 64);
        g.put(29, (byte) 17);
        g.putShort(30, (short) 0);
        g.putInt(32, src);
        g.putInt(36, dst);
        int sum = 0;
        for (int i = 20; i < 40; i += 2) {
            sum += g.getShort(i) & 0xffff;
        }
        sum = (sum & 0xffff) + (sum >>> 16);
        sum = (sum & 0xffff) + (sum >>> 16);
        g.putShort(30, (short) ~sum);
    }
}
