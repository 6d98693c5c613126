package org.verbs4j.provider.emulated;

import static org.verbs4j.provider.emulated.internal.SendWqe.OP_CMP_SWP;
import static org.verbs4j.provider.emulated.internal.SendWqe.OP_FETCH_ADD;
import static org.verbs4j.provider.emulated.internal.SendWqe.OP_RDMA_READ;
import static org.verbs4j.provider.emulated.internal.SendWqe.OP_RDMA_WRITE;
import static org.verbs4j.provider.emulated.internal.SendWqe.OP_RDMA_WRITE_WITH_IMM;
import static org.verbs4j.provider.emulated.internal.SendWqe.OP_SEND_WITH_IMM;
import static org.verbs4j.provider.emulated.internal.SendWqe.OP_SEND_WITH_INV;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

import org.verbs4j.Gid;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.WcStatus;
import org.verbs4j.provider.emulated.internal.EngineTimer;
import org.verbs4j.provider.emulated.internal.SendWqe;
import org.verbs4j.provider.emulated.internal.Transfer;
import org.verbs4j.provider.emulated.internal.Transport;
import org.verbs4j.provider.emulated.internal.wire.Opcode;
import org.verbs4j.provider.emulated.internal.wire.Packet;
import org.verbs4j.provider.emulated.internal.wire.Reject;

/**
 * The RoCE v2 transport of one QP of a wire device: the requester's half of the protocol (rxe's
 * {@code rxe_req.c} and {@code rxe_comp.c}). It cuts each message into packets of the path MTU
 * (FIRST, MIDDLE, LAST or ONLY) with consecutive PSNs, sends them through the device's {@link RoceEndpoint},
 * and, on RC, keeps the message in flight until its ACK, READ response or atomic ACK arrives, which it then
 * hands to the requester ({@link org.verbs4j.provider.emulated.internal.Requester#answer}). At most
 * {@link #WINDOW} packets are unacknowledged; every {@link #ACK_EVERY}th packet and the last ask for an ACK.
 * After the QP's {@code timeout} without progress it resends from the first unacknowledged packet, and after
 * {@code retry_cnt} such retries the WR completes with {@code RETRY_EXC_ERR}; a timeout of 0 never retries,
 * as in rxe. NAKs end the WR with the status their code names; an RNR NAK hands the WR back to the completer,
 * which retries after the RNR timer the NAK carries.
 *
 * <p>One message is in flight per QP at a time: the next WR starts when the previous one is answered.
 * The responder's half is {@link WireResponder}. Requester state is guarded by the QP's lock.
 */
final class WireTransport implements Transport {
    /** The most unacknowledged packets of a message. */
    static final int WINDOW = 64;
    /** Every this many packets, the requester asks for an ACK. */
    static final int ACK_EVERY = 16;

    private static final int SUCCESS = WcStatus.SUCCESS.value();
    private static final int RETRY_EXC_ERR = WcStatus.RETRY_EXC_ERR.value();
    private static final int LOC_QP_OP_ERR = WcStatus.LOC_QP_OP_ERR.value();
    private static final int[] NAK_STATUS = {-1, WcStatus.REM_INV_REQ_ERR.value(),
        WcStatus.REM_ACCESS_ERR.value(), WcStatus.REM_OP_ERR.value(), WcStatus.REM_INV_RD_REQ_ERR.value()};

    private final EmulatedQueuePair qp;
    final RoceEndpoint endpoint;
    final WireResponder responder;

    // The sending side, under the QP's lock.
    private final PacketSender tx = new PacketSender();
    /** The connected peer (RC, UC), from the address vector's GID and the device's port. */
    private InetSocketAddress peer;
    private int mtu = 1024;
    private int nextPsn;

    // The message in flight (RC).
    private SendWqe cur;
    private int firstPsn;
    /** Request packets (SEND, WRITE) or response packets (READ) of the message; 1 for an atomic. */
    private int packets;
    private int sent;
    private int acked;
    private int retriesLeft;
    private int timerGeneration;
    /** The RNR timer code of the last RNR NAK, for {@link #awaitReceive}. */
    private int rnrTimer;

    WireTransport(EmulatedQueuePair qp, RoceEndpoint endpoint) {
        this.qp = qp;
        this.endpoint = endpoint;
        this.responder = new WireResponder(qp, this);
    }

    /** Signed distance from PSN {@code b} to PSN {@code a} in the 24-bit PSN space. */
    static int psnDiff(int a, int b) {
        return (a - b) << 8 >> 8;
    }

