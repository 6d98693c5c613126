package org.verbs4j.tools.cli;

import java.util.List;
import org.verbs4j.Device;
import org.verbs4j.ProviderUnavailableException;
import org.verbs4j.Verbs;
import org.verbs4j.spi.VerbsProvider;

/** Finds the provider and device a command was asked for, turning every miss into a {@link UsageException}. */
public final class Providers {
    private Providers() {}

    /**
     * The provider named on the command line, or else the one {@link Verbs#select()} chooses.
     *
     * @throws UsageException if the named provider is not on the path or is unavailable, or none is available
     */
    public static VerbsProvider resolve(String name) {
        if (name == null) {
            try {
                return Verbs.select().chosen();
            } catch (ProviderUnavailableException e) {
                throw new UsageException(e.getMessage(), e);
            }
        }
        VerbsProvider p = find(name);
        if (!available(p)) {
            throw new UsageException("provider '" + p.name() + "' is unavailable: " + causeText(p));
        }
        return p;
    }

    /**
     * The provider with this name, available or not.
     *
     * @throws UsageException if no provider on the path has that name
     */
    public static VerbsProvider find(String name) {
        List<VerbsProvider> all = Verbs.providers();
        for (VerbsProvider p : all) {
            if (p.name().equalsIgnoreCase(name)) {
                return p;
            }
        }
        throw new UsageException("no provider named '" + name + "'; found "
                + all.stream().map(VerbsProvider::name).toList());
    }

    /**
     * The named device of the provider, or its first device when the name is null.
     *
     * @throws UsageException if the device does not exist or the provider has none
     */
    public static Device device(VerbsProvider provider, String name) {
        List<Device> devices = provider.devices();
        if (name == null) {
            if (devices.isEmpty()) {
                throw new UsageException("provider '" + provider.name() + "' lists no devices");
            }
            return devices.getFirst();
        }
        for (Device d : devices) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        throw new UsageException("provider '" + provider.name() + "' has no device '" + name + "'; it has "
                + devices.stream().map(Device::name).toList());
    }

    /** Whether the provider is available; a provider whose probe throws counts as unavailable. */
    public static boolean available(VerbsProvider p) {
        try {
            return p.isAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** Why the provider is unavailable, in one line, following the cause chain. */
    public static String causeText(VerbsProvider p) {
        Throwable cause;
        try {
            cause = p.isAvailable() ? null : p.unavailabilityCause();
        } catch (RuntimeException | LinkageError e) {
            cause = e;
        }
        if (cause == null) {
            return "no reason given";
        }
        StringBuilder sb = new StringBuilder(String.valueOf(cause.getMessage() != null ? cause.getMessage()
                : cause.getClass().getSimpleName()));
        // A bounded walk: a cause chain can loop through initCause.
        int depth = 0;
        for (Throwable c = cause.getCause(); c != null && depth < 8; c = c.getCause(), depth++) {
            if (c.getMessage() != null && !sb.toString().contains(c.getMessage())) {
                sb.append(" (caused by: ").append(c.getMessage()).append(')');
            }
        }
        return Messages.oneLine(sb.toString());
    }
}
