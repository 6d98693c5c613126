package org.verbs4j.tools.cli;

/**
 * Bad input the user can fix: an impossible size, an unavailable provider, a device that does not exist.
 * The command prints its message as one line and exits with {@link ExitCodes#USAGE}.
 */
public final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }

    public UsageException(String message, Throwable cause) {
        super(message, cause);
    }
}
