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

    public QpType type() {
        return a.type();
    }

    /** Posts a one-SGE receive of {@code length} bytes at {@code offset} of {@code mr} on b. */
    public void recvB(long wrId, MemoryRegion mr, long offset, int length) {
        b.postRecv(new RecvWr(wrId, Sge.of(mr, offset, length)));
    }

    /** A signaled WR of {@code op} from a, with one SGE over {@code length} bytes at {@code offset} of {@code local}. */
    public SendWr wr(long wrId, WrOpcode op, MemoryRegion local, long offset, int length) {
        SendWr wr = new SendWr().wrId(wrId).opcode(op).sendFlags(SendFlags.SIGNALED);
        if (length >= 0) {
            wr.sgList(Sge.of(local, offset, length));
        }
        return address(wr);
    }

    /** Sets the UD destination (b, with the testbed's Q_Key) on a UD pair; does nothing otherwise. */
    public SendWr address(SendWr wr) {
        if (type() == QpType.UD) {
            wr.ud(ah, b.qpNum(), Testbed.QKEY);
        }
        return wr;
    }

    /** Posts {@code wr} on a and returns its completion on a's CQ. */
    public WorkCompletion postA(SendWr wr) {
        a.postSend(wr);
        return Completions.awaitOne(cqA, "the completion of " + wr + " on QP 0x" + Integer.toHexString(a.qpNum()));
    }

    /** Sends {@code length} bytes of {@code src} from a to b (a receive must be posted) and returns a's completion. */
    public WorkCompletion send(long wrId, MemoryRegion src, long offset, int length) {
        return postA(wr(wrId, WrOpcode.SEND, src, offset, length));
    }

    /** RDMA WRITE of {@code length} bytes from {@code src} to {@code remoteAddr} with {@code rkey}. */
    public WorkCompletion write(long wrId, MemoryRegion src, int length, long remoteAddr, int rkey) {
        return postA(wr(wrId, WrOpcode.RDMA_WRITE, src, 0, length).rdma(remoteAddr, rkey));
    }

    /** RDMA READ of {@code length} bytes from {@code remoteAddr} into {@code dst}. */
    public WorkCompletion read(long wrId, MemoryRegion dst, int length, long remoteAddr, int rkey) {
        return postA(wr(wrId, WrOpcode.RDMA_READ, dst, 0, length).rdma(remoteAddr, rkey));
    }

    /** Opens a's WR session, runs {@code body} in it, and completes it. */
    public void session(Consumer<WrSession> body) {
        try (WrSession s = a.startWr()) {
            body.accept(s);
            s.complete();
        }
    }

    /** Sets the UD destination on a session's last WR when this is a UD pair. */
    public void address(WrSession s) {
        if (type() == QpType.UD) {
            s.setUdAddr(ah, b.qpNum(), Testbed.QKEY);
        }
    }
}
