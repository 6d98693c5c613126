/**
 * verbs4j's emulated provider: a pure-Java software RDMA device that needs no NIC, no kernel module
 * and no native code. The package exports only {@code EmulatedProvider}, so tools and tests can build the
 * provider directly; its other packages (cm, wire, wire.codec, verbs, engine) are not exported.
 */
module org.verbs4j.provider.emulated {
    requires org.verbs4j.spi;
    // IP_DONTFRAGMENT for the wire devices' sockets (RoceEndpoint): the IP identification the ICRC covers.
    requires jdk.net;

    exports org.verbs4j.provider.emulated;

    provides org.verbs4j.spi.VerbsProvider with org.verbs4j.provider.emulated.EmulatedProvider;
}
