package org.verbs4j.tck;

import org.verbs4j.CompletionQueue;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;
import org.verbs4j.XrcDomain;

/**
 * One XRC connection: an XRC_SEND QP on a testbed, in RTS, connected to an XRC_RECV QP of an XRC domain on the
 * testbed's peer, in RTR. The testbeds close everything; the rules close parts on purpose.
 *
 * @param xrcd the receiving side's XRC domain
 * @param send the XRC_SEND QP
 * @param sendCq its CQ
 * @param recv the XRC_RECV QP
 * @param recvSide the testbed of the receiving side
 */
record XrcLink(XrcDomain xrcd, QueuePair send, CompletionQueue sendCq, QueuePair recv, Testbed recvSide) {
    /**
     * Connects a new XRC_SEND QP of {@code tb} to a new XRC_RECV QP of {@code xrcd} on {@code tb}'s peer.
     *
     * @param tb the sending testbed
     * @param xrcd a domain of the peer's context
     * @param rnrRetry the sender's RNR retry count, 0 to 7
     * @param sendOps the opcodes of the sender's WR sessions, or none
     * @return the link
     */
    static XrcLink open(Testbed tb, XrcDomain xrcd, int rnrRetry, WrOpcode... sendOps) {
        Testbed far = tb.peer();
        CompletionQueue cq = tb.cq(16);
        QueuePair send = tb.qp(QpType.XRC_SEND, cq, b -> b.maxRecvWr(0).sendOps(sendOps));
        QueuePair recv = xrcd.createRecvQp();
        far.toInit(recv);
        far.toRtr(recv, send.qpNum(), tb);
        tb.bringUp(send, recv.qpNum(), rnrRetry, far);
        return new XrcLink(xrcd, send, cq, recv, far);
    }

    /**
     * An XRC SRQ of the link's domain, in the receiving side's PD, completing on {@code cq}.
     *
     * @param cq its CQ
     * @return the SRQ
     */
    SharedReceiveQueue srq(CompletionQueue cq) {
        return xrcd.createSrq(recvSide.pd(), cq, new SrqInitAttributes(16, 1, 0));
    }

    /**
     * Posts a signaled WR on the XRC_SEND QP for SRQ {@code srqn} and waits for its completion.
     *
     * @param wr the WR, without its SRQ number
     * @param srqn the SRQ it is for
     * @return its completion
     */
    WorkCompletion post(SendWr wr, int srqn) {
        send.postSend(wr.sendFlags(wr.sendFlags() | SendFlags.SIGNALED).remoteSrqn(srqn));
        return Completions.awaitOne(sendCq, "the completion of " + wr + " for SRQ 0x" + Integer.toHexString(srqn));
    }
}
