package org.verbs4j.tck;

import java.util.function.Consumer;
import org.verbs4j.AddressHandle;
import org.verbs4j.CompletionQueue;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * Two connected QPs of one testbed: {@code a} is usually the requester, {@code b} the responder. Each
 * has its own CQ for both its send and receive completions. On UD, {@code ah} reaches the port both use.
 *
 * @param testbed the testbed that made them
 * @param a the first QP, in RTS
 * @param b the second QP, in RTS
 * @param cqA a's CQ
 * @param cqB b's CQ
 * @param ah on UD, the address handle to the shared port; else null
 */
public record QpPair(Testbed testbed, QueuePair a, QueuePair b, CompletionQueue cqA, CompletionQueue cqB,
                     AddressHandle ah) {

    /** {@return the transport of both QPs} */
    public QpType type() {
        return a.type();
    }

    /**
     * Posts a one-SGE receive on b.
     *
     * @param wrId the receive's work request ID
     * @param mr the region to receive into
     * @param offset where in the region, bytes from its start
     * @param length how many bytes the receive takes at most
     */
    public void recvB(long wrId, MemoryRegion mr, long offset, int length) {
        b.postRecv(new RecvWr(wrId, Sge.of(mr, offset, length)));
    }

    /**
     * A signaled WR from a, addressed to b on UD.
     *
     * @param wrId its work request ID
     * @param op its opcode
     * @param local the region of its one SGE
     * @param offset where the SGE starts in the region, bytes
     * @param length the SGE's length, bytes, or -1 for a WR without SGE
     * @return the WR, not posted
     */
    public SendWr wr(long wrId, WrOpcode op, MemoryRegion local, long offset, int length) {
        SendWr wr = new SendWr().wrId(wrId).opcode(op).sendFlags(SendFlags.SIGNALED);
        if (length >= 0) {
            wr.sgList(Sge.of(local, offset, length));
        }
        return address(wr);
    }

    /**
     * Sets the UD destination (b, with the testbed's Q_Key) on a UD pair; does nothing otherwise.
     *
     * @param wr the WR to address
     * @return {@code wr}
     */
    public SendWr address(SendWr wr) {
        if (type() == QpType.UD) {
            wr.ud(ah, b.qpNum(), Testbed.QKEY);
        }
        return wr;
    }

    /**
     * Posts a WR on a and waits for its completion.
     *
     * @param wr a signaled WR
     * @return its completion on a's CQ
     */
    public WorkCompletion postA(SendWr wr) {
        a.postSend(wr);
        return Completions.awaitOne(cqA, "the completion of " + wr + " on QP 0x" + Integer.toHexString(a.qpNum()));
    }

    /**
     * Sends from a to b; a receive must be posted on b.
     *
     * @param wrId the SEND's work request ID
     * @param src the region to send from
     * @param offset where in the region, bytes
     * @param length how many bytes
     * @return a's completion of the SEND
     */
    public WorkCompletion send(long wrId, MemoryRegion src, long offset, int length) {
        return postA(wr(wrId, WrOpcode.SEND, src, offset, length));
    }

    /**
     * An RDMA WRITE from a.
     *
     * @param wrId its work request ID
     * @param src the region to write from, from its start
     * @param length how many bytes
     * @param remoteAddr the remote address to write to
     * @param rkey the remote region's rkey
     * @return a's completion of the WRITE
     */
    public WorkCompletion write(long wrId, MemoryRegion src, int length, long remoteAddr, int rkey) {
        return postA(wr(wrId, WrOpcode.RDMA_WRITE, src, 0, length).rdma(remoteAddr, rkey));
    }

    /**
     * An RDMA READ from a.
     *
     * @param wrId its work request ID
     * @param dst the region to read into, from its start
     * @param length how many bytes
     * @param remoteAddr the remote address to read from
     * @param rkey the remote region's rkey
     * @return a's completion of the READ
     */
    public WorkCompletion read(long wrId, MemoryRegion dst, int length, long remoteAddr, int rkey) {
        return postA(wr(wrId, WrOpcode.RDMA_READ, dst, 0, length).rdma(remoteAddr, rkey));
    }

    /**
     * Opens a's WR session, runs the body in it, and completes it ({@code ibv_wr_start}, {@code ibv_wr_complete}).
     *
     * @param body builds the session's WRs
     */
    public void session(Consumer<WrSession> body) {
        try (WrSession s = a.startWr()) {
            body.accept(s);
            s.complete();
        }
    }

    /**
     * Sets the UD destination on a session's last WR when this is a UD pair.
     *
     * @param s a's open WR session
     */
    public void address(WrSession s) {
        if (type() == QpType.UD) {
            s.setUdAddr(ah, b.qpNum(), Testbed.QKEY);
        }
    }
}
