package org.verbs4j.examples;

import java.util.Map;
import org.verbs4j.Device;
import org.verbs4j.ProviderSelection;
import org.verbs4j.ProviderUnavailableException;
import org.verbs4j.Verbs;
import org.verbs4j.spi.VerbsProvider;

/*
 * Provider selection: which providers are on the class path, which are usable here and why not, which one
 * Verbs.provider() picks, and how to force one.
 *
 * What it shows:
 * - Verbs.providers() lists every provider found (ServiceLoader), available or not, with
 *   unavailabilityCause(): a native provider is unavailable when libibverbs does not load or lists no device;
 * - Verbs.select() makes the same choice as Verbs.provider(), uncached, and says why, and why each other
 *   provider lost;
 * - -Dverbs4j.provider=NAME (or VERBS4J_PROVIDER=NAME) forces one; a forced provider that is unavailable is an
 *   error with its cause, never a silent fallback to the emulator;
 * - Verbs.provider(NAME) asks for one by name, uncached.
 *
 * Run: java -cp "examples/target/classes:$(cat examples/target/classpath.txt)" \
 *          [-Dverbs4j.provider=emulated] org.verbs4j.examples.ChooseProvider
 */
public final class ChooseProvider {
    private ChooseProvider() {}

    public static void main(String[] args) {
        String forced = Verbs.requestedName();
        System.out.println("verbs4j.provider / VERBS4J_PROVIDER: " + (forced == null ? "(not set)" : forced));

        System.out.println("providers found:");
        for (VerbsProvider p : Verbs.providers()) {
            Throwable cause = p.unavailabilityCause();
            System.out.printf("  %-9s priority %3d  %s%n", p.name(), p.priority(),
                    p.isAvailable() ? "available" : "unavailable: " + cause);
        }

        try {
            ProviderSelection s = Verbs.select();
            System.out.println("chosen: " + s.chosen().name() + " (" + s.reason() + ")");
            for (Map.Entry<String, String> lost : s.rejected().entrySet()) {
                System.out.println("  not " + lost.getKey() + ": " + lost.getValue());
            }
            // What an application calls: resolved once per JVM, the same choice as select().
            VerbsProvider provider = Verbs.provider();
            for (Device d : provider.devices()) {
                System.out.printf("device %s, GUID %016x%n", d.name(), d.guid());
            }
        } catch (ProviderUnavailableException e) {
            // The forced provider is missing or unavailable, or no provider is available at all.
            System.out.println("no provider: " + e.getMessage());
        }

        try {
            Verbs.provider("no-such-provider");
        } catch (ProviderUnavailableException e) {
            System.out.println("Verbs.provider(\"no-such-provider\"): " + e.getMessage());
        }
    }
}
