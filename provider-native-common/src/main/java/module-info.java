/**
 * What the two libibverbs providers ({@code ffm} and {@code jnr}) share and neither binding library needs: the
 * capability probe over the {@link org.verbs4j.provider.nativecommon.IbverbsDeviceFacts} each binding gives,
 * and (in a package exported only to them) the one description of the libibverbs and librdmacm struct layouts,
 * the native object model shared by both over {@code IbverbsBinding},
 * and librdmacm as {@code CmBinding}. Not a
 * provider.
 */
// The two providers are built after this module, so javac cannot see them when it compiles the qualified export.
@SuppressWarnings("module")
module org.verbs4j.provider.nativecommon {
    requires transitive org.verbs4j.spi;

    exports org.verbs4j.provider.nativecommon;
    exports org.verbs4j.provider.nativecommon.internal to org.verbs4j.provider.ffm, org.verbs4j.provider.jnr;
}
