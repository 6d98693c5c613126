package org.verbs4j.tools.tck;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.verbs4j.tck.TckReport;

/** Prints TCK reports as a matrix: one row per area, one column per provider, cells passed/skipped/failed. */
final class TckMatrix {
    private TckMatrix() {}

    /**
     * Prints the matrix, then each failure: {@code FAILED}, or {@code KNOWN} when {@code known} covers it, and the
     * known deviations that did not fail.
     *
     * @return whether any failure is not a known deviation
     */
    static boolean print(PrintWriter out, Map<String, TckReport> reports, List<String> areas, boolean verbose,
                         KnownDeviations known) {
        boolean unknownFailure = false;
        List<String> rows = new ArrayList<>();
        rows.add(TckReport.PROVIDER_AREA);
        rows.addAll(areas);
        int areaWidth = Math.max("area".length(), rows.stream().mapToInt(String::length).max().orElse(4));
        List<String> providers = new ArrayList<>(reports.keySet());
        int cell = Math.max(14, providers.stream().mapToInt(String::length).max().orElse(0) + 2);

        out.println("passed/skipped/failed per area and provider");
        StringBuilder head = new StringBuilder(pad("area", areaWidth));
        providers.forEach(p -> head.append(" | ").append(pad(p, cell)));
        out.println(head);
        out.println("-".repeat(head.length()));
        for (String area : rows) {
            boolean any = false;
            StringBuilder line = new StringBuilder(pad(area, areaWidth));
            for (String p : providers) {
                TckReport.AreaResult r = find(reports.get(p), area);
                any |= r != null;
                line.append(" | ").append(pad(r == null ? "-" : r.passed() + "/" + r.skipped() + "/" + r.failed(),
                        cell));
            }
            // The provider row only matters when a provider was unavailable or its kit failed to start.
            if (any || !area.equals(TckReport.PROVIDER_AREA)) {
                out.println(line);
            }
        }
        out.println("-".repeat(head.length()));
        StringBuilder total = new StringBuilder(pad("total", areaWidth));
        for (String p : providers) {
            TckReport r = reports.get(p);
            total.append(" | ").append(pad(r.passed() + "/" + r.skipped() + "/" + r.failed(), cell));
        }
        out.println(total);

        for (String p : providers) {
            TckReport r = reports.get(p);
            Set<String> matched = new HashSet<>();
            TckReport.AreaResult provider = find(r, TckReport.PROVIDER_AREA);
            if (provider != null && r.passed() == 0 && !provider.skipReasons().isEmpty()) {
                out.println(p + ": not run: " + oneLine(provider.skipReasons().getFirst()));
            }
            for (TckReport.AreaResult a : r.areas()) {
                for (String f : a.failures()) {
                    String entry = known.match(f);
                    if (entry == null) {
                        unknownFailure = true;
                        out.println("FAILED " + p + " / " + a.area() + " / " + oneLine(f));
                    } else {
                        matched.add(entry);
                        out.println("KNOWN  " + p + " / " + a.area() + " / " + oneLine(f));
                    }
                }
                if (verbose && !a.area().equals(TckReport.PROVIDER_AREA)) {
                    for (String s : a.skipReasons()) {
                        out.println("skipped " + p + " / " + a.area() + " / " + oneLine(s));
                    }
                }
            }
            if (r.passed() > 0) {
                for (String e : known.entries()) {
                    if (!matched.contains(e)) {
                        out.println("passed " + p + " / known deviation did not fail (fixed, or not run): " + e);
                    }
                }
            }
        }
        return unknownFailure;
    }

    private static TckReport.AreaResult find(TckReport r, String area) {
        for (TckReport.AreaResult a : r.areas()) {
            if (a.area().equals(area)) {
                return a;
            }
        }
        return null;
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
