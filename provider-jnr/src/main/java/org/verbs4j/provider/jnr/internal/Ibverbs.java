package org.verbs4j.provider.jnr.internal;

import jnr.ffi.annotations.IgnoreError;
import jnr.ffi.annotations.SaveError;

/**
 * The functions {@code libibverbs.so.1} exports, bound through JNR-FFI. Pointers are raw addresses in
 * {@code long}s so that no call allocates a wrapper. Functions that report failure through errno save it
 * ({@link jnr.ffi.Runtime#getLastError()}); the others ignore it.
 *
 * <p>The {@code static inline} verbs of {@code verbs.h} are not here: {@link InlineVerbs} calls them through
 * the function pointers the provider library installs.
 */
public interface Ibverbs {
    @IgnoreError
    long ibv_get_device_name(long device);

    @SaveError
    int ibv_query_port(long context, int portNum, long portAttr);

}
