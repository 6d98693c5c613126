package org.verbs4j;

import java.util.List;
import org.verbs4j.spi.VerbsProvider;

/** A provider registered only in this module's test resources, to exercise the real ServiceLoader path. */
public final class TestOnlyProvider implements VerbsProvider {
    @Override
    public String name() {
        return "test-only";
    }

    @Override
    public int priority() {
        return 1;
    }

    @Override
    public int spiVersion() {
        return SPI_VERSION;
    }

    @Override
    public boolean isAvailable() {
        return true;
    }

    @Override
    public Throwable unavailabilityCause() {
        return null;
    }

    @Override
    public List<Device> devices() {
        return List.of();
    }
}
