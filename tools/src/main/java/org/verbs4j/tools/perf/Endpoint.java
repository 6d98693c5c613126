package org.verbs4j.tools.perf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ThreadLocalRandom;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.CmId;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.Gid;
import org.verbs4j.GidEntry;
import org.verbs4j.GlobalRoute;
import org.verbs4j.LinkLayer;
import org.verbs4j.MemoryRegion;
import org.verbs4j.Mtu;
import org.verbs4j.PortAttributes;
import org.verbs4j.PortState;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.Sge;
import org.verbs4j.tools.cli.UsageException;

/**
 * One side of a perf test: a context on the device, a PD, a send and a receive CQ, the QPs and one registered
 * buffer with a slot per QP. Both sides of a loopback run are endpoints in the same JVM; in a two-process run
 * each process has one. With {@code -R} the endpoint stands on the connection manager's context and its QPs are
 * the connection-manager ids' ({@link #makeQp}), which connect them.
 */
final class Endpoint implements AutoCloseable {
    /** The Q_Key every UD QP of a run uses. */
    static final int QKEY = 0x11111111;
    /** The bytes of Global Routing Header at the start of every UD receive buffer. */
    static final int GRH_BYTES = 40;
    private static final int RNR_TIMER_CODE = 12;
    private static final int GRH_HOP_LIMIT = 64;

    /** The settings of the size being run; {@link #use} switches sizes on the same QPs. */
    PerfSettings settings;
    /** The largest message the buffer slots hold, bytes. */
    final int capacity;
    final Context ctx;
    final PortAttributes portAttrs;
    final Gid gid;
    /** The source GID index of the port's QPs ({@link #gid}), and of the second port's with {@code -O}. */
    final int gidIndex;
    final int gidIndex2;
    /** With {@code -O}: the second port's attributes and GID (the same as the first's otherwise). */
    final PortAttributes portAttrs2;
    final Gid gid2;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final QueuePair[] qps;
    final int[] psns;
    final MemorySegment buffer;
    final MemoryRegion mr;
    final long slotBytes;
    /** Where a slot's incoming half starts: the peer writes, reads, sends and atomics there. */
    final long inOffset;
    final AddressHandle[] ahs;
    /** Per QP: receives posted and not yet completed. */
    final long[] recvPosted;
    private final RecvWr recvWr = new RecvWr();
    private final Sge recvSge = new Sge();
    private final int maxRdAtomic;
    private final int maxDestRdAtomic;
    /** Whether the endpoint opened its context (else it is the connection manager's, which it must not close). */
    private final boolean ownsContext;
    /** With {@code -R}: the id of each QP, which destroys it before the endpoint's PD and CQs close. */
    private final CmId[] cmIds;

    private Endpoint(PerfSettings s, Device device, int capacity, Arena arena) {
        this(s, device.open(), true, device.name(), capacity, arena);
    }

