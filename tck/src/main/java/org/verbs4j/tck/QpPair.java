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
 * Two connected QPs: {@code a} is usually the requester, {@code b} the responder. Each has its own CQ for
 * both its send and receive completions. On UD, {@code ah} reaches b's port from a.
 *
 * <p>a belongs to {@code testbed} and b to {@code remote}: the same testbed for a loopback pair, or two testbeds
 * on two devices when the kit splits its pairs. A region that b receives into, or that a's RDMA and atomic WRs
 * target, must be registered in {@code remote}'s PD ({@link #remoteBuffer(long)}); a's own buffers in
 * {@code testbed}'s.
 *
 * @param testbed the testbed that made them, and a's
 * @param a the first QP, in RTS
 * @param b the second QP, in RTS
 * @param cqA a's CQ
 * @param cqB b's CQ
 * @param ah on UD, the address handle from a's PD to b's port; else null
 * @param remote b's testbed: {@code testbed} itself, or its {@linkplain Testbed#peer() peer} on another device
 */
public record QpPair(Testbed testbed, QueuePair a, QueuePair b, CompletionQueue cqA, CompletionQueue cqB,
                     AddressHandle ah, Testbed remote) {

    /**
     * A loopback pair, both QPs on one testbed.
     *
     * @param testbed the testbed that made them
     * @param a the first QP, in RTS
     * @param b the second QP, in RTS
     * @param cqA a's CQ
     * @param cqB b's CQ
     * @param ah on UD, the address handle to the shared port; else null
     */
    public QpPair(Testbed testbed, QueuePair a, QueuePair b, CompletionQueue cqA, CompletionQueue cqB,
                  AddressHandle ah) {
        this(testbed, a, b, cqA, cqB, ah, testbed);
    }

    /**
     * A zeroed buffer in b's PD with local write and every remote access ({@link Testbed#ALL_ACCESS}).
     *
     * @param bytes its size, bytes
     * @return the memory region, in {@link #remote()}'s PD
     */
    public MemoryRegion remoteBuffer(long bytes) {
        return remote.buffer(bytes);
    }

    /**
     * A zeroed buffer in b's PD.
     *
     * @param bytes its size, bytes
     * @param access the region's {@link org.verbs4j.AccessFlags}
     * @return the memory region, in {@link #remote()}'s PD
     */
    public MemoryRegion remoteBuffer(long bytes, int access) {
        return remote.buffer(bytes, access);
    }

    /**
     * Moves b, back in RESET, to RTS again, connected to a ({@link Testbed#bringUp(QueuePair, int, int, Testbed)}).
     *
     * @param rnrRetry the RNR retry count for RC, 0 to 7 (7 retries forever)
     */
    public void reconnectB(int rnrRetry) {
        remote.bringUp(b, a.qpNum(), rnrRetry, testbed);
    }

    /** {@return whether a and b are on two devices} */
    public boolean isSplit() {
        return remote != testbed;
    }

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
