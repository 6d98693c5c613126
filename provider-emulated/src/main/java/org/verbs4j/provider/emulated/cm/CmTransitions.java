package org.verbs4j.provider.emulated.cm;

import org.verbs4j.AhAttributes;
import org.verbs4j.Gid;
import org.verbs4j.GlobalRoute;
import org.verbs4j.Mtu;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpState;
import org.verbs4j.provider.emulated.verbs.EmulatedQueuePair;

/**
 * The QP transitions librdmacm makes for a connected id, shared by both {@link CmExchange}s: INIT to RTR to RTS
 * towards the peer's QP with the attributes the kernel CM gives, and to ERR when the connection ends.
 */
public final class CmTransitions {
    /** The GID index of an emulated device's IPv4-mapped GID, which the CM's paths use. */
    static final int GID_INDEX = 1;
    private static final int PORT_NUM = 1;
    /** The ACK timeout the CM gives RC requesters: 14, about 67 ms (the IB CM derives it from the path). */
    static final int ACK_TIMEOUT = 14;
    /** The RNR NAK timer the CM gives RC responders: 12, 0.64 ms, librdmacm's default. */
    private static final int MIN_RNR_TIMER = 12;

    /** The hop limit of a connection's route. */
    private static final int HOP_LIMIT = 64;

    private CmTransitions() {}

    /**
     * {@return the address vector of an id's route: global, to {@code gid} from the device's IPv4-mapped GID, hop
     * limit {@value #HOP_LIMIT}, with {@code trafficClass}, through the device's one port}
     */
    static AhAttributes route(Gid gid, int trafficClass) {
        return new AhAttributes(new GlobalRoute(gid, 0, GID_INDEX, HOP_LIMIT, trafficClass), 0, 0, 0, 0, PORT_NUM);
    }

    /** The id's local ACK timeout: its own ({@code RDMA_OPTION_ID_ACK_TIMEOUT}), else the CM's. */
    static int ackTimeout(EmulatedCmId id) {
        return id.ackTimeout >= 0 ? id.ackTimeout : ACK_TIMEOUT;
    }

    /**
     * INIT to RTR to RTS towards a QP known by its GID and QPN, expecting {@code rqPsn} and sending from
     * {@code sqPsn}.
     */
    static void bringUp(EmulatedCmId self, Gid gid, Mtu mtu, int qpn, int rqPsn, int sqPsn, int responderResources,
                        int initiatorDepth, int retryCount, int rnrRetryCount) {
        // The route's traffic class is the id's TOS (rdma_set_option), as the kernel's RoCE route takes it.
        AhAttributes av = route(gid, self.routeTos);
        self.queuePair().modify(QpAttributes.toRtr(av, mtu, qpn, rqPsn, Math.max(1, responderResources),
                MIN_RNR_TIMER));
        self.queuePair().modify(QpAttributes.toRts(sqPsn, ackTimeout(self), retryCount, rnrRetryCount,
                Math.max(1, initiatorDepth)));
    }

    /** The id's QP, if it has one that is open and not in ERR yet, to ERR. */
    static void toError(EmulatedCmId id) {
        EmulatedQueuePair q = id.queuePair();
        if (q != null && !q.isClosed() && q.state != QpState.ERR) {
            q.modify(QpAttributes.toState(QpState.ERR));
        }
    }
}
