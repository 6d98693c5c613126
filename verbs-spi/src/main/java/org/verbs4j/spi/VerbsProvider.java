package org.verbs4j.spi;

import java.util.List;
import org.verbs4j.ConnectionManager;
import org.verbs4j.Device;
import org.verbs4j.ForkStatus;
import org.verbs4j.ProviderUnavailableException;

/**
 * A verbs4j backend, found by {@link java.util.ServiceLoader}.
 *
 * <p>A provider is registered twice: in {@code META-INF/services/org.verbs4j.spi.VerbsProvider} and with
 * {@code provides org.verbs4j.spi.VerbsProvider with ...} in its {@code module-info}.
 *
 * <p>The constructor must be cheap and must not fail: it runs for every provider on the path whenever
 * providers are listed. Loading native code and probing devices happen once, lazily, the first time
 * {@link #isAvailable()} or {@link #unavailabilityCause()} is called.
 */
public interface VerbsProvider {
    /** The provider contract version this SPI defines. */
    int SPI_VERSION = 1;

    /** {@return the short name that {@code verbs4j.provider} selects it by, such as {@code ffm}; lower case} */
    String name();

    /** {@return its rank when none is named: the available provider with the highest priority wins} */
    int priority();

    /**
     * The {@link #SPI_VERSION} the provider was compiled against. Implement it as
     * {@code return SPI_VERSION;}: the constant is copied into the provider's class file at compile
     * time, so a provider built against another contract version is recognised and refused.
     *
     * @return the contract version: {@link #SPI_VERSION} as the provider saw it
     */
    int spiVersion();

    /** {@return whether the provider works here: its library loads and it lists a device; computed once} */
    boolean isAvailable();

    /** {@return why the provider is not available, or null when it is} */
    Throwable unavailabilityCause();

    /**
     * Throws unless the provider is available.
     *
     * @throws ProviderUnavailableException with {@link #unavailabilityCause()} attached
     */
    default void ensureAvailability() {
        if (!isAvailable()) {
            Throwable cause = unavailabilityCause();
            throw new ProviderUnavailableException("verbs4j provider '" + name() + "' is unavailable: "
                    + (cause == null ? "no reason given" : cause.getMessage()), cause);
        }
    }

    /**
     * The devices this provider reaches. A native provider lists them with {@code ibv_get_device_list} and frees the
     * list ({@code ibv_free_device_list}) before it returns, so there is nothing for the caller to free.
     *
     * @return the devices, in the library's order
     * @throws ProviderUnavailableException if the provider is unavailable
     * @see "ibv_get_device_list(3) ibv_free_device_list"
     */
    List<Device> devices();

    /**
     * The device with this name.
     *
     * @param name the device's name, such as {@code rxe0}
     * @return the device
     * @throws IllegalArgumentException if there is none, naming those there are
     */
    default Device device(String name) {
        List<Device> all = devices();
        for (Device d : all) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        throw new IllegalArgumentException("provider '" + name() + "' has no device '" + name + "'; it has "
                + all.stream().map(Device::name).toList());
    }

    /**
     * Makes {@code fork()} safe for memory registered from now on: the library marks each registered range
     * {@code MADV_DONTFORK}, so that a child never shares a page the device reads or writes. Call it once, before
     * the first registration; a second call succeeds and does nothing. Where fork is already safe
     * ({@link #forkStatus()} is {@link ForkStatus#UNNEEDED}) it does nothing and succeeds, except that rdma-core 44
     * checks for an earlier registration first and answers {@code EINVAL} after one there too. Setting the
     * environment variable {@code RDMAV_FORK_SAFE} before the JVM starts has the same effect.
     *
     * @throws org.verbs4j.VerbsException {@code ibv_fork_init} with {@code EINVAL} if memory was registered before,
     *     which makes fork support impossible for this process (rdma-core 44: even where it is unneeded);
     *     {@code ENOMEM}, or {@code ENOSYS} if the kernel has no {@code MADV_DONTFORK}
     * @throws ProviderUnavailableException if the provider is unavailable
     * @throws UnsupportedOperationException by default, for a provider that does not say
     * @see "ibv_fork_init(3)"
     */
    default void forkInit() {
        throw new UnsupportedOperationException("verbs4j provider '" + name() + "' does not implement forkInit()");
    }

    /**
     * Whether {@code fork()} is safe for registered memory in this process.
     *
     * @return {@link ForkStatus#UNNEEDED} where the kernel copies pinned pages at fork (or the provider's device reads
     *     no memory by DMA), else {@link ForkStatus#ENABLED} after a successful {@link #forkInit()}, else
     *     {@link ForkStatus#DISABLED}
     * @throws ProviderUnavailableException if the provider is unavailable
     * @throws UnsupportedOperationException by default, for a provider that does not say
     * @see "ibv_is_fork_initialized(3)"
     */
    default ForkStatus forkStatus() {
        throw new UnsupportedOperationException("verbs4j provider '" + name() + "' does not implement forkStatus()");
    }

    /**
     * Whether {@link #connectionManager()} works: the capability the TCK's connection-management rules skip by.
     * A provider that overrides one of the two methods overrides both.
     *
     * @return true if the provider has a connection manager; false by default
     */
    default boolean hasConnectionManager() {
        return false;
    }

    /**
     * The provider's connection manager (rdma_cm): IP addressing, connect, accept and disconnect for its
     * devices' QPs.
     *
     * @return the connection manager
     * @throws UnsupportedOperationException if the provider has none ({@link #hasConnectionManager()} is false);
     *     the default
     * @throws ProviderUnavailableException if the provider is unavailable
     * @see "rdma_cm(7)"
     */
    default ConnectionManager connectionManager() {
        throw new UnsupportedOperationException("verbs4j provider '" + name()
                + "' has no connection manager (rdma_cm) yet: connect QPs by exchanging QPN, PSN and GID yourself,"
                + " or use a provider whose hasConnectionManager() is true");
    }
}
