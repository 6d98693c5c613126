/**
 * What the native providers (ffm, jnr) share: the C struct layouts they read and write, described once and
 * checked against the installed headers. Not a provider, and not an API: its packages are exported to the two
 * providers only.
 */
module org.verbs4j.provider.nativecommon {
    requires org.verbs4j.spi;

    exports org.verbs4j.provider.nativecommon.internal to org.verbs4j.provider.ffm, org.verbs4j.provider.jnr;
}
