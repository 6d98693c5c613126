package org.verbs4j.tools.perf;

import java.io.Console;
import java.io.PrintStream;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * A progress bar on stderr for a sweep or a timed run, shown only on a terminal: CI logs and redirected
 * output get none.
 */
final class Progress implements AutoCloseable {
    private final ProgressBar bar;

    private Progress(ProgressBar bar) {
        this.bar = bar;
    }

    /** Whether stderr is likely a terminal a person watches: a console that is a terminal, and no {@code CI}. */
    static boolean wanted() {
        Console c = System.console();
        return c != null && c.isTerminal() && System.getenv("CI") == null;
    }

    /** A bar of {@code steps} steps, or one that shows nothing when {@code show} is false. */
    static Progress of(boolean show, String task, long steps, String unit) {
        if (!show) {
            return new Progress(null);
        }
        ProgressBar bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(steps).setUnit(" " + unit, 1)
                .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250).continuousUpdate()
                .setConsumer(new ConsoleProgressBarConsumer(new PrintStream(System.err, true)))
                .clearDisplayOnFinish().build();
        return new Progress(bar);
    }

    void step(String message) {
        if (bar != null) {
            bar.setExtraMessage(message);
            bar.step();
        }
    }

    /**
     * Erases the bar's line on stderr, so a result row printed next on the same terminal starts at the left
     * margin; the bar redraws itself below it.
     */
    void clearLine() {
        if (bar != null) {
            System.err.print("\r\033[2K");
            System.err.flush();
        }
    }

    void stepTo(long n) {
        if (bar != null) {
            bar.stepTo(n);
        }
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.close();
        }
    }
}
