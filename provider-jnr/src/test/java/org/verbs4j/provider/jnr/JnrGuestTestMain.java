package org.verbs4j.provider.jnr;

import java.io.PrintWriter;
import java.util.Arrays;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs test classes with the JUnit Platform launcher and prints each result: how the soft-RoCE VM runs
 * this module's tests and the TCK against rxe0 without Maven. Exits 1 if any test failed.
 */
public final class JnrGuestTestMain {
    private JnrGuestTestMain() {}

    public static void main(String[] args) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(Arrays.stream(args).map(DiscoverySelectors::selectClass).toList()).build();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        TestExecutionListener printer = new TestExecutionListener() {
            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                System.out.println("SKIPPED  " + id.getDisplayName() + " -- " + reason);
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (!id.isTest() && result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                    return;
                }
                String why = result.getThrowable().map(t -> " -- " + t).orElse("");
                System.out.println(result.getStatus() + "  " + id.getLegacyReportingName() + " ["
                        + id.getDisplayName() + "]" + why);
            }
        };
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request, summary, printer);
        TestExecutionSummary s = summary.getSummary();
        PrintWriter out = new PrintWriter(System.out, true);
        s.printTo(out);
        s.printFailuresTo(out, 40);
        System.exit(s.getTotalFailureCount() > 0 ? 1 : 0);
    }
}
