/**
 * The {@code verbs4j} command: {@code devinfo}, {@code perf} and {@code tck}. It sees the providers only through
 * {@link org.verbs4j.Verbs} and {@link java.util.ServiceLoader}, never by their classes.
 */
module org.verbs4j.tools {
    requires org.verbs4j.spi;
    requires org.verbs4j.tck;
    requires info.picocli;
    requires com.fasterxml.jackson.databind;
    requires java.desktop;
    requires org.jfree.jfreechart;
    requires org.apache.xmlgraphics.batik.svggen;
    requires java.xml;
    requires me.tongfei.progressbar;
    requires java.logging;

    exports org.verbs4j.tools;

    // picocli injects options into the command classes; Jackson reads the result records.
    opens org.verbs4j.tools to info.picocli;
    opens org.verbs4j.tools.devinfo to info.picocli;
    opens org.verbs4j.tools.perf to info.picocli, com.fasterxml.jackson.databind;
    opens org.verbs4j.tools.tck to info.picocli;

    uses org.verbs4j.spi.VerbsProvider;
}
