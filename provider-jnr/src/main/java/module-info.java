/**
 * The verbs4j provider over libibverbs through JNR-FFI ({@code jnr}).
 */
module org.verbs4j.provider.jnr {
    requires org.verbs4j.spi;
    requires org.verbs4j.provider.nativecommon;
    requires org.jnrproject.ffi;
    requires org.jnrproject.jffi;

    // JNR-FFI generates the Ibverbs and LibC implementations and must reach the interfaces.
    exports org.verbs4j.provider.jnr.internal to org.jnrproject.ffi;

    provides org.verbs4j.spi.VerbsProvider with org.verbs4j.provider.jnr.JnrProvider;
}
