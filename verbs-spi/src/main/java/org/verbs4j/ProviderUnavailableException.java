package org.verbs4j;

/**
 * No usable provider: the one named by {@code verbs4j.provider} is missing or unavailable, or no
 * provider found by {@link java.util.ServiceLoader} is available. The cause, and the suppressed
 * exceptions, say why each candidate was refused.
 */
public class ProviderUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A resolution failure.
     *
     * @param message which provider was asked for or found, and why none can be used
     * @param cause why the named provider is unavailable, or null
     */
    public ProviderUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
