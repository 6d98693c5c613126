/**
 * The {@code ffm} verbs4j provider: libibverbs through the Foreign Function and Memory API. Needs
 * {@code --enable-native-access=org.verbs4j.provider.ffm}; {@code -Dverbs4j.ffm.disabled=true} turns it off.
 */
module org.verbs4j.provider.ffm {
    requires org.verbs4j.spi;
    requires org.verbs4j.provider.nativecommon;

    provides org.verbs4j.spi.VerbsProvider with org.verbs4j.provider.ffm.FfmProvider;
}
