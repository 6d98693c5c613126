package org.verbs4j.provider.emulated.verbs;

import java.lang.foreign.MemorySegment;
import java.lang.ref.WeakReference;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.verbs4j.AtomicCapability;
import org.verbs4j.Capabilities;
import org.verbs4j.Context;
import org.verbs4j.DataInOrder;
import org.verbs4j.Device;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.DeviceAttributesEx;
import org.verbs4j.DeviceAttributesEx.OdpCaps;
import org.verbs4j.Gid;
import org.verbs4j.LinkLayer;
import org.verbs4j.Mtu;
import org.verbs4j.MwType;
import org.verbs4j.PortAttributes;
import org.verbs4j.PortState;
import org.verbs4j.QpType;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.emulated.engine.KeyTable;
import org.verbs4j.provider.emulated.engine.QpnTable;

/**
 * An emulated RDMA device: one ACTIVE port with an Ethernet link layer and a RoCE v2-style GID table of
 * two entries (a link-local GID from the node GUID, and the IPv4-mapped GID {@code ::ffff:10.255.0.N}).
 *
 * <p>Devices are created once per JVM. Each owns its key table (lkeys and rkeys) and its QP table. An
 * in-JVM device ({@code emuN}) is found by either of its GIDs, which is how a QP reaches its peer. A wire
 * device ({@code roceN}) sends RoCE v2 packets over UDP instead, through its {@link NetworkLink}: its GIDs are, as
 * rxe has them, the link-local GID from a MAC address (here {@code 02:00} and the IPv4 address) at index 0
 * and the IPv4-mapped GID of its address at index 1; it is not found by GID in the JVM.
 *
 * <p>UD multicast ({@code ibv_attach_mcast(3)}) has rxe's limits on both kinds ({@code max_mcast_grp} 8192,
 * {@code max_mcast_qp_attach} 56, {@code max_total_mcast_qp_attach} 0x70000). On an in-JVM device a UD send to a
 * multicast GID and QPN {@code 0xFFFFFF} reaches the QPs attached on every in-JVM device. On a wire device it leaves
 * as one RoCE v2 packet to the group's IPv4 address ({@code ::ffff:224.0.0.0/4}) and reaches the QPs attached on
 * every wire device the network carries it to, this host's included; the link joins a group on the device's first
 * attach and leaves it on the last detach. An IPv6 multicast GID ({@code ff0e::/16}) attaches on a wire device, and
 * counts against its limits, but no IPv4 packet ever carries it: a send to it goes nowhere and such a group receives
 * nothing, as rxe, which finds a packet's group from its IPv4 destination ({@code rxe_rcv_mcast_pkt}), does.
 */
public final class EmulatedDevice implements Device {
    static final int MAX_QP_WR = 16384;
    static final int MAX_SGE = 32;
    static final int MAX_INLINE_DATA = 256;
    /** {@code cq_mod_caps}: mlx5's figures (16-bit count, 4095 us period); a local CQ matter, the same on the wire. */
    static final int MAX_CQ_MODERATION_COUNT = 0xffff;
    static final int MAX_CQ_MODERATION_PERIOD = 4095;
    static final int MAX_CQE = 1 << 20;
    static final int MAX_SRQ_WR = 16384;
    public static final int MAX_RD_ATOMIC = 128;
    static final long MAX_MSG_SIZE = 1L << 31;
    /** A wire device's {@code max_msg_sz}: rxe's (8 MiB). */
    static final long WIRE_MAX_MSG_SIZE = 1L << 23;
    public static final Mtu MTU = Mtu.MTU_4096;
    static final int GID_TABLE_LENGTH = 2;
    /** rxe's {@code RXE_MAX_MCAST_GRP}. */
    static final int MAX_MCAST_GRP = 8192;
    /** Device memory: the longest buffer and the device's whole memory, bytes, as an mlx5 MEMIC of 128 KiB. */
    static final long MAX_DM_SIZE = 128 * 1024;
    /**
     * Packet pacing ({@code ibv_modify_qp_rate_limit(3)}): 1 Mbit/s to 100 Gbit/s on every QP type that sends a
     * connection's or a datagram's messages.
     */
    static final DeviceAttributesEx.PacketPacingCaps PACKET_PACING = new DeviceAttributesEx.PacketPacingCaps(1_000,
            100_000_000, 1 << QpType.RC.value() | 1 << QpType.UC.value() | 1 << QpType.UD.value()
                    | 1 << QpType.XRC_SEND.value());
    /** rxe's {@code RXE_MAX_MCAST_QP_ATTACH}. */
    static final int MAX_MCAST_QP_ATTACH = 56;
    /** rxe's {@code RXE_MAX_TOT_MCAST_QP_ATTACH}. */
    static final int MAX_TOTAL_MCAST_QP_ATTACH = 0x70000;

