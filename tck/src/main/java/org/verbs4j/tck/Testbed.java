package org.verbs4j.tck;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.Capabilities;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.Gid;
import org.verbs4j.GidEntry;
import org.verbs4j.LinkLayer;
import org.verbs4j.MemoryRegion;
import org.verbs4j.Mtu;
import org.verbs4j.PortAttributes;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.spi.VerbsProvider;

/**
 * One open device with a protection domain, and the helpers that make a test short: registered
 * buffers, CQs, QPs and connected QP pairs over the device's own port (loopback), as pyverbs' base
 * classes do. Closing it closes the context, which releases everything made from it, then frees the memory.
 *
 * <p>A testbed may be opened with a {@linkplain #peer() peer}: a second testbed on another device (its own
 * context, PD, CQs and buffers), which then holds the {@code b} side of every {@linkplain #pair(QpType) pair},
 * addressed through the peer's port and GID. Without one, the peer is the testbed itself and pairs are loopback.
 *
 * <p>Reusable by vendors and by {@link DifferentialWorkload}.
 */
public final class Testbed implements AutoCloseable {
    /** The Q_Key the UD QPs of a testbed use. */
    public static final int QKEY = 0x11111111;
    /** The first PSN of every connected QP. */
    public static final int PSN = 0x1234;
    /** The RNR NAK timer code used for RC responders: 1, the shortest non-zero wait (0.01 ms). */
    public static final int MIN_RNR_TIMER = 1;
    /** The ACK timeout code RC requesters use unless the testbed is opened with another: 14, about 67 ms. */
    public static final int ACK_TIMEOUT = 14;
    /** Every remote access a responder QP of a testbed allows. */
    public static final int QP_ACCESS = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
    /** Local write and every remote access. */
    public static final int ALL_ACCESS = AccessFlags.LOCAL_WRITE | QP_ACCESS;

    private final VerbsProvider provider;
    private final Device device;
    private final Context context;
    private final Arena arena = Arena.ofShared();
    private final int port;
    private final int ackTimeout;
    private final int gidIndex;
    private final Gid gid;
    private final PortAttributes portAttributes;
    private final DeviceAttributes deviceAttributes;
    private final Capabilities capabilities;
    private final ProtectionDomain pd;
    /** The testbed of the pairs' b side: this one, or another device's that this one closes. */
    private Testbed peer = this;

    /**
     * Opens {@code deviceName} (the first device when null) of {@code provider} and allocates a PD.
     *
     * @param provider the provider whose device to open
     * @param deviceName the device's name, as {@code ibv_get_device_name} gives it, or null for the first device
     * @param port the port to use, 1-based
     * @param gidIndex the source GID index, or -1 for the port's default: on RoCE perftest's choice, else its first
     *        non-zero entry
     * @return the open testbed; the caller closes it
     * @throws IllegalArgumentException if the provider has no device of that name
     */
    public static Testbed open(VerbsProvider provider, String deviceName, int port, int gidIndex) {
        return open(provider, deviceName, port, gidIndex, ACK_TIMEOUT);
    }

    /**
     * Opens {@code deviceName} (the first device when null) of {@code provider} and allocates a PD; its RC QPs
     * use the ACK timeout code {@code ackTimeout}.
     *
     * @param provider the provider whose device to open
     * @param deviceName the device's name, as {@code ibv_get_device_name} gives it, or null for the first device
     * @param port the port to use, 1-based
     * @param gidIndex the source GID index, or -1 for the port's default: on RoCE perftest's choice, else its first
     *        non-zero entry
     * @param ackTimeout the RC ACK timeout code, 0 to 31: 4.096 microseconds times 2 to its power
     * @return the open testbed; the caller closes it
     * @throws IllegalArgumentException if the provider has no device of that name, or the code is outside 0..31
     */
    public static Testbed open(VerbsProvider provider, String deviceName, int port, int gidIndex, int ackTimeout) {
        if (ackTimeout < 0 || ackTimeout > 31) {
            throw new IllegalArgumentException("an ACK timeout code is 0 to 31, not " + ackTimeout);
        }
        Device device = deviceName == null ? provider.devices().getFirst() : provider.device(deviceName);
        return new Testbed(provider, device, port, gidIndex, ackTimeout);
    }

