package org.verbs4j.provider.nativecommon;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.verbs4j.Context;
import org.verbs4j.QueuePair;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.CallHold;

/**
 * The native handle of a {@link Context} or a {@link QueuePair} of a libibverbs provider ({@code ffm}, {@code jnr}):
 * the door a vendor's extension goes through to call its library's direct verbs (an {@code mlx5dv_*} of
 * {@code libmlx5}, an {@code efadv_*}, a verb of libibverbs this API does not have). Had with
 * {@code context.unwrap(IbverbsHandle.class)} or {@code qp.unwrap(IbverbsHandle.class)}; see
 * {@link org.verbs4j.Unwrappable} and the "Vendor extensions" section of {@code tck/README.md}.
 *
 * <p>It is made only from the provider's own objects, never from an address: it has no public constructor or
 * factory, and only the native object model creates one (through a private lookup, which a module that
 * native-common does not open its package to cannot have), so an extension cannot be handed a forged one. The
 * address is lent for one {@link #call} at a time, while the object is held open, so a {@code close()} on another
 * thread waits for the call to return and a closed object is an
 * {@link IllegalStateException} before any native code runs. It is a zero-length {@link MemorySegment}: reading
 * through it or passing it to a native function takes restricted methods, so nothing handed out here lets code
 * without {@code --enable-native-access} read or write native memory.
 */
public final class IbverbsHandle {
    private final AbstractVerbsObject owner;
    private final String providerName;
    private final String struct;
    private final long address;

    /** Called only by the native object model, through a private lookup ({@code internal.NativeHandles}). */
    private IbverbsHandle(AbstractVerbsObject owner, String providerName, String struct, long address) {
        this.owner = owner;
        this.providerName = providerName;
        this.struct = struct;
        this.address = address;
    }

    /**
     * A call made with the native address, for {@link #call}.
     *
     * @param <R> its result
     */
    @FunctionalInterface
    public interface Call<R> {
        /**
         * Makes the call.
         *
         * @param address the {@code struct ibv_context *} or {@code struct ibv_qp *}, zero-length; valid only until
         *     this method returns
         * @return the result
         */
        R apply(MemorySegment address);
    }

    /**
     * Runs {@code call} with the object's native address while the object is held open.
     *
     * @param call the call, which must not keep the address
     * @param <R> its result
     * @return what {@code call} returns
     * @throws IllegalStateException if the object is closed, or its close has begun
     */
    public <R> R call(Call<R> call) {
        Objects.requireNonNull(call, "call");
        try (CallHold hold = CallHold.on(owner)) {
            return call.apply(MemorySegment.ofAddress(address));
        }
    }

    /** {@return the name of the provider whose object this is: {@code "ffm"}, {@code "jnr"}} */
    public String providerName() {
        return providerName;
    }

    /** {@return the C struct the address points to: {@code "ibv_context"} or {@code "ibv_qp"}} */
    public String struct() {
        return struct;
    }

    @Override
    public String toString() {
        return providerName + " " + struct + " handle";
    }
}
