package org.verbs4j.provider.emulated.cm;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.verbs4j.provider.emulated.wire.PacketSender;
import org.verbs4j.provider.emulated.wire.RoceEndpoint;
import org.verbs4j.provider.emulated.wire.codec.CmMad;
import org.verbs4j.provider.emulated.wire.codec.Opcode;
import org.verbs4j.provider.emulated.wire.codec.Packet;

/**
 * The sending side of a wire device's QP1 (the GSI QP) for its {@link CmAgent}: each CM MAD goes in one UD
 * SEND_ONLY from QP1 to QP1 with the GSI Q_Key, as Linux's ib_cm sends it over rxe. The MAD under construction
 * ({@link #begin}) is guarded by the connection manager's lock; the packet buffer by this sender.
 */
public final class GsiSender {
    private static final System.Logger LOG = System.getLogger(CmAgent.class.getName());

    private final RoceEndpoint endpoint;
    private final String deviceName;
    private final PacketSender sender = new PacketSender();
    private final CmMad out = new CmMad();
    private int gsiPsn;

    GsiSender(RoceEndpoint endpoint, String deviceName) {
        this.endpoint = endpoint;
        this.deviceName = deviceName;
    }

    /** {@return the one outgoing MAD, cleared, as message {@code attr} of transaction {@code tid}} */
    CmMad begin(int attr, long tid) {
        return out.begin(attr, tid);
    }

    /** Sends a MAD to QP1 of {@code to}'s device; returns its bytes, for a retry. */
    byte[] send(CmMad m, InetSocketAddress to) {
        ByteBuffer b = ByteBuffer.allocate(CmMad.LENGTH);
        m.write(b, 0);
        LOG.log(Level.DEBUG, () -> deviceName + ": sending " + m + " to " + to);
        byte[] mad = b.array();
        sendBytes(mad, to);
        return mad;
    }

    /** A UD SEND_ONLY from QP1 to QP1, with the GSI Q_Key, carrying one MAD's bytes. */
    void sendBytes(byte[] mad, InetSocketAddress to) {
        synchronized (sender) {
            Packet p = sender.begin(Opcode.UD | Opcode.SEND_ONLY, CmMad.GSI_QPN, gsiPsn);
            gsiPsn = gsiPsn + 1 & Packet.MASK_24;
            p.pkey = Packet.DEFAULT_PKEY;
            p.qkey = CmMad.GSI_QKEY;
            p.srcQpn = CmMad.GSI_QPN;
            p.payloadLength = CmMad.LENGTH;
            int at = p.writeHeaders(sender.buf);
            sender.buf.put(at, mad);
            sender.emit(endpoint, to);
        }
    }

    /** A REJ of the message {@code rejected} (REQ, REP or other), with the reason and private data. */
    void reject(int remoteCommId, int localCommId, long tid, int rejected, int reason, byte[] privateData,
                InetSocketAddress to) {
        CmMad m = out.begin(CmMad.ATTR_REJ, tid);
        m.localCommId = localCommId;
        m.remoteCommId = remoteCommId;
        m.messageRejected = rejected;
        m.rejectInfoLength = 0;
        m.reason = reason;
        m.privateData = privateData;
        send(m, to);
    }

    /** A DREP: the answer to a DREQ. */
    void drep(int localCommId, int remoteCommId, long tid, InetSocketAddress to) {
        CmMad m = out.begin(CmMad.ATTR_DREP, tid);
        m.localCommId = localCommId;
        m.remoteCommId = remoteCommId;
        send(m, to);
    }
}
