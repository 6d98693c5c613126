package org.verbs4j.tools.tck;

import java.io.PrintWriter;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.verbs4j.Device;
import org.verbs4j.WcStatus;
import org.verbs4j.WrOpcode;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.tck.DifferentialWorkload;
import org.verbs4j.tck.DifferentialWorkload.Outcome;
import org.verbs4j.tck.Testbed;
import org.verbs4j.tck.VerbsCompatibilityKit;
import org.verbs4j.tools.cli.ExitCodes;
import org.verbs4j.tools.cli.Messages;
import org.verbs4j.tools.cli.Providers;

/**
 * {@code verbs4j tck --differential}: runs {@link DifferentialWorkload}'s seeded workload on several providers and
 * compares every provider's outcome (completion streams and memory) with every other's. An unavailable provider is
 * a skip with its cause; a difference, or a provider that fails to run the workload, fails the run.
 */
final class Differential {
    /** Two seeds, so that two different workloads run unless {@code --seed} says otherwise. */
    static final List<Long> DEFAULT_SEEDS = List.of(DifferentialWorkload.DEFAULT_SEED, 0xD1FFL);

    /** Hex digits of the memory digest printed. */
    private static final int DIGEST_HEX = 16;

    /** A provider that can run the workload: its label, device, GID index and the opcodes its device executes. */
    private record Target(String label, VerbsProvider provider, String device, int gidIndex, Set<WrOpcode> drawable) {}

    private final PrintWriter out;
    private final String deviceName;
    private final int gidIndex;
    private final int operations;
    private boolean failed;

    private Differential(PrintWriter out, String deviceName, int gidIndex, int operations) {
        this.out = out;
        this.deviceName = deviceName;
        this.gidIndex = gidIndex;
        this.operations = operations;
    }

    /**
     * Runs the workload of each seed on each available provider and prints a table and one verdict a pair.
     *
     * @param deviceName the device of each provider that has one of that name (the others use their first device),
     *     or null for every provider's first device
     * @param gidIndex the GID index on the named device (0 to 255), or -1 for the kit's default there
     * @return {@link ExitCodes#FAILURE} if two outcomes differ or a provider could not run the workload, else
     *     {@link ExitCodes#OK} (also when fewer than two providers were available and nothing was compared)
     */
    static int run(PrintWriter out, List<VerbsProvider> providers, String deviceName, int gidIndex, List<Long> seeds,
                   int operations) {
        return new Differential(out, deviceName, gidIndex, operations).run(providers, seeds);
    }

    private int run(List<VerbsProvider> providers, List<Long> seeds) {
        out.printf("differential workload: %d WRs a seed, seeds %s%n", operations,
                seeds.stream().map(Differential::hex).collect(Collectors.joining(", ")));
        List<Target> targets = targets(providers);
        if (targets.size() < 2) {
            out.printf("nothing compared: the differential needs two available providers, and %s%n",
                    targets.isEmpty() ? "none is" : "only " + targets.getFirst().label() + " is");
            return failed ? ExitCodes.FAILURE : ExitCodes.OK;
        }
        Set<WrOpcode> allowed = EnumSet.copyOf(targets.getFirst().drawable());
        targets.forEach(t -> allowed.retainAll(t.drawable()));
        out.printf("opcodes drawn (every device executes them): %s%n", allowed.stream().map(Enum::name)
                .collect(Collectors.joining(", ")));
        if (allowed.isEmpty()) {
            out.println("nothing compared: the devices share no opcode the workload draws");
            return failed ? ExitCodes.FAILURE : ExitCodes.OK;
        }
        int differences = 0;
        for (long seed : seeds) {
            differences += compare(targets, seed, allowed);
        }
        int pairs = targets.size() * (targets.size() - 1) / 2;
        if (differences == 0 && !failed) {
            out.printf("%ndifferential: identical: %d pair(s) over %d seed(s)%n", pairs, seeds.size());
            return ExitCodes.OK;
        }
        out.printf("%ndifferential: FAILED: %d difference(s) among %d pair(s) over %d seed(s)%s%n", differences, pairs,
                seeds.size(), failed ? "; a provider could not run the workload" : "");
        return ExitCodes.FAILURE;
    }