    private static final Map<Gid, EmulatedDevice> BY_GID = new ConcurrentHashMap<>();
    /** Every in-JVM device, for multicast delivery; replaced as a whole when one is added. */
    private static volatile EmulatedDevice[] inJvmDevices = new EmulatedDevice[0];

    /** The QPN of the next QP, for the whole JVM, so QPNs never repeat across devices. */
    private static int nextQpn = 0x11;

    final int index;
    private final String name;
    private final long guid;
    private final Gid[] gids;
    private final MemorySegment[] gidBytes;
    final KeyTable keys = new KeyTable();
    /** The bytes of device memory the open buffers take, of {@link #MAX_DM_SIZE}. */
    private long deviceMemoryTaken;
    public final QpnTable<EmulatedQueuePair> qps = new QpnTable<>();
    /** The XRC domains opened with a file, by the file's device and inode ({@code ibv_open_xrcd(3)}). */
    final java.util.Map<String, XrcShared> xrcdsByInode = new java.util.HashMap<>();
    /** The multicast groups and the QPs attached to them, with rxe's limits on every device. */
    final MulticastGroups multicast;
    private final Capabilities capabilities;
    private final DeviceAttributes attributes;
    private final DeviceAttributesEx attributesEx;
    private final PortAttributes port;
    /** A wire device's way onto the network; null for an in-JVM device. */
    private final NetworkLink link;
    private final long maxMessageSize;

    /** An in-JVM device. */
    private EmulatedDevice(int index) {
        this(index, "emu" + index, 0x0200_00ff_fe00_0000L | (index + 1),
                new byte[] {10, (byte) 255, (byte) ((index + 1) >> 8), (byte) (index + 1)}, null);
    }

    /**
     * A device. Its GUID is the EUI-64 of a MAC address, and its link-local GID that EUI-64 with the
     * universal/local bit inverted, as IPv6 forms it: a wire device's MAC is {@code 02:00:a:b:c:d} for its
     * address {@code a.b.c.d}, so its GID 0 is {@code fe80::a:ff:fe0b:c0d}-shaped, as rxe's would be.
     */
    private EmulatedDevice(int index, String name, long guid, byte[] ipv4Address, NetworkLink link) {
        this.index = index;
        this.name = name;
        this.guid = guid;
        this.link = link;
        this.maxMessageSize = link == null ? MAX_MSG_SIZE : WIRE_MAX_MSG_SIZE;
        Gid linkLocal = new Gid(0xfe80_0000_0000_0000L, guid ^ 0x0200_0000_0000_0000L);
        Gid ipv4 = Gid.ofIpv4(ipv4Address);
        this.gids = new Gid[] {linkLocal, ipv4};
        this.gidBytes = new MemorySegment[] {MemorySegment.ofArray(linkLocal.toBytes()),
            MemorySegment.ofArray(ipv4.toBytes())};
        this.capabilities = buildCapabilities(link != null);
        // rxe's limits on both kinds; a wire device's link joins its IPv4 groups on the network.
        this.multicast = new MulticastGroups(MAX_MCAST_GRP, MAX_MCAST_QP_ATTACH, MAX_TOTAL_MCAST_QP_ATTACH, link);
        // max_mr_size does not shrink with the wire device's max_msg_sz: a region holds many messages.
        this.attributes = new DeviceAttributes("verbs4j-emulated-1", guid, guid, MAX_MSG_SIZE * 2L, 0xfffff000L,
                0, 0, 1, 1 << 16, MAX_QP_WR,
                DeviceAttributes.CAP_RC_RNR_NAK_GEN | DeviceAttributes.CAP_N_NOTIFY_CQ | DeviceAttributes.CAP_MEM_WINDOW
                        | DeviceAttributes.CAP_MEM_MGT_EXTENSIONS | DeviceAttributes.CAP_MEM_WINDOW_TYPE_2B
                        | (capabilities.xrc() ? DeviceAttributes.CAP_XRC : 0),
                MAX_SGE, MAX_SGE, 1 << 14, MAX_CQE, 1 << 20, 1 << 14, MAX_RD_ATOMIC, 0, MAX_RD_ATOMIC * 1024,
                MAX_RD_ATOMIC, 0, AtomicCapability.HCA, 0, 0, 1 << 16, 0, 0, multicast.maxGroups(),
                multicast.maxQpPerGroup(), multicast.maxTotal(), 1 << 16, 0, 0, 1 << 14,
                MAX_SRQ_WR, MAX_SGE, 1, 15, 1);
        this.attributesEx = buildAttributesEx(attributes, capabilities);
        this.port = new PortAttributes(link == null || link.isBound() ? PortState.ACTIVE : PortState.DOWN, MTU, MTU, GID_TABLE_LENGTH, 0x0400_0000 | 0x0001_0000,
                maxMessageSize, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 32, 5, LinkLayer.ETHERNET, 0, 0);
    }

