package org.verbs4j.tools.perf;

/** A benchmark that could not finish: an error completion, or no progress. The command exits with 1. */
public final class PerfFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PerfFailure(String message) {
        super(message);
    }
}
