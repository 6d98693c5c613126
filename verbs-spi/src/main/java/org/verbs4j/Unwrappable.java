package org.verbs4j;

import java.util.Objects;

/**
 * The door to what one provider offers beyond this API: a vendor's direct verbs (mlx5dv, efadv), a provider's own
 * view of an object. Every {@link VerbsObject} and every {@link Device} is one. After the JDK and Jakarta habit
 * ({@code java.sql.Wrapper.unwrap}, {@code EntityManager.unwrap}) and pyverbs' {@code Mlx5Context(Context)}.
 *
 * <p>A provider documents the types it offers. The libibverbs providers ({@code ffm}, {@code jnr}) offer
 * {@code org.verbs4j.provider.nativecommon.IbverbsHandle} for a {@link Context} and a {@link QueuePair}: the
 * {@code struct ibv_context *} or {@code struct ibv_qp *} that a vendor's extension passes to its library's
 * direct verbs, handed out only for the length of one call, while the object is held open. A vendor's extension
 * is an ordinary library over that handle (see {@code tck/README.md}, "Vendor extensions"); applications call the
 * extension, never the handle.
 *
 * <p>Memory safety holds across the door: what a provider hands out lets nobody read or write memory the library
 * does not check. A native address is handed out only as a zero-length {@code MemorySegment}, which Java code can
 * dereference or pass to a native function only through restricted methods ({@code MemorySegment.reinterpret},
 * {@code Linker.downcallHandle}), that is, with {@code --enable-native-access} granted to the caller's module.
 */
public interface Unwrappable {
    /**
     * A provider-specific view of this object.
     *
     * <p>The default returns this object when it is an instance of {@code type}; a provider overrides it to offer
     * views it keeps apart.
     *
     * @param type the view's type, not null
     * @param <T> the view's type
     * @return the view
     * @throws IllegalArgumentException if this object's provider offers no view of that type
     *     ({@link #isWrapperFor} is false)
     * @throws IllegalStateException if this is a {@link VerbsObject} and it is closed
     */
    default <T> T unwrap(Class<T> type) {
        Objects.requireNonNull(type, "type");
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new IllegalArgumentException(this + " offers no view of type " + type.getName());
    }

    /**
     * Whether {@link #unwrap} gives a view of {@code type}.
     *
     * @param type the view's type, not null
     * @return whether it does
     */
    default boolean isWrapperFor(Class<?> type) {
        Objects.requireNonNull(type, "type");
        return type.isInstance(this);
    }
}
