package org.verbs4j.provider.emulated.wire;

// Over 500 lines on purpose: the requester's half of RoCE v2 for one QP (cutting messages into packets, the PSN
// window, coalesced ACKs, go-back-N retransmission and the RNR wait) shares one window state under one lock; the
// responder, the packet formats and the CM agent are files of their own.

import static org.verbs4j.provider.emulated.engine.SendWqe.OP_CMP_SWP;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_FETCH_ADD;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_RDMA_READ;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_RDMA_WRITE;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_RDMA_WRITE_WITH_IMM;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_SEND_WITH_IMM;
import static org.verbs4j.provider.emulated.engine.SendWqe.OP_SEND_WITH_INV;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;

import org.verbs4j.Gid;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.WcStatus;
import org.verbs4j.provider.emulated.engine.SendWqe;
import org.verbs4j.provider.emulated.engine.Transfer;
import org.verbs4j.provider.emulated.engine.Transport;
import org.verbs4j.provider.emulated.verbs.EmulatedAddressHandle;
import org.verbs4j.provider.emulated.verbs.EmulatedQueuePair;
import org.verbs4j.provider.emulated.wire.codec.Opcode;
import org.verbs4j.provider.emulated.wire.codec.Packet;
import org.verbs4j.provider.emulated.wire.codec.Reject;

/**
 * The RoCE v2 transport of one QP of a wire device: the requester's half of the protocol (rxe's
 * {@code rxe_req.c} and {@code rxe_comp.c}). It cuts each message into packets of the path MTU
 * (FIRST, MIDDLE, LAST or ONLY) with consecutive PSNs and sends them through the device's {@link RoceEndpoint}.
 *
 * <p>On RC several messages are in flight, as in rxe: the requester hands over WQEs back to back
 * ({@link org.verbs4j.provider.emulated.engine.Requester}, which keeps rxe's fence and {@code max_rd_atomic}
 * rules), and this transport sends their packets as long as at most {@code cwnd} PSNs (a READ's response PSNs
 * included) are unacknowledged. A packet asks for an ACK at least every {@link #ACK_EVERY}th packet (every half
 * window once the window is smaller), and when it ends the newest message while no ACK asked for is outstanding; when
 * that ACK comes and packets sent after it are unacknowledged, the newest of them goes again asking for one (the
 * responder acknowledges a duplicate). So one ACK covers several messages, also when WRs are posted one at a time.
 * Answers complete the messages in order
 * ({@link org.verbs4j.provider.emulated.engine.Requester#answer}, always for the oldest): an ACK, READ response
 * or atomic ACK for a PSN also acknowledges every SEND and WRITE before it; a READ or atomic before it that has no
 * answer yet lost its response, and is sent again. Retransmission is go-back-N: after the QP's {@code timeout}
 * without progress, or on a PSN sequence error NAK, every packet from the first unacknowledged one (or from the
 * PSN the NAK names) is sent again, and after {@code retry_cnt} retries without progress the oldest WR completes
 * with {@code RETRY_EXC_ERR}; a timeout of 0 never retries, as in rxe. Other NAKs end the oldest WR with the
 * status their code names. An RNR NAK hands the WR back to the completer, which retries after the RNR timer the
 * NAK carries: the messages in flight are then sent again from the PSN the NAK names.
 *
 * <p>Go-back-N makes each loss cost what is in flight, so the window is a congestion window, as a RoCE NIC's rate
 * control and rxe's pacing keep it small on a lossy path: it starts at {@link #WINDOW} PSNs, halves (to at least
 * {@link #MIN_WINDOW}) with each retransmission, and grows back by one PSN per window of acknowledged PSNs. A
 * READ asks for at most what the window holds: a longer one goes out as several READ requests at consecutive PSNs,
 * each answered FIRST to LAST (or ONLY; at most {@code max_rd_atomic} READ requests and atomics unanswered), and a
 * gap in the oldest READ's responses asks again at once from the missing PSN rather than after the timeout.
 *
 * <p>The responder's half is {@link WireResponder}. Requester state is guarded by the QP's lock.
 */