    /** The available providers with their device; prints the skipped ones with their cause. */
    private List<Target> targets(List<VerbsProvider> providers) {
        List<Target> targets = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (VerbsProvider p : providers) {
            int n = seen.merge(p.name(), 1, Integer::sum);
            String label = n == 1 ? p.name() : p.name() + "#" + n;
            if (!Providers.available(p)) {
                out.printf("%s: skipped: not available: %s%n", label, Providers.causeText(p));
                continue;
            }
            List<Device> devices = p.devices();
            if (devices.isEmpty()) {
                out.printf("%s: skipped: it lists no devices%n", label);
                continue;
            }
            boolean named = deviceName != null && devices.stream().anyMatch(d -> d.name().equals(deviceName));
            String device = named ? deviceName : devices.getFirst().name();
            // -x or the GID index property is meant for the device under test, not for a fallback device.
            int index = !named ? -1 : gidIndex >= 0 ? gidIndex
                    : Integer.getInteger(VerbsCompatibilityKit.GID_INDEX_PROPERTY, -1);
            try (Testbed tb = Testbed.open(p, device, 1, index)) {
                targets.add(new Target(label, p, device, tb.gidIndex(), DifferentialWorkload.drawable(tb.caps())));
                out.printf("%s: device %s port 1 GID index %d%s%n", label, device, tb.gidIndex(),
                        deviceName == null || named ? "" : " (it has no device " + deviceName + ")");
            } catch (RuntimeException | AssertionError e) {
                failed = true;
                out.printf("%s: FAILED to open %s: %s%n", label, device, message(e));
            }
        }
        return targets;
    }

    /** Runs one seed on every target, prints the table and the pairs' verdicts; returns the number of differences. */
    private int compare(List<Target> targets, long seed, Set<WrOpcode> allowed) {
        out.printf("%nseed %s:%n", hex(seed));
        List<Optional<Outcome>> outcomes = new ArrayList<>();
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("provider", "device", "requester WCs", "responder WCs", "WC errors", "memory SHA-256"));
        for (Target t : targets) {
            try {
                Outcome o = DifferentialWorkload.run(t.provider(), t.device(), t.gidIndex(), seed, operations, allowed);
                outcomes.add(Optional.of(o));
                long errors = Stream.concat(o.requester().stream(), o.responder().stream())
                        .filter(c -> c.status() != WcStatus.SUCCESS).count();
                rows.add(List.of(t.label(), t.device(), String.valueOf(o.requester().size()),
                        String.valueOf(o.responder().size()), String.valueOf(errors), digest(o)));
            } catch (RuntimeException | AssertionError e) {
                failed = true;
                outcomes.add(Optional.empty());
                rows.add(List.of(t.label(), t.device(), "FAILED: " + message(e), "", "", ""));
            }
        }
        printTable(rows);
        int differences = 0;
        for (int i = 0; i < targets.size(); i++) {
            for (int j = i + 1; j < targets.size(); j++) {
                String pair = targets.get(i).label() + " vs " + targets.get(j).label();
                if (outcomes.get(i).isEmpty() || outcomes.get(j).isEmpty()) {
                    out.printf("%s: not compared (a run failed)%n", pair);
                    continue;
                }
                Optional<String> d = DifferentialWorkload.firstDifference(targets.get(i).label(),
                        outcomes.get(i).get(), targets.get(j).label(), outcomes.get(j).get());
                if (d.isEmpty()) {
                    out.printf("%s: identical%n", pair);
                } else {
                    differences++;
                    out.printf("%s: DIFFERENT: %s (seed %s; replay: verbs4j tck --differential --provider %s,%s"
                                    + " --seed %s --operations %d%s)%n", pair, d.get(), hex(seed),
                            targets.get(i).provider().name(), targets.get(j).provider().name(), hex(seed),
                            operations, deviceName == null ? "" : " -d " + deviceName);
                }
            }
        }
        return differences;
    }

    private void printTable(List<List<String>> rows) {
        int[] width = new int[rows.getFirst().size()];
        for (List<String> row : rows) {
            for (int c = 0; c < row.size(); c++) {
                width[c] = Math.max(width[c], row.get(c).length());
            }
        }
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < row.size(); c++) {
                line.append(c == 0 ? "" : " | ").append(String.format("%-" + width[c] + "s", row.get(c)));
            }
            out.println(line.toString().stripTrailing());
        }
    }

    /** The first hex digits of the SHA-256 of the requester's memory followed by the responder's. */
    private static String digest(Outcome o) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(o.requesterMemory());
            sha.update(o.responderMemory());
            return HexFormat.of().formatHex(sha.digest()).substring(0, DIGEST_HEX);
        } catch (NoSuchAlgorithmException e) {
            // Every Java platform must provide SHA-256 (MessageDigest's Javadoc).
            throw new IllegalStateException(e);
        }
    }

    private static String hex(long seed) {
        return "0x" + Long.toHexString(seed);
    }

    private static String message(Throwable e) {
        return Messages.oneLine(e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName());
    }
}
