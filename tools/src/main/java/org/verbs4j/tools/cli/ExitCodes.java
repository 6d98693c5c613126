package org.verbs4j.tools.cli;

/** The exit codes of the {@code verbs4j} command. */
public final class ExitCodes {
    /** A successful run. */
    public static final int OK = 0;
    /** A run that failed: a TCK failure, or a verbs error during a benchmark. */
    public static final int FAILURE = 1;
    /** Bad input: an unknown flag, an impossible value, an unavailable provider, a missing device. */
    public static final int USAGE = 2;

    private ExitCodes() {}
}