    /** The socket address of an IPv4-mapped GID on the device's port, or null for any other GID. */
    InetSocketAddress addressOf(Gid gid) {
        byte[] g = gid.toBytes();
        for (int i = 0; i < 10; i++) {
            if (g[i] != 0) {
                return null;
            }
        }
        if (g[10] != (byte) 0xff || g[11] != (byte) 0xff) {
            return null;
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(new byte[] {g[12], g[13], g[14], g[15]}),
                    endpoint.localPort);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public void reset(int attrMask) {
        if ((attrMask & QpAttrMask.AV) != 0) {
            peer = qp.av == null || qp.av.grh() == null ? null : addressOf(qp.av.grh().dgid());
        }
        if ((attrMask & QpAttrMask.PATH_MTU) != 0) {
            mtu = qp.pathMtuBytes();
        }
        if ((attrMask & QpAttrMask.SQ_PSN) != 0) {
            nextPsn = qp.sqPsnAttribute() & Packet.MASK_24;
        }
        QpState s = qp.state;
        if (s == QpState.RESET || s == QpState.ERR) {
            cur = null;
            timerGeneration++;
        }
        responder.reset(attrMask, s);
    }

    @Override
    public int awaitReceive() {
        return rnrTimer;
    }

    @Override
    public int request(SendWqe w) {
        if (qp.type == QpType.UD) {
            return datagram(w);
        }
        if (peer == null) {
            return qp.type == QpType.RC ? RETRY_EXC_ERR : DROPPED;
        }
        boolean retry = w == cur;
        if (!retry) {
            cur = w;
            firstPsn = nextPsn;
            retriesLeft = qp.retryCount();
            int op = w.opcode;
            packets = op == OP_CMP_SWP || op == OP_FETCH_ADD ? 1 : (int) Math.max(1, (w.length + mtu - 1) / mtu);
            nextPsn = (firstPsn + packets) & Packet.MASK_24;
        }
        sent = 0;
        acked = 0;
        pump();
        if (qp.type == QpType.UC) {
            cur = null;
            return SUCCESS;
        }
        armTimer();
        return IN_FLIGHT;
    }

    /** Sends what the window allows of the message in flight. */
    private void pump() {
        SendWqe w = cur;
        int op = w.opcode;
        if (op == OP_RDMA_READ) {
            if (sent == acked) {
                sendReadRequest(w);
                sent = packets;
            }
            return;
        }
        if (op == OP_CMP_SWP || op == OP_FETCH_ADD) {
            if (sent == 0) {
                sendAtomic(w);
                sent = 1;
            }
            return;
        }
        while (sent < packets && sent - acked < WINDOW) {
            sendSegment(w, sent++);
        }
    }

    private void sendSegment(SendWqe w, int i) {
        int op = w.opcode;
        boolean write = op == OP_RDMA_WRITE || op == OP_RDMA_WRITE_WITH_IMM;
        boolean first = i == 0;
        boolean last = i == packets - 1;
        int bth;
        if (first && last) {
            bth = write ? (op == OP_RDMA_WRITE ? Opcode.RDMA_WRITE_ONLY : Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE)
                    : op == OP_SEND_WITH_IMM ? Opcode.SEND_ONLY_WITH_IMMEDIATE
                    : op == OP_SEND_WITH_INV ? Opcode.SEND_ONLY_WITH_INVALIDATE : Opcode.SEND_ONLY;
        } else if (first) {
            bth = write ? Opcode.RDMA_WRITE_FIRST : Opcode.SEND_FIRST;
        } else if (last) {
            bth = write ? (op == OP_RDMA_WRITE ? Opcode.RDMA_WRITE_LAST : Opcode.RDMA_WRITE_LAST_WITH_IMMEDIATE)
                    : op == OP_SEND_WITH_IMM ? Opcode.SEND_LAST_WITH_IMMEDIATE
                    : op == OP_SEND_WITH_INV ? Opcode.SEND_LAST_WITH_INVALIDATE : Opcode.SEND_LAST;
        } else {
            bth = write ? Opcode.RDMA_WRITE_MIDDLE : Opcode.SEND_MIDDLE;
        }
        Packet p = begin(bth | transportPrefix(), (firstPsn + i) & Packet.MASK_24);
        p.solicited = last && (w.flags & SendFlags.SOLICITED) != 0;
        p.ackReq = last || i % ACK_EVERY == ACK_EVERY - 1;
        p.va = w.remoteAddr;
        p.rkey = w.rkey;
        p.dmaLength = (int) w.length;
        p.immediate = w.immData;
        p.invalidateRkey = w.invalidateRkey;
        long at = (long) i * mtu;
        p.payloadLength = (int) Math.min(mtu, w.length - at);
        int off = p.writeHeaders(tx.buf);
        Transfer.gatherChunk(w, at, tx.bufSegment, off, p.payloadLength);
        emit(peer);
    }

    /** A READ request for what has not arrived yet: from response packet {@link #acked} on. */
    private void sendReadRequest(SendWqe w) {
        long at = (long) acked * mtu;
        Packet p = begin(Opcode.RC | Opcode.RDMA_READ_REQUEST, (firstPsn + acked) & Packet.MASK_24);
        p.ackReq = true;
        p.va = w.remoteAddr + at;
        p.rkey = w.rkey;
        p.dmaLength = (int) (w.length - at);
        p.payloadLength = 0;
        p.writeHeaders(tx.buf);
        emit(peer);
    }

    private void sendAtomic(SendWqe w) {
        Packet p = begin(Opcode.RC | (w.opcode == OP_CMP_SWP ? Opcode.COMPARE_SWAP : Opcode.FETCH_ADD), firstPsn);
        p.ackReq = true;
        p.va = w.remoteAddr;
        p.rkey = w.rkey;
        // CMP_SWP: swap, then compare; FETCH_ADD: the add value, compare unused.
        p.swapAdd = w.opcode == OP_CMP_SWP ? w.swap : w.compareAdd;
        p.compare = w.opcode == OP_CMP_SWP ? w.compareAdd : 0;
        p.payloadLength = 0;
        p.writeHeaders(tx.buf);
        emit(peer);
    }

    private int transportPrefix() {
        return qp.type == QpType.UC ? Opcode.UC : Opcode.RC;
    }

    private Packet begin(int opcode, int psn) {
        return tx.begin(opcode, qp.destQpn, psn);
    }

    private void emit(InetSocketAddress to) {
        tx.emit(endpoint, to);
    }

    private int datagram(SendWqe w) {
        EmulatedAddressHandle ah = (EmulatedAddressHandle) w.ah;
        if (ah.isClosed()) {
            return LOC_QP_OP_ERR;
        }
        InetSocketAddress to = addressOf(ah.attributes.grh().dgid());
        if (to == null) {
            return DROPPED;
        }
        Packet p = begin(Opcode.UD | (w.opcode == OP_SEND_WITH_IMM ? Opcode.SEND_ONLY_WITH_IMMEDIATE
                : Opcode.SEND_ONLY), nextPsn);
        nextPsn = (nextPsn + 1) & Packet.MASK_24;
        p.destQpn = w.remoteQpn;
        p.solicited = (w.flags & SendFlags.SOLICITED) != 0;
        // A Q_Key with the high bit set means: use the QP's own (IBA 10.2.5).
        p.qkey = w.remoteQkey < 0 ? qp.qkey : w.remoteQkey;
        p.srcQpn = qp.qpn;
        p.immediate = w.immData;
        p.payloadLength = (int) w.length;
        int off = p.writeHeaders(tx.buf);
        Transfer.gatherChunk(w, 0, tx.bufSegment, off, p.payloadLength);
        emit(to);
        return SUCCESS;
    }

    // ---------------------------------------------------------------- responses (the receive thread)

    /**
     * A response to this QP's requests, from {@code from}: an ACK or NAK, a READ response or an atomic ACK. Only
     * the connected peer answers, and only for a packet that was sent.
     */
    Reject onResponse(Packet p, ByteBuffer in, InetSocketAddress from) {
        if (qp.type != QpType.RC || Opcode.transport(p.opcode) != Opcode.RC) {
            return Reject.BAD_OPCODE;
        }
        qp.lock.lock();
        try {
            InetSocketAddress connected = peer;
            if (connected == null || !connected.getAddress().equals(from.getAddress())) {
                return Reject.FOREIGN_SOURCE;
            }
            SendWqe w = cur;
            if (w == null || qp.isClosed() || !qp.awaitingAnswer()) {
                return Reject.BAD_PSN;
            }
            int idx = psnDiff(p.psn, firstPsn);
            // A READ's responses may run ahead of its one request packet; an ACK or NAK names a packet sent.
            if (idx < 0 || idx >= packets || w.opcode != OP_RDMA_READ && idx >= sent) {
                return Reject.BAD_PSN;
            }
            if (Opcode.is(p.opcode, Opcode.AETH)) {
                int type = p.syndrome & Packet.AETH_TYPE_MASK;
                if (type == Packet.AETH_RNR_NAK) {
                    rnrTimer = p.syndrome & 0x1f;
                    finish(RNR_NAK);
                    return null;
                }
                if (type == Packet.AETH_NAK) {
                    int code = p.syndrome & 0x1f;
                    if (code == Packet.NAK_PSN_SEQUENCE_ERROR) {
                        // The responder expects packet idx: everything before it arrived.
                        if (w.opcode != OP_RDMA_READ && idx >= acked) {
                            acked = idx;
                            sent = idx;
                            pump();
                            armTimer();
                        }
                        return null;
                    }
                    finish(NAK_STATUS[code]);
                    return null;
                }
            }
            int op = Opcode.operation(p.opcode);
            if (op == Opcode.ACKNOWLEDGE) {
                int opc = w.opcode;
                if (opc == OP_RDMA_READ || opc == OP_CMP_SWP || opc == OP_FETCH_ADD) {
                    return Reject.BAD_OPCODE;
                }
                if (idx + 1 > acked) {
                    acked = idx + 1;
                    if (acked == packets) {
                        finish(SUCCESS);
                    } else {
                        pump();
                        armTimer();
                    }
                }
                return null;
            }
            if (op == Opcode.ATOMIC_ACKNOWLEDGE) {
                if (w.opcode != OP_CMP_SWP && w.opcode != OP_FETCH_ADD) {
                    return Reject.BAD_OPCODE;
                }
                w.sgeSegment[0].set(ValueLayout.JAVA_LONG_UNALIGNED, w.sgeOffset[0], p.origRemoteData);
                w.length = 8;
                finish(SUCCESS);
                return null;
            }
            return readResponse(w, p, in, idx);
        } finally {
            qp.release();
        }
    }

    private Reject readResponse(SendWqe w, Packet p, ByteBuffer in, int idx) {
        if (w.opcode != OP_RDMA_READ) {
            return Reject.BAD_OPCODE;
        }
        if (idx != acked) {
            // Out of order: the timer asks again for the rest.
            return Reject.BAD_PSN;
        }
        int expected = packets == 1 ? Opcode.RDMA_READ_RESPONSE_ONLY : idx == 0 ? Opcode.RDMA_READ_RESPONSE_FIRST
                : idx == packets - 1 ? Opcode.RDMA_READ_RESPONSE_LAST : Opcode.RDMA_READ_RESPONSE_MIDDLE;
        if (Opcode.operation(p.opcode) != expected) {
            return Reject.BAD_OPCODE;
        }
        long at = (long) idx * mtu;
        if (p.payloadLength != Math.min(mtu, w.length - at)) {
            return Reject.BAD_LENGTH;
        }
        Transfer.scatterToSges(w, at, MemorySegment.ofBuffer(in), p.payloadOffset(), p.payloadLength);
        acked = idx + 1;
        if (acked == packets) {
            finish(SUCCESS);
        } else {
            armTimer();
        }
        return null;
    }

    /** Hands the answer to the requester; an RNR NAK keeps the message for its retry. */
    private void finish(int status) {
        timerGeneration++;
        if (status != RNR_NAK) {
            cur = null;
        }
        qp.answer(status);
    }

    // ---------------------------------------------------------------- the retransmission timer

    private void armTimer() {
        int code = qp.timeoutCode();
        if (code == 0) {
            return;
        }
        int generation = ++timerGeneration;
        // 4.096 microseconds times 2^timeout (IBA 9.7.6.1.3).
        long micros = Math.max(1, (4096L << Math.min(code, 31)) / 1000);
        EngineTimer.schedule(() -> onTimeout(generation), micros);
    }

    private void onTimeout(int generation) {
        qp.lock.lock();
        try {
            if (generation != timerGeneration || cur == null || qp.isClosed() || qp.state != QpState.RTS
                    && qp.state != QpState.SQD) {
                return;
            }
            if (retriesLeft == 0) {
                finish(RETRY_EXC_ERR);
                return;
            }
            retriesLeft--;
            sent = acked;
            pump();
            armTimer();
        } finally {
            qp.release();
        }
    }
}