    private Endpoint(PerfSettings s, Context opened, boolean ownsContext, String deviceName, int capacity,
                     Arena arena) {
        this.settings = s;
        this.capacity = Math.max(capacity, s.size());
        this.ownsContext = ownsContext;
        this.cmIds = new CmId[s.qps()];
        try {
            this.ctx = opened;
            DeviceAttributes da = ctx.queryDevice();
            int lastPort = s.portOf(s.qps() - 1);
            if (lastPort > da.physPortCnt()) {
                throw new UsageException("device '" + deviceName + "' has " + da.physPortCnt()
                        + " port(s); there is no port " + lastPort
                        + (s.dualPort() ? " for the second half of the QPs (-O)" : ""));
            }
            this.portAttrs = activePort(deviceName, s.port());
            this.gidIndex = gidIndex(portAttrs, s.port(), s);
            this.gid = ctx.queryGid(s.port(), gidIndex);
            if (s.dualPort()) {
                this.portAttrs2 = activePort(deviceName, s.port() + 1);
                this.gidIndex2 = gidIndex(portAttrs2, s.port() + 1, s);
                this.gid2 = ctx.queryGid(s.port() + 1, gidIndex2);
            } else {
                this.portAttrs2 = portAttrs;
                this.gidIndex2 = gidIndex;
                this.gid2 = gid;
            }
            this.maxRdAtomic = Math.max(1, Math.min(16, da.maxQpInitRdAtom()));
            this.maxDestRdAtomic = Math.max(1, Math.min(16, da.maxQpRdAtom()));
            this.pd = ctx.allocPd();
            int q = s.qps();
            this.sendCq = ctx.createCq(s.txDepth() * q);
            this.recvCq = ctx.createCq(Math.max(1, s.rxDepth()) * q);
            // A slot is an outgoing half (the source of writes and sends) and an incoming half (the peer's target),
            // so a ping-pong test can tell the message it receives from the one it sends.
            this.inOffset = align(Math.max(this.capacity, PerfTest.ATOMIC_SIZE) + GRH_BYTES, 64);
            this.slotBytes = 2 * inOffset;
            this.buffer = arena.allocate(slotBytes * q, 4096);
            int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
                    | (s.test().isAtomic() ? AccessFlags.REMOTE_ATOMIC : 0);
            this.mr = pd.registerMemory(buffer, access, arena);
            this.qps = new QueuePair[q];
            this.psns = new int[q];
            this.ahs = new AddressHandle[q];
            this.recvPosted = new long[q];
            for (int i = 0; i < q; i++) {
                if (ownsContext) {
                    qps[i] = pd.createQp(qpAttributes());
                }
                psns[i] = ThreadLocalRandom.current().nextInt(1 << 24);
            }
        } catch (RuntimeException e) {
            if (ownsContext) {
                opened.close();
            } else {
                closeObjects();
            }
            throw e;
        }
    }

    /** The attributes of each QP of the endpoint. */
    QpInitAttributes qpAttributes() {
        QpInitAttributes.Builder b = QpInitAttributes.builder(settings.qpType()).sendCq(sendCq).recvCq(recvCq)
                .maxSendWr(settings.txDepth()).maxRecvWr(Math.max(1, settings.rxDepth())).maxSendSge(1)
                .maxRecvSge(1).maxInlineData(settings.inlineSize());
        if (settings.postApi() == PostApi.WR) {
            b.sendOps(settings.test().opcode());
        }
        return b.build();
    }

    private PortAttributes activePort(String deviceName, int port) {
        PortAttributes pa = ctx.queryPort(port);
        if (pa.state() != PortState.ACTIVE) {
            throw new UsageException("port " + port + " of '" + deviceName + "' is " + pa.state() + ", not ACTIVE");
        }
        return pa;
    }

    /** What {@code -x} defaults to, said once: {@code perf --help} and the header line print it. */
    static final String GID_DEFAULT = "on RoCE, as perftest, the port's best GID: IPv4-mapped first, then not "
            + "link-local, then RoCE v2 over v1 (the IPv4 RoCE v2 GID where there is one), else the first non-zero "
            + "GID; on InfiniBand no GRH, the LID";

    /**
     * {@code -x}, checked against the table; without it {@link GidEntry#defaultIndex}: on RoCE, perftest's choice
     * ({@code get_best_gid_index}, {@link GidEntry#preferred}) among the port's valid GID entries, else the first
     * non-zero GID.
     */
    private int gidIndex(PortAttributes pa, int port, PerfSettings s) {
        int index = s.gidIndex();
        if (index >= pa.gidTblLen()) {
            throw new UsageException("GID index " + index + " is outside the " + pa.gidTblLen()
                    + "-entry GID table of port " + port);
        }
        if (index >= 0) {
            return index;
        }
        return GidEntry.defaultIndex(ctx, port);
    }

