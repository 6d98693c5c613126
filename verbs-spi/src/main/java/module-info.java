/**
 * verbs4j's application API ({@code org.verbs4j}) and provider contract ({@code org.verbs4j.spi}).
 * Depends on nothing but the JDK.
 */
module org.verbs4j.spi {
    exports org.verbs4j;
    exports org.verbs4j.spi;
    exports org.verbs4j.spi.support;

    uses org.verbs4j.spi.VerbsProvider;
}
