package org.verbs4j;

/**
 * A verbs object that owns device resources and is released with {@link #close()}.
 *
 * <p>Rules common to every verbs object:
 * <ul>
 *   <li>{@code close()} on an object that still has live children fails with a {@link VerbsException}
 *       of {@code EBUSY}, as the destroy verbs do, and the object stays open. The exception is
 *       {@link Context}, whose close releases everything created from it, as closing the device does.</li>
 *   <li>A second {@code close()} does nothing.</li>
 *   <li>Any other method called after {@code close()} throws {@link IllegalStateException}, getters such as
 *       {@code segment()}, {@code capacity()} or {@code state()} included, and before it looks at its
 *       arguments; it never reaches the device, so it can never crash the JVM.</li>
 *   <li>A closed object passed as an argument is refused at the call (an {@link IllegalArgumentException},
 *       an {@link IllegalStateException} or {@code EINVAL}); nothing of the call executes.</li>
 *   <li>No sequence of calls on any objects, from any threads, crashes the JVM: a mistake is an exception or
 *       an error completion. The TCK's Misuse areas check this, including with a seeded random walk.</li>
 *   <li>A provider's own calls beyond this API are reached through {@link #unwrap(Class)}.</li>
 * </ul>
 */
public interface VerbsObject extends AutoCloseable, Unwrappable {
    /**
     * Destroys the object.
     *
     * @throws VerbsException {@code EBUSY} if it still has live children
     */
    @Override
    void close();

    /** {@return whether {@link #close()} has succeeded} */
    boolean isClosed();

    /**
     * {@inheritDoc}
     *
     * @throws IllegalStateException if the object is closed, before the type is looked at
     */
    @Override
    default <T> T unwrap(Class<T> type) {
        if (isClosed()) {
            throw new IllegalStateException("this object is closed: " + this);
        }
        return Unwrappable.super.unwrap(type);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalStateException if the object is closed, before the type is looked at
     */
    @Override
    default boolean isWrapperFor(Class<?> type) {
        if (isClosed()) {
            throw new IllegalStateException("this object is closed: " + this);
        }
        return Unwrappable.super.isWrapperFor(type);
    }
}