    /** Opens the device and builds one side's objects, for messages of {@code settings.size()} bytes. */
    static Endpoint open(Device device, PerfSettings settings, Arena arena) {
        return new Endpoint(settings, device, settings.size(), arena);
    }

    /** Opens the device and builds one side's objects, with buffer slots for messages up to {@code capacity}. */
    static Endpoint open(Device device, PerfSettings settings, int capacity, Arena arena) {
        return new Endpoint(settings, device, capacity, arena);
    }

    /**
     * With {@code -R}: one side's objects on the context of a connection-manager id, without QPs; each QP is
     * made on an id ({@link #makeQp}) and connected by it.
     */
    static Endpoint onCmContext(CmId id, PerfSettings settings, int capacity, Arena arena) {
        Context c = id.context();
        if (c == null) {
            throw new UsageException("rdma_cm: the id is bound to no device");
        }
        return new Endpoint(settings, c, false, c.device().name(), capacity, arena);
    }

    /** With {@code -R}: makes QP {@code q} on {@code id}, which moves it through its states as it connects. */
    QueuePair makeQp(int q, CmId id) {
        qps[q] = id.createQp(pd, qpAttributes());
        cmIds[q] = id;
        return qps[q];
    }

    /**
     * Runs the next size on the same QPs and buffer, as perftest's {@code -a} does.
     *
     * @throws IllegalArgumentException if the size is more than the slots hold
     */
    void use(PerfSettings next) {
        if (next.size() > capacity) {
            throw new IllegalArgumentException("size " + next.size() + " is more than the " + capacity
                    + " bytes this endpoint's slots hold");
        }
        this.settings = next;
    }

    /** Whether this side's keys carry a GID (perftest's {@code gid_index != -1}): on RoCE, or when -x is given. */
    boolean usesGid() {
        return portAttrs.linkLayer() == LinkLayer.ETHERNET || settings.gidIndex() >= 0;
    }

    /** The RDMA READs and atomics this side's QPs accept at once: perftest's {@code out_reads}. */
    int outReads() {
        return Math.min(maxRdAtomic, maxDestRdAtomic);
    }

    /** The address of QP {@code q}'s buffer slot. */
    long slotAddress(int q) {
        return mr.address() + q * slotBytes;
    }

    /** The address of QP {@code q}'s incoming half. */
    long inAddress(int q) {
        return slotAddress(q) + inOffset;
    }

    /** The offset in {@link #buffer} of QP {@code q}'s slot. */
    long slotOffset(int q) {
        return q * slotBytes;
    }

    /** What the peer needs to reach QP {@code q}: its incoming half. */
    PeerInfo info(int q) {
        boolean second = settings.portOf(q) != settings.port();
        // With -R, perftest syncs before the QPs exist: their number is 0 then.
        int qpn = qps[q] == null ? 0 : qps[q].qpNum();
        return new PeerInfo((second ? portAttrs2 : portAttrs).lid(), qpn, psns[q], mr.rkey(),
                inAddress(q), second ? gid2 : gid);
    }

    /** The path MTU this side offers: {@code -m} when given (never above the port's active MTU), else the active MTU. */
    Mtu mtu() {
        Mtu active = portAttrs.activeMtu().bytes() <= portAttrs2.activeMtu().bytes() ? portAttrs.activeMtu()
                : portAttrs2.activeMtu();
        return settings.mtuBytes() > 0 && settings.mtuBytes() < active.bytes() ? Mtu.ofBytes(settings.mtuBytes()) : active;
    }

    /** Moves QP {@code q} to RTS, connected to the peer (RC, UC), or ready to send to it (UD). */
    void connect(int q, PeerInfo remote, Mtu pathMtu) {
        connect(q, remote, pathMtu, Integer.MAX_VALUE);
    }

