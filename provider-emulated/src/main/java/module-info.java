/**
 * verbs4j's emulated provider: a pure-Java software RDMA device that needs no NIC, no kernel module
 * and no native code.
 */
module org.verbs4j.provider.emulated {
    requires org.verbs4j.spi;

    provides org.verbs4j.spi.VerbsProvider with org.verbs4j.provider.emulated.EmulatedProvider;
}
