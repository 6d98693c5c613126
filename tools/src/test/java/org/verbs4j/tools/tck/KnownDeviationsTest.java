package org.verbs4j.tools.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.verbs4j.tck.TckReport;

@DisplayName("verbs4j tck --known-deviations")
class KnownDeviationsTest {
    private static final String KNOWN = "required_ RESET to ERR is accepted [ibv_modify_qp(3)]";
    private static final String OTHER = "required_ a bad lkey gives LOC_PROT_ERR [ibv_poll_cq(3)]";

    private static TckReport report(String... failures) {
        return new TckReport("ffm", List.of(new TckReport.AreaResult("Errors", 10, failures.length, 0,
                List.of(failures), List.of())));
    }

    private static String print(TckReport r, KnownDeviations known, boolean[] unknown) {
        StringWriter text = new StringWriter();
        unknown[0] = TckMatrix.print(new PrintWriter(text), Map.of("ffm", r), List.of("Errors"), false, known);
        return text.toString();
    }

    @Test
    @DisplayName("a file's entries skip blank lines and comments")
    void readsEntries(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("known.txt");
        Files.writeString(f, "# rxe deviations\n\n  " + KNOWN + "  \n");
        assertEquals(List.of(KNOWN), KnownDeviations.read(f).entries());
    }

    @Test
    @DisplayName("a failure whose label starts with an entry is known; another is not")
    void matchesByLabelPrefix() {
        KnownDeviations k = new KnownDeviations(List.of(KNOWN));
        assertEquals(KNOWN, k.match(KNOWN + ": expected accepted but was EINVAL"));
        assertNull(k.match(OTHER + ": expected LOC_PROT_ERR"));
    }

    @Test
    @DisplayName("only known failures: reported as KNOWN and the run does not fail")
    void knownOnlyPasses() {
        boolean[] unknown = new boolean[1];
        String out = print(report(KNOWN + ": EINVAL"), new KnownDeviations(List.of(KNOWN)), unknown);
        assertFalse(unknown[0], out);
        assertTrue(out.contains("KNOWN  ffm / Errors / " + KNOWN), out);
        assertFalse(out.contains("FAILED"), out);
    }

    @Test
    @DisplayName("a failure not in the list fails the run, even next to known ones")
    void unknownFails() {
        boolean[] unknown = new boolean[1];
        String out = print(report(KNOWN + ": EINVAL", OTHER + ": LOC_QP_OP_ERR"), new KnownDeviations(List.of(KNOWN)),
                unknown);
        assertTrue(unknown[0], out);
        assertTrue(out.contains("FAILED ffm / Errors / " + OTHER), out);
    }

    @Test
    @DisplayName("a listed deviation that did not fail is reported, not hidden")
    void fixedDeviationIsReported() {
        boolean[] unknown = new boolean[1];
        String out = print(report(), new KnownDeviations(List.of(KNOWN)), unknown);
        assertFalse(unknown[0], out);
        assertTrue(out.contains("known deviation did not fail (fixed, or not run): " + KNOWN), out);
    }

    @Test
    @DisplayName("without a list every failure fails the run")
    void noListMeansEveryFailureCounts() {
        boolean[] unknown = new boolean[1];
        print(report(KNOWN + ": EINVAL"), KnownDeviations.NONE, unknown);
        assertTrue(unknown[0]);
    }
}