    /**
     * The in-JVM device's opcodes; a wire device has neither FLUSH nor ATOMIC_WRITE yet, and no SEND_WITH_INV
     * on UC, which has no such BTH opcode (IBA table 35).
     */
    private static Capabilities buildCapabilities(boolean wire) {
        Set<WrOpcode> rc = EnumSet.allOf(WrOpcode.class);
        rc.remove(WrOpcode.TSO);
        Set<WrOpcode> uc = EnumSet.of(WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.SEND,
                WrOpcode.SEND_WITH_IMM, WrOpcode.SEND_WITH_INV, WrOpcode.LOCAL_INV, WrOpcode.BIND_MW);
        if (wire) {
            rc.remove(WrOpcode.FLUSH);
            rc.remove(WrOpcode.ATOMIC_WRITE);
            uc.remove(WrOpcode.SEND_WITH_INV);
        }
        Set<WrOpcode> ud = EnumSet.of(WrOpcode.SEND, WrOpcode.SEND_WITH_IMM);
        Set<DataInOrder> inOrder = EnumSet.allOf(DataInOrder.class);
        // XRC_SEND executes what RC does; on the wire its requests carry an XRCETH.
        Set<QpType> types = EnumSet.of(QpType.RC, QpType.UC, QpType.UD, QpType.XRC_SEND, QpType.XRC_RECV);
        Map<QpType, Set<WrOpcode>> opcodes = Map.of(QpType.RC, rc, QpType.UC, uc, QpType.UD, ud, QpType.XRC_SEND, rc);
        return new Capabilities(types, opcodes, true, MAX_INLINE_DATA, MAX_SGE, MAX_SGE,
                AtomicCapability.HCA, EnumSet.allOf(MwType.class),
                Map.of(WrOpcode.RDMA_READ, inOrder, WrOpcode.RDMA_WRITE, inOrder, WrOpcode.SEND, inOrder),
                true, false, true, true, MAX_CQ_MODERATION_COUNT, MAX_CQ_MODERATION_PERIOD, MAX_DM_SIZE,
                true, true);
    }

    /**
     * The extended attributes, as a kernel driver reports them: {@code device_cap_flags} in the low 32 bits of
     * {@code device_cap_flags_ex}, with the kernel's ATOMIC_WRITE and FLUSH bits where the engine executes those
     * opcodes on RC; on-demand paging of explicit regions for every operation of each QP type (its memory is
     * always present), not implicit; completion timestamps of all 64 bits from a 1 GHz clock ({@link #rawClock});
     * CQ moderation and device memory as the capabilities give them; packet pacing ({@link #PACKET_PACING}); one
     * port. No TSO, RSS or tag matching.
     */
    private static DeviceAttributesEx buildAttributesEx(DeviceAttributes a, Capabilities c) {
        long flagsEx = Integer.toUnsignedLong(a.deviceCapFlags());
        if (c.supports(QpType.RC, WrOpcode.ATOMIC_WRITE)) {
            flagsEx |= DeviceAttributesEx.DEVICE_ATOMIC_WRITE;
        }
        if (c.supports(QpType.RC, WrOpcode.FLUSH)) {
            flagsEx |= DeviceAttributesEx.DEVICE_FLUSH;
        }
        DeviceAttributesEx none = DeviceAttributesEx.legacy(a);
        int rc = OdpCaps.SUPPORT_SEND | OdpCaps.SUPPORT_RECV | OdpCaps.SUPPORT_WRITE | OdpCaps.SUPPORT_READ
                | OdpCaps.SUPPORT_ATOMIC | OdpCaps.SUPPORT_SRQ_RECV;
        int uc = OdpCaps.SUPPORT_SEND | OdpCaps.SUPPORT_RECV | OdpCaps.SUPPORT_WRITE | OdpCaps.SUPPORT_SRQ_RECV;
        int ud = OdpCaps.SUPPORT_SEND | OdpCaps.SUPPORT_RECV | OdpCaps.SUPPORT_SRQ_RECV;
        return new DeviceAttributesEx(a, 0, new OdpCaps(OdpCaps.SUPPORT, rc, uc, ud), -1L, HCA_CORE_CLOCK_KHZ, flagsEx, none.tsoCaps(), none.rssCaps(), 0,
                PACKET_PACING, 0, none.tmCaps(),
                new DeviceAttributesEx.CqModerationCaps(c.maxCqModerationCount(), c.maxCqModerationPeriod()),
                c.maxDmSize(),
                none.pciAtomicCaps(), 0, a.physPortCnt());
    }

