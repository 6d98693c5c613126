package org.verbs4j.provider.jnr.internal;

import jnr.ffi.annotations.IgnoreError;

/**
 * The functions {@code libibverbs.so.1} exports, bound through JNR-FFI. Pointers are raw addresses in
 * {@code long}s so that no call allocates a wrapper. The control-path verbs are declared once in the shared
 * {@code LibIbverbs} and {@code LibIbverbsOps}, bound by {@link JnrDeclaredLibrary}; the data path is
 * {@link InlineVerbs}.
 */
public interface Ibverbs {
    @IgnoreError
    long ibv_get_device_name(long device);
}
