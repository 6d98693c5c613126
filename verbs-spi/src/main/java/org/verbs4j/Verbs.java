package org.verbs4j;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.UnaryOperator;
import org.verbs4j.spi.VerbsProvider;

/**
 * The entry point: finds the verbs providers and chooses one.
 *
 * <p>Resolution, in this order:
 * <ol>
 *   <li>If the system property {@value #PROVIDER_PROPERTY} or else the environment variable
 *       {@value #PROVIDER_ENV} names a provider, that provider is used; if it is missing or unavailable,
 *       resolution fails with the cause attached. It never falls back silently.</li>
 *   <li>Otherwise the available provider with the highest {@link VerbsProvider#priority()} wins
 *       (ffm, then jnr, then emulated).</li>
 *   <li>The choice is logged at DEBUG through {@link System.Logger} ({@code org.verbs4j}), with the reason
 *       each other provider lost; {@link #select()} returns the same explanation and {@link #providers()} lists
 *       every provider with its unavailability cause. {@link #provider()} logs one INFO line, once per JVM,
 *       only when the emulated device stands in for an unavailable native provider. A provider that fails to
 *       load ({@link ServiceConfigurationError}) or was built against another SPI version is skipped with a
 *       warning.</li>
 * </ol>
 *
 * <p>{@link #provider()} resolves once per JVM. Tests and tools use {@link #select()},
 * {@link #provider(String)} or {@link #providers()}, which never cache.
 */
public final class Verbs {
    /** The system property that names the provider. */
    public static final String PROVIDER_PROPERTY = "verbs4j.provider";
    /** The environment variable that names the provider when the property is not set. */
    public static final String PROVIDER_ENV = "VERBS4J_PROVIDER";

    private static final System.Logger LOG = System.getLogger("org.verbs4j");

    private Verbs() {}

    private static final class Holder {
        static final VerbsProvider CHOSEN = resolveOnce();

        private static VerbsProvider resolveOnce() {
            ProviderSelection s = select();
            String notice = fallbackNotice(s);
            if (notice != null) {
                LOG.log(System.Logger.Level.INFO, notice);
            }
            return s.chosen();
        }
    }

    /**
     * The JVM's provider, resolved on first use and then kept.
     *
     * @return the provider
     * @throws ProviderUnavailableException if the named provider is missing or unavailable, or none is available
     */
    public static VerbsProvider provider() {
        try {
            return Holder.CHOSEN;
        } catch (ExceptionInInitializerError e) {
            throw (RuntimeException) e.getCause();
        } catch (NoClassDefFoundError e) {
            // The first resolution failed; resolve again so the caller sees the real cause.
            return select().chosen();
        }
    }

    /**
     * The provider with this name, uncached.
     *
     * @param name the provider's name, such as {@code ffm}
     * @return the provider, available
     * @throws ProviderUnavailableException if it is missing or unavailable
     */
    public static VerbsProvider provider(String name) {
        return select(loader(), name).chosen();
    }

    /**
     * Every provider found, available or not, in {@link ServiceLoader} order. Uncached.
     *
     * @return the providers; each says {@link VerbsProvider#isAvailable()} and why not
     */
    public static List<VerbsProvider> providers() {
        return load(loader().iterator(), new LinkedHashMap<>());
    }

    /**
     * Resolves a provider as {@link #provider()} does, but uncached, and says why.
     *
     * @return the chosen provider, why, and why each other lost
     * @throws ProviderUnavailableException if the named provider is missing or unavailable, or none is available
     */
    public static ProviderSelection select() {
        return select(loader(), requestedName());
    }

    /** {@return the provider name set by {@value #PROVIDER_PROPERTY} or {@value #PROVIDER_ENV}, or null} */
    public static String requestedName() {
        return requestedName(System::getProperty, System::getenv);
    }

    static String requestedName(UnaryOperator<String> properties, UnaryOperator<String> environment) {
        String name = properties.apply(PROVIDER_PROPERTY);
        if (name == null || name.isBlank()) {
            name = environment.apply(PROVIDER_ENV);
        }
        return name == null || name.isBlank() ? null : name.trim().toLowerCase(Locale.ROOT);
    }

    private static Iterable<VerbsProvider> loader() {
        return ServiceLoader.load(VerbsProvider.class, Verbs.class.getClassLoader());
    }

    static ProviderSelection select(Iterable<VerbsProvider> source, String requested) {
        Map<String, String> rejected = new LinkedHashMap<>();
        List<VerbsProvider> found = load(source.iterator(), rejected);
        if (requested != null) {
            return selectNamed(found, requested, rejected);
        }
        List<VerbsProvider> ranked = new ArrayList<>(found);
        ranked.sort(Comparator.comparingInt(VerbsProvider::priority).reversed());
        List<Throwable> causes = new ArrayList<>();
        VerbsProvider chosen = null;
        for (VerbsProvider p : ranked) {
            if (chosen != null) {
                if (p.priority() == chosen.priority()) {
                    LOG.log(System.Logger.Level.WARNING, "verbs4j providers ''{0}'' and ''{1}'' share priority {2}; "
                            + "using ''{0}''. Set -D" + PROVIDER_PROPERTY + " to choose.", chosen.name(), p.name(),
                            p.priority());
                }
                rejected.putIfAbsent(p.name(), "lower priority (" + p.priority() + ") than '" + chosen.name()
                        + "' (" + chosen.priority() + ")");
                continue;
            }
            Throwable cause = availability(p);
            if (cause == null) {
                chosen = p;
            } else {
                rejected.put(p.name(), "unavailable: " + cause.getMessage());
                causes.add(cause);
            }
        }
        if (chosen == null) {
            ProviderUnavailableException none = new ProviderUnavailableException(noProviderMessage(found, rejected),
                    null);
            causes.forEach(none::addSuppressed);
            LOG.log(System.Logger.Level.DEBUG, none.getMessage());
            throw none;
        }
        String reason = "highest priority available provider (" + chosen.priority() + ")";
        log(chosen, reason, rejected);
        return new ProviderSelection(chosen, reason, found, rejected);
    }

