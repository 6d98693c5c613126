package org.verbs4j.provider.jnr.internal;

import org.verbs4j.provider.nativecommon.internal.LibRdmaCm;
import org.verbs4j.provider.nativecommon.internal.LibRdmaCmFunctions;

/**
 * librdmacm for JNR-FFI: its functions bound from their one declaration ({@link LibRdmaCmFunctions}) by
 * {@link JnrDeclaredLibrary}, through jffi call contexts that save {@code errno}.
 *
 * @see "rdma_cm(7)"
 */
public final class Rdmacm {
    private Rdmacm() {}

    /**
     * Binds librdmacm's declared functions.
     *
     * @return the functions
     * @throws UnsatisfiedLinkError if librdmacm or one of its functions is missing
     */
    public static LibRdmaCmFunctions bind() {
        return JnrDeclaredLibrary.bind(LibRdmaCmFunctions.class, LibRdmaCm.SONAME);
    }
}