    /**
     * Moves QP {@code q} to RTS, with at most {@code remoteOutReads} RDMA READs or atomics outstanding (what the
     * peer's QP accepts, perftest's {@code out_reads}).
     */
    void connect(int q, PeerInfo remote, Mtu pathMtu, int remoteOutReads) {
        QueuePair qp = qps[q];
        int port = settings.portOf(q);
        AhAttributes av = addressVector(remote, port);
        switch (settings.qpType()) {
            case RC -> {
                qp.modify(QpAttributes.toInit(port, 0, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
                        | AccessFlags.REMOTE_READ | (settings.test().isAtomic() ? AccessFlags.REMOTE_ATOMIC : 0)));
                qp.modify(QpAttributes.toRtr(av, pathMtu, remote.qpn(), remote.psn(), maxDestRdAtomic,
                        RNR_TIMER_CODE));
                // rnr_retry 7 retries forever, so a receiver that is a little late never fails a send test.
                qp.modify(QpAttributes.toRts(psns[q], settings.qpTimeout(), 7, 7,
                        Math.max(1, Math.min(maxRdAtomic, remoteOutReads))));
            }
            case UC -> {
                qp.modify(QpAttributes.toInit(port, 0, AccessFlags.LOCAL_WRITE
                        | AccessFlags.REMOTE_WRITE));
                qp.modify(QpAttributes.toRtrUc(av, pathMtu, remote.qpn(), remote.psn()));
                qp.modify(QpAttributes.toRtsUnreliable(psns[q]));
            }
            case UD -> {
                qp.modify(QpAttributes.toInitUd(port, 0, QKEY));
                qp.modify(QpAttributes.toState(org.verbs4j.QpState.RTR));
                qp.modify(QpAttributes.toRtsUnreliable(psns[q]));
                ahs[q] = pd.createAh(av);
            }
            default -> throw new UsageException("QP type " + settings.qpType() + " is not a perf QP type");
        }
    }

    /**
     * A GRH route on RoCE, or when a GID index was given or the port has no LID; the LID otherwise. The service
     * level ({@code -S}) and, on a GRH, the traffic class ({@code --tclass}) are the settings'.
     */
    private AhAttributes addressVector(PeerInfo remote, int port) {
        boolean global = portAttrs.linkLayer() == LinkLayer.ETHERNET || settings.gidIndex() >= 0 || remote.lid() == 0;
        if (global) {
            int sgidIndex = port == settings.port() ? gidIndex : gidIndex2;
            GlobalRoute grh = new GlobalRoute(remote.gid(), 0, sgidIndex, GRH_HOP_LIMIT, settings.trafficClass());
            return new AhAttributes(grh, 0, settings.sl(), 0, 0, port);
        }
        return new AhAttributes(null, remote.lid(), settings.sl(), 0, 0, port);
    }

    /**
     * Posts one receive on QP {@code q} into its incoming half; {@code wrId} is the QP index. It takes the largest
     * message the slot holds, so a receive posted for one size of a sweep still fits the next.
     */
    void postRecv(int q) {
        // UD receives start with the GRH; the message follows it.
        int len = capacity + (settings.qpType() == QpType.UD ? GRH_BYTES : 0);
        recvSge.set(inAddress(q), len, mr.lkey());
        recvWr.wrId(q).sgList(recvSge);
        qps[q].postRecv(recvWr);
        recvPosted[q]++;
    }

    private static long align(long v, long a) {
        return (v + a - 1) / a * a;
    }

    @Override
    public void close() {
        if (ownsContext) {
            // Closing the context releases every object created from it, as ibv_close_device does.
            ctx.close();
            return;
        }
        for (CmId id : cmIds) {
            if (id != null && !id.isClosed()) {
                id.destroyQp();
            }
        }
        closeObjects();
    }

    /** Closes what the endpoint made on a context it does not own, newest first. */
    private void closeObjects() {
        for (AutoCloseable o : new AutoCloseable[] {mr, recvCq, sendCq, pd}) {
            try {
                if (o != null) {
                    o.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException("closing the endpoint's " + o + " failed", e);
            }
        }
    }
}