    private static ProviderSelection selectNamed(List<VerbsProvider> found, String requested,
                                                 Map<String, String> rejected) {
        VerbsProvider named = null;
        for (VerbsProvider p : found) {
            if (p.name().equalsIgnoreCase(requested)) {
                named = p;
            } else {
                rejected.putIfAbsent(p.name(), "not the requested provider '" + requested + "'");
            }
        }
        if (named == null) {
            String why = rejected.containsKey(requested) ? " (" + rejected.get(requested) + ")" : "";
            throw new ProviderUnavailableException("verbs4j provider '" + requested + "' was requested by "
                    + PROVIDER_PROPERTY + " or " + PROVIDER_ENV + " but is not on the path" + why + "; found "
                    + names(found), null);
        }
        Throwable cause = availability(named);
        if (cause != null) {
            throw new ProviderUnavailableException("verbs4j provider '" + requested + "' was requested by "
                    + PROVIDER_PROPERTY + " or " + PROVIDER_ENV + " but is unavailable: " + cause.getMessage(), cause);
        }
        String reason = "requested by " + PROVIDER_PROPERTY + " or " + PROVIDER_ENV;
        log(named, reason, rejected);
        return new ProviderSelection(named, reason, found, rejected);
    }

    /** Loads every provider, skipping (and recording) those that fail to load or speak another SPI version. */
    private static List<VerbsProvider> load(Iterator<VerbsProvider> it, Map<String, String> rejected) {
        List<VerbsProvider> found = new ArrayList<>();
        int failuresInARow = 0;
        while (failuresInARow < 16) {
            VerbsProvider p;
            try {
                if (!it.hasNext()) {
                    break;
                }
                p = it.next();
                failuresInARow = 0;
            } catch (ServiceConfigurationError e) {
                failuresInARow++;
                LOG.log(System.Logger.Level.WARNING, "a verbs4j provider failed to load and is skipped: "
                        + e.getMessage());
                LOG.log(System.Logger.Level.DEBUG, "provider load failure", e);
                rejected.put("(failed to load #" + rejected.size() + ")", e.getMessage());
                continue;
            }
            if (p.spiVersion() != VerbsProvider.SPI_VERSION) {
                String why = "built against SPI version " + p.spiVersion() + ", but this verbs4j-spi is version "
                        + VerbsProvider.SPI_VERSION;
                LOG.log(System.Logger.Level.WARNING, "verbs4j provider ''{0}'' is skipped: {1}", p.name(), why);
                rejected.put(p.name(), why);
                continue;
            }
            found.add(p);
        }
        return found;
    }

    private static Throwable availability(VerbsProvider p) {
        try {
            return p.isAvailable() ? null : nonNull(p.unavailabilityCause(), p);
        } catch (RuntimeException | LinkageError e) {
            return e;
        }
    }

    private static Throwable nonNull(Throwable cause, VerbsProvider p) {
        return cause != null ? cause : new IllegalStateException("provider '" + p.name() + "' gave no reason");
    }

    /**
     * Logs the choice at DEBUG: a library should not print on every run. The same explanation is in the
     * {@link ProviderSelection} that {@link #select()} returns, and {@link #providers()} lists every provider
     * with its {@link VerbsProvider#unavailabilityCause()}.
     */
    private static void log(VerbsProvider chosen, String reason, Map<String, String> rejected) {
        LOG.log(System.Logger.Level.DEBUG, () -> "verbs4j provider '" + chosen.name() + "' chosen: " + reason
                + explain(rejected));
    }

    /**
     * The one INFO line verbs4j may print, once per JVM from {@link #provider()}: the emulated device stands
     * in for RDMA hardware because a native provider was found but is unavailable. Null when that is not so.
     */
    static String fallbackNotice(ProviderSelection s) {
        if (!s.chosen().name().equals("emulated")) {
            return null;
        }
        List<String> natives = s.rejected().entrySet().stream()
                .filter(e -> !e.getKey().startsWith("(") && e.getValue().startsWith("unavailable: "))
                .map(e -> "'" + e.getKey() + "' " + e.getValue())
                .toList();
        if (natives.isEmpty()) {
            return null;
        }
        return "verbs4j is using the emulated software device, not RDMA hardware (" + String.join("; ", natives)
                + "). Install rdma-core and an RDMA NIC (or rxe) for the native providers; Verbs.providers() "
                + "and 'verbs4j devinfo' list every provider and why it was not chosen.";
    }

    /** The message of the exception thrown when no provider is available: what was found and why each lost. */
    static String noProviderMessage(List<VerbsProvider> found, Map<String, String> rejected) {
        return "no verbs4j provider is available; found " + names(found) + explain(rejected)
                + ". Put verbs4j-provider-emulated on the path to run without RDMA hardware.";
    }

    /** "; 'ffm' lost: unavailable: ..." for each provider that was not chosen, or "" when there is none. */
    private static String explain(Map<String, String> rejected) {
        StringBuilder sb = new StringBuilder();
        rejected.forEach((name, why) -> sb.append("; '").append(name).append("' lost: ").append(why));
        return sb.toString();
    }

    private static List<String> names(List<VerbsProvider> providers) {
        return providers.stream().map(VerbsProvider::name).toList();
    }
}
