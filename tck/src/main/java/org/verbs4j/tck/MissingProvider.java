package org.verbs4j.tck;

import java.util.List;
import org.verbs4j.Device;
import org.verbs4j.ProviderUnavailableException;
import org.verbs4j.spi.VerbsProvider;

/** Stands in for a provider that could not be found, so the kit reports one skip with the reason. */
final class MissingProvider implements VerbsProvider {
    private final String name;
    private final ProviderUnavailableException cause;

    MissingProvider(String name, String why) {
        this.name = name;
        this.cause = new ProviderUnavailableException(why, null);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int priority() {
        return Integer.MIN_VALUE;
    }

    @Override
    public int spiVersion() {
        return SPI_VERSION;
    }

    @Override
    public boolean isAvailable() {
        return false;
    }

    @Override
    public Throwable unavailabilityCause() {
        return cause;
    }

    @Override
    public List<Device> devices() {
        throw cause;
    }
}
