package org.verbs4j.provider.emulated.verbs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.WeakReference;
import java.nio.ByteOrder;

import org.verbs4j.AhAttributes;
import org.verbs4j.Gid;
import org.verbs4j.QpType;
import org.verbs4j.WcStatus;
import org.verbs4j.provider.emulated.engine.Responder;
import org.verbs4j.provider.emulated.engine.SendWqe;
import org.verbs4j.provider.emulated.engine.Transport;
import org.verbs4j.spi.support.MulticastAttachments;

/**
 * The in-JVM transport of one QP: it finds the peer QP in this JVM by the GID and QPN of the QP's address
 * vector (RC, UC) or of each WR's address handle (UD; a UD send to a multicast GID and QPN {@code 0xFFFFFF} reaches
 * every QP attached to the group on the in-JVM devices), hands the request straight to the peer's
 * {@link Responder} on the calling thread, and returns its answer. Nothing crosses a wire and nothing is
 * allocated.
 */
public final class InJvmTransport implements Transport {
    private static final int RETRY_EXC_ERR = WcStatus.RETRY_EXC_ERR.value();
    private static final int SUCCESS = WcStatus.SUCCESS.value();
    private static final ValueLayout.OfShort BIG_ENDIAN_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BIG_ENDIAN_INT =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final EmulatedQueuePair qp;
    /** The connected peer as last resolved (RC, UC), under the QP's lock. */
    private EmulatedQueuePair peer;
    /** XRC_SEND: the number of the last request's SRQ, which an RNR NAK waits on; under the QP's lock. */
    private int xrcSrqn;
    /** A GRH under construction, under the QP's lock. */
    private final MemorySegment grh = MemorySegment.ofArray(new byte[Responder.GRH_BYTES]);

    InJvmTransport(EmulatedQueuePair qp) {
        this.qp = qp;
    }

    @Override
    public int request(SendWqe w) {
        if (qp.type == QpType.UD) {
            return datagram(w);
        }
        EmulatedQueuePair p = connectedPeer();
        if (p == null) {
            // No QP takes the packets: RC and XRC retry until they give up, UC never learns.
            return qp.type == QpType.UC ? DROPPED : RETRY_EXC_ERR;
        }
        if (qp.type == QpType.XRC_SEND) {
            // The XRCETH names the SRQ; the receiving QP checks that its XRC domain has it.
            Responder r = p.xrcResponder(w.remoteSrqn);
            if (r == null) {
                return p.responder.invalidXrcSrq();
            }
            xrcSrqn = w.remoteSrqn;
            return r.receive(w, qp.qpn);
        }
        return p.responder.receive(w, qp.qpn);
    }

    @Override
    public int awaitReceive() {
        EmulatedQueuePair p = peer;
        EmulatedSharedReceiveQueue s = p.type == QpType.XRC_RECV ? p.xrc.srqs.get(xrcSrqn) : p.srq;
        if (s != null) {
            if (!s.rnrWaiters.contains(qp)) {
                s.rnrWaiters.add(qp);
            }
        } else {
            p.rnrWaiter = qp;
        }
        return p.minRnrTimer;
    }

    @Override
    public void reset(int attrMask) {
        peer = null;
    }

    /** The connected peer if it would accept a packet from this QP now, else null. */
    private EmulatedQueuePair connectedPeer() {
        EmulatedQueuePair p = peer;
        if (p == null || p.isClosed()) {
            AhAttributes a = qp.av;
            EmulatedDevice d = a == null || a.grh() == null ? null : EmulatedDevice.byGid(a.grh().dgid());
            p = d == null ? null : d.qps.get(qp.destQpn);
            if (p == null || p.type != peerType(qp.type) || p.av == null || p.av.grh() == null
                    || EmulatedDevice.byGid(p.av.grh().dgid()) != qp.device) {
                return null;
            }
            peer = p;
        }
        if (p.destQpn != qp.qpn || !Responder.receives(p.state)) {
            return null;
        }
        return p;
    }

    /** The type of the QP a connected QP of {@code type} talks to: its own, or XRC_RECV for XRC_SEND. */
    private static QpType peerType(QpType type) {
        return type == QpType.XRC_SEND ? QpType.XRC_RECV : type;
    }

