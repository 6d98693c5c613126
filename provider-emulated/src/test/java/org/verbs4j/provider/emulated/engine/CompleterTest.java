package org.verbs4j.provider.emulated.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.WcStatus;

/**
 * The completer's order on an error: a poller on another thread (a wire device's receive thread fails the WQE) must
 * not see the error completion while the QP still reports RTS, nor a flushed WR before the error. A recording QP
 * notes the QP's state at the moment each completion is written, and when the queues are flushed.
 */
class CompleterTest {
    /** A QP in RTS that records what the completer does to it, in order. */
    private static final class RecordingQp {
        QpState state = QpState.RTS;
        final List<String> events = new ArrayList<>();

        EngineQp proxy() {
            CompletionSink cq = (wrId, status, opcode, byteLen, immData, qpNum, srcQp, wcFlags, solicited) -> {
                events.add("completion " + WcStatus.of(status) + " with the QP in " + state);
                return true;
            };
            return (EngineQp) Proxy.newProxyInstance(EngineQp.class.getClassLoader(), new Class<?>[] {EngineQp.class},
                    (self, m, args) -> switch (m.getName()) {
                        case "qpNum" -> 7;
                        case "type" -> QpType.RC;
                        case "state" -> state;
                        case "sendCq" -> cq;
                        case "beginError" -> {
                            QpState was = state;
                            state = QpState.ERR;
                            yield was;
                        }
                        case "finishError" -> {
                            events.add("flush");
                            yield null;
                        }
                        case "enterError" -> {
                            state = QpState.ERR;
                            events.add("flush");
                            yield null;
                        }
                        default -> throw new UnsupportedOperationException(m.getName());
                    });
        }
    }

    @Test
    @DisplayName("A failed WQE's completion is written with the QP already in ERR, and before the flush")
    void errorCompletionAfterStateBeforeFlush() {
        RecordingQp qp = new RecordingQp();
        Completer c = new Completer(qp.proxy(), null);
        SendWqe w = new SendWqe(1, MemorySegment.ofArray(new byte[8]));
        w.reset(1, SendWqe.OP_SEND, 0, true);
        assertEquals(Requester.DONE, c.fail(w, WcStatus.REM_ACCESS_ERR.value()));
        assertEquals(List.of("completion REM_ACCESS_ERR with the QP in ERR", "flush"), qp.events);
    }

    @Test
    @DisplayName("A successful completion leaves the QP's state alone")
    void successLeavesState() {
        RecordingQp qp = new RecordingQp();
        Completer c = new Completer(qp.proxy(), null);
        SendWqe w = new SendWqe(1, MemorySegment.ofArray(new byte[8]));
        w.reset(2, SendWqe.OP_SEND, 0, true);
        assertEquals(Requester.DONE, c.finish(w, WcStatus.SUCCESS.value()));
        assertEquals(List.of("completion SUCCESS with the QP in RTS"), qp.events);
    }
}