    /**
     * Opens a testbed on {@code deviceName} whose pairs put their {@code b} QP on another device of the same
     * provider, {@code peerDeviceName}, with the same port, GID index and ACK timeout; or, when
     * {@code peerDeviceName} is null, the same as {@link #open(VerbsProvider, String, int, int, int)}.
     *
     * @param provider the provider whose devices to open
     * @param deviceName the device of the pairs' a side, or null for the first device
     * @param port the port to use on both devices, 1-based
     * @param gidIndex the source GID index on both, or -1 for each port's default: on RoCE perftest's choice, else
     *        its first non-zero entry
     * @param ackTimeout the RC ACK timeout code, 0 to 31: 4.096 microseconds times 2 to its power
     * @param peerDeviceName the device of the pairs' b side, or null for loopback pairs on one device
     * @return the open testbed; the caller closes it, which closes the peer too
     * @throws IllegalArgumentException if the provider has no device of either name, or the code is outside 0..31
     */
    public static Testbed open(VerbsProvider provider, String deviceName, int port, int gidIndex, int ackTimeout,
                               String peerDeviceName) {
        Testbed near = open(provider, deviceName, port, gidIndex, ackTimeout);
        if (peerDeviceName == null) {
            return near;
        }
        try {
            Testbed far = open(provider, peerDeviceName, port, gidIndex, ackTimeout);
            near.peer = far;
            far.peer = near;
            return near;
        } catch (RuntimeException | Error e) {
            near.close();
            throw e;
        }
    }

    private Testbed(VerbsProvider provider, Device device, int port, int gidIndex, int ackTimeout) {
        this.provider = provider;
        this.device = device;
        this.ackTimeout = ackTimeout;
        this.context = device.open();
        try {
            this.port = port;
            this.portAttributes = context.queryPort(port);
            this.deviceAttributes = context.queryDevice();
            this.capabilities = context.capabilities();
            this.gidIndex = gidIndex >= 0 ? gidIndex : GidEntry.defaultIndex(context, port);
            this.gid = context.queryGid(port, this.gidIndex);
            this.pd = context.allocPd();
        } catch (RuntimeException | Error e) {
            context.close();
            arena.close();
            throw e;
        }
    }

    /**
     * The testbed of the {@code b} side of this testbed's pairs: buffers a pair's {@code b} QP receives into, or
     * that a's RDMA and atomics target, are registered in its PD.
     *
     * @return another device's testbed when the kit splits pairs over two devices, else this testbed
     */
    public Testbed peer() {
        return peer;
    }

    /** {@return whether the pairs of this testbed span two devices (the {@linkplain #peer() peer} is another testbed)} */
    public boolean isSplit() {
        return peer != this;
    }

    /** {@return the provider the testbed's device belongs to} */
    public VerbsProvider provider() {
        return provider;
    }

    /** {@return the open device} */
    public Device device() {
        return device;
    }

    /** {@return the device's context, closed with the testbed} */
    public Context context() {
        return context;
    }

    /** {@return the testbed's protection domain: every buffer, QP and AH of the helpers is in it} */
    public ProtectionDomain pd() {
        return pd;
    }

    /** {@return the port in use, 1-based} */
    public int port() {
        return port;
    }

    /** {@return the index of the source GID in the port's GID table} */
    public int gidIndex() {
        return gidIndex;
    }

    /** {@return the source GID, at {@link #gidIndex()}} */
    public Gid gid() {
        return gid;
    }

    /** {@return the port's attributes, queried when the testbed opened ({@code ibv_query_port(3)})} */
    public PortAttributes portAttributes() {
        return portAttributes;
    }

    /** {@return the device's attributes, queried when the testbed opened ({@code ibv_query_device(3)})} */
    public DeviceAttributes deviceAttributes() {
        return deviceAttributes;
    }

    /** {@return what the device can do, as the provider reports it} */
    public Capabilities caps() {
        return capabilities;
    }

    /** {@return the MTU connected QPs use: the port's active MTU, or the smaller of the two ports' when split} */
    public Mtu mtu() {
        Mtu own = portAttributes.activeMtu();
        Mtu far = peer.portAttributes.activeMtu();
        return far.bytes() < own.bytes() ? far : own;
    }

    /**
     * Native memory, zeroed, 64-byte aligned, freed when the testbed closes.
     *
     * @param bytes its size, bytes
     * @return the memory, not registered
     */
    public MemorySegment memory(long bytes) {
        return arena.allocate(bytes, 64);
    }

    /** {@return the arena of {@link #memory}, closed after the context: the owner to register that memory with} */
    public Arena arena() {
        return arena;
    }

