package org.verbs4j.provider.emulated;

import java.util.List;

import org.verbs4j.ConnectionManager;
import org.verbs4j.Device;
import org.verbs4j.ForkStatus;
import org.verbs4j.provider.emulated.cm.EmulatedConnectionManager;
import org.verbs4j.provider.emulated.cm.EmulatedDevices;
import org.verbs4j.spi.VerbsProvider;

/**
 * The emulated provider: a pure-Java software RDMA device, always available, chosen when no native
 * provider is. Its devices ({@code emu0}, {@code emu1}, ...) are shared by the whole JVM, so QPs opened
 * through different provider instances, contexts or devices connect to each other by GID and QPN, as two
 * processes on one host do.
 *
 * <p>The system property {@code verbs4j.emulated.devices} sets the number of devices (default 1); it is
 * read once, when the devices are first listed.
 */
public final class EmulatedProvider implements VerbsProvider {
    /** The provider's name, for {@code verbs4j.provider}. */
    public static final String NAME = "emulated";

    /** Cheap: the devices are created on first use. */
    public EmulatedProvider() {}

    @Override
    public String name() {
        return NAME;
    }

    /** 100: below the native providers (ffm 300, jnr 200), so real hardware wins when present. */
    @Override
    public int priority() {
        return 100;
    }

    @Override
    public int spiVersion() {
        return SPI_VERSION;
    }

    /** Always true: the emulator needs nothing from the machine. */
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
        return EmulatedDevices.all();
    }

    /** Succeeds and does nothing: fork is never a danger here ({@link #forkStatus()}). */
    @Override
    public void forkInit() {}

    /**
     * {@link ForkStatus#UNNEEDED}: the emulated devices read and write registered memory from Java, through the
     * region's segment, never by DMA to a pinned physical page, so a child of {@code fork()} cannot take a page
     * from under them.
     */
    @Override
    public ForkStatus forkStatus() {
        return ForkStatus.UNNEEDED;
    }

    /** True: the emulated connection manager connects RC QPs of the JVM's emulated devices. */
    @Override
    public boolean hasConnectionManager() {
        return true;
    }

    /**
     * The emulated connection manager, shared by the whole JVM. The loopback addresses and the addresses of
     * the host's network interfaces map to {@code emu0}; {@code 10.255.0.N} maps to {@code emu(N-1)}; any other
     * address is unreachable.
     */
    @Override
    public ConnectionManager connectionManager() {
        return EmulatedConnectionManager.INSTANCE;
    }

    @Override
    public String toString() {
        return "EmulatedProvider[" + EmulatedDevices.all().size() + " devices]";
    }
}
