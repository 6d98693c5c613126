package org.verbs4j.tck;

import org.verbs4j.Verbs;
import org.verbs4j.spi.VerbsProvider;

/**
 * The kit against a provider chosen at run time: the one {@link TckRunner} hands over, else the provider named by
 * the system property {@value TckRunner#PROVIDER_PROPERTY}, else the one {@link Verbs#select()} resolves.
 * {@link TckRunner} runs this class; it is not meant to be subclassed.
 */
public final class SelectedProviderCompatibilityTest extends VerbsCompatibilityKit {
    /** JUnit creates it; {@link TckRunner} runs it. */
    public SelectedProviderCompatibilityTest() {}

    @Override
    protected VerbsProvider provider() {
        VerbsProvider handedOver = TckRunner.current();
        if (handedOver != null) {
            return handedOver;
        }
        String name = System.getProperty(TckRunner.PROVIDER_PROPERTY);
        if (name != null && !name.isBlank()) {
            for (VerbsProvider p : Verbs.providers()) {
                if (p.name().equalsIgnoreCase(name.trim())) {
                    return p;
                }
            }
            return new MissingProvider(name.trim(), "no provider named '" + name.trim() + "' is on the path; found "
                    + Verbs.providers().stream().map(VerbsProvider::name).toList());
        }
        try {
            return Verbs.select().chosen();
        } catch (RuntimeException e) {
            return new MissingProvider("(none)", e.getMessage());
        }
    }

    @Override
    protected String deviceName() {
        String device = TckRunner.currentDevice();
        return device != null ? device : super.deviceName();
    }

    @Override
    protected String peerDeviceName() {
        return TckRunner.currentPeerDevice();
    }

    @Override
    protected int gidIndex() {
        int index = TckRunner.currentGidIndex();
        return index >= 0 ? index : super.gidIndex();
    }
}