    /**
     * Takes device memory for a new buffer.
     *
     * @param length its bytes
     * @return false if fewer than {@code length} bytes are free
     */
    synchronized boolean takeDeviceMemory(long length) {
        if (length > MAX_DM_SIZE - deviceMemoryTaken) {
            return false;
        }
        deviceMemoryTaken += length;
        return true;
    }

    /**
     * Gives back the memory of a freed buffer.
     *
     * @param length its bytes
     */
    synchronized void returnDeviceMemory(long length) {
        deviceMemoryTaken -= length;
    }

    /** {@code hca_core_clock}: the raw clock ticks once a nanosecond. */
    static final long HCA_CORE_CLOCK_KHZ = 1_000_000;
    /** What {@link System#nanoTime()} adds to an instant to make it wall-clock nanoseconds, taken once. */
    private static final long WALLCLOCK_OFFSET_NS = wallclockOffset();

    private static long wallclockOffset() {
        java.time.Instant now = java.time.Instant.now();
        long mono = System.nanoTime();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano() - mono;
    }

    /** {@return the raw clock of every emulated device, the one completion timestamps and queryRawClock read} */
    static long rawClock() {
        return System.nanoTime();
    }

    /**
     * {@return the wall-clock nanoseconds of an instant of the raw clock}
     *
     * @param raw a reading of {@link #rawClock()}
     */
    static long wallclockNs(long raw) {
        return raw + WALLCLOCK_OFFSET_NS;
    }

    /** The in-JVM device {@code emu<index>}, found by either of its GIDs from now on. */
    public static EmulatedDevice inJvm(int index) {
        EmulatedDevice d = new EmulatedDevice(index);
        for (Gid g : d.gids) {
            BY_GID.put(g, d);
        }
        synchronized (EmulatedDevice.class) {
            EmulatedDevice[] all = Arrays.copyOf(inJvmDevices, inJvmDevices.length + 1);
            all[all.length - 1] = d;
            inJvmDevices = all;
        }
        return d;
    }

    /**
     * The wire device {@code roce<n>} on {@code link}; an unbound link makes a device listed with its port DOWN.
     * The caller starts the link's receiving.
     */
    public static EmulatedDevice wire(int index, int n, NetworkLink link) {
        byte[] a = link.address();
        long guid = 0x0200_0000_0000_0000L | (long) (a[0] & 0xff) << 40 | 0x00ff_fe00_0000L | (a[1] & 0xffL) << 16 | (a[2] & 0xffL) << 8
                | a[3] & 0xffL;
        return new EmulatedDevice(index, "roce" + n, guid, a, link);
    }

    /** {@return every in-JVM device made so far; the caller must not change the array} */
    static EmulatedDevice[] inJvmDevices() {
        return inJvmDevices;
    }

    /**
     * The QPs of this device attached to the multicast group {@code gid} now, possibly none, for a link's delivery
     * of the group's datagrams: each to be dereferenced (null once collected), the array not to be changed.
     */
    public WeakReference<EmulatedQueuePair>[] multicastMembers(Gid gid) {
        return multicast.members(gid);
    }

    /** The device that owns this GID, or null. */
    public static EmulatedDevice byGid(Gid gid) {
        return BY_GID.get(gid);
    }

    static synchronized int allocateQpn() {
        int qpn = nextQpn;
        nextQpn = qpn == 0xffffff ? 0x11 : qpn + 1;
        return qpn;
    }

    /** {@return the wire device's way onto the network, or null for an in-JVM device} */
    public NetworkLink link() {
        return link;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long guid() {
        return guid;
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public Context open() {
        return new EmulatedContext(this);
    }

    /** The device's {@code max_msg_sz}, bytes. */
    public long maxMessageSize() {
        return maxMessageSize;
    }

    Capabilities capabilities() {
        return capabilities;
    }

    DeviceAttributes attributes() {
        return attributes;
    }

    DeviceAttributesEx attributesEx() {
        return attributesEx;
    }

    PortAttributes port() {
        return port;
    }

    public Gid gid(int index) {
        return gids[index];
    }

    /** The 16 bytes of a GID table entry, read-only by convention. */
    MemorySegment gidBytes(int index) {
        return gidBytes[index];
    }

    @Override
    public String toString() {
        return "EmulatedDevice[" + name + "]";
    }
}
