package org.verbs4j.tck;

// Over 500 lines on purpose: one TCK area (tck/README.md lists one class per area): the QP state machine's rules,
// one method per transition rule of ibv_modify_qp(3).

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.AccessFlags;
import org.verbs4j.AsyncEvent;
import org.verbs4j.AsyncEventType;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Ece;
import org.verbs4j.Errno;
import org.verbs4j.LinkLayer;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.VerbsException;

/**
 * The QP state machine of {@code ibv_modify_qp(3)} and IBA 10.3: legal transitions with their required
 * attributes, illegal transitions and missing or disallowed attributes (EINVAL, state unchanged), and
 * query returning what modify set.
 */
public abstract class QpStateRules extends TckArea {
    // Over 600 lines: one TCK area (one @Nested class, one report section).
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected QpStateRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private CompletionQueue cq;

    private QueuePair fresh(QpType type) {
        assumeQp(type);
        if (cq == null || cq.isClosed()) {
            cq = tb.cq(64);
        }
        return tb.qp(type, cq, null);
    }

    /** A QP of {@code type} brought to {@code state}, its peer being another (idle) QP. */
    private QueuePair in(QpType type, QpState state) {
        QueuePair qp = fresh(type);
        QueuePair peer = fresh(type);
        if (state == QpState.RESET) {
            return qp;
        }
        tb.toInit(qp);
        if (state == QpState.INIT) {
            return qp;
        }
        tb.toRtr(qp, peer.qpNum());
        if (state == QpState.RTR) {
            return qp;
        }
        tb.toRts(qp, 7);
        if (state == QpState.RTS) {
            return qp;
        }
        qp.modify(QpAttributes.toState(state));
        return qp;
    }

    private static QpAttributes without(QpAttributes a, int bit) {
        return a.mask(a.mask() & ~bit);
    }

    private void refusedKeepsState(QueuePair qp, QpAttributes attrs, String rule) {
        QpState before = qp.state();
        Expect.errno(rule, () -> qp.modify(attrs), Errno.EINVAL);
        assertEquals(before, qp.state(), rule + ": a failed modify must leave the QP in " + before);
        assertEquals(before, qp.query().state(), rule + ": query after a failed modify");
    }

    private QpAttributes rcRtr(QueuePair peer) {
        return QpAttributes.toRtr(tb.av(), tb.mtu(), peer.qpNum(), Testbed.PSN, 1, Testbed.MIN_RNR_TIMER);
    }

