/**
 * The verbs4j TCK: the behavioural suite every verbs4j provider must pass. Vendors extend
 * {@link org.verbs4j.tck.VerbsCompatibilityKit}; tools run it with {@link org.verbs4j.tck.TckRunner}.
 */
module org.verbs4j.tck {
    requires transitive org.verbs4j.spi;
    requires transitive org.junit.jupiter.api;
    requires org.junit.jupiter.params;
    requires org.junit.platform.launcher;
    requires org.junit.platform.reporting;

    exports org.verbs4j.tck;

    opens org.verbs4j.tck to org.junit.platform.commons;

    uses org.verbs4j.spi.VerbsProvider;
}
