package org.verbs4j.tck;

import java.util.List;

/**
 * The outcome of one TCK run, per area.
 *
 * @param provider the provider's name
 * @param areas the results of each area that ran, in the kit's order; when the provider is unavailable, one
 *     area named {@value #PROVIDER_AREA} with one skip whose reason is the provider's cause
 */
public record TckReport(String provider, List<AreaResult> areas) {
    /** The pseudo-area of results outside any area: the provider's own availability. */
    public static final String PROVIDER_AREA = "Provider";

    /** Copies the areas. */
    public TckReport {
        areas = List.copyOf(areas);
    }

    /** {@return the number of tests that passed, over all areas} */
    public long passed() {
        return areas.stream().mapToLong(AreaResult::passed).sum();
    }

    /** {@return the number of tests that failed, over all areas} */
    public long failed() {
        return areas.stream().mapToLong(AreaResult::failed).sum();
    }

    /** {@return the number of tests skipped (an assumption did not hold, or the provider is unavailable)} */
    public long skipped() {
        return areas.stream().mapToLong(AreaResult::skipped).sum();
    }

    /** {@return whether nothing failed} */
    public boolean successful() {
        return failed() == 0;
    }

    /**
     * The results of one area of the kit.
     *
     * @param area the area's display name, such as {@code WR session}
     * @param passed tests that passed
     * @param failed tests that failed
     * @param skipped tests skipped
     * @param failures for each failed test, its display name and the failure message
     * @param skipReasons for each skipped test, its display name and the reason
     */
    public record AreaResult(String area, long passed, long failed, long skipped, List<String> failures,
                             List<String> skipReasons) {
        /** Copies the lists. */
        public AreaResult {
            failures = List.copyOf(failures);
            skipReasons = List.copyOf(skipReasons);
        }
    }
}
