package org.verbs4j.examples;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.MemoryRegion;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.Sge;
import org.verbs4j.Verbs;
import org.verbs4j.WcFlags;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/*
 * UD send: a datagram from one UD QP to another, through an address handle.
 *
 * What it shows:
 * - UD QPs are not connected: INIT takes a Q_Key (toInitUd), RTR takes nothing (toState(RTR)), RTS only the
 *   first PSN (toRtsUnreliable). The destination is named per WR with setUdAddr(ah, remote QPN, Q_Key).
 * - The address handle is built from the receiver's GID with AhAttributes.roce(dgid, sgidIndex, port).
 * - Every receive buffer starts with a 40-byte Global Routing Header (GRH) slot: a message of n bytes needs a
 *   receive of 40 + n bytes, and the payload starts at byte 40. The completion's byte_len counts the 40 bytes,
 *   its wc_flags has GRH, and its src_qp names the sender.
 * - A UD message is at most one path MTU (queryPort(port).activeMtu()).
 *
 * Run: java -cp "examples/target/classes:$(cat examples/target/classpath.txt)" \
 *          org.verbs4j.examples.UdSend [message]
 */
public final class UdSend {
    private static final int PORT = 1;
    /** The Q_Key both QPs use; a message whose Q_Key differs from the receiver's is dropped silently. */
    private static final int QKEY = 0x11111111;
    /** The size of the GRH slot at the start of every UD receive buffer. */
    static final int GRH_BYTES = 40;

    private UdSend() {}

    /**
     * What the receiver saw.
     *
     * @param payload the text after the GRH slot
     * @param byteLen the completion's byte_len (40 + the payload's length)
     * @param grh whether the completion's wc_flags has GRH
     * @param srcQp the completion's src_qp
     * @param senderQpn the sending QP's number, to compare with
     */
    record Outcome(String payload, int byteLen, boolean grh, int srcQp, int senderQpn) {}

    public static void main(String[] args) {
        String message = args.length > 0 ? args[0] : "a datagram";
        try (Context ctx = Verbs.provider().devices().get(0).open()) {
            Outcome o = run(ctx, message);
            System.out.println("received \"" + o.payload() + "\": byte_len " + o.byteLen() + " (40-byte GRH + "
                    + (o.byteLen() - GRH_BYTES) + "), GRH flag " + o.grh() + ", from QPN " + o.srcQp()
                    + " (sender " + o.senderQpn() + ")");
        }
    }

    static Outcome run(Context ctx, String message) {
        byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        int mtu = ctx.queryPort(PORT).activeMtu().bytes();
        if (bytes.length > mtu) {
            throw new IllegalArgumentException("a UD message is at most one MTU (" + mtu + " bytes): " + bytes.length);
        }
        int gidIndex = Endpoint.preferredGidIndex(ctx, PORT);
        try (Arena arena = Arena.ofConfined();
             ProtectionDomain pd = ctx.allocPd();
             CompletionQueue sendCq = ctx.createCq(16);
             CompletionQueue recvCq = ctx.createCq(16)) {
            MemorySegment sendBuf = arena.allocate(mtu, 64);
            MemorySegment recvBuf = arena.allocate(GRH_BYTES + mtu, 64);
            try (MemoryRegion sendMr = pd.registerMemory(sendBuf, 0, arena);
                 MemoryRegion recvMr = pd.registerMemory(recvBuf, AccessFlags.LOCAL_WRITE, arena);
                 QueuePair sender = pd.createQp(QpInitAttributes.builder(QpType.UD).cq(sendCq)
                         .sendOps(WrOpcode.SEND).build());
                 QueuePair receiver = pd.createQp(QpInitAttributes.builder(QpType.UD).cq(recvCq).build())) {
                for (QueuePair qp : new QueuePair[] {sender, receiver}) {
                    qp.modify(QpAttributes.toInitUd(PORT, 0, QKEY));
                    qp.modify(QpAttributes.toState(QpState.RTR));
                    qp.modify(QpAttributes.toRtsUnreliable(0));
                }
                // The receive first: 40 bytes of GRH, then room for one MTU of payload.
                receiver.postRecv(new RecvWr(7, Sge.of(recvMr, 0, GRH_BYTES + mtu)));

                // What the sender needs of the receiver: its GID (for the address handle), QPN and Q_Key.
                try (AddressHandle ah = pd.createAh(AhAttributes.roce(ctx.queryGid(PORT, gidIndex), gidIndex, PORT))) {
                    MemorySegment.copy(MemorySegment.ofArray(bytes), 0, sendBuf, 0, bytes.length);
                    try (WrSession s = sender.startWr()) {
                        s.wrId(1);
                        s.wrFlags(SendFlags.SIGNALED);
                        s.send();
                        s.setUdAddr(ah, receiver.qpNum(), QKEY);
                        s.setSge(sendMr.lkey(), sendMr.address(), bytes.length);
                        s.complete();
                    }
                    WorkCompletionBatch wc = new WorkCompletionBatch(1);
                    Completions.await(sendCq, wc, 1);
                    Completions.await(recvCq, wc, 1);
                    int len = wc.byteLen(0);
                    String payload = new String(recvBuf.asSlice(GRH_BYTES, len - GRH_BYTES).toArray(
                            ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                    return new Outcome(payload, len, (wc.wcFlags(0) & WcFlags.GRH) != 0, wc.srcQp(0), sender.qpNum());
                }
            }
        }
    }
}