    // ------------------------------------------------------------- creation

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = QpType.class, names = {"RC", "UC", "UD"})
    @DisplayName("required_ a new QP is in RESET, of the type asked for, in its PD [ibv_create_qp(3)]")
    void required_createdInReset(QpType type) {
        QueuePair qp = fresh(type);
        assertEquals(QpState.RESET, qp.state());
        assertEquals(QpState.RESET, qp.query().state());
        assertEquals(type, qp.type());
        assertSame(tb.pd(), qp.pd());
    }

    @Test
    @DisplayName("required_ QP numbers are 24-bit and distinct between live QPs [ibv_create_qp(3) qp_num]")
    void required_qpNumbers() {
        QueuePair a = fresh(QpType.RC);
        QueuePair b = fresh(QpType.RC);
        assertTrue((a.qpNum() & ~0xffffff) == 0 && (b.qpNum() & ~0xffffff) == 0, "QPNs are 24-bit");
        assertNotEquals(a.qpNum(), b.qpNum());
    }

    @Test
    @DisplayName("required_ a QP is granted at least the queue sizes asked for [ibv_create_qp(3) cap]")
    void required_grantedCaps() {
        assumeQp(QpType.RC);
        QueuePair qp = tb.qp(QpType.RC, tb.cq(64), b -> b.maxSendWr(10).maxRecvWr(12).maxSendSge(1).maxRecvSge(1)
                .maxInlineData(Math.min(32, caps().maxInlineData())));
        QpCapabilities cap = qp.initAttributes().cap();
        assertTrue(cap.maxSendWr() >= 10 && cap.maxRecvWr() >= 12, "granted " + cap);
        assertTrue(cap.maxSendSge() >= 1 && cap.maxRecvSge() >= 1, "granted " + cap);
        assertTrue(cap.maxInlineData() >= Math.min(32, caps().maxInlineData()), "granted " + cap);
    }

    @Test
    @DisplayName("required_ a QP with more send WRs than max_qp_wr is refused [ibv_create_qp(3) EINVAL]")
    void required_tooManyWrs() {
        assumeQp(QpType.RC);
        int max = tb.deviceAttributes().maxQpWr();
        Expect.refused("createQp(maxSendWr = max_qp_wr + 1)", () -> tb.qp(QpType.RC, tb.cq(8), b -> b.maxSendWr(max + 1)));
    }

    @Test
    @DisplayName("required_ a QP with more SGEs than max_sge is refused [ibv_create_qp(3) EINVAL]")
    void required_tooManySges() {
        assumeQp(QpType.RC);
        int max = tb.deviceAttributes().maxSge();
        Expect.refused("createQp(maxSendSge = max_sge + 1)", () -> tb.qp(QpType.RC, tb.cq(8), b -> b.maxSendSge(max + 1)));
    }

    @Test
    @DisplayName("required_ a QP with more inline data than the device supports is refused [ibv_create_qp(3) max_inline_data]")
    void required_tooMuchInline() {
        assumeQp(QpType.RC);
        int max = caps().maxInlineData();
        Expect.refused("createQp(maxInlineData = " + (max + 1) + ")",
                () -> tb.qp(QpType.RC, tb.cq(8), b -> b.maxInlineData(max + 1)));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(QpType.class)
    @DisplayName("required_ a QP type the capabilities do not list cannot be created [Capabilities.qpTypes, ibv_create_qp(3) EOPNOTSUPP]")
    void required_unsupportedTypeRefused(QpType type) {
        org.junit.jupiter.api.Assumptions.assumeFalse(caps().supports(type),
                () -> "capability: " + type + " is supported, so this rule does not apply");
        Expect.refused("createQp(" + type + ")", () -> tb.qp(type, tb.cq(8), null));
    }

    @Test
    @DisplayName("required_ a QP cannot use a CQ of another context [ibv_create_qp(3)]")
    void required_cqOfOtherContext() {
        try (Context other = tb.device().open()) {
            CompletionQueue foreign = other.createCq(8);
            Expect.badInput("createQp(cq of another context)", () -> tb.qp(QpType.RC, foreign, null));
        }
    }

    @Test
    @DisplayName("required_ a QP cannot use a closed CQ [ibv_create_qp(3)]")
    void required_closedCq() {
        CompletionQueue dead = tb.cq(8);
        dead.close();
        Expect.refused("createQp(closed cq)", () -> tb.qp(QpType.RC, dead, null));
    }

    // ------------------------------------------------------------- RESET -> INIT

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = QpType.class, names = {"RC", "UC", "UD"})
    @DisplayName("required_ RESET to INIT with the required attributes succeeds and query returns them [ibv_modify_qp(3), IBA 10.3]")
    void required_resetToInit(QpType type) {
        QueuePair qp = fresh(type);
        tb.toInit(qp);
        assertEquals(QpState.INIT, qp.state());
        QpAttributes q = qp.query();
        assertEquals(QpState.INIT, q.state());
        assertEquals(tb.port(), q.port(), "query().port()");
        assertEquals(0, q.pkeyIndex(), "query().pkeyIndex()");
        if (type == QpType.UD) {
            assertEquals(Testbed.QKEY, q.qkey(), "query().qkey()");
        } else {
            assertEquals(Testbed.QP_ACCESS, q.accessFlags(), "query().accessFlags()");
        }
    }

    @ParameterizedTest(name = "without {0}")
    @ValueSource(strings = {"PORT", "PKEY_INDEX", "ACCESS_FLAGS"})
    @DisplayName("required_ RC RESET to INIT without a required attribute fails with EINVAL [ibv_modify_qp(3), IBA table 10.3]")
    void required_rcInitRequires(String attr) {
        QueuePair qp = fresh(QpType.RC);
        refusedKeepsState(qp, without(QpAttributes.toInit(tb.port(), 0, Testbed.QP_ACCESS), bit(attr)),
                "RC RESET->INIT without " + attr);
    }

    @ParameterizedTest(name = "without {0}")
    @ValueSource(strings = {"PORT", "PKEY_INDEX", "ACCESS_FLAGS"})
    @DisplayName("required_ UC RESET to INIT without a required attribute fails with EINVAL [ibv_modify_qp(3), IBA table 10.3]")
    void required_ucInitRequires(String attr) {
        QueuePair qp = fresh(QpType.UC);
        refusedKeepsState(qp, without(QpAttributes.toInit(tb.port(), 0, Testbed.QP_ACCESS), bit(attr)),
                "UC RESET->INIT without " + attr);
    }

    @ParameterizedTest(name = "without {0}")
    @ValueSource(strings = {"PORT", "PKEY_INDEX", "QKEY"})
    @DisplayName("required_ UD RESET to INIT without a required attribute fails with EINVAL [ibv_modify_qp(3), IBA table 10.3]")
    void required_udInitRequires(String attr) {
        QueuePair qp = fresh(QpType.UD);
        refusedKeepsState(qp, without(QpAttributes.toInitUd(tb.port(), 0, Testbed.QKEY), bit(attr)),
                "UD RESET->INIT without " + attr);
    }

    @Test
    @DisplayName("required_ UD RESET to INIT with ACCESS_FLAGS, an attribute UD does not allow, fails with EINVAL [IBA table 10.3]")
    void required_udInitRejectsAccessFlags() {
        QueuePair qp = fresh(QpType.UD);
        refusedKeepsState(qp, QpAttributes.toInitUd(tb.port(), 0, Testbed.QKEY).accessFlags(AccessFlags.REMOTE_WRITE),
                "UD RESET->INIT with ACCESS_FLAGS");
    }

    @Test
    @DisplayName("required_ RC RESET to INIT with QKEY, an attribute RC does not allow, fails with EINVAL [IBA table 10.3]")
    void required_rcInitRejectsQkey() {
        QueuePair qp = fresh(QpType.RC);
        refusedKeepsState(qp, QpAttributes.toInit(tb.port(), 0, Testbed.QP_ACCESS).qkey(5), "RC RESET->INIT with QKEY");
    }

    @Test
    @DisplayName("required_ RESET to INIT on a port the device lacks is refused [ibv_modify_qp(3) port_num]")
    void required_initBadPort() {
        QueuePair qp = fresh(QpType.RC);
        int bad = tb.deviceAttributes().physPortCnt() + 1;
        Expect.refused("RESET->INIT on port " + bad, () -> qp.modify(QpAttributes.toInit(bad, 0, Testbed.QP_ACCESS)));
        assertEquals(QpState.RESET, qp.state());
    }

    @Test
    @DisplayName("required_ RESET to INIT with a P_Key index beyond the P_Key table is refused [ibv_modify_qp(3) pkey_index]")
    void required_initBadPkeyIndex() {
        QueuePair qp = fresh(QpType.RC);
        int bad = tb.portAttributes().pkeyTblLen();
        Expect.refused("RESET->INIT with pkey_index " + bad, () -> qp.modify(QpAttributes.toInit(tb.port(), bad, Testbed.QP_ACCESS)));
        assertEquals(QpState.RESET, qp.state());
    }

    @Test
    @DisplayName("required_ INIT to INIT may change the access flags [IBA table 10.3: INIT->INIT optional attributes]")
    void required_initToInit() {
        QueuePair qp = in(QpType.RC, QpState.INIT);
        qp.modify(QpAttributes.toState(QpState.INIT).accessFlags(AccessFlags.REMOTE_READ));
        assertEquals(QpState.INIT, qp.state());
        assertEquals(AccessFlags.REMOTE_READ, qp.query().accessFlags());
    }

    // ------------------------------------------------------------- illegal transitions

    @ParameterizedTest(name = "RESET -> {0}")
    @EnumSource(value = QpState.class, names = {"RTR", "RTS", "SQD", "SQE"})
    @DisplayName("required_ RESET can only go to INIT, RESET or ERR: other targets fail with EINVAL [IBA 10.3.1 figure 124]")
    void required_illegalFromReset(QpState target) {
        QueuePair qp = fresh(QpType.RC);
        refusedKeepsState(qp, QpAttributes.toState(target), "RESET->" + target);
    }

    @ParameterizedTest(name = "INIT -> {0}")
    @EnumSource(value = QpState.class, names = {"RTS", "SQD", "SQE"})
    @DisplayName("required_ INIT cannot skip RTR: INIT to RTS, SQD or SQE fails with EINVAL [IBA 10.3.1]")
    void required_illegalFromInit(QpState target) {
        QueuePair qp = in(QpType.RC, QpState.INIT);
        refusedKeepsState(qp, QpAttributes.toState(target).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1),
                "INIT->" + target);
    }

    @ParameterizedTest(name = "RTR -> {0}")
    @EnumSource(value = QpState.class, names = {"INIT", "SQD", "SQE"})
    @DisplayName("required_ RTR can only go to RTS, RESET or ERR: RTR to INIT, SQD or SQE fails with EINVAL, even with every attribute RTS needs [IBA 10.3.1 figure 124, ibv_modify_qp(3)]")
    void required_illegalFromRtr(QpState target) {
        QueuePair qp = in(QpType.RC, QpState.RTR);
        refusedKeepsState(qp, QpAttributes.toState(target).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1),
                "RTR->" + target);
    }

    /** An optional attribute per transition (IBA table 10.3, the kernel's qp_state_table): type, from, to, attribute, allowed. */
    static Stream<Arguments> optionalAttributes() {
        return Stream.of(
                optional(QpType.UD, QpState.INIT, QpState.INIT, QpAttrMask.QKEY, true),
                optional(QpType.UD, QpState.INIT, QpState.RTR, QpAttrMask.QKEY, true),
                optional(QpType.RC, QpState.INIT, QpState.RTR, QpAttrMask.ACCESS_FLAGS, true),
                optional(QpType.UD, QpState.RTR, QpState.RTS, QpAttrMask.QKEY, true),
                optional(QpType.RC, QpState.RTR, QpState.RTS, QpAttrMask.MIN_RNR_TIMER, true),
                optional(QpType.UC, QpState.RTR, QpState.RTS, QpAttrMask.MIN_RNR_TIMER, false),
                optional(QpType.UD, QpState.RTS, QpState.RTS, QpAttrMask.QKEY, true),
                optional(QpType.RC, QpState.RTS, QpState.RTS, QpAttrMask.MIN_RNR_TIMER, true),
                optional(QpType.UC, QpState.RTS, QpState.RTS, QpAttrMask.MIN_RNR_TIMER, false),
                optional(QpType.UD, QpState.SQD, QpState.RTS, QpAttrMask.QKEY, true),
                optional(QpType.RC, QpState.SQD, QpState.RTS, QpAttrMask.MIN_RNR_TIMER, true),
                optional(QpType.UC, QpState.SQD, QpState.RTS, QpAttrMask.MIN_RNR_TIMER, false),
                optional(QpType.RC, QpState.SQD, QpState.SQD, QpAttrMask.TIMEOUT, true),
                optional(QpType.UD, QpState.SQD, QpState.SQD, QpAttrMask.QKEY, true));
    }

    private static Arguments optional(QpType type, QpState from, QpState to, int attr, boolean allowed) {
        return Arguments.of(type, from, to, QpAttrMask.toString(attr), attr, allowed);
    }

    @ParameterizedTest(name = "{0} {1} -> {2} with {3}: {5}")
    @MethodSource("optionalAttributes")
    @DisplayName("required_ a transition takes exactly its optional attributes: one it allows is applied and query returns it, one it does not is refused with EINVAL [ibv_modify_qp(3), IBA table 10.3]")
    void required_optionalAttributesPerTransition(QpType type, QpState from, QpState to, String name, int attr,
                                                  boolean allowed) {
        assumeQp(type);
        QueuePair qp = in(type, from);
        if (from == QpState.SQD) {
            awaitDrained(qp);
        }
        QpAttributes a;
        if (from == QpState.INIT && to == QpState.RTR) {
            a = type == QpType.UD ? QpAttributes.toState(QpState.RTR) : rcRtr(fresh(type));
        } else if (from == QpState.RTR) {
            a = type == QpType.RC ? rcRts()
                    : QpAttributes.toRtsUnreliable(Testbed.PSN);
        } else {
            a = QpAttributes.toState(to);
        }
        switch (attr) {
            case QpAttrMask.QKEY -> a.qkey(0x22222222);
            case QpAttrMask.ACCESS_FLAGS -> a.accessFlags(AccessFlags.REMOTE_READ);
            case QpAttrMask.MIN_RNR_TIMER -> a.minRnrTimer(5);
            default -> a.timeout(10);
        }
        String rule = type + " " + from + "->" + to + " with " + name;
        if (!allowed) {
            refusedKeepsState(qp, a, rule);
            return;
        }
        qp.modify(a);
        QpAttributes q = qp.query();
        assertEquals(to, q.state(), rule);
        switch (attr) {
            case QpAttrMask.QKEY -> assertEquals(0x22222222, q.qkey(), rule + ": the Q_Key query returns");
            case QpAttrMask.ACCESS_FLAGS -> assertEquals(AccessFlags.REMOTE_READ, q.accessFlags(), rule + ": the access flags");
            case QpAttrMask.MIN_RNR_TIMER -> assertEquals(5, q.minRnrTimer(), rule + ": the RNR timer");
            default -> assertEquals(10, q.timeout(), rule + ": the ACK timeout");
        }
    }

    @Test
    @DisplayName("required_ on a RoCE port an alternate path is refused: RC RTR to RTS with ALT_PATH (the primary path again, port 1) fails with EINVAL and leaves the QP in RTR, and the same modify without it succeeds [ibv_modify_qp(3) alt_ah_attr; Linux ib_core: alternate paths are InfiniBand only]")
    void required_altPathRefusedOnRoce() {
        assumeTrue(tb.portAttributes().linkLayer() == LinkLayer.ETHERNET,
                "an alternate path is refused on RoCE only; this port's link layer is " + tb.portAttributes().linkLayer());
        QueuePair qp = in(QpType.RC, QpState.RTR);
        refusedKeepsState(qp, rcRts().altPath(tb.av(), 0, tb.port(), Testbed.ACK_TIMEOUT),
                "RC RTR -> RTS with ALT_PATH on RoCE");
        qp.modify(rcRts());
        assertEquals(QpState.RTS, qp.query().state(), "the same modify without ALT_PATH");
    }

    /** {@return RC RTR to RTS with the kit's PSN and ACK timeout, 7 retries, 7 RNR retries, max_rd_atomic 1} */
    private static QpAttributes rcRts() {
        return QpAttributes.toRts(Testbed.PSN, Testbed.ACK_TIMEOUT, 7, 7, 1);
    }

    @Test
    @DisplayName("required_ RTR to RTS with max_rd_atomic above the device's max_qp_init_rd_atom fails with EINVAL and leaves the QP in RTR [ibv_modify_qp(3) max_rd_atomic, ibv_query_device(3) max_qp_init_rd_atom]")
    void required_maxRdAtomicAboveDevice() {
        int max = tb.deviceAttributes().maxQpInitRdAtom();
        assumeTrue(max < 255, "the device's max_qp_init_rd_atom " + max + " leaves no larger value to try");
        QueuePair qp = in(QpType.RC, QpState.RTR);
        refusedKeepsState(qp, QpAttributes.toRts(Testbed.PSN, Testbed.ACK_TIMEOUT, 7, 7, max + 1),
                "RTR->RTS with max_rd_atomic " + (max + 1));
    }

    @Test
    @DisplayName("required_ INIT to RTR with max_dest_rd_atomic above the device's max_qp_rd_atom fails with EINVAL and leaves the QP in INIT [ibv_modify_qp(3) max_dest_rd_atomic, ibv_query_device(3) max_qp_rd_atom]")
    void required_maxDestRdAtomicAboveDevice() {
        int max = tb.deviceAttributes().maxQpRdAtom();
        assumeTrue(max < 255, "the device's max_qp_rd_atom " + max + " leaves no larger value to try");
        QueuePair qp = in(QpType.RC, QpState.INIT);
        refusedKeepsState(qp, QpAttributes.toRtr(tb.av(), tb.mtu(), fresh(QpType.RC).qpNum(), Testbed.PSN, max + 1,
                Testbed.MIN_RNR_TIMER), "INIT->RTR with max_dest_rd_atomic " + (max + 1));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"RESET -> RTR with INIT's attributes", "INIT -> RTS with RTR's attributes"})
    @DisplayName("required_ a state cannot be skipped even with every attribute of the transition it skips: RESET to RTR and INIT to RTS fail with EINVAL [IBA 10.3.1 figure 124, ibv_modify_qp(3)]")
    void required_skipRefusedWithNextAttributes(String cell) {
        if (cell.startsWith("RESET")) {
            QueuePair qp = in(QpType.RC, QpState.RESET);
            refusedKeepsState(qp, QpAttributes.toInit(tb.port(), 0, Testbed.QP_ACCESS).state(QpState.RTR), cell);
        } else {
            QueuePair qp = in(QpType.RC, QpState.INIT);
            refusedKeepsState(qp, rcRtr(fresh(QpType.RC)).state(QpState.RTS), cell);
        }
    }

    @ParameterizedTest(name = "RTS -> {0}")
    @EnumSource(value = QpState.class, names = {"INIT", "RTR", "SQE"})
    @DisplayName("required_ RTS can only go to RTS, SQD, RESET or ERR: RTS to INIT, RTR or SQE fails with EINVAL [IBA 10.3.1 figure 124, ibv_modify_qp(3)]")
    void required_illegalFromRts(QpState target) {
        QueuePair qp = in(QpType.RC, QpState.RTS);
        refusedKeepsState(qp, QpAttributes.toState(target), "RTS->" + target);
    }

    @ParameterizedTest(name = "SQD -> {0}")
    @EnumSource(value = QpState.class, names = {"INIT", "RTR"})
    @DisplayName("required_ SQD can only go to RTS, SQD, RESET or ERR: SQD to INIT or RTR fails with EINVAL [IBA 10.3.1 figure 124, ibv_modify_qp(3)]")
    void required_illegalFromSqd(QpState target) {
        QueuePair qp = in(QpType.RC, QpState.SQD);
        awaitDrained(qp);
        refusedKeepsState(qp, QpAttributes.toState(target), "SQD->" + target);
    }

    @ParameterizedTest(name = "ERR -> {0}")
    @EnumSource(value = QpState.class, names = {"INIT", "RTR", "RTS", "SQD"})
    @DisplayName("required_ ERR can only go to RESET: other targets fail with EINVAL [IBA 10.3.1]")
    void required_illegalFromErr(QpState target) {
        QueuePair qp = in(QpType.RC, QpState.ERR);
        refusedKeepsState(qp, QpAttributes.toState(target), "ERR->" + target);
    }

    @ParameterizedTest(name = "{0} -> ERR")
    @EnumSource(value = QpState.class, names = {"RESET", "INIT", "RTR", "RTS"})
    @DisplayName("required_ any state can go to ERR [ibv_modify_qp(3), IBA 10.3.1]")
    void required_anyToErr(QpState from) {
        QueuePair qp = in(QpType.RC, from);
        qp.modify(QpAttributes.toState(QpState.ERR));
        assertEquals(QpState.ERR, qp.state());
        assertEquals(QpState.ERR, qp.query().state());
    }

    @ParameterizedTest(name = "{0} -> RESET")
    @EnumSource(value = QpState.class, names = {"RESET", "INIT", "RTR", "RTS", "ERR"})
    @DisplayName("required_ any state can go to RESET [ibv_modify_qp(3), IBA 10.3.1]")
    void required_anyToReset(QpState from) {
        QueuePair qp = in(QpType.RC, from);
        qp.modify(QpAttributes.toState(QpState.RESET));
        assertEquals(QpState.RESET, qp.state());
    }

    @Test
    @DisplayName("required_ a QP reset from ERR can be brought up to RTS again [IBA 10.3.1]")
    void required_reuseAfterReset() {
        QueuePair qp = in(QpType.RC, QpState.ERR);
        QueuePair peer = fresh(QpType.RC);
        qp.modify(QpAttributes.toState(QpState.RESET));
        tb.bringUp(qp, peer.qpNum(), 7);
        assertEquals(QpState.RTS, qp.query().state());
    }

    // ------------------------------------------------------------- INIT -> RTR

    @Test
    @DisplayName("required_ RC INIT to RTR sets the path MTU, destination QPN, receive PSN and RNR timer that query returns [ibv_modify_qp(3), ibv_query_qp(3)]")
    void required_rcRtrQuery() {
        QueuePair qp = in(QpType.RC, QpState.INIT);
        QueuePair peer = fresh(QpType.RC);
        qp.modify(QpAttributes.toRtr(tb.av(), tb.mtu(), peer.qpNum(), 0x4321, 1, 5));
        QpAttributes q = qp.query();
        assertEquals(QpState.RTR, q.state());
        assertEquals(peer.qpNum(), q.destQpNum(), "dest_qp_num");
        assertEquals(0x4321, q.rqPsn(), "rq_psn");
        assertEquals(tb.mtu(), q.pathMtu(), "path_mtu");
        assertEquals(5, q.minRnrTimer(), "min_rnr_timer");
        assertTrue(q.maxDestRdAtomic() >= 1, "max_dest_rd_atomic");
    }

    @ParameterizedTest(name = "without {0}")
    @ValueSource(strings = {"AV", "PATH_MTU", "DEST_QPN", "RQ_PSN", "MAX_DEST_RD_ATOMIC", "MIN_RNR_TIMER"})
    @DisplayName("required_ RC INIT to RTR without a required attribute fails with EINVAL [ibv_modify_qp(3), IBA table 10.3]")
    void required_rcRtrRequires(String attr) {
        QueuePair qp = in(QpType.RC, QpState.INIT);
        QueuePair peer = fresh(QpType.RC);
        refusedKeepsState(qp, without(rcRtr(peer), bit(attr)), "RC INIT->RTR without " + attr);
    }

    @ParameterizedTest(name = "without {0}")
    @ValueSource(strings = {"AV", "PATH_MTU", "DEST_QPN", "RQ_PSN"})
    @DisplayName("required_ UC INIT to RTR without a required attribute fails with EINVAL [ibv_modify_qp(3), IBA table 10.3]")
    void required_ucRtrRequires(String attr) {
        QueuePair qp = in(QpType.UC, QpState.INIT);
        QueuePair peer = fresh(QpType.UC);
        refusedKeepsState(qp, without(QpAttributes.toRtrUc(tb.av(), tb.mtu(), peer.qpNum(), Testbed.PSN), bit(attr)),
                "UC INIT->RTR without " + attr);
    }

    @Test
    @DisplayName("required_ UD INIT to RTR needs only the state [ibv_modify_qp(3), IBA table 10.3]")
    void required_udRtrStateOnly() {
        QueuePair qp = in(QpType.UD, QpState.INIT);
        qp.modify(QpAttributes.toState(QpState.RTR));
        assertEquals(QpState.RTR, qp.query().state());
        assertEquals(Testbed.QKEY, qp.query().qkey(), "the Q_Key set at INIT survives");
    }

    // ------------------------------------------------------------- RTR -> RTS and beyond

    @Test
    @DisplayName("required_ RC RTR to RTS sets the send PSN, timeout, retry counts and max_rd_atomic that query returns [ibv_modify_qp(3), ibv_query_qp(3)]")
    void required_rcRtsQuery() {
        QueuePair qp = in(QpType.RC, QpState.RTR);
        qp.modify(QpAttributes.toRts(0x777, 12, 6, 5, 1));
        QpAttributes q = qp.query();
        assertEquals(QpState.RTS, q.state());
        assertEquals(0x777, q.sqPsn(), "sq_psn");
        assertEquals(12, q.timeout(), "timeout");
        assertEquals(6, q.retryCnt(), "retry_cnt");
        assertEquals(5, q.rnrRetry(), "rnr_retry");
        assertEquals(1, q.maxRdAtomic(), "max_rd_atomic");
    }

    @Test
    @DisplayName("required_ modify changes only the attributes in attr_mask: after RC RTR to RTS, query still returns the access flags, port, path MTU, destination QPN, receive PSN and RNR timer set before [ibv_modify_qp(3) attr_mask, ibv_query_qp(3)]")
    void required_modifyKeepsAttributesOutsideMask() {
        QueuePair qp = fresh(QpType.RC);
        QueuePair peer = fresh(QpType.RC);
        tb.toInit(qp);
        tb.toRtr(qp, peer.qpNum());
        qp.modify(QpAttributes.toRts(0x777, 12, 6, 5, 1));
        QpAttributes q = qp.query();
        assertEquals(QpState.RTS, q.state());
        assertEquals(Testbed.QP_ACCESS, q.accessFlags(), "qp_access_flags, set at INIT");
        assertEquals(tb.port(), q.port(), "port_num, set at INIT");
        assertEquals(tb.mtu(), q.pathMtu(), "path_mtu, set at RTR");
        assertEquals(peer.qpNum(), q.destQpNum(), "dest_qp_num, set at RTR");
        assertEquals(Testbed.PSN, q.rqPsn(), "rq_psn, set at RTR");
        assertEquals(Testbed.MIN_RNR_TIMER, q.minRnrTimer(), "min_rnr_timer, set at RTR");
    }

    @ParameterizedTest(name = "without {0}")
    @ValueSource(strings = {"SQ_PSN", "TIMEOUT", "RETRY_CNT", "RNR_RETRY", "MAX_QP_RD_ATOMIC"})
    @DisplayName("required_ RC RTR to RTS without a required attribute fails with EINVAL [ibv_modify_qp(3), IBA table 10.3]")
    void required_rcRtsRequires(String attr) {
        QueuePair qp = in(QpType.RC, QpState.RTR);
        refusedKeepsState(qp, without(QpAttributes.toRts(Testbed.PSN, 14, 7, 7, 1), bit(attr)),
                "RC RTR->RTS without " + attr);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = QpType.class, names = {"UC", "UD"})
    @DisplayName("required_ UC and UD RTR to RTS without SQ_PSN fail with EINVAL [ibv_modify_qp(3), IBA table 10.3]")
    void required_unreliableRtsRequiresSqPsn(QpType type) {
        QueuePair qp = in(type, QpState.RTR);
        refusedKeepsState(qp, QpAttributes.toState(QpState.RTS), type + " RTR->RTS without SQ_PSN");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = QpType.class, names = {"UC", "UD"})
    @DisplayName("required_ UC and UD RTR to RTS with SQ_PSN succeeds and query returns it [ibv_modify_qp(3)]")
    void required_unreliableRts(QpType type) {
        QueuePair qp = in(type, QpState.RTR);
        qp.modify(QpAttributes.toRtsUnreliable(0x55));
        assertEquals(QpState.RTS, qp.query().state());
        assertEquals(0x55, qp.query().sqPsn());
    }

    @Test
    @DisplayName("required_ RTS to RTS may change the access flags, and query shows the change [IBA table 10.3: RTS->RTS optional attributes]")
    void required_rtsToRts() {
        QueuePair qp = in(QpType.RC, QpState.RTS);
        qp.modify(QpAttributes.toState(QpState.RTS).accessFlags(AccessFlags.REMOTE_READ));
        assertEquals(QpState.RTS, qp.state());
        assertEquals(AccessFlags.REMOTE_READ, qp.query().accessFlags());
    }

    @Test
    @DisplayName("required_ RTS to RTS may not change the path MTU, which only INIT to RTR sets: EINVAL [IBA table 10.3]")
    void required_rtsToRtsRejectsPathMtu() {
        QueuePair qp = in(QpType.RC, QpState.RTS);
        refusedKeepsState(qp, QpAttributes.toState(QpState.RTS).pathMtu(tb.mtu()), "RTS->RTS with PATH_MTU");
    }

    /**
     * Waits until a QP in SQD has drained its send queue ({@code ibv_query_qp(3)} sq_draining 0). IBA 10.3.1 lets
     * a QP in SQD be modified only once drained, and rxe refuses any other transition than to ERR with EINVAL
     * until its requester has run, so a rule that modifies a QP in SQD must wait for the drain first.
     */
    private static void awaitDrained(QueuePair qp) {
        long deadline = System.nanoTime() + Completions.timeoutMs() * 1_000_000L;
        while (qp.query().sqDraining()) {
            if (System.nanoTime() - deadline > 0) {
                fail("QP " + qp.qpNum() + " in SQD with an empty send queue still reports sq_draining after "
                        + Completions.timeoutMs() + " ms");
            }
            Thread.onSpinWait();
        }
    }

    @Test
    @DisplayName("required_ RTS to SQD and SQD back to RTS succeed [ibv_modify_qp(3), IBA 10.3.1]")
    void required_sqdRoundTrip() {
        QueuePair qp = in(QpType.RC, QpState.RTS);
        qp.modify(QpAttributes.toState(QpState.SQD));
        assertEquals(QpState.SQD, qp.query().state());
        awaitDrained(qp);
        qp.modify(QpAttributes.toState(QpState.RTS));
        assertEquals(QpState.RTS, qp.query().state());
    }

    @Test
    @DisplayName("required_ RTS to SQD with EN_SQD_ASYNC_NOTIFY raises SQ_DRAINED naming the QP once its send queue is drained [ibv_modify_qp(3) en_sqd_async_notify, ibv_get_async_event(3) IBV_EVENT_SQ_DRAINED]")
    void required_sqdAsyncNotify() {
        QueuePair qp = in(QpType.RC, QpState.RTS);
        qp.modify(QpAttributes.toState(QpState.SQD).enSqdAsyncNotify(true));
        long deadline = System.nanoTime() + Completions.timeoutMs() * 1_000_000L;
        while (System.nanoTime() - deadline < 0) {
            AsyncEvent ev = tb.context().pollAsyncEvent(100, TimeUnit.MILLISECONDS);
            if (ev != null && ev.type() == AsyncEventType.SQ_DRAINED) {
                assertSame(qp, ev.qp(), "the SQ_DRAINED event names the QP moved to SQD");
                assertTrue(!qp.query().sqDraining(), "after SQ_DRAINED, query must not report sq_draining");
                return;
            }
        }
        fail("no SQ_DRAINED event within " + Completions.timeoutMs() + " ms of RTS -> SQD with EN_SQD_ASYNC_NOTIFY");
    }

    @Test
    @DisplayName("required_ SQD to SQD, the only transition that may change attributes while drained, keeps the QP in SQD [IBA table 10.3]")
    void required_sqdToSqd() {
        QueuePair qp = in(QpType.RC, QpState.RTS);
        qp.modify(QpAttributes.toState(QpState.SQD));
        awaitDrained(qp);
        qp.modify(QpAttributes.toState(QpState.SQD).minRnrTimer(3));
        assertEquals(QpState.SQD, qp.query().state());
        assertEquals(3, qp.query().minRnrTimer());
    }

    @Test
    @DisplayName("required_ query reports the QP's granted capabilities [ibv_query_qp(3) cap]")
    void required_queryCap() {
        QueuePair qp = in(QpType.RC, QpState.INIT);
        QpCapabilities cap = qp.query().cap();
        assertTrue(cap != null && cap.maxSendWr() >= 32 && cap.maxRecvWr() >= 32, "query().cap() " + cap);
    }

    @Test
    @DisplayName("required_ query's state agrees with state() after every transition [ibv_query_qp(3) qp_state]")
    void required_stateAgreesWithQuery() {
        QueuePair qp = fresh(QpType.RC);
        QueuePair peer = fresh(QpType.RC);
        tb.toInit(qp);
        assertEquals(qp.state(), qp.query().state());
        tb.toRtr(qp, peer.qpNum());
        assertEquals(qp.state(), qp.query().state());
        tb.toRts(qp, 7);
        assertEquals(QpState.RTS, qp.state());
        assertEquals(qp.state(), qp.query().state());
    }

    private static int bit(String name) {
        return switch (name) {
            case "PORT" -> QpAttrMask.PORT;
            case "PKEY_INDEX" -> QpAttrMask.PKEY_INDEX;
            case "ACCESS_FLAGS" -> QpAttrMask.ACCESS_FLAGS;
            case "QKEY" -> QpAttrMask.QKEY;
            case "AV" -> QpAttrMask.AV;
            case "PATH_MTU" -> QpAttrMask.PATH_MTU;
            case "DEST_QPN" -> QpAttrMask.DEST_QPN;
            case "RQ_PSN" -> QpAttrMask.RQ_PSN;
            case "MAX_DEST_RD_ATOMIC" -> QpAttrMask.MAX_DEST_RD_ATOMIC;
            case "MIN_RNR_TIMER" -> QpAttrMask.MIN_RNR_TIMER;
            case "SQ_PSN" -> QpAttrMask.SQ_PSN;
            case "TIMEOUT" -> QpAttrMask.TIMEOUT;
            case "RETRY_CNT" -> QpAttrMask.RETRY_CNT;
            case "RNR_RETRY" -> QpAttrMask.RNR_RETRY;
            case "MAX_QP_RD_ATOMIC" -> QpAttrMask.MAX_QP_RD_ATOMIC;
            default -> throw new IllegalArgumentException(name);
        };
    }

    @Test
    @DisplayName("required_ ECE: a device without it answers EOPNOTSUPP to queryEce and setEce; a device with it accepts back the options it answered, and answers the same vendor after; null options are refused with a NullPointerException [ibv_query_ece(3), ibv_set_ece(3)]")
    void required_eceOptions() {
        QueuePair qp = tb.qp(QpType.RC, tb.cq(8), null);
        Expect.thrown("setEce(null)", NullPointerException.class, () -> qp.setEce(null));
        Ece ece;
        try {
            ece = qp.queryEce();
        } catch (VerbsException e) {
            assertEquals(Errno.EOPNOTSUPP, e.errno(), "queryEce on a device without ECE: " + e.getMessage());
            Expect.errno("setEce on a device without ECE", () -> qp.setEce(new Ece(0, 0, 0)), Errno.EOPNOTSUPP);
            return;
        }
        qp.setEce(ece);
        assertEquals(ece.vendorId(), qp.queryEce().vendorId(), "the vendor of the options the QP took");
    }
}
