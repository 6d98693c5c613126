package org.verbs4j.tools.devinfo;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import org.verbs4j.Capabilities;
import org.verbs4j.Context;
import org.verbs4j.DataInOrder;
import org.verbs4j.Device;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.Gid;
import org.verbs4j.PortAttributes;
import org.verbs4j.ProviderSelection;
import org.verbs4j.ProviderUnavailableException;
import org.verbs4j.QpType;
import org.verbs4j.Verbs;
import org.verbs4j.WrOpcode;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tools.cli.ExitCodes;
import org.verbs4j.tools.cli.Providers;
import org.verbs4j.tools.cli.UsageException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code verbs4j devinfo}: the providers found and why one is chosen, then what {@code ibv_devinfo} shows for
 * each device, plus the device's {@link Capabilities}.
 *
 * @see "ibv_devinfo(1)"
 * @see "ibv_query_device(3)"
 * @see "ibv_query_port(3)"
 */
@Command(name = "devinfo", mixinStandardHelpOptions = true,
        description = "List the verbs providers, then query each RDMA device as ibv_devinfo does.")
public final class DevinfoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-v", "--verbose"}, description = "Print every device attribute and the GID tables.")
    boolean verbose;

    @Option(names = "--provider", paramLabel = "P", description = "Only this provider's devices.")
    String provider;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "Only this device.")
    String deviceName;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", description = "Only this port (1-based).")
    Integer port;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (port != null && port < 1) {
            throw new UsageException("--ib-port is 1-based, not " + port);
        }
        List<VerbsProvider> found = Verbs.providers();
        printProviders(out, found);

        List<VerbsProvider> shown = new ArrayList<>();
        if (provider != null) {
            shown.add(Providers.resolve(provider));
        } else {
            for (VerbsProvider p : found) {
                if (Providers.available(p)) {
                    shown.add(p);
                }
            }
        }
        int devices = 0;
        for (VerbsProvider p : shown) {
            for (Device d : p.devices()) {
                if (deviceName == null || deviceName.equals(d.name())) {
                    out.println();
                    printDevice(out, p, d);
                    devices++;
                }
            }
        }
        if (deviceName != null && devices == 0) {
            throw new UsageException("no device '" + deviceName + "' in "
                    + (provider != null ? "provider '" + provider + "'" : "any available provider"));
        }
        if (devices == 0) {
            out.println();
            out.println("No RDMA devices found.");
        }
        out.flush();
        return ExitCodes.OK;
    }

    private static void printProviders(PrintWriter out, List<VerbsProvider> found) {
        String chosenName = null;
        String chosenWhy;
        Map<String, String> rejected = Map.of();
        try {
            ProviderSelection sel = Verbs.select();
            chosenName = sel.chosen().name();
            chosenWhy = sel.reason();
            rejected = sel.rejected();
        } catch (ProviderUnavailableException e) {
            chosenWhy = e.getMessage();
        }
        out.println("providers: " + found.size() + " found");
        List<VerbsProvider> ranked = new ArrayList<>(found);
        ranked.sort(Comparator.comparingInt(VerbsProvider::priority).reversed());
        for (VerbsProvider p : ranked) {
            String state = Providers.available(p) ? "available" : "unavailable: " + Providers.causeText(p);
            String mark = p.name().equals(chosenName) ? "  <- chosen" : "";
            out.printf("\t%-9s priority %3d  %s%s%n", p.name(), p.priority(), state, mark);
        }
        if (chosenName != null) {
            out.println("chosen: " + chosenName + " (" + chosenWhy + ")");
        } else {
            out.println("chosen: none (" + chosenWhy + ")");
        }
        rejected.forEach((name, why) -> {
            if (name.startsWith("(")) {
                out.println("\t" + name + " " + why);
            }
        });
    }

    private void printDevice(PrintWriter out, VerbsProvider p, Device d) {
        try (Context ctx = d.open()) {
            DeviceAttributes a = ctx.queryDevice();
            out.printf("hca_id:\t%s\t(provider %s)%n", d.name(), p.name());
            out.printf("\tfw_ver:\t\t\t\t%s%n", a.fwVer());
            out.printf("\tnode_guid:\t\t\t%s%n", guid(a.nodeGuid()));
            out.printf("\tsys_image_guid:\t\t\t%s%n", guid(a.sysImageGuid()));
            out.printf("\tvendor_id:\t\t\t0x%04x%n", a.vendorId());
            out.printf("\tvendor_part_id:\t\t\t%d%n", a.vendorPartId());
            out.printf("\thw_ver:\t\t\t\t0x%X%n", a.hwVer());
            out.printf("\tphys_port_cnt:\t\t\t%d%n", a.physPortCnt());
            if (verbose) {
                printLimits(out, a);
            }
            for (int n = 1; n <= a.physPortCnt(); n++) {
                if (port == null || port == n) {
                    printPort(out, ctx, n);
                }
            }
            if (port != null && port > a.physPortCnt()) {
                throw new UsageException("device '" + d.name() + "' has " + a.physPortCnt() + " port(s), not port "
                        + port);
            }
            printCapabilities(out, ctx.capabilities());
        }
    }

    private static void printLimits(PrintWriter out, DeviceAttributes a) {
        Map<String, Object> limits = new java.util.LinkedHashMap<>();
        limits.put("max_mr_size", "0x" + Long.toHexString(a.maxMrSize()));
        limits.put("page_size_cap", "0x" + Long.toHexString(a.pageSizeCap()));
        limits.put("max_qp", a.maxQp());
        limits.put("max_qp_wr", a.maxQpWr());
        limits.put("device_cap_flags", String.format("0x%08x", a.deviceCapFlags()));
        limits.put("max_sge", a.maxSge());
        limits.put("max_sge_rd", a.maxSgeRd());
        limits.put("max_cq", a.maxCq());
        limits.put("max_cqe", a.maxCqe());
        limits.put("max_mr", a.maxMr());
        limits.put("max_pd", a.maxPd());
        limits.put("max_qp_rd_atom", a.maxQpRdAtom());
        limits.put("max_ee_rd_atom", a.maxEeRdAtom());
        limits.put("max_res_rd_atom", a.maxResRdAtom());
        limits.put("max_qp_init_rd_atom", a.maxQpInitRdAtom());
        limits.put("max_ee_init_rd_atom", a.maxEeInitRdAtom());
        limits.put("atomic_cap", "ATOMIC_" + a.atomicCap() + " (" + a.atomicCap().value() + ")");
        limits.put("max_ee", a.maxEe());
        limits.put("max_rdd", a.maxRdd());
        limits.put("max_mw", a.maxMw());
        limits.put("max_raw_ipv6_qp", a.maxRawIpv6Qp());
        limits.put("max_raw_ethy_qp", a.maxRawEthyQp());
        limits.put("max_mcast_grp", a.maxMcastGrp());
        limits.put("max_mcast_qp_attach", a.maxMcastQpAttach());
        limits.put("max_total_mcast_qp_attach", a.maxTotalMcastQpAttach());
        limits.put("max_ah", a.maxAh());
        limits.put("max_fmr", a.maxFmr());
        limits.put("max_map_per_fmr", a.maxMapPerFmr());
        limits.put("max_srq", a.maxSrq());
        limits.put("max_srq_wr", a.maxSrqWr());
        limits.put("max_srq_sge", a.maxSrqSge());
        limits.put("max_pkeys", a.maxPkeys());
        limits.put("local_ca_ack_delay", a.localCaAckDelay());
        limits.forEach((k, v) -> out.printf("\t%s:%s%s%n", k, tabsAfter(k, 1), v));
    }

    private void printPort(PrintWriter out, Context ctx, int n) {
        PortAttributes pa = ctx.queryPort(n);
        out.printf("\t\tport:\t%d%n", n);
        out.printf("\t\t\tstate:\t\t\tPORT_%s (%d)%n", pa.state(), pa.state().value());
        out.printf("\t\t\tmax_mtu:\t\t%d (%d)%n", pa.maxMtu().bytes(), pa.maxMtu().value());
        out.printf("\t\t\tactive_mtu:\t\t%d (%d)%n", pa.activeMtu().bytes(), pa.activeMtu().value());
        out.printf("\t\t\tsm_lid:\t\t\t%d%n", pa.smLid());
        out.printf("\t\t\tport_lid:\t\t%d%n", pa.lid());
        out.printf("\t\t\tport_lmc:\t\t0x%02x%n", pa.lmc());
        out.printf("\t\t\tlink_layer:\t\t%s%n", linkLayer(pa));
        if (verbose) {
            out.printf("\t\t\tmax_msg_sz:\t\t0x%x%n", pa.maxMsgSz());
            out.printf("\t\t\tport_cap_flags:\t\t0x%08x%n", pa.portCapFlags());
            out.printf("\t\t\tport_cap_flags2:\t0x%04x%n", pa.portCapFlags2());
            out.printf("\t\t\tmax_vl_num:\t\t%d%n", pa.maxVlNum());
            out.printf("\t\t\tbad_pkey_cntr:\t\t0x%x%n", pa.badPkeyCntr());
            out.printf("\t\t\tqkey_viol_cntr:\t\t0x%x%n", pa.qkeyViolCntr());
            out.printf("\t\t\tsm_sl:\t\t\t%d%n", pa.smSl());
            out.printf("\t\t\tpkey_tbl_len:\t\t%d%n", pa.pkeyTblLen());
            out.printf("\t\t\tgid_tbl_len:\t\t%d%n", pa.gidTblLen());
            out.printf("\t\t\tsubnet_timeout:\t\t%d%n", pa.subnetTimeout());
            out.printf("\t\t\tinit_type_reply:\t%d%n", pa.initTypeReply());
            out.printf("\t\t\tactive_width:\t\t%d%n", pa.activeWidth());
            out.printf("\t\t\tactive_speed:\t\t%d%n", pa.activeSpeed());
            out.printf("\t\t\tphys_state:\t\t%s (%d)%n", pa.physState() == 5 ? "LINK_UP" : "", pa.physState());
            for (int i = 0; i < pa.gidTblLen(); i++) {
                Gid gid = ctx.queryGid(n, i);
                if (!gid.isZero()) {
                    out.printf("\t\t\tGID[%3d]:\t\t%s%n", i, gid);
                }
            }
        }
    }

    private static String linkLayer(PortAttributes pa) {
        return switch (pa.linkLayer()) {
            case ETHERNET -> "Ethernet";
            case INFINIBAND -> "InfiniBand";
            case UNSPECIFIED -> "Unspecified";
        };
    }

    private static void printCapabilities(PrintWriter out, Capabilities c) {
        out.println("\tcapabilities:");
        out.printf("\t\tqp_types:\t\t%s%n", sorted(c.qpTypes()));
        Map<QpType, Set<WrOpcode>> ops = new TreeMap<>(c.sendOpcodes());
        ops.forEach((type, set) -> out.printf("\t\tsend_ops[%s]:%s%s%n", type, tabsAfter("send_ops[" + type + "]", 2),
                sorted(set)));
        out.printf("\t\twr_session:\t\t%s%n", c.wrSession() ? "yes (ibv_wr_*)" : "no (ibv_post_send only)");
        out.printf("\t\tmax_inline_data:\t%d bytes%n", c.maxInlineData());
        out.printf("\t\tmax_send_sge:\t\t%d%n", c.maxSendSge());
        out.printf("\t\tmax_recv_sge:\t\t%d%n", c.maxRecvSge());
        out.printf("\t\tatomics:\t\tATOMIC_%s%n", c.atomics());
        out.printf("\t\tmemory_windows:\t\t%s%n", sorted(c.memoryWindowTypes()));
        Map<WrOpcode, Set<DataInOrder>> dio = new TreeMap<>(c.dataInOrder());
        dio.forEach((op, set) -> out.printf("\t\tdata_in_order[%s]:%s%s%n", op,
                tabsAfter("data_in_order[" + op + "]", 2), sorted(set)));
        out.printf("\t\tthread_domains:\t\t%s%n", yesNo(c.threadDomains()));
        out.printf("\t\tip_csum:\t\t%s%n", yesNo(c.ipCsum()));
        out.printf("\t\tsrq:\t\t\t%s%n", yesNo(c.srq()));
        out.printf("\t\tcompletion_channel:\t%s%n", yesNo(c.completionChannel()));
    }

    private static <E extends Comparable<E>> String sorted(Set<E> set) {
        return set.isEmpty() ? "none" : String.join(" ", new TreeSet<>(set).stream().map(String::valueOf).toList());
    }

    private static String yesNo(boolean b) {
        return b ? "yes" : "no";
    }

    /** Tabs that line values up in columns of 8, as ibv_devinfo's hand-made tabs do. */
    private static String tabsAfter(String key, int indentTabs) {
        int col = indentTabs * 8 + key.length() + 1;
        int target = Math.max(col + 1, 40);
        StringBuilder sb = new StringBuilder();
        while (col < target) {
            sb.append('\t');
            col = (col / 8 + 1) * 8;
        }
        return sb.toString();
    }

    /** The GUID as {@code ibv_devinfo} prints it: four groups of four hex digits. */
    static String guid(long guid) {
        String hex = String.format("%016x", guid);
        return hex.substring(0, 4) + ":" + hex.substring(4, 8) + ":" + hex.substring(8, 12) + ":" + hex.substring(12);
    }
}