    private int datagram(SendWqe w) {
        // The address vector is the WQE's from the post on, as rxe copies it into the WQE: a SEND posted before its
        // handle was destroyed goes out (its attributes never change), rather than failing when it executes.
        EmulatedAddressHandle ah = (EmulatedAddressHandle) w.ah;
        Gid dgid = ah.attributes.grh().dgid();
        if (w.remoteQpn == MULTICAST_QPN && MulticastAttachments.isMulticast(dgid)) {
            return multicast(w, ah, dgid);
        }
        EmulatedDevice d = EmulatedDevice.byGid(dgid);
        EmulatedQueuePair p = d == null ? null : d.qps.get(w.remoteQpn);
        if (p == null) {
            // A datagram that no QP takes is lost on the wire; the sender cannot tell.
            return DROPPED;
        }
        fillGrh(ah, w.length);
        return p.responder.receiveDatagram(w, qp.qpn, w.remoteQkey < 0 ? qp.qkey : w.remoteQkey, grh);
    }

    /**
     * A datagram to a multicast group: one copy to every QP attached to the group on every in-JVM device (the
     * fabric), this QP included when it is attached, each checked and received as a unicast datagram is. A QP that
     * takes none drops its copy; the sender cannot tell.
     */
    private int multicast(SendWqe w, EmulatedAddressHandle ah, Gid dgid) {
        fillGrh(ah, w.length);
        int qkey = w.remoteQkey < 0 ? qp.qkey : w.remoteQkey;
        int answer = DROPPED;
        for (EmulatedDevice d : EmulatedDevice.inJvmDevices()) {
            for (WeakReference<EmulatedQueuePair> ref : d.multicast.members(dgid)) {
                EmulatedQueuePair member = ref.get();
                if (member != null && !member.isClosed()
                        && member.responder.receiveDatagram(w, qp.qpn, qkey, grh) != DROPPED) {
                    answer = SUCCESS;
                }
            }
        }
        return answer;
    }

    /**
     * The GRH area rxe writes for RoCE v2: between IPv4-mapped GIDs, 20 unused bytes and the IPv4 header of the
     * packet (as the wire device writes it); else the IPv6 header: version, payload length, next header, hop
     * limit, SGID, DGID.
     */
    private void fillGrh(EmulatedAddressHandle ah, long payload) {
        grh.fill((byte) 0);
        int sgidIndex = ah.attributes.grh().sgidIndex();
        Gid sgid = qp.device.gid(sgidIndex);
        Gid dgid = ah.attributes.grh().dgid();
        if (isIpv4Mapped(sgid) && isIpv4Mapped(dgid)) {
            grh.set(ValueLayout.JAVA_BYTE, 20, (byte) 0x45);
            grh.set(ValueLayout.JAVA_BYTE, 21, (byte) ah.attributes.grh().trafficClass());
            // IPv4 + UDP + BTH + DETH + payload + ICRC, as on the wire.
            grh.set(BIG_ENDIAN_SHORT, 22, (short) (20 + 8 + 12 + 8 + payload + 4));
            grh.set(BIG_ENDIAN_SHORT, 26, (short) 0x4000);
            grh.set(ValueLayout.JAVA_BYTE, 28, (byte) ah.attributes.grh().hopLimit());
            grh.set(ValueLayout.JAVA_BYTE, 29, (byte) 17);
            grh.set(BIG_ENDIAN_INT, 32, (int) sgid.interfaceId());
            grh.set(BIG_ENDIAN_INT, 36, (int) dgid.interfaceId());
            int sum = 0;
            for (int i = 20; i < 40; i += 2) {
                sum += grh.get(BIG_ENDIAN_SHORT, i) & 0xffff;
            }
            sum = (sum & 0xffff) + (sum >>> 16);
            sum = (sum & 0xffff) + (sum >>> 16);
            grh.set(BIG_ENDIAN_SHORT, 30, (short) ~sum);
            return;
        }
        grh.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x60);
        grh.set(BIG_ENDIAN_SHORT, 4, (short) payload);
        grh.set(ValueLayout.JAVA_BYTE, 6, (byte) 0x11);
        grh.set(ValueLayout.JAVA_BYTE, 7, (byte) ah.attributes.grh().hopLimit());
        MemorySegment.copy(qp.device.gidBytes(sgidIndex), 0, grh, 8, 16);
        MemorySegment.copy(ah.dgidBytes, 0, grh, 24, 16);
    }

    /** {@code ::ffff:a.b.c.d}, the GID of an IPv4 address. */
    private static boolean isIpv4Mapped(Gid gid) {
        return gid.subnetPrefix() == 0 && (gid.interfaceId() >>> 32) == 0xffffL;
    }
}
