package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.CqInitAttributes;
import org.verbs4j.DataInOrder;
import org.verbs4j.DeviceMemory;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MrAdvice;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.Sge;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.ThreadDomain;
import org.verbs4j.VerbsObject;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;
import org.verbs4j.XrcDomain;

/**
 * Object lifecycle and bad input: EBUSY for parents with live children, idempotent close, use after
 * close refused in Java (never a crash), and null, negative and out-of-range arguments on the public methods.
 */
public abstract class LifecycleRules extends TckArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected LifecycleRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private void assertBusy(VerbsObject parent, String what) {
        Expect.errno("closing " + what + " with a live child", parent::close, Errno.EBUSY);
        assertFalse(parent.isClosed(), what + " must stay open after EBUSY");
    }

    // ---------------------------------------------------------------- EBUSY

    @Test
    @DisplayName("required_ a PD with a live MR refuses to close with EBUSY, stays usable, and closes once the MR is gone [ibv_dealloc_pd(3)]")
    void required_pdBusyWithMr() {
        ProtectionDomain pd = tb.context().allocPd();
        MemoryRegion mr = pd.registerMemory(tb.memory(64), AccessFlags.LOCAL_WRITE, tb.arena());
        assertBusy(pd, "a PD");
        pd.registerMemory(tb.memory(64), AccessFlags.LOCAL_WRITE, tb.arena()).close();
        mr.close();
        pd.close();
        assertTrue(pd.isClosed());
    }

    @Test
    @DisplayName("required_ a PD with a live QP refuses to close with EBUSY [ibv_dealloc_pd(3)]")
    void required_pdBusyWithQp() {
        QueuePair qp = tb.qp(QpType.RC, tb.cq(8), null);
        assertBusy(tb.pd(), "a PD");
        qp.close();
        tb.pd().close();
        assertTrue(tb.pd().isClosed());
    }

    @Test
    @DisplayName("required_ a PD with a live memory window refuses to close with EBUSY [ibv_dealloc_pd(3)]")
    void required_pdBusyWithMw() {
        assumeTrue(!caps().memoryWindowTypes().isEmpty(), "capability: the device has no memory windows");
        MemoryWindow mw = tb.pd().allocMw(caps().memoryWindowTypes().iterator().next());
        assertBusy(tb.pd(), "a PD");
        mw.close();
        tb.pd().close();
    }

    @Test
    @DisplayName("required_ a PD with a live address handle refuses to close with EBUSY [ibv_dealloc_pd(3)]")
    void required_pdBusyWithAh() {
        AddressHandle ah = tb.ah();
        assertBusy(tb.pd(), "a PD");
        ah.close();
        tb.pd().close();
    }

    @Test
    @DisplayName("optional_ a PD with a live SRQ refuses to close with EBUSY [ibv_dealloc_pd(3)]")
    void optional_pdBusyWithSrq() {
        assumeTrue(caps().srq(), "capability: the device has no shared receive queues");
        SharedReceiveQueue srq = tb.pd().createSrq(new SrqInitAttributes(8, 1, 0));
        assertBusy(tb.pd(), "a PD");
        srq.close();
        tb.pd().close();
    }

    @Test
    @DisplayName("required_ a CQ used by a live QP refuses to close with EBUSY [ibv_destroy_cq(3)]")
    void required_cqBusyWithQp() {
        CompletionQueue cq = tb.cq(8);
        QueuePair qp = tb.qp(QpType.RC, cq, null);
        assertBusy(cq, "a CQ");
        qp.close();
        cq.close();
        assertTrue(cq.isClosed());
    }

    @Test
    @DisplayName("required_ a completion channel used by a live CQ refuses to close with EBUSY [ibv_destroy_comp_channel(3)]")
    void required_channelBusyWithCq() {
        assumeTrue(caps().completionChannel(), "capability: the device has no completion channels");
        CompletionChannel ch = tb.context().createCompletionChannel();
        CompletionQueue cq = tb.context().createCq(8, ch, 0);
        assertBusy(ch, "a completion channel");
        cq.close();
        ch.close();
        assertTrue(ch.isClosed());
    }

    @Test
    @DisplayName("optional_ a thread domain used by a live QP refuses to close with EBUSY [ibv_dealloc_td(3)]")
    void optional_tdBusyWithQp() {
        assumeTrue(caps().threadDomains(), "capability: the device has no thread domains");
        ThreadDomain td = tb.context().allocTd();
        QueuePair qp = tb.qp(QpType.RC, tb.cq(8), b -> b.threadDomain(td));
        assertBusy(td, "a thread domain");
        qp.close();
        td.close();
    }

    @Test
    @DisplayName("optional_ an SRQ used by a live QP refuses to close with EBUSY [ibv_destroy_srq(3)]")
    void optional_srqBusyWithQp() {
        assumeTrue(caps().srq(), "capability: the device has no shared receive queues");
        SharedReceiveQueue srq = tb.pd().createSrq(new SrqInitAttributes(8, 1, 0));
        QueuePair qp = tb.qp(QpType.RC, tb.cq(8), b -> b.srq(srq).maxRecvWr(0));
        assertBusy(srq, "an SRQ");
        qp.close();
        srq.close();
    }

    @Test
    @DisplayName("required_ an MR with a bound type 1 window refuses to deregister and stays open: EBUSY, or EINVAL as rxe gives [ibv_dereg_mr(3), IBA 10.6.7.2.6]")
    void required_mrBusyWithBoundMw() {
        assumeMw(MwType.TYPE_1);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion mr = tb.buffer(4096, Testbed.ALL_ACCESS | AccessFlags.MW_BIND);
        MemoryWindow mw = tb.pd().allocMw(MwType.TYPE_1);
        p.a().bindMw(mw, 1, SendFlags.SIGNALED, new MwBindInfo(mr, mr.address(), 4096, AccessFlags.REMOTE_READ));
        Completions.awaitOne(p.cqA(), "the bind");
        Expect.errno("deregistering a region with a bound window", mr::close, Errno.EBUSY, Errno.EINVAL);
        assertFalse(mr.isClosed(), "the region must stay registered");
    }

    // ---------------------------------------------------------------- close

    @Test
    @DisplayName("required_ a second close() does nothing, on every object type [VerbsObject#close]")
    void required_closeIdempotent() {
        CompletionQueue cq = tb.cq(8);
        QueuePair qp = tb.qp(QpType.RC, cq, null);
        MemoryRegion mr = tb.buffer(64);
        AddressHandle ah = tb.ah();
        ProtectionDomain pd2 = tb.context().allocPd();
        for (VerbsObject o : List.of(qp, cq, mr, ah, pd2)) {
            o.close();
            assertTrue(o.isClosed(), o + " after close()");
            o.close();
            assertTrue(o.isClosed());
        }
    }

    @Test
    @DisplayName("required_ closing the context releases every object made from it [ibv_close_device(3), Context#close]")
    void required_contextCloseReleasesAll() {
        Context ctx = tb.device().open();
        ProtectionDomain pd = ctx.allocPd();
        CompletionQueue cq = ctx.createCq(8);
        QueuePair qp = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq).build());
        MemoryRegion mr = pd.registerMemory(tb.memory(64), AccessFlags.LOCAL_WRITE, tb.arena());
        ctx.close();
        for (VerbsObject o : List.of(ctx, pd, cq, qp, mr)) {
            assertTrue(o.isClosed(), o + " must be closed with its context");
        }
        Expect.closed("QueuePair.query", qp::query);
        ctx.close();
    }

    @Test
    @DisplayName("required_ closing the context with one object of every kind alive and receives posted releases "
            + "them all, an XRC domain with its SRQ and XRC_RECV QP and a region of device memory included; each then "
            + "refuses its calls, and the registered memory's "
            + "arena closes after [ibv_close_device(3), Context#close]")
    void required_contextCloseReleasesEveryKind() {
        Context ctx = tb.device().open();
        List<VerbsObject> objects = new ArrayList<>();
        List<Named<Executable>> calls = new ArrayList<>();
        try (Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(8);
            QueuePair qp = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq).build());
            MemoryRegion mr = pd.registerMemory(arena.allocate(4096, 4096), Testbed.ALL_ACCESS, arena);
            AddressHandle ah = pd.createAh(tb.av());
            objects.addAll(List.of(pd, cq, qp, mr, ah));
            calls.add(Named.of("QueuePair.postRecv", () -> qp.postRecv(new RecvWr().wrId(1)
                    .sgList(new Sge(mr.address(), 64, mr.lkey())))));
            calls.add(Named.of("CompletionQueue.poll", () -> cq.poll(new WorkCompletionBatch(4))));
            calls.add(Named.of("MemoryRegion.lkey", mr::lkey));
            calls.add(Named.of("ProtectionDomain.createAh", () -> pd.createAh(tb.av())));
            if (caps().srq()) {
                SharedReceiveQueue srq = pd.createSrq(new SrqInitAttributes(8, 1, 0));
                for (int i = 0; i < 4; i++) {
                    srq.postRecv(new RecvWr().wrId(i).sgList(new Sge(mr.address() + 64L * i, 64, mr.lkey())));
                }
                objects.add(srq);
                calls.add(Named.of("SharedReceiveQueue.postRecv", () -> srq.postRecv(new RecvWr().wrId(9)
                        .sgList(new Sge(mr.address(), 64, mr.lkey())))));
            }
            if (caps().memoryWindowTypes().contains(MwType.TYPE_1)) {
                MemoryWindow mw = pd.allocMw(MwType.TYPE_1);
                objects.add(mw);
                calls.add(Named.of("MemoryWindow.rkey", mw::rkey));
            }
            if (caps().completionChannel()) {
                CompletionChannel ch = ctx.createCompletionChannel();
                CompletionQueue armed = ctx.createCq(8, ch, 0);
                armed.requestNotify(false);
                objects.addAll(List.of(ch, armed));
                calls.add(Named.of("CompletionChannel.awaitEvent", () -> ch.awaitEvent(1, TimeUnit.MILLISECONDS)));
                calls.add(Named.of("CompletionQueue.requestNotify", () -> armed.requestNotify(false)));
            }
            if (caps().threadDomains()) {
                objects.add(ctx.allocTd());
            }
            if (caps().xrc()) {
                XrcDomain xrcd = ctx.openXrcd();
                SharedReceiveQueue xrcSrq = xrcd.createSrq(pd, cq, new SrqInitAttributes(4, 1, 0));
                QueuePair recvQp = xrcd.createRecvQp();
                objects.addAll(List.of(xrcd, xrcSrq, recvQp));
                calls.add(Named.of("XrcDomain.createRecvQp", xrcd::createRecvQp));
            }
            if (caps().deviceMemory() && caps().maxDmSize() >= 64) {
                // A region with no host memory: a provider keeps it apart from the PD's table of host regions.
                DeviceMemory dm = ctx.allocDm(64, 0);
                MemoryRegion dmMr = pd.registerDeviceMemory(dm, 0, 64, AccessFlags.ZERO_BASED | AccessFlags.LOCAL_WRITE);
                objects.addAll(List.of(dm, dmMr));
                calls.add(Named.of("DeviceMemory.copyToDm", () -> dm.copyToDm(0, MemorySegment.ofArray(new byte[8]))));
                calls.add(Named.of("MemoryRegion.lkey of device memory", dmMr::lkey));
            }
            ctx.close();
            for (VerbsObject o : objects) {
                assertTrue(o.isClosed(), o + " must be closed with its context");
            }
            for (Named<Executable> call : calls) {
                Expect.closed(call.getName(), call.getPayload());
            }
        } // the arena closes here: nothing registered may still read or write its memory
        ctx.close();
        for (VerbsObject o : objects) {
            o.close();
            assertTrue(o.isClosed());
        }
    }

    @Test
    @DisplayName("required_ a QP with outstanding WRs can be closed, and its CQ then closes too [ibv_destroy_qp(3)]")
    void required_closeQpWithOutstandingWrs() {
        QpPair p = tb.pair(QpType.RC, null, 7);
        MemoryRegion buf = p.remoteBuffer(64);
        p.recvB(1, buf, 0, 8);
        for (int i = 0; i < 4; i++) {
            p.b().postSend(p.wr(i, WrOpcode.SEND, buf, 0, 8)); // b -> a, and a has no receive: they wait
        }
        p.b().close();
        p.a().close();
        p.cqA().close();
        p.cqB().close();
        assertTrue(p.cqB().isClosed());
    }

    // ---------------------------------------------------------------- use after close

    static Stream<Arguments> afterClose() {
        return Stream.of(
                useAfterClose("ProtectionDomain.registerMemory", x -> () -> x.closedPd().registerMemory(x.tb.memory(64), 0, x.tb.arena())),
                useAfterClose("ProtectionDomain.createQp", x -> () -> x.closedPd().createQp(
                        QpInitAttributes.builder(QpType.RC).cq(x.tb.cq(8)).build())),
                useAfterClose("ProtectionDomain.allocMw", x -> () -> x.closedPd().allocMw(MwType.TYPE_1)),
                useAfterClose("ProtectionDomain.adviseMr", x -> () -> x.closedPd().adviseMr(MrAdvice.PREFETCH, 0,
                        List.of(new Sge(4096, 1, 1)))),
                useAfterClose("ProtectionDomain.createAh", x -> () -> x.closedPd().createAh(x.tb.av())),
                useAfterClose("MemoryRegion.lkey", x -> () -> x.closedMr().lkey()),
                useAfterClose("MemoryRegion.rkey", x -> () -> x.closedMr().rkey()),
                useAfterClose("CompletionQueue.poll", x -> () -> x.closedCq().poll(new WorkCompletionBatch(4))),
                useAfterClose("CompletionQueue.requestNotify", x -> () -> x.closedCq().requestNotify(false)),
                useAfterClose("QueuePair.modify", x -> () -> x.closedQp().modify(QpAttributes.toState(QpState.ERR))),
                useAfterClose("QueuePair.query", x -> () -> x.closedQp().query()),
                useAfterClose("QueuePair.postSend", x -> () -> x.closedQp().postSend(new SendWr())),
                useAfterClose("QueuePair.postRecv", x -> () -> x.closedQp().postRecv(new RecvWr())),
                useAfterClose("QueuePair.startWr", x -> () -> x.closedQp().startWr()),
                useAfterClose("QueuePair.queryDataInOrder", x -> () -> x.closedQp().queryDataInOrder(WrOpcode.SEND, 0)),
                useAfterClose("Context.allocPd", x -> () -> x.closedContext().allocPd()),
                useAfterClose("Context.queryDevice", x -> () -> x.closedContext().queryDevice()),
                useAfterClose("Context.queryDeviceEx", x -> () -> x.closedContext().queryDeviceEx()),
                useAfterClose("Context.queryRawClock", x -> () -> x.closedContext().queryRawClock()),
                useAfterClose("Context.createCq(CqInitAttributes)", x -> () -> x.closedContext().createCq(
                        CqInitAttributes.of(8, CqInitAttributes.WITH_COMPLETION_TIMESTAMP))),
                useAfterClose("Context.queryPort", x -> () -> x.closedContext().queryPort(1)),
                useAfterClose("Context.queryGid", x -> () -> x.closedContext().queryGid(1, 0)),
                useAfterClose("Context.createCq", x -> () -> x.closedContext().createCq(8)),
                useAfterClose("Context.pollAsyncEvent", x -> () -> x.closedContext().pollAsyncEvent(0, TimeUnit.MILLISECONDS)),
                useAfterClose("Context.queryPkey", x -> () -> x.closedContext().queryPkey(1, 0)),
                useAfterClose("Context.pkeyIndex", x -> () -> x.closedContext().pkeyIndex(1, 0xffff)),
                useAfterClose("Context.queryGidEntry", x -> () -> x.closedContext().queryGidEntry(1, 0)),
                useAfterClose("Context.queryGidTable", x -> () -> x.closedContext().queryGidTable(4)));
    }

    private static Arguments useAfterClose(String name, Function<LifecycleRules, Executable> call) {
        return Arguments.of(Named.of(name, call));
    }

    ProtectionDomain closedPd() {
        ProtectionDomain pd = tb.context().allocPd();
        pd.close();
        return pd;
    }

    MemoryRegion closedMr() {
        MemoryRegion mr = tb.buffer(64);
        mr.close();
        return mr;
    }

    CompletionQueue closedCq() {
        CompletionQueue cq = tb.cq(8);
        cq.close();
        return cq;
    }

    QueuePair closedQp() {
        QueuePair qp = tb.qp(QpType.RC, tb.cq(8), null);
        qp.close();
        return qp;
    }

    Context closedContext() {
        Context ctx = tb.device().open();
        ctx.close();
        return ctx;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("afterClose")
    @DisplayName("required_ a method of a closed object throws IllegalStateException before reaching the device [VerbsObject: use after close()]")
    void required_useAfterClose(Function<LifecycleRules, Executable> call) {
        Executable e = call.apply(this);
        Expect.closed("the call", e);
    }

    @Test
    @DisplayName("required_ startWr on a closed QP that had a session throws IllegalStateException [VerbsObject, WrSession]")
    void required_sessionOfClosedQp() {
        assumeSession(QpType.RC, WrOpcode.SEND);
        QueuePair qp = tb.qp(QpType.RC, tb.cq(8), b -> b.sendOps(WrOpcode.SEND));
        WrSession s = qp.startWr();
        s.abort();
        qp.close();
        Expect.closed("QueuePair.startWr", qp::startWr);
    }

    @Test
    @DisplayName("required_ a closed memory window's handle is refused by bindMw [VerbsObject]")
    void required_closedMwRefused() {
        assumeMw(MwType.TYPE_1);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion mr = tb.buffer(64, Testbed.ALL_ACCESS | AccessFlags.MW_BIND);
        MemoryWindow mw = tb.pd().allocMw(MwType.TYPE_1);
        mw.close();
        Expect.refused("bindMw(closed window)", () -> p.a().bindMw(mw, 1, SendFlags.SIGNALED,
                new MwBindInfo(mr, mr.address(), 64, AccessFlags.REMOTE_READ)));
    }

    // ---------------------------------------------------------------- null, negative, out of range

    static Stream<Arguments> badArguments() {
        return Stream.of(
                bad("registerMemory(null, LOCAL_WRITE)", x -> () -> x.tb.pd().registerMemory(null, AccessFlags.LOCAL_WRITE)),
                bad("registerMemory(segment, -1, arena)",
                        x -> () -> x.tb.pd().registerMemory(x.tb.memory(64), -1, x.tb.arena())),
                bad("createQp(null)", x -> () -> x.tb.pd().createQp(null)),
                bad("createAh(null)", x -> () -> x.tb.pd().createAh(null)),
                bad("allocMw(null)", x -> () -> x.tb.pd().allocMw(null)),
                bad("createSrq(null)", x -> () -> x.tb.pd().createSrq(null)),
                bad("modify(null)", x -> () -> x.qp().modify(null)),
                bad("postSend((SendWr) null)", x -> () -> x.qp().postSend((SendWr) null)),
                bad("postSend((List) null)", x -> () -> x.qp().postSend((List<SendWr>) null)),
                bad("postSend(list with a null WR)", x -> () -> x.qp().postSend(java.util.Arrays.asList((SendWr) null))),
                bad("postRecv((RecvWr) null)", x -> () -> x.qp().postRecv((RecvWr) null)),
                bad("postRecv((List) null)", x -> () -> x.qp().postRecv((List<RecvWr>) null)),
                bad("queryDataInOrder(null, 0)", x -> () -> x.qp().queryDataInOrder(null, 0)),
                bad("bindMw(null, ...)", x -> () -> x.qp().bindMw(null, 1, 0, null)),
                bad("poll(null)", x -> () -> x.tb.cq(8).poll(null)),
                bad("queryPort(-1)", x -> () -> x.tb.context().queryPort(-1)),
                bad("queryPort(256)", x -> () -> x.tb.context().queryPort(256)),
                bad("queryGid(port, -1)", x -> () -> x.tb.context().queryGid(x.tb.port(), -1)),
                bad("queryGid(0, 0)", x -> () -> x.tb.context().queryGid(0, 0)),
                bad("createCq(-5)", x -> () -> x.tb.context().createCq(-5)),
                bad("pollAsyncEvent(-1 ms)", x -> () -> x.tb.context().pollAsyncEvent(-1, TimeUnit.MILLISECONDS)),
                bad("pollAsyncEvent(0, null unit)", x -> () -> x.tb.context().pollAsyncEvent(0, null)),
                bad("provider.device(null)", x -> () -> x.tb.provider().device(null)));
    }

    private static Arguments bad(String name, Function<LifecycleRules, Executable> call) {
        return Arguments.of(Named.of(name, call));
    }

    QueuePair qp() {
        QpPair p = tb.pair(QpType.RC);
        return p.a();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badArguments")
    @DisplayName("required_ a null, negative or out-of-range argument is refused with IllegalArgumentException or NullPointerException [DESIGN Errors: misuse caught in Java]")
    void required_badArgument(Function<LifecycleRules, Executable> call) {
        Expect.badInput("the call", call.apply(this));
    }

    static Stream<Arguments> badSessionArguments() {
        return Stream.of(
                bad("setInlineData(null)", x -> () -> x.inSession(s -> s.setInlineData(null))),
                bad("setInlineDataList(null, 1)", x -> () -> x.inSession(s -> s.setInlineDataList(null, 1))),
                bad("setSgeList(null, 1)", x -> () -> x.inSession(s -> s.setSgeList(null, 1))),
                bad("setSgeList(list of 1, 2)", x -> () -> x.inSession(s -> s.setSgeList(new Sge[] {new Sge()}, 2))),
                bad("setSgeList(list, -1)", x -> () -> x.inSession(s -> s.setSgeList(new Sge[] {new Sge()}, -1))),
                bad("setInlineDataList(list of 1, 2)", x -> () -> x.inSession(
                        s -> s.setInlineDataList(new java.lang.foreign.MemorySegment[] {x.tb.memory(8)}, 2))));
    }

    /** Runs {@code body} after a SEND builder in a fresh session and completes it. */
    void inSession(java.util.function.Consumer<WrSession> body) {
        assumeSession(QpType.RC, WrOpcode.SEND);
        QpPair p = tb.pair(QpType.RC, b -> b.sendOps(WrOpcode.SEND).maxInlineData(Math.min(64, caps().maxInlineData())));
        try (WrSession s = p.a().startWr()) {
            s.wrId(1);
            s.send();
            body.accept(s);
            s.complete();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSessionArguments")
    @DisplayName("required_ a null or out-of-range setter argument is refused at the setter or by complete(), never executed [ibv_wr_post(3) RETURN VALUE]")
    void required_badSessionArgument(Function<LifecycleRules, Executable> call) {
        Expect.refused("the setter", call.apply(this));
    }

    @Test
    @DisplayName("required_ an SRQ limit that is negative or beyond the queue is refused [ibv_modify_srq(3)]")
    void required_srqLimitRange() {
        assumeTrue(caps().srq(), "capability: the device has no shared receive queues");
        SharedReceiveQueue srq = tb.pd().createSrq(new SrqInitAttributes(8, 1, 0));
        Expect.badInput("armLimit(-1)", () -> srq.armLimit(-1));
        Expect.refused("armLimit(max_wr + 1)", () -> srq.armLimit(srq.query().maxWr() + 1));
    }

    @Test
    @DisplayName("required_ an SRQ limit of exactly max_wr can be armed, one more is refused; 0, the least, is taken too; ibv_query_srq reports the limit armed last, at least the max_wr and max_sge asked, and the SRQ its PD [ibv_modify_srq(3) srq_limit, ibv_query_srq(3)]")
    void required_srqLimitOfExactlyMaxWr() {
        assumeTrue(caps().srq(), "capability: the device has no shared receive queues");
        int maxSrqSge = tb.deviceAttributes().maxSrqSge();
        int maxSge = Math.min(2, maxSrqSge);
        SharedReceiveQueue srq = tb.pd().createSrq(new SrqInitAttributes(8, maxSge, 0));
        assertSame(tb.pd(), srq.pd(), "the SRQ's protection domain");
        SrqInitAttributes granted = srq.query();
        assertTrue(granted.maxWr() >= 8, "max_wr granted, at least the 8 asked: " + granted);
        assertTrue(granted.maxSge() >= maxSge && granted.maxSge() <= maxSrqSge,
                "max_sge granted, at least the " + maxSge + " asked and at most max_srq_sge: " + granted);
        int maxWr = granted.maxWr();
        srq.armLimit(maxWr);
        assertEquals(maxWr, srq.query().srqLimit(), "srq_limit after armLimit(max_wr)");
        Expect.refused("armLimit(max_wr + 1)", () -> srq.armLimit(maxWr + 1));
        assertEquals(maxWr, srq.query().srqLimit(), "srq_limit after the refused armLimit(max_wr + 1)");
        srq.armLimit(3);
        assertEquals(3, srq.query().srqLimit(), "srq_limit after armLimit(3)");
        srq.armLimit(0);
        assertEquals(0, srq.query().srqLimit(), "srq_limit after armLimit(0)");
        assertEquals(granted.maxSge(), srq.query().maxSge(), "max_sge, unchanged by the limits");
    }

    @Test
    @DisplayName("required_ createSrq takes any srq_limit, also one above max_wr: the limit is irrelevant at creation and the SRQ takes receives [ibv_create_srq(3) srq_limit, rxe_srq_chk_init]")
    void required_createSrqIgnoresLimitSize() {
        assumeTrue(caps().srq(), "capability: the device has no shared receive queues");
        SharedReceiveQueue srq = tb.pd().createSrq(new SrqInitAttributes(8, 1, 100_000));
        MemoryRegion buf = tb.buffer(64);
        srq.postRecv(new RecvWr(1, Sge.of(buf, 0, 64)));
        assertFalse(srq.isClosed(), "the SRQ created with srq_limit above max_wr");
    }

    @Test
    @DisplayName("required_ a memory window bound past the end of its region is refused [ibv_bind_mw(3) EINVAL]")
    void required_mwBindOutOfRange() {
        assumeMw(MwType.TYPE_1);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion mr = tb.buffer(64, Testbed.ALL_ACCESS | AccessFlags.MW_BIND);
        MemoryWindow mw = tb.pd().allocMw(MwType.TYPE_1);
        try {
            p.a().bindMw(mw, 1, SendFlags.SIGNALED, new MwBindInfo(mr, mr.address() + 32, 64, AccessFlags.REMOTE_READ));
        } catch (RuntimeException refused) {
            return;
        }
        org.junit.jupiter.api.Assertions.assertNotEquals(org.verbs4j.WcStatus.SUCCESS,
                Completions.awaitOne(p.cqA(), "the out-of-range bind").status(), "a window past its region's end");
    }

    @Test
    @DisplayName("required_ a CQ whose event channel was closed first is refused at creation [ibv_create_cq(3)]")
    void required_closedChannelRefused() {
        assumeTrue(caps().completionChannel(), "capability: the device has no completion channels");
        CompletionChannel ch = tb.context().createCompletionChannel();
        ch.close();
        Expect.refused("createCq(closed channel)", () -> tb.context().createCq(8, ch, 0));
    }

    @Test
    @DisplayName("required_ an address handle for a port the device lacks is refused [ibv_create_ah(3) EINVAL]")
    void required_ahBadPort() {
        int bad = tb.deviceAttributes().physPortCnt() + 1;
        Expect.refused("createAh(port " + bad + ")", () -> tb.pd().createAh(org.verbs4j.AhAttributes.roce(tb.gid(), tb.gidIndex(), bad)));
    }

    @Test
    @DisplayName("required_ an address handle with a source GID index beyond the table is refused [ibv_create_ah(3) EINVAL]")
    void required_ahBadGidIndex() {
        int bad = tb.portAttributes().gidTblLen();
        assumeTrue(bad <= 255, "the GID table has more than 255 entries");
        Expect.refused("createAh(sgid_index " + bad + ")", () -> tb.pd().createAh(org.verbs4j.AhAttributes.roce(tb.gid(), bad, tb.port())));
    }

    @Test
    @DisplayName("required_ closing one QP leaves another QP of the same CQ and PD working [ibv_destroy_qp(3)]")
    void required_closeOneQpKeepsOthers() {
        QpPair p = tb.pair(QpType.RC);
        QueuePair extra = tb.qp(QpType.RC, p.cqA(), null);
        extra.close();
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        org.junit.jupiter.api.Assertions.assertEquals(org.verbs4j.WcStatus.SUCCESS,
                p.write(1, buf, 8, dst.address() + 32, dst.rkey()).status());
        org.junit.jupiter.api.Assertions.assertEquals(DataInOrder.fromBits(
                p.a().queryDataInOrder(WrOpcode.RDMA_WRITE, DataInOrder.RETURN_CAPS)), p.a().dataInOrder(WrOpcode.RDMA_WRITE));
    }
}
