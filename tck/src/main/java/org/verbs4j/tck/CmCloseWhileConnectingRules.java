package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.CmEvent;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmEventType;
import org.verbs4j.CmId;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.QpState;

/**
 * An active id closed while its connect waits for the answer (issue 26: a rule written for the survivors of
 * mutation testing of the wire device's connection manager, {@code CmAgent}, tck/reports/mutation.md). The
 * kernel's CM rejects the request it sent as it destroys such an id ({@code IB_CM_REJ_TIMEOUT}, with no remote
 * communication ID: the answer never came), so the passive side's request id gets REJECTED instead of waiting
 * for an RTU that will not come; the close itself neither waits for the peer nor leaves the id on its channel.
 */
public abstract class CmCloseWhileConnectingRules extends CmArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected CmCloseWhileConnectingRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    @Test
    @DisplayName("required_ an active id closed while its connect waits for the answer (its QP destroyed first) closes without waiting for the peer; the passive side's request id gets REJECTED (status 4, timeout, on IB and RoCE) and closes; the active channel, with no id left, closes; the listener takes the next connect [rdma_destroy_id(3), rdma_get_cm_event(3) REJECTED, rdma_destroy_event_channel(3)]")
    void required_closeWhileConnectingRejectsThePeer() throws Exception {
        assumeCm();
        CmBench.Setup s = cm.setup();
        CmEventChannel lch = s.listenChannel();
        CmBench.End a = s.active();
        CmId active = a.id();
        active.connect(ConnectionParameters.of(text("going away")));
        CmEvent req = CmBench.expect(lch, CmEventType.CONNECT_REQUEST, "rdma_connect");
        CmId child = cm.keep(req.id());
        // No answer: the active side gives up before the passive side accepts or rejects.
        active.destroyQp();
        CompletableFuture<Void> closing = CompletableFuture.runAsync(active::close);
        closing.get(CmBench.EVENT_WAIT_MS, TimeUnit.MILLISECONDS);
        assertTrue(active.isClosed(), "the connecting id after close()");
        CmEvent rej = CmBench.expect(lch, CmEventType.REJECTED, "the active id closed while connecting");
        assertSame(child, rej.id(), "REJECTED names the request's id");
        if (ibCm()) {
            assertEquals(CmEvent.REJECT_TIMEOUT, rej.status(), "the IB CM reject reason of a request given up");
        }
        assertNull(a.channel().getEvent(Completions.QUIET_MS, TimeUnit.MILLISECONDS),
                "an event on the closed id's channel");
        a.channel().close();
        assertTrue(a.channel().isClosed(), "the channel of the closed id: no id left on it");
        child.close();
        assertTrue(child.isClosed(), "the rejected request's id, which has no QP");

        CmEventChannel next = cm.channel();
        CmId again = cm.resolved(next, s.listener().localAddress().getPort());
        CmBench.End b = cm.end(next, again);
        again.connect(ConnectionParameters.defaults());
        CmId child2 = cm.keep(CmBench.expect(lch, CmEventType.CONNECT_REQUEST, "the next rdma_connect").id());
        cm.end(lch, child2);
        child2.accept(ConnectionParameters.defaults());
        CmBench.expect(next, CmEventType.ESTABLISHED, "rdma_accept of the next connect (active side)");
        CmBench.expect(lch, CmEventType.ESTABLISHED, "rdma_accept of the next connect (passive side)");
        assertEquals(QpState.RTS, b.qp().query().state(), "the next connection's QP");
    }
}
