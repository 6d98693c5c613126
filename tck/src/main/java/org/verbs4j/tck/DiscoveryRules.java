package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AtomicCapability;
import org.verbs4j.Context;
import org.verbs4j.DataInOrder;
import org.verbs4j.Device;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.DeviceAttributesEx;
import org.verbs4j.Errno;
import org.verbs4j.ForkStatus;
import org.verbs4j.Gid;
import org.verbs4j.GidEntry;
import org.verbs4j.GidType;
import org.verbs4j.LinkLayer;
import org.verbs4j.PortAttributes;
import org.verbs4j.PortState;
import org.verbs4j.QpType;
import org.verbs4j.Verbs;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.spi.VerbsProvider;

/** Providers, devices, ports, GIDs, device and port attributes, capabilities. */
public abstract class DiscoveryRules extends TckArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected DiscoveryRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    @Test
    @DisplayName("required_ the provider's name is non-empty lower case, as verbs4j.provider selects it [VerbsProvider#name]")
    void required_providerNameIsLowerCase() {
        String name = tb.provider().name();
        assertNotNull(name, "VerbsProvider.name() returned null");
        assertFalse(name.isBlank(), "VerbsProvider.name() is blank");
        assertEquals(name.toLowerCase(java.util.Locale.ROOT), name, "VerbsProvider.name() must be lower case");
    }

    @Test
    @DisplayName("required_ the provider was built against this SPI version [VerbsProvider#spiVersion]")
    void required_spiVersionMatches() {
        assertEquals(VerbsProvider.SPI_VERSION, tb.provider().spiVersion(),
                "spiVersion() must return VerbsProvider.SPI_VERSION as compiled in");
    }

    @Test
    @DisplayName("required_ an available provider gives no unavailability cause and ensureAvailability passes [VerbsProvider]")
    void required_availableProviderHasNoCause() {
        assertTrue(tb.provider().isAvailable());
        assertNull(tb.provider().unavailabilityCause(), "unavailabilityCause() must be null when isAvailable()");
        tb.provider().ensureAvailability();
    }

    @Test
    @DisplayName("required_ the provider is registered with ServiceLoader under its name [DESIGN: a provider is registered twice]")
    void required_registeredWithServiceLoader() {
        String name = tb.provider().name();
        List<VerbsProvider> found = Verbs.providers();
        assertTrue(found.stream().anyMatch(p -> p.name().equals(name) && p.getClass() == tb.provider().getClass()),
                "Verbs.providers() must find '" + name + "' (" + tb.provider().getClass().getName()
                        + "); check META-INF/services/org.verbs4j.spi.VerbsProvider and module-info 'provides'. Found "
                        + found.stream().map(VerbsProvider::name).toList());
    }

    @Test
    @DisplayName("required_ an available provider lists at least one device, with unique names [ibv_get_device_list(3)]")
    void required_devicesListedWithUniqueNames() {
        List<Device> devices = tb.provider().devices();
        assertFalse(devices.isEmpty(), "an available provider lists at least one device");
        Set<String> names = new HashSet<>();
        for (Device d : devices) {
            assertTrue(names.add(d.name()), "device name listed twice: " + d.name());
        }
    }

    @Test
    @DisplayName("required_ device(name) finds a listed device and refuses an unknown name with IllegalArgumentException [VerbsProvider#device]")
    void required_deviceByName() {
        Device d = tb.provider().devices().getFirst();
        assertEquals(d.name(), tb.provider().device(d.name()).name());
        Expect.badInput("device(unknown)", () -> tb.provider().device("no-such-device-verbs4j-tck"));
    }

    @Test
    @DisplayName("required_ an opened context reports the device it was opened from [ibv_open_device(3)]")
    void required_contextKnowsItsDevice() {
        assertEquals(tb.device().name(), tb.context().device().name());
        assertFalse(tb.context().isClosed());
    }

    @Test
    @DisplayName("required_ queryDevice's node GUID is the device's GUID [ibv_query_device(3), ibv_get_device_guid(3)]")
    void required_nodeGuidMatchesDevice() {
        assertEquals(tb.device().guid(), tb.deviceAttributes().nodeGuid(),
                "DeviceAttributes.nodeGuid() must equal Device.guid()");
    }

    @Test
    @DisplayName("required_ the device has at least one physical port [ibv_query_device(3) phys_port_cnt]")
    void required_hasPorts() {
        assertTrue(tb.deviceAttributes().physPortCnt() >= 1, "phys_port_cnt must be >= 1");
    }

    @Test
    @DisplayName("required_ device limits for QPs, WRs, SGEs, CQs, CQEs, MRs and PDs are positive [ibv_query_device(3)]")
    void required_deviceLimitsPositive() {
        DeviceAttributes a = tb.deviceAttributes();
        assertPositive(a, Map.of("maxQp", a.maxQp(), "maxQpWr", a.maxQpWr(), "maxSge", a.maxSge(), "maxCq", a.maxCq(),
                "maxCqe", a.maxCqe(), "maxMr", a.maxMr(), "maxPd", a.maxPd()));
        assertTrue(a.maxMrSize() > 0, "max_mr_size must be positive");
    }

    private static void assertPositive(DeviceAttributes a, Map<String, Integer> limits) {
        limits.forEach((k, v) -> assertTrue(v > 0, k + " must be positive in " + a));
    }

    @Test
    @DisplayName("required_ device attributes are stable: two queries agree [ibv_query_device(3)]")
    void required_queryDeviceStable() {
        assertEquals(tb.deviceAttributes(), tb.context().queryDevice());
    }

    @Test
    @DisplayName("required_ the extended query's orig_attr is what ibv_query_device answers, and two extended queries agree [ibv_query_device_ex(3)]")
    void required_queryDeviceExCarriesTheLegacyAttributes() {
        DeviceAttributesEx ex = tb.context().queryDeviceEx();
        assertEquals(tb.context().queryDevice(), ex.origAttr());
        assertEquals(ex, tb.context().queryDeviceEx());
    }

    @Test
    @DisplayName("required_ device_cap_flags_ex, when reported, holds device_cap_flags in its low 32 bits, as the kernel fills both from one word [ibv_query_device_ex(3)]")
    void required_deviceCapFlagsExExtendsTheLegacyFlags() {
        DeviceAttributesEx ex = tb.context().queryDeviceEx();
        Assumptions.assumeTrue(ex.deviceCapFlagsEx() != 0, "the device reports no device_cap_flags_ex");
        assertEquals(Integer.toUnsignedLong(ex.origAttr().deviceCapFlags()), ex.deviceCapFlagsEx() & 0xffff_ffffL,
                "device_cap_flags 0x" + Integer.toHexString(ex.origAttr().deviceCapFlags()) + ", device_cap_flags_ex 0x"
                        + Long.toHexString(ex.deviceCapFlagsEx()));
    }

    @Test
    @DisplayName("required_ the capabilities claim ATOMIC_WRITE and FLUSH on RC only where device_cap_flags_ex has the kernel's bit, and CQ moderation only within cq_mod_caps [ibv_query_device_ex(3), ibv_modify_cq(3)]")
    void required_capabilitiesWithinTheExtendedAttributes() {
        DeviceAttributesEx ex = tb.context().queryDeviceEx();
        if (caps().supports(QpType.RC, WrOpcode.ATOMIC_WRITE)) {
            assertTrue((ex.deviceCapFlagsEx() & DeviceAttributesEx.DEVICE_ATOMIC_WRITE) != 0,
                    "ATOMIC_WRITE claimed without IB_UVERBS_DEVICE_ATOMIC_WRITE");
        }
        if (caps().supports(QpType.RC, WrOpcode.FLUSH)) {
            assertTrue((ex.deviceCapFlagsEx() & DeviceAttributesEx.DEVICE_FLUSH) != 0,
                    "FLUSH claimed without IB_UVERBS_DEVICE_FLUSH_*");
        }
        assertTrue(caps().maxCqModerationCount() <= ex.cqModCaps().maxCqCount()
                && caps().maxCqModerationPeriod() <= ex.cqModCaps().maxCqPeriod(),
                caps().maxCqModerationCount() + "/" + caps().maxCqModerationPeriod() + " beyond " + ex.cqModCaps());
    }

    @Test
    @DisplayName("required_ each device of the provider has its own kernel index, or -1 where the kernel has none [ibv_get_device_index(3)]")
    void required_deviceIndexesDistinct() {
        Set<Integer> seen = new HashSet<>();
        for (Device d : tb.provider().devices()) {
            int index = d.index();
            assertTrue(index >= -1, d.name() + " has index " + index);
            assertTrue(index == -1 || seen.add(index), d.name() + " shares index " + index + " with another device");
        }
        assertEquals(tb.device().index(), tb.context().device().index(), "the opened device's index");
    }

    @Test
    @DisplayName("required_ the port under test is ACTIVE [ibv_query_port(3) state]")
    void required_portActive() {
        assertEquals(PortState.ACTIVE, tb.portAttributes().state(),
                "the TCK needs an ACTIVE port; check the link (for rxe: the netdev is up)");
    }

    @Test
    @DisplayName("required_ the active MTU is no larger than the port's maximum MTU [ibv_query_port(3)]")
    void required_activeMtuWithinMax() {
        PortAttributes p = tb.portAttributes();
        assertTrue(p.activeMtu().bytes() <= p.maxMtu().bytes(), "active_mtu " + p.activeMtu() + " > max_mtu " + p.maxMtu());
    }

    @Test
    @DisplayName("required_ the port's max message size is at least its active MTU [ibv_query_port(3) max_msg_sz]")
    void required_maxMsgSize() {
        PortAttributes p = tb.portAttributes();
        assertTrue(p.maxMsgSz() >= p.activeMtu().bytes(), "max_msg_sz " + p.maxMsgSz());
    }

    @Test
    @DisplayName("required_ a RoCE (Ethernet) port has LID 0 and an InfiniBand port a non-zero LID [ibv_query_port(3), IBA]")
    void required_lidMatchesLinkLayer() {
        PortAttributes p = tb.portAttributes();
        if (p.linkLayer() == LinkLayer.ETHERNET) {
            assertEquals(0, p.lid(), "RoCE ports have no LID");
        } else {
            assertTrue(p.lid() != 0, "an active InfiniBand port has a LID");
        }
    }

    @Test
    @DisplayName("required_ queryPort refuses port 0 and ports beyond phys_port_cnt [ibv_query_port(3): ports are 1-based]")
    void required_queryPortRange() {
        Expect.badInput("queryPort(0)", () -> tb.context().queryPort(0));
        Expect.badInput("queryPort(phys_port_cnt + 1)",
                () -> tb.context().queryPort(tb.deviceAttributes().physPortCnt() + 1));
    }

    @Test
    @DisplayName("required_ the port's GID table has entries and the GID under test is not zero [ibv_query_gid(3)]")
    void required_gidTable() {
        assertTrue(tb.portAttributes().gidTblLen() >= 1, "gid_tbl_len must be >= 1");
        assertFalse(tb.gid().isZero(), "the GID at index " + tb.gidIndex() + " is zero");
    }

    @Test
    @DisplayName("required_ queryGid refuses a negative index and the index gid_tbl_len [ibv_query_gid(3)]")
    void required_queryGidRange() {
        Expect.badInput("queryGid(port, -1)", () -> tb.context().queryGid(tb.port(), -1));
        Expect.badInput("queryGid(port, gid_tbl_len)",
                () -> tb.context().queryGid(tb.port(), tb.portAttributes().gidTblLen()));
    }

    @Test
    @DisplayName("required_ GID queries are stable: the same entry twice gives the same GID [ibv_query_gid(3)]")
    void required_gidStable() {
        Gid again = tb.context().queryGid(tb.port(), tb.gidIndex());
        assertEquals(tb.gid(), again);
    }

    @Test
    @DisplayName("required_ every device can create RC QPs [DESIGN: RC is the transport every provider carries]")
    void required_rcSupported() {
        assertTrue(caps().supports(QpType.RC), "Capabilities.qpTypes must contain RC");
    }

    @Test
    @DisplayName("required_ capability opcodes stay inside the ibv_post_send(3)/ibv_wr_post(3) tables [seed tables]")
    void required_capabilityOpcodesWithinSeedTable() {
        caps().sendOpcodes().forEach((type, ops) -> {
            for (WrOpcode op : ops) {
                assertTrue(SeedTable.builderAllows(op, type), "Capabilities.sendOpcodes claims " + op + " on " + type
                        + ", which the seed table does not allow");
            }
        });
    }

    @Test
    @DisplayName("required_ capability opcodes are given only for QP types the device creates [Capabilities]")
    void required_capabilityOpcodesForCreatableTypes() {
        for (QpType t : caps().sendOpcodes().keySet()) {
            if (!caps().sendOpcodes().get(t).isEmpty()) {
                assertTrue(caps().supports(t), "sendOpcodes has " + t + " but qpTypes does not");
            }
        }
    }

    @Test
    @DisplayName("required_ every creatable QP type executes SEND [ibv_post_send(3) table: SEND is valid on every type]")
    void required_sendEverywhere() {
        for (QpType t : caps().qpTypes()) {
            if (t != QpType.XRC_RECV) {
                assertTrue(caps().supports(t, WrOpcode.SEND), t + " QPs must execute SEND");
            }
        }
    }

    @Test
    @DisplayName("required_ SGE and inline capabilities agree with the device limits [ibv_query_device(3) max_sge]")
    void required_sgeCapabilities() {
        assertTrue(caps().maxSendSge() >= 1 && caps().maxSendSge() <= tb.deviceAttributes().maxSge(),
                "maxSendSge " + caps().maxSendSge() + " must be 1..max_sge " + tb.deviceAttributes().maxSge());
        assertTrue(caps().maxRecvSge() >= 1 && caps().maxRecvSge() <= tb.deviceAttributes().maxSge(),
                "maxRecvSge " + caps().maxRecvSge());
        assertTrue(caps().maxInlineData() >= 0, "maxInlineData cannot be negative");
    }

    @Test
    @DisplayName("required_ the atomics capability is the device's atomic_cap, and RC atomics exist exactly when it is not NONE [ibv_query_device(3) atomic_cap]")
    void required_atomicCapabilityConsistent() {
        assertEquals(tb.deviceAttributes().atomicCap(), caps().atomics());
        boolean rcAtomics = caps().supports(QpType.RC, WrOpcode.ATOMIC_FETCH_AND_ADD)
                || caps().supports(QpType.RC, WrOpcode.ATOMIC_CMP_AND_SWP);
        assertEquals(caps().atomics() != AtomicCapability.NONE, rcAtomics,
                "RC atomic opcodes in sendOpcodes must match atomic_cap " + caps().atomics());
    }

    @Test
    @DisplayName("required_ memory window types are claimed only by a device with max_mw > 0 [ibv_query_device(3) max_mw]")
    void required_mwCapabilityConsistent() {
        if (!caps().memoryWindowTypes().isEmpty()) {
            assertTrue(tb.deviceAttributes().maxMw() > 0, "memoryWindowTypes " + caps().memoryWindowTypes()
                    + " but max_mw is 0");
        }
    }

    @Test
    @DisplayName("required_ data-in-order capabilities are given only for RDMA READ, RDMA WRITE and SEND [ibv_query_qp_data_in_order(3) op]")
    void required_dataInOrderOps() {
        Set<WrOpcode> allowed = Set.of(WrOpcode.RDMA_READ, WrOpcode.RDMA_WRITE, WrOpcode.SEND);
        for (Map.Entry<WrOpcode, Set<DataInOrder>> e : caps().dataInOrder().entrySet()) {
            assertTrue(allowed.contains(e.getKey()) || e.getValue().isEmpty(),
                    "dataInOrder describes " + e.getKey() + ", which the man page excludes");
        }
    }

    @Test
    @DisplayName("required_ IP_CSUM is claimed only with a checksum-offload device capability [ibv_post_send(3) IBV_SEND_IP_CSUM]")
    void required_ipCsumConsistent() {
        if (caps().ipCsum()) {
            int flags = tb.deviceAttributes().deviceCapFlags();
            assertTrue((flags & (DeviceAttributes.CAP_UD_IP_CSUM | DeviceAttributes.CAP_RAW_IP_CSUM)) != 0,
                    "Capabilities.ipCsum but device_cap_flags has neither UD_IP_CSUM nor RAW_IP_CSUM");
        }
    }

    @Test
    @DisplayName("required_ the capabilities are stable: two queries agree [Capabilities]")
    void required_capabilitiesStable() {
        assertEquals(caps(), tb.context().capabilities());
    }

    @Test
    @DisplayName("required_ a device can be opened twice, and closing one context leaves the other working [ibv_open_device(3)]")
    void required_twoContexts() {
        Context second = tb.device().open();
        assertTrue(second != tb.context(), "open() must return a new context");
        second.close();
        assertTrue(second.isClosed());
        assertFalse(tb.context().isClosed(), "closing one context closed another");
        tb.context().queryDevice();
        tb.context().allocPd().close();
    }

    @Test
    @DisplayName("required_ a fresh context has no pending asynchronous event, and a negative timeout is refused [ibv_get_async_event(3)]")
    void required_asyncEventPolling() {
        assertNull(tb.context().pollAsyncEvent(0, TimeUnit.MILLISECONDS), "a fresh context has no async event");
        Expect.badInput("pollAsyncEvent(-1)", () -> tb.context().pollAsyncEvent(-1, TimeUnit.MILLISECONDS));
    }

    @Test
    @DisplayName("required_ queryPort returns the same attributes for the same port [ibv_query_port(3)]")
    void required_queryPortStable() {
        PortAttributes again = tb.context().queryPort(tb.port());
        assertEquals(tb.portAttributes().activeMtu(), again.activeMtu());
        assertEquals(tb.portAttributes().gidTblLen(), again.gidTblLen());
        assertSame(tb.portAttributes().linkLayer(), again.linkLayer());
    }

    @Test
    @DisplayName("required_ Verbs.provider(name) resolves this provider when it is named explicitly [DESIGN: Choosing a provider, rule 1]")
    void required_resolvableByName() {
        VerbsProvider named = Verbs.provider(tb.provider().name());
        assertEquals(tb.provider().getClass(), named.getClass(), "Verbs.provider(\"" + tb.provider().name() + "\")");
        assertTrue(named.isAvailable());
    }

    @Test
    @DisplayName("required_ the device's node GUID is not zero [ibv_get_device_guid(3), IBA 4.1.1: GUIDs are EUI-64]")
    void required_guidNonZero() {
        assertTrue(tb.device().guid() != 0, "Device.guid() is 0");
    }

    @Test
    @DisplayName("required_ P_Key index 0 holds the default P_Key 0xFFFF, and ibv_get_pkey_index finds it there [ibv_query_pkey(3), ibv_get_pkey_index(3), IBA 10.9.1.1]")
    void required_defaultPkey() {
        assertEquals(0xffff, tb.context().queryPkey(tb.port(), 0), "queryPkey(port, 0)");
        assertEquals(0, tb.context().pkeyIndex(tb.port(), 0xffff), "pkeyIndex(port, 0xFFFF)");
    }

    @Test
    @DisplayName("required_ queryPkey answers the last entry, pkey_tbl_len - 1, and refuses -1 and pkey_tbl_len [ibv_query_pkey(3)]")
    void required_queryPkeyRange() {
        int len = tb.portAttributes().pkeyTblLen();
        assertTrue(len >= 1, "pkey_tbl_len must be >= 1, the default P_Key's entry");
        int last = tb.context().queryPkey(tb.port(), len - 1);
        assertTrue(last >= 0 && last <= 0xffff, "queryPkey(port, pkey_tbl_len - 1) = " + last + " is not 16 bits");
        Expect.badInput("queryPkey(port, pkey_tbl_len)", () -> tb.context().queryPkey(tb.port(), len));
        Expect.badInput("queryPkey(port, -1)", () -> tb.context().queryPkey(tb.port(), -1));
    }

    @Test
    @DisplayName("required_ the P_Key verbs take port 1 and refuse port 0 and phys_port_cnt + 1 [ibv_query_pkey(3): ports are 1-based]")
    void required_pkeyPortRange() {
        int beyond = tb.deviceAttributes().physPortCnt() + 1;
        assertEquals(0xffff, tb.context().queryPkey(1, 0), "queryPkey(1, 0)");
        assertEquals(0, tb.context().pkeyIndex(1, 0xffff), "pkeyIndex(1, 0xFFFF)");
        Expect.badInput("queryPkey(0, 0)", () -> tb.context().queryPkey(0, 0));
        Expect.badInput("queryPkey(phys_port_cnt + 1, 0)", () -> tb.context().queryPkey(beyond, 0));
        Expect.badInput("pkeyIndex(0, 0xFFFF)", () -> tb.context().pkeyIndex(0, 0xffff));
        Expect.badInput("pkeyIndex(phys_port_cnt + 1, 0xFFFF)", () -> tb.context().pkeyIndex(beyond, 0xffff));
    }

    @Test
    @DisplayName("required_ pkeyIndex finds each entry's P_Key at or before it, fails with ENOENT for a P_Key the table lacks, and refuses one wider than 16 bits [ibv_get_pkey_index(3)]")
    void required_pkeyIndexLookup() {
        int len = tb.portAttributes().pkeyTblLen();
        Set<Integer> held = new HashSet<>();
        for (int i = 0; i < len; i++) {
            int pkey = tb.context().queryPkey(tb.port(), i);
            if (held.add(pkey)) {
                assertEquals(i, tb.context().pkeyIndex(tb.port(), pkey), "pkeyIndex of the P_Key at index " + i);
            }
        }
        int absent = 0x1234;
        while (held.contains(absent)) {
            absent++;
        }
        int missing = absent;
        Expect.errno("pkeyIndex(port, a P_Key not in the table)",
                () -> tb.context().pkeyIndex(tb.port(), missing), Errno.ENOENT);
        Expect.badInput("pkeyIndex(port, 0x10000)", () -> tb.context().pkeyIndex(tb.port(), 0x10000));
        Expect.badInput("pkeyIndex(port, -1)", () -> tb.context().pkeyIndex(tb.port(), -1));
    }

    @Test
    @DisplayName("required_ queryGidEntry answers the GID under test with its index, port and the GID queryGid gives; the last index gid_tbl_len - 1 answers or is empty (ENODATA); -1 and gid_tbl_len are refused [ibv_query_gid_ex(3)]")
    void required_queryGidEntryRange() {
        GidEntry e = tb.context().queryGidEntry(tb.port(), tb.gidIndex());
        assertEquals(tb.gid(), e.gid(), "the entry's GID");
        assertEquals(tb.gidIndex(), e.gidIndex(), "gid_index");
        assertEquals(tb.port(), e.portNum(), "port_num");
        int len = tb.portAttributes().gidTblLen();
        if (tb.context().queryGid(tb.port(), len - 1).isZero()) {
            Expect.errno("queryGidEntry(port, gid_tbl_len - 1), an empty entry",
                    () -> tb.context().queryGidEntry(tb.port(), len - 1), Errno.ENODATA);
        } else {
            assertEquals(len - 1, tb.context().queryGidEntry(tb.port(), len - 1).gidIndex(), "gid_index");
        }
        Expect.badInput("queryGidEntry(port, gid_tbl_len)", () -> tb.context().queryGidEntry(tb.port(), len));
        Expect.badInput("queryGidEntry(port, -1)", () -> tb.context().queryGidEntry(tb.port(), -1));
        Expect.badInput("queryGidType(port, gid_tbl_len)", () -> tb.context().queryGidType(tb.port(), len));
    }

    @Test
    @DisplayName("required_ the GID queries take port 1 and refuse port 0 and phys_port_cnt + 1 [ibv_query_gid_ex(3): ports are 1-based]")
    void required_gidEntryPortRange() {
        int beyond = tb.deviceAttributes().physPortCnt() + 1;
        GidEntry first = tb.context().queryGidTable().get(0);
        assertEquals(1, first.portNum(), "the first valid entry's port");
        assertEquals(first, tb.context().queryGidEntry(1, first.gidIndex()), "queryGidEntry(1, its index)");
        Expect.badInput("queryGidEntry(0, 0)", () -> tb.context().queryGidEntry(0, 0));
        Expect.badInput("queryGidEntry(phys_port_cnt + 1, 0)", () -> tb.context().queryGidEntry(beyond, 0));
        Expect.badInput("queryGidType(0, 0)", () -> tb.context().queryGidType(0, 0));
    }

    @Test
    @DisplayName("required_ an empty GID entry (all zeros in ibv_query_gid) answers ENODATA to queryGidEntry and queryGidType [ibv_query_gid_ex(3)]")
    void required_emptyGidEntry() {
        int len = tb.portAttributes().gidTblLen();
        int empty = -1;
        for (int i = 0; i < len && empty < 0; i++) {
            if (tb.context().queryGid(tb.port(), i).isZero()) {
                empty = i;
            }
        }
        Assumptions.assumeTrue(empty >= 0,
                "every entry of the port's " + len + "-entry GID table holds a GID: none is empty");
        int at = empty;
        Expect.errno("queryGidEntry(port, an empty index)", () -> tb.context().queryGidEntry(tb.port(), at),
                Errno.ENODATA);
        Expect.errno("queryGidType(port, an empty index)", () -> tb.context().queryGidType(tb.port(), at),
                Errno.ENODATA);
    }

    @Test
    @DisplayName("required_ queryGidTable with room for exactly the valid entries answers them, each as queryGidEntry gives it; one less room fails with EINVAL; negative room is refused [ibv_query_gid_table(3)]")
    void required_gidTableExactFit() {
        List<GidEntry> all = tb.context().queryGidTable();
        assertFalse(all.isEmpty(), "queryGidTable() lists no entry, but GID " + tb.gidIndex() + " is valid");
        assertEquals(all, tb.context().queryGidTable(all.size()), "queryGidTable(the number of valid entries)");
        for (GidEntry e : all) {
            assertFalse(e.gid().isZero(), "queryGidTable lists an empty entry: " + e);
            assertEquals(e, tb.context().queryGidEntry(e.portNum(), e.gidIndex()), "queryGidEntry of " + e);
            assertEquals(e.type(), tb.context().queryGidType(e.portNum(), e.gidIndex()), "queryGidType of " + e);
        }
        Expect.errno("queryGidTable(one less than the valid entries)",
                () -> tb.context().queryGidTable(all.size() - 1), Errno.EINVAL);
        Expect.badInput("queryGidTable(-1)", () -> tb.context().queryGidTable(-1));
    }

    @Test
    @DisplayName("required_ a GID's type fits the port's link layer: RoCE v1 or v2 on Ethernet, IB on InfiniBand [ibv_query_gid_ex(3), rdma-core's sysfs GID types]")
    void required_gidTypeFitsLinkLayer() {
        for (GidEntry e : tb.context().queryGidTable()) {
            LinkLayer ll = tb.context().queryPort(e.portNum()).linkLayer();
            if (ll == LinkLayer.ETHERNET) {
                assertTrue(e.type() == GidType.ROCE_V1 || e.type() == GidType.ROCE_V2,
                        "an Ethernet port's GID is RoCE v1 or v2, not " + e);
            } else {
                assertEquals(GidType.IB, e.type(), "an InfiniBand port's GID type, " + e);
            }
        }
    }

    @Test
    @DisplayName("required_ forkStatus() answers, and forkInit() after a registration keeps its word: where fork is ENABLED it succeeds twice; where it is DISABLED it fails with EINVAL; where it is UNNEEDED it succeeds, or fails with EINVAL as rdma-core 44 does (it checks for an earlier registration first); the status never changes [ibv_fork_init(3), ibv_is_fork_initialized(3)]")
    void required_forkInitAfterRegistration() {
        VerbsProvider provider = tb.provider();
        tb.buffer(64); // a registration: from here ibv_fork_init is too late unless fork support is already on
        ForkStatus before = provider.forkStatus();
        assertNotNull(before);
        switch (before) {
            case ENABLED -> {
                provider.forkInit();
                provider.forkInit();
            }
            case DISABLED -> Expect.errno("forkInit() after a registration", provider::forkInit, Errno.EINVAL);
            case UNNEEDED -> {
                try {
                    provider.forkInit();
                } catch (VerbsException e) {
                    assertEquals(Errno.EINVAL, e.errno(), "forkInit() where fork is safe: " + e.getMessage());
                }
            }
        }
        assertEquals(before, provider.forkStatus(), "forkInit() after a registration changes no status");
    }
}