    /**
     * A zeroed native buffer, registered in the testbed's PD.
     *
     * @param bytes its size, bytes
     * @param access the region's {@link AccessFlags}
     * @return the memory region
     */
    public MemoryRegion buffer(long bytes, int access) {
        return pd.registerMemory(memory(bytes), access, arena);
    }

    /**
     * A zeroed buffer with local write and every remote access ({@link #ALL_ACCESS}).
     *
     * @param bytes its size, bytes
     * @return the memory region
     */
    public MemoryRegion buffer(long bytes) {
        return buffer(bytes, ALL_ACCESS);
    }

    /**
     * A CQ of the device.
     *
     * @param cqe the least number of entries it holds
     * @return the CQ
     */
    public CompletionQueue cq(int cqe) {
        return context.createCq(cqe);
    }

    /**
     * A QP in RESET with 32 send and 32 receive WRs.
     *
     * @param type its transport
     * @param cq the CQ of its send and receive completions
     * @param customizer changes to the builder's defaults, or null
     * @return the QP, in RESET
     */
    public QueuePair qp(QpType type, CompletionQueue cq, Consumer<QpInitAttributes.Builder> customizer) {
        QpInitAttributes.Builder b = QpInitAttributes.builder(type).cq(cq).maxSendWr(32).maxRecvWr(32);
        if (customizer != null) {
            customizer.accept(b);
        }
        return pd.createQp(b.build());
    }

    /** {@return the address vector that reaches this testbed's own port: loopback} */
    public AhAttributes av() {
        return avTo(this);
    }

    /**
     * The address vector from this testbed's port to another testbed's port: its LID on InfiniBand, else its GID,
     * sent from this testbed's source GID index.
     *
     * @param dest the testbed to reach: this one (loopback) or its {@linkplain #peer() peer}
     * @return the address vector
     */
    public AhAttributes avTo(Testbed dest) {
        PortAttributes far = dest.portAttributes;
        if (far.linkLayer() == LinkLayer.INFINIBAND && far.lid() != 0) {
            return new AhAttributes(null, far.lid(), 0, 0, 0, port);
        }
        return AhAttributes.roce(dest.gid, gidIndex, port);
    }

    /** {@return a new address handle to this testbed's own port} */
    public AddressHandle ah() {
        return pd.createAh(av());
    }

    /**
     * RESET to INIT, as the QP's type requires: the port, P_Key index 0, and {@link #QP_ACCESS} or {@link #QKEY}.
     *
     * @param qp a QP of this testbed, in RESET
     */
    public void toInit(QueuePair qp) {
        qp.modify(qp.type() == QpType.UD
                ? QpAttributes.toInitUd(port, 0, QKEY)
                : QpAttributes.toInit(port, 0, QP_ACCESS));
    }

    /**
     * INIT to RTR towards a remote QP, as the QP's type requires.
     *
     * @param qp a QP of this testbed, in INIT
     * @param remoteQpn the QP number it sends to (ignored on UD)
     */
    public void toRtr(QueuePair qp, int remoteQpn) {
        toRtr(qp, remoteQpn, this);
    }

    /**
     * INIT to RTR towards a remote QP on {@code dest}'s port, as the QP's type requires.
     *
     * @param qp a QP of this testbed, in INIT
     * @param remoteQpn the QP number it sends to (ignored on UD)
     * @param dest the testbed of the remote QP: this one or its {@linkplain #peer() peer}
     */
    public void toRtr(QueuePair qp, int remoteQpn, Testbed dest) {
        AhAttributes av = avTo(dest);
        switch (qp.type()) {
            case UD -> qp.modify(QpAttributes.toState(QpState.RTR));
            // An XRC_SEND QP has no responder: it takes neither MAX_DEST_RD_ATOMIC nor MIN_RNR_TIMER.
            case UC, XRC_SEND -> qp.modify(QpAttributes.toRtrUc(av, mtu(), remoteQpn, PSN));
            default -> qp.modify(QpAttributes.toRtr(av, mtu(), remoteQpn, PSN, maxRdAtomic(true), MIN_RNR_TIMER));
        }
    }

    /**
     * RTR to RTS, as the QP's type requires.
     *
     * @param qp a QP of this testbed, in RTR
     * @param rnrRetry the RNR retry count for RC, 0 to 7 (7 retries forever); ignored otherwise
     */
    public void toRts(QueuePair qp, int rnrRetry) {
        if (qp.type() == QpType.RC || qp.type() == QpType.XRC_SEND) {
            qp.modify(QpAttributes.toRts(PSN, ackTimeout, 7, rnrRetry, maxRdAtomic(false)));
        } else {
            qp.modify(QpAttributes.toRtsUnreliable(PSN));
        }
    }