public final class WireTransport implements Transport {
    // Over 600 lines: one state machine, rxe_req.c and rxe_comp.c's shape.
    /** The most unacknowledged PSNs (rxe's {@code RXE_MAX_UNACKED_PSNS}). */
    public static final int WINDOW = 128;
    /** At least every this many packets, the requester asks for an ACK. */
    static final int ACK_EVERY = 16;
    /** The smallest congestion window, in PSNs. */
    static final int MIN_WINDOW = 4;

    private static final int SUCCESS = WcStatus.SUCCESS.value();
    private static final int RETRY_EXC_ERR = WcStatus.RETRY_EXC_ERR.value();
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
    /** The first PSN of the next new message. */
    private int nextPsn;

    // The messages in flight (RC), oldest first: a ring as deep as the send queue, in the requester's order.
    private final SendWqe[] flight;
    private final int[] flightPsn;
    /** Request packets (SEND, WRITE) or response packets (READ) of each message; 1 for an atomic. */
    private final int[] flightPackets;
    private final int ringMask;
    private int oldest;
    private int count;
    /** The first PSN not acknowledged: in the oldest message. */
    private int ackPsn;
    /** The next PSN to send, and its message's place after the oldest ({@code count}: all sent). */
    private int sendPsn;
    private int sendIndex;
    /** One past the highest PSN sent: an answer beyond it names a packet never sent. */
    private int highPsn;
    /** The PSN of the last packet that asked for an ACK. */
    private int ackReqPsn;
    private int retriesLeft;
    /**
     * A retransmission is under way (rxe's {@code started_retry}): a late response or a NAK starts no other one,
     * only the timer does. Unlike rxe, which ends the state at the first progress, an acknowledgement ends it only
     * once everything sent when it started ({@link #retryHigh}) is acknowledged: answers to the first sending of
     * later READs and atomics that arrive after the retry's first answer (reordered, or late) would otherwise each
     * start another go-back. A PSN sequence NAK that names a later PSN than acknowledged ends it, as in rxe.
     */
    private boolean retrying;
    /** {@link #highPsn} when the retry under way started. */
    private int retryHigh;
    /** Retransmissions the timer started, and those an answer started (a late response, a NAK): for the tests. */
    private long timerRetries;
    private long answerRetries;
    /** Acknowledgements that moved the window: for the tests' progress watchdog. */
    private long progress;
    /**
     * The oldest READ's responses are inside a response message (a FIRST or MIDDLE came): MIDDLE or LAST is next;
     * otherwise FIRST or ONLY (rxe's completer keeps the expected opcode the same way, and resets it on a retry).
     */
    private boolean readInResponse;
    /** The congestion window in PSNs: {@link #WINDOW} at most, halved by each retransmission. */
    private int cwnd = WINDOW;
    /** PSNs acknowledged toward the window's next increment, and the acknowledged PSN they were counted to. */
    private int cwndCredit;
    private int cwndAckPsn;
    /** {@link #ackPsn} when the retry under way started: a gap in a READ's responses after it is a new loss. */
    private int retryPsn;
    /**
     * The end PSNs (exclusive) of the READ requests sent, in PSN order, a ring: a READ asked again stays inside a
     * request sent before: rxe's responder answers a repeated READ only within one it saw, and neither it nor this
     * device's moves its expected PSN for a repeat.
     */
    private final int[] readEnds = new int[WINDOW];
    private int readEndsHead;
    private int readEndsCount;
    /** An RNR NAK stopped sending until the requester hands the oldest WR over again. */
    private boolean rnrWait;
    /** The RNR timer code of the last RNR NAK, for {@link #awaitReceive}. */
    private int rnrTimer;
    // The retransmission timer: one task at a time, pushed back by progress rather than scheduled again.
    private int timerGeneration;
    private boolean timerArmed;
    private long lastProgress;

    public WireTransport(EmulatedQueuePair qp, RoceEndpoint endpoint) {
        this.qp = qp;
        this.endpoint = endpoint;
        this.responder = new WireResponder(qp, this);
        int n = qp.sendQueue().capacity();
        this.flight = new SendWqe[n];
        this.flightPsn = new int[n];
        this.flightPackets = new int[n];
        this.ringMask = n - 1;
    }

    /** Signed distance from PSN {@code b} to PSN {@code a} in the 24-bit PSN space. */
    static int psnDiff(int a, int b) {
        return (a - b) << 8 >> 8;
    }

