package org.verbs4j.provider.ffm;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.reporting.legacy.xml.LegacyXmlReportGeneratingListener;

/**
 * Runs JUnit test classes without Maven, for the soft-RoCE VM where a Maven build would take too long:
 * {@code java -cp ... org.verbs4j.provider.ffm.FfmGuestTestMain CLASS|package:NAME ...}. Prints one line per
 * test and a summary, writes JUnit XML to {@code $VERBS4J_JUNIT_DIR} when set, and exits 1 on failure.
 */
public final class FfmGuestTestMain {
    private FfmGuestTestMain() {}

    public static void main(String[] args) throws Exception {
        List<DiscoverySelector> selectors = new ArrayList<>();
        for (String a : args) {
            selectors.add(a.startsWith("package:") ? selectPackage(a.substring(8)) : selectClass(Class.forName(a)));
        }
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        PrintWriter out = new PrintWriter(System.out, true);
        TestExecutionListener lines = new TestExecutionListener() {
            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                out.println("SKIPPED  " + id.getDisplayName() + " [" + id.getUniqueId() + "]: " + reason);
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (!id.isTest() && result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                    return;
                }
                out.println(result.getStatus() + " " + id.getDisplayName() + " [" + id.getUniqueId() + "]"
                        + result.getThrowable().map(t -> ": " + t).orElse(""));
            }
        };
        List<TestExecutionListener> listeners = new ArrayList<>(List.of(summary, lines));
        String dir = System.getenv("VERBS4J_JUNIT_DIR");
        if (dir != null && !dir.isEmpty()) {
            listeners.add(new LegacyXmlReportGeneratingListener(Path.of(dir), out));
        }
        launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(selectors).build(),
                listeners.toArray(TestExecutionListener[]::new));
        summary.getSummary().printTo(out);
        summary.getSummary().printFailuresTo(out, 30);
        System.exit(summary.getSummary().getTotalFailureCount() > 0 ? 1 : 0);
    }
}