    private int maxRdAtomic(boolean dest) {
        int limit = dest ? deviceAttributes.maxQpRdAtom() : deviceAttributes.maxQpInitRdAtom();
        return Math.max(1, Math.min(16, limit));
    }

    /**
     * Moves a QP from RESET to RTS.
     *
     * @param qp a QP of this testbed, in RESET
     * @param remoteQpn the QP number it is connected to (ignored on UD)
     * @param rnrRetry the RNR retry count for RC, 0 to 7 (7 retries forever)
     */
    public void bringUp(QueuePair qp, int remoteQpn, int rnrRetry) {
        bringUp(qp, remoteQpn, rnrRetry, this);
    }

    /**
     * Moves a QP from RESET to RTS, connected to a QP on {@code dest}'s port.
     *
     * @param qp a QP of this testbed, in RESET
     * @param remoteQpn the QP number it is connected to (ignored on UD)
     * @param rnrRetry the RNR retry count for RC, 0 to 7 (7 retries forever)
     * @param dest the testbed of the remote QP: this one or its {@linkplain #peer() peer}
     */
    public void bringUp(QueuePair qp, int remoteQpn, int rnrRetry, Testbed dest) {
        toInit(qp);
        toRtr(qp, remoteQpn, dest);
        toRts(qp, rnrRetry);
    }

    /**
     * Two QPs, each on its own CQ, connected to each other and in RTS: a on this testbed, b on its
     * {@linkplain #peer() peer} (this testbed unless the pairs are split over two devices).
     *
     * @param type their transport
     * @return the pair
     */
    public QpPair pair(QpType type) {
        return pair(type, null, 7);
    }

    /**
     * Two connected QPs in RTS, each on its own CQ.
     *
     * @param type their transport
     * @param customizer changes to both QPs' builder defaults, or null
     * @return the pair
     */
    public QpPair pair(QpType type, Consumer<QpInitAttributes.Builder> customizer) {
        return pair(type, customizer, 7);
    }

    /**
     * Two connected QPs in RTS, each on its own CQ.
     *
     * @param type their transport
     * @param customizer changes to both QPs' builder defaults, or null
     * @param rnrRetry the RNR retry count of RC QPs, 0 to 7 (7 retries forever)
     * @return the pair
     */
    public QpPair pair(QpType type, Consumer<QpInitAttributes.Builder> customizer, int rnrRetry) {
        return pair(type, customizer, customizer, rnrRetry);
    }

    /**
     * Two connected QPs in RTS, each on its own CQ, each QP with its own changes to the builder's defaults: for an
     * attribute that belongs to one context (a thread domain) when the pair spans two devices.
     *
     * @param type their transport
     * @param customizerA changes to a's builder defaults, or null
     * @param customizerB changes to b's builder defaults, or null
     * @param rnrRetry the RNR retry count of RC QPs, 0 to 7 (7 retries forever)
     * @return the pair
     */
    public QpPair pair(QpType type, Consumer<QpInitAttributes.Builder> customizerA,
                       Consumer<QpInitAttributes.Builder> customizerB, int rnrRetry) {
        CompletionQueue cqA = cq(256);
        CompletionQueue cqB = peer.cq(256);
        QueuePair a = qp(type, cqA, customizerA);
        QueuePair b = peer.qp(type, cqB, customizerB);
        bringUp(a, b.qpNum(), rnrRetry, peer);
        peer.bringUp(b, a.qpNum(), rnrRetry, this);
        return new QpPair(this, a, b, cqA, cqB, type == QpType.UD ? pd.createAh(avTo(peer)) : null, peer);
    }

    /** Closes the context, releasing every verbs object of the testbed, then frees its memory; then its peer's. */
    @Override
    public void close() {
        try {
            context.close();
        } finally {
            arena.close();
            Testbed far = peer;
            if (far != this) {
                peer = this;
                far.peer = far;
                far.close();
            }
        }
    }

    @Override
    public String toString() {
        String own = provider.name() + ":" + device.name() + " port " + port + " GID[" + gidIndex + "] " + gid;
        return peer == this ? own : own + " <-> " + peer.device.name() + " GID[" + peer.gidIndex + "] " + peer.gid;
    }

}
