/**
 * verbs4j's application API ({@code org.verbs4j}) and provider contract ({@code org.verbs4j.spi}).
 * Depends on nothing but the JDK.
 *
 * <p>{@code org.verbs4j.spi.support} is for every provider, vendors' included. {@code org.verbs4j.spi.support.internal}
 * (the rdma_cm object model over a native {@code CmBinding}) serves only this project's libibverbs providers and is
 * exported to them alone.
 */
// The providers are built after this module, so javac cannot see them when it compiles the qualified export.
@SuppressWarnings("module")
module org.verbs4j.spi {
    exports org.verbs4j;
    exports org.verbs4j.spi;
    exports org.verbs4j.spi.support;
    exports org.verbs4j.spi.support.internal to org.verbs4j.provider.nativecommon, org.verbs4j.provider.ffm,
            org.verbs4j.provider.jnr;

    uses org.verbs4j.spi.VerbsProvider;
}
