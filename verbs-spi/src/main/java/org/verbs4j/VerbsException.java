package org.verbs4j;

/**
 * A verb failed with an errno.
 *
 * <p>Every provider reports the Linux errno number ({@link Errno}) and the verb that failed, so
 * the same failure reads the same on every provider. Misuse that Java itself catches (null, a closed
 * object, a heap segment, an out-of-range value) is an {@link IllegalArgumentException} or
 * {@link IllegalStateException} instead.
 */
public class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The verb that failed. */
    private final String verb;
    /** The Linux errno value. */
    private final int errno;

    /**
     * A failed verb.
     *
     * @param verb the verb that failed, such as {@code ibv_create_qp_ex}
     * @param errno the Linux errno value (positive)
     * @param detail what was wrong, or null
     */
    public VerbsException(String verb, int errno, String detail) {
        super(verb + " failed: " + Errno.name(errno) + (detail == null ? "" : " (" + detail + ")"));
        this.verb = verb;
        this.errno = errno;
    }

    /** {@return the verb that failed, such as {@code ibv_modify_qp}} */
    public String verb() {
        return verb;
    }

    /** {@return the errno value, such as 22 for {@code EINVAL}} */
    public int errno() {
        return errno;
    }

    /** {@return the errno's name, such as {@code EINVAL}} */
    public String errnoName() {
        return Errno.name(errno);
    }
}