    /**
     * The socket address of an IPv4-mapped GID on the device's port, or null for any other GID: a multicast GID's
     * ({@code ::ffff:224.0.0.0/4}) is its group's address, where the group's members on every device listen.
     */
    InetSocketAddress addressOf(Gid gid) {
        InetAddress a = RoceEndpoint.ipv4Of(gid);
        return a == null ? null : new InetSocketAddress(a, endpoint.localPort);
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
            forget();
        }
        if (s == QpState.RESET) {
            cwnd = WINDOW;
            cwndCredit = 0;
        }
        responder.reset(attrMask, s);
    }

    /** Drops every message in flight: the requester flushed them, or the QP was reset. */
    private void forget() {
        for (int i = 0; i < count; i++) {
            flight[(oldest + i) & ringMask] = null;
        }
        count = 0;
        sendIndex = 0;
        rnrWait = false;
        readInResponse = false;
        readEndsCount = 0;
        timerGeneration++;
        timerArmed = false;
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
        if (peer == null && count == 0) {
            return qp.type == QpType.UC ? DROPPED : RETRY_EXC_ERR;
        }
        int op = w.opcode;
        int packets = op == OP_CMP_SWP || op == OP_FETCH_ADD ? 1 : (int) Math.max(1, (w.length + mtu - 1) / mtu);
        if (qp.type == QpType.UC) {
            for (int i = 0; i < packets; i++) {
                sendSegment(w, nextPsn, packets, i, false);
            }
            nextPsn = (nextPsn + packets) & Packet.MASK_24;
            return SUCCESS;
        }
        if (count > 0 && w == flight[oldest]) {
            // After an RNR NAK: the oldest and every message behind it go again, from the PSN the NAK named.
            rnrWait = false;
            retriesLeft = qp.retryCount();
            retrying = false;
        } else {
            int m = (oldest + count) & ringMask;
            flight[m] = w;
            flightPsn[m] = nextPsn;
            flightPackets[m] = packets;
            if (count++ == 0) {
                ackPsn = nextPsn;
                sendPsn = nextPsn;
                sendIndex = 0;
                highPsn = nextPsn;
                ackReqPsn = (nextPsn - 1) & Packet.MASK_24;
                retriesLeft = qp.retryCount();
                retrying = false;
                readInResponse = false;
                readEndsCount = 0;
                cwndAckPsn = nextPsn;
            }
            nextPsn = (nextPsn + packets) & Packet.MASK_24;
        }
        pump();
        armTimer(false);
        return IN_FLIGHT;
    }

    /** Sends what the window allows, from {@link #sendPsn} on. */
    private void pump() {
        if (peer == null || rnrWait) {
            return;
        }
        while (sendIndex < count && psnDiff(sendPsn, ackPsn) < cwnd) {
            int m = (oldest + sendIndex) & ringMask;
            SendWqe w = flight[m];
            int first = flightPsn[m];
            int packets = flightPackets[m];
            int i = psnDiff(sendPsn, first);
            int op = w.opcode;
            if (op == OP_RDMA_READ) {
                // As many response PSNs as the window holds; the rest waits for room for half a window at least, so
                // a long READ goes out in a few requests, not one per response that frees a PSN.
                // A request asked again goes whole, to the end of the one it repeats, whatever the window: rxe's
                // responder serves a repeat only from at or after where its last repeat of that request started
                // (rxe_resp.c moves the resource's start there), so a repeat cut in two would make the first half
                // unreachable at the next go-back.
                boolean again = psnDiff(sendPsn, highPsn) < 0;
                int rest = again ? readEndAfter(sendPsn, packets - i) : packets - i;
                int n = again ? rest : Math.min(rest, cwnd - psnDiff(sendPsn, ackPsn));
                if (!again && (n < rest && n < cwnd / 2 || !readOrAtomicRoom())) {
                    break;
                }
                sendReadRequest(w, first, i, n);
                addReadEnd((sendPsn + n) & Packet.MASK_24);
                i += n - 1;
            } else if (op == OP_CMP_SWP || op == OP_FETCH_ADD) {
                if (psnDiff(sendPsn, highPsn) >= 0 && !readOrAtomicRoom()) {
                    break;
                }
                sendAtomic(w, first);
            } else {
                boolean newest = sendIndex == count - 1 && i == packets - 1;
                sendSegment(w, first, packets, i, newest && !ackAsked()
                        || psnDiff(sendPsn, ackReqPsn) >= Math.min(ACK_EVERY, Math.max(1, cwnd / 2)));
            }
            sendPsn = (first + i + 1) & Packet.MASK_24;
            if (i == packets - 1) {
                sendIndex++;
            }
            if (psnDiff(sendPsn, highPsn) > 0) {
                highPsn = sendPsn;
            }
        }
    }

    /** Whether a packet that asked for an ACK has not been answered yet: its answer will come (or the timer). */
    private boolean ackAsked() {
        return psnDiff(ackReqPsn, ackPsn) >= 0;
    }

    /**
     * After an answer: if packets were sent after the last one that asked for an ACK, and that ACK came, nothing
     * would answer them but the timer; so the newest packet sent goes again, asking for an ACK. The responder takes
     * it as a duplicate and acknowledges everything it has (or, if the first sending was lost, as the packet itself).
     * One such packet per answer, rather than an ACK asked of every newest message, is what keeps a requester that
     * posts one WR at a time from costing its peer an ACK per message.
     */
    private void askForTail() {
        if (peer == null || rnrWait || count == 0 || qp.isClosed() || ackAsked() || sendPsn != highPsn
                || psnDiff(highPsn, ackPsn) <= 0) {
            return;
        }
        int psn = (highPsn - 1) & Packet.MASK_24;
        for (int k = Math.min(sendIndex, count - 1); k >= 0; k--) {
            int m = (oldest + k) & ringMask;
            int i = psnDiff(psn, flightPsn[m]);
            if (i >= 0 && i < flightPackets[m]) {
                // A READ or atomic asked for its answer when it went; only a SEND or WRITE packet can be behind.
                if (!isReadOrAtomic(flight[m])) {
                    sendSegment(flight[m], flightPsn[m], flightPackets[m], i, true);
                }
                return;
            }
        }
    }

    /** Sends packet {@code i} of a SEND or WRITE of {@code packets} packets from PSN {@code first}. */
    private void sendSegment(SendWqe w, int first, int packets, int i, boolean ackReq) {
        int op = w.opcode;
        boolean write = op == OP_RDMA_WRITE || op == OP_RDMA_WRITE_WITH_IMM;
        boolean isFirst = i == 0;
        boolean last = i == packets - 1;
        int bth;
        if (isFirst && last) {
            bth = write ? (op == OP_RDMA_WRITE ? Opcode.RDMA_WRITE_ONLY : Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE)
                    : op == OP_SEND_WITH_IMM ? Opcode.SEND_ONLY_WITH_IMMEDIATE
                    : op == OP_SEND_WITH_INV ? Opcode.SEND_ONLY_WITH_INVALIDATE : Opcode.SEND_ONLY;
        } else if (isFirst) {
            bth = write ? Opcode.RDMA_WRITE_FIRST : Opcode.SEND_FIRST;
        } else if (last) {
            bth = write ? (op == OP_RDMA_WRITE ? Opcode.RDMA_WRITE_LAST : Opcode.RDMA_WRITE_LAST_WITH_IMMEDIATE)
                    : op == OP_SEND_WITH_IMM ? Opcode.SEND_LAST_WITH_IMMEDIATE
                    : op == OP_SEND_WITH_INV ? Opcode.SEND_LAST_WITH_INVALIDATE : Opcode.SEND_LAST;
        } else {
            bth = write ? Opcode.RDMA_WRITE_MIDDLE : Opcode.SEND_MIDDLE;
        }
        int psn = (first + i) & Packet.MASK_24;
        Packet p = begin(bth | transportPrefix(), psn);
        p.xrcSrqn = w.remoteSrqn;
        p.solicited = last && (w.flags & SendFlags.SOLICITED) != 0;
        if (ackReq) {
            p.ackReq = true;
            ackReqPsn = psn;
        }
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

    /**
     * Whether one more READ request or atomic may go out new: fewer than {@code max_rd_atomic} (at least one) are
     * unanswered. The requester keeps that many READ and atomic WRs in flight, and a READ longer than the window
     * takes several requests: rxe's responder keeps {@code max_dest_rd_atomic} of them for repeats, recycling the
     * oldest ("it is the requester's job not to send too many"), so a request past the limit could lose an older
     * one's repeat.
     */
    private boolean readOrAtomicRoom() {
        readEndAfter(sendPsn, 0);
        int out = readEndsCount;
        for (int k = 0; k < sendIndex; k++) {
            int op = flight[(oldest + k) & ringMask].opcode;
            if (op == OP_CMP_SWP || op == OP_FETCH_ADD) {
                out++;
            }
        }
        return out < Math.max(1, qp.maxRdAtomic());
    }

    /**
     * Records the end of a READ request just sent, in PSN order. A request asked again may be new to the responder
     * (the first one was lost), and then it, not the first, is what the responder holds: so every end ever sent is a
     * boundary no later request crosses, and each request is one the responder saw, or inside one.
     */
    private void addReadEnd(int end) {
        readEndAfter(sendPsn, 0);
        int k = 0;
        while (k < readEndsCount) {
            int d = psnDiff(readEnds[(readEndsHead + k) & (WINDOW - 1)], end);
            if (d == 0) {
                return;
            }
            if (d > 0) {
                break;
            }
            k++;
        }
        if (readEndsCount == WINDOW) {
            return;
        }
        for (int j = readEndsCount; j > k; j--) {
            readEnds[(readEndsHead + j) & (WINDOW - 1)] = readEnds[(readEndsHead + j - 1) & (WINDOW - 1)];
        }
        readEnds[(readEndsHead + k) & (WINDOW - 1)] = end;
        readEndsCount++;
    }

    /**
     * The PSNs from {@code psn} to the end of the READ request sent before that holds it ({@code otherwise} if none
     * does); requests wholly acknowledged are forgotten on the way.
     */
    private int readEndAfter(int psn, int otherwise) {
        while (readEndsCount > 0) {
            int end = readEnds[readEndsHead];
            if (psnDiff(end, ackPsn) <= 0) {
                readEndsHead = (readEndsHead + 1) & (WINDOW - 1);
                readEndsCount--;
                continue;
            }
            for (int k = 0; k < readEndsCount; k++) {
                int e = readEnds[(readEndsHead + k) & (WINDOW - 1)];
                if (psnDiff(e, psn) > 0) {
                    return Math.min(otherwise, psnDiff(e, psn));
                }
            }
            break;
        }
        return otherwise;
    }

    /** A READ request for {@code n} response packets of what has not arrived yet: from response packet {@code i} on. */
    private void sendReadRequest(SendWqe w, int first, int i, int n) {
        long at = (long) i * mtu;
        int psn = (first + i) & Packet.MASK_24;
        Packet p = begin(transportPrefix() | Opcode.RDMA_READ_REQUEST, psn);
        p.xrcSrqn = w.remoteSrqn;
        p.ackReq = true;
        ackReqPsn = psn;
        p.va = w.remoteAddr + at;
        p.rkey = w.rkey;
        p.dmaLength = (int) Math.min((long) n * mtu, w.length - at);
        p.payloadLength = 0;
        p.writeHeaders(tx.buf);
        emit(peer);
    }

    private void sendAtomic(SendWqe w, int psn) {
        Packet p = begin(transportPrefix() | (w.opcode == OP_CMP_SWP ? Opcode.COMPARE_SWAP : Opcode.FETCH_ADD), psn);
        p.xrcSrqn = w.remoteSrqn;
        p.ackReq = true;
        ackReqPsn = psn;
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
        return prefixOf(qp.type);
    }

    /** The BTH transport prefix of a connected QP type's packets: XRC for both XRC types. */
    static int prefixOf(QpType type) {
        return switch (type) {
            case UC -> Opcode.UC;
            case XRC_SEND, XRC_RECV -> Opcode.XRC;
            default -> Opcode.RC;
        };
    }

    private Packet begin(int opcode, int psn) {
        return tx.begin(opcode, qp.destQpn, psn);
    }

    private void emit(InetSocketAddress to) {
        tx.emit(endpoint, to);
    }

    /**
     * A UD SEND: one packet (SEND_ONLY, with immediate data or not) with the WQE's remote QPN and Q_Key in BTH and
     * DETH, to the IPv4 address of the handle's GID, a multicast group's too (remote QPN {@code 0xFFFFFF}); a GID
     * that is not IPv4-mapped (an IPv6 multicast GID included) reaches no one.
     */
    private int datagram(SendWqe w) {
        // The address vector is the WQE's from the post on, as rxe copies it into the WQE: a SEND posted before its
        // handle was destroyed goes out (its attributes never change), rather than failing when it executes.
        EmulatedAddressHandle ah = (EmulatedAddressHandle) w.ah;
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
        if (qp.type != QpType.RC && qp.type != QpType.XRC_SEND || Opcode.transport(p.opcode) != transportPrefix()) {
            return Reject.BAD_OPCODE;
        }
        qp.lock.lock();
        try {
            Reject r = answered(p, in, from);
            // Once the answer is taken whole: an ACK that completes several messages passes the PSN asked for on
            // the way, and a NAK goes back itself.
            askForTail();
            return r;
        } finally {
            qp.release();
        }
    }

    /** {@link #onResponse} under the QP's lock. */
    private Reject answered(Packet p, ByteBuffer in, InetSocketAddress from) {
        InetSocketAddress connected = peer;
        if (connected == null || !connected.getAddress().equals(from.getAddress())) {
            return Reject.FOREIGN_SOURCE;
        }
        if (qp.state == QpState.ERR || qp.state == QpState.RESET) {
            forget();
        }
        if (count == 0 || rnrWait || qp.isClosed() || !qp.awaitingAnswer()) {
            return Reject.BAD_PSN;
        }
        int psn = p.psn;
        if (psnDiff(psn, ackPsn) < 0 || psnDiff(psn, highPsn) >= 0) {
            return Reject.BAD_PSN;
        }
        // An answer for PSN psn acknowledges every SEND and WRITE before it.
        while (psnDiff(psn, flightPsn[oldest] + flightPackets[oldest] - 1) > 0) {
            if (count == 1) {
                return Reject.BAD_PSN;
            }
            if (isReadOrAtomic(flight[oldest])) {
                // Answered after it, so its own answer was lost: ask again, unless a retry is under way.
                retry(false);
                return null;
            }
            if (!completeOldest(SUCCESS)) {
                return null;
            }
        }
        SendWqe w = flight[oldest];
        int idx = psnDiff(psn, flightPsn[oldest]);
        if (Opcode.is(p.opcode, Opcode.AETH)) {
            int type = p.syndrome & Packet.AETH_TYPE_MASK;
            if (type == Packet.AETH_RNR_NAK) {
                rnrTimer = p.syndrome & 0x1f;
                rnrWait = true;
                sendPsn = psn;
                sendIndex = 0;
                // The NAK answers the ACK asked for: the packets sent again from psn ask anew.
                ackReqPsn = (psn - 1) & Packet.MASK_24;
                timerGeneration++;
                timerArmed = false;
                qp.answer(RNR_NAK);
                afterAnswer();
                return null;
            }
            if (type == Packet.AETH_NAK) {
                int code = p.syndrome & 0x1f;
                if (code == Packet.NAK_PSN_SEQUENCE_ERROR) {
                    // The responder expects psn: everything before it arrived (progress only if that is new).
                    if (!isReadOrAtomic(w) && psnDiff(psn, ackPsn) > 0) {
                        // The responder names a new gap: the retry under way (if any) got this far, so a new one
                        // may start (as rxe: progress ends started_retry).
                        ackPsn = psn;
                        retriesLeft = qp.retryCount();
                        retrying = false;
                        progress++;
                    }
                    retry(false);
                    return null;
                }
                completeOldest(NAK_STATUS[code]);
                return null;
            }
        }
        int op = Opcode.operation(p.opcode);
        if (op == Opcode.ACKNOWLEDGE) {
            if (isReadOrAtomic(w)) {
                return Reject.BAD_OPCODE;
            }
            ackPsn = (psn + 1) & Packet.MASK_24;
            if (idx == flightPackets[oldest] - 1) {
                completeOldest(SUCCESS);
            } else {
                progressed();
            }
            return null;
        }
        if (op == Opcode.ATOMIC_ACKNOWLEDGE) {
            if (w.opcode != OP_CMP_SWP && w.opcode != OP_FETCH_ADD) {
                return Reject.BAD_OPCODE;
            }
            w.sgeSegment[0].set(ValueLayout.JAVA_LONG_UNALIGNED, w.sgeOffset[0], p.origRemoteData);
            w.length = 8;
            completeOldest(SUCCESS);
            return null;
        }
        return readResponse(w, p, in, idx);
    }

    private static boolean isReadOrAtomic(SendWqe w) {
        int op = w.opcode;
        return op == OP_RDMA_READ || op == OP_CMP_SWP || op == OP_FETCH_ADD;
    }

    private Reject readResponse(SendWqe w, Packet p, ByteBuffer in, int idx) {
        if (w.opcode != OP_RDMA_READ) {
            return Reject.BAD_OPCODE;
        }
        if (p.psn != ackPsn) {
            // A gap: the response at ackPsn was lost (or comes late). Ask again from there at once, unless a retry
            // under way has not got past this point yet (then this is the rest of the stream it answered).
            if (psnDiff(ackPsn, retryPsn) > 0) {
                retrying = false;
            }
            retry(false);
            return Reject.BAD_PSN;
        }
        int packets = flightPackets[oldest];
        int got = Opcode.operation(p.opcode);
        boolean more = idx < packets - 1;
        // Each READ request (a long READ takes several) is answered FIRST, MIDDLE..., LAST, or ONLY; the READ's last
        // PSN ends a response. A request asked again from the middle of one sent before may be answered either
        // way: this device's responder starts again with FIRST or ONLY, rxe's replays the rest of the original
        // request's response, MIDDLE... LAST, or LAST alone at that request's end (rxe_resp.c, a duplicate READ
        // request after the first PSN of its resource), and rxe's completer takes both.
        boolean ok = readInResponse
                ? got == Opcode.RDMA_READ_RESPONSE_LAST || got == Opcode.RDMA_READ_RESPONSE_MIDDLE && more
                : got == Opcode.RDMA_READ_RESPONSE_ONLY || got == Opcode.RDMA_READ_RESPONSE_FIRST && more
                        || idx > 0 && (got == Opcode.RDMA_READ_RESPONSE_LAST
                                || got == Opcode.RDMA_READ_RESPONSE_MIDDLE && more);
        if (!ok) {
            return Reject.BAD_OPCODE;
        }
        long at = (long) idx * mtu;
        if (p.payloadLength != Math.min(mtu, w.length - at)) {
            return Reject.BAD_LENGTH;
        }
        Transfer.scatterToSges(w, at, MemorySegment.ofBuffer(in), p.payloadOffset(), p.payloadLength);
        readInResponse = got == Opcode.RDMA_READ_RESPONSE_FIRST || got == Opcode.RDMA_READ_RESPONSE_MIDDLE;
        ackPsn = (p.psn + 1) & Packet.MASK_24;
        if (idx == packets - 1) {
            completeOldest(SUCCESS);
        } else {
            progressed();
        }
        return null;
    }

    /**
     * Ends the oldest message with {@code status} and hands it to the requester.
     *
     * @return whether the QP goes on (not in ERR)
     */
    private boolean completeOldest(int status) {
        int m = oldest;
        flight[m] = null;
        ackPsn = (flightPsn[m] + flightPackets[m]) & Packet.MASK_24;
        oldest = (m + 1) & ringMask;
        count--;
        if (sendIndex > 0) {
            sendIndex--;
        } else {
            sendPsn = ackPsn;
        }
        qp.answer(status);
        return afterAnswer() && progressed();
    }

    /** After an answer: a QP the answer moved to ERR forgets its messages (the requester flushes them). */
    private boolean afterAnswer() {
        if (qp.state == QpState.ERR) {
            forget();
            return false;
        }
        return true;
    }

    /** The peer acknowledged something: the retries start over, and the window moves on. */
    private boolean progressed() {
        if (sendIndex == 0 && psnDiff(sendPsn, ackPsn) < 0) {
            // Gone back, and then acknowledged past the resend point by an answer to the first sending.
            sendPsn = ackPsn;
        }
        retriesLeft = qp.retryCount();
        progress++;
        int acked = psnDiff(ackPsn, cwndAckPsn);
        if (acked > 0) {
            // Additive increase: one PSN per window acknowledged.
            cwndAckPsn = ackPsn;
            cwndCredit += acked;
            while (cwnd < WINDOW && cwndCredit >= cwnd) {
                cwndCredit -= cwnd;
                cwnd++;
            }
        }
        if (retrying && psnDiff(ackPsn, retryHigh) >= 0) {
            retrying = false;
        }
        pump();
        armTimer(true);
        return true;
    }

    /**
     * Retransmits after a loss, as rxe's completer does: every retransmission spends one of the {@code retry_cnt}
     * retries, whatever triggered it, and with none left the oldest WR ends with {@code RETRY_EXC_ERR}. A late
     * response or a PSN sequence NAK ({@code timeout} false) starts no retry while one is under way: the timer
     * alone ends that wait, so the time without progress is at most {@code timeout} x ({@code retry_cnt} + 1).
     */
    private void retry(boolean timeout) {
        if (retrying && !timeout) {
            return;
        }
        if (retriesLeft == 0) {
            completeOldest(RETRY_EXC_ERR);
            return;
        }
        retriesLeft--;
        if (timeout) {
            timerRetries++;
        } else {
            answerRetries++;
        }
        retrying = true;
        retryHigh = highPsn;
        retryPsn = ackPsn;
        // Multiplicative decrease: each loss halves what the next one can cost.
        cwnd = Math.max(MIN_WINDOW, cwnd / 2);
        cwndCredit = 0;
        goBack(ackPsn);
    }

    /** Go-back-N: sends everything again from {@code psn}, the first unacknowledged PSN of the oldest message. */
    private void goBack(int psn) {
        sendPsn = psn;
        sendIndex = 0;
        ackReqPsn = (psn - 1) & Packet.MASK_24;
        readInResponse = false;
        pump();
        armTimer(true);
    }

    /**
     * The retransmissions so far by what started them, and the acknowledgements that moved the window:
     * {timer, answer, progress}, for the tests' packet bounds and progress watchdog.
     */
    public long[] retransmissions() {
        qp.lock.lock();
        try {
            return new long[] {timerRetries, answerRetries, progress};
        } finally {
            qp.release();
        }
    }

    // ---------------------------------------------------------------- the retransmission timer

    /**
     * Starts the timer from now if it is not running; {@code restart}: the peer answered, or everything
     * unacknowledged was sent again, so the wait starts over (new requests alone do not push it back).
     */
    private void armTimer(boolean restart) {
        int code = qp.timeoutCode();
        if (code == 0 || count == 0) {
            return;
        }
        if (restart || !timerArmed) {
            lastProgress = clock.nanoTime();
        }
        if (!timerArmed) {
            timerArmed = true;
            schedule(timeoutMicros(code));
        }
    }

    /** 4.096 microseconds times 2^timeout (IBA 9.7.6.1.3). */
    private static long timeoutMicros(int code) {
        return Math.max(1, (4096L << Math.min(code, 31)) / 1000);
    }

    private void schedule(long micros) {
        int generation = timerGeneration;
        clock.schedule(() -> onTimeout(generation), micros);
    }

    private void onTimeout(int generation) {
        qp.lock.lock();
        try {
            if (generation != timerGeneration || !timerArmed) {
                return;
            }
            timerArmed = false;
            if (count == 0 || rnrWait || qp.isClosed() || qp.state != QpState.RTS && qp.state != QpState.SQD) {
                return;
            }
            long timeout = timeoutMicros(qp.timeoutCode()) * 1000;
            long left = lastProgress + timeout - clock.nanoTime();
            if (left > 0) {
                // Progress since the timer started: wait out the rest.
                timerArmed = true;
                schedule(Math.max(1, left / 1000));
                return;
            }
            retry(true);
        } finally {
            qp.release();
        }
    }

    // The timer's clock last, so that the lines above keep the numbers mutation.md's triage gives them.

    /** What the timer reads and waits on (under the QP's lock, as the rest of this class's state). */
    private WireClock clock = WireClock.SYSTEM;

    /**
     * Makes this QP's ACK timer read and wait on {@code clock} from now on: for tests, which move a clock of their
     * own by hand. Set it before the first post; a timer task already scheduled still runs on the old clock.
     *
     * @throws NullPointerException if {@code clock} is null
     */
    public void useClock(WireClock clock) {
        Objects.requireNonNull(clock, "clock");
        qp.lock.lock();
        try {
            this.clock = clock;
        } finally {
            qp.release();
        }
    }
}
