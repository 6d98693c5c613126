package org.verbs4j;

import java.util.List;
import java.util.Map;
import org.verbs4j.spi.VerbsProvider;

/**
 * The outcome of provider resolution: the provider chosen, why, and why each other one lost.
 *
 * @param chosen the provider that will be used
 * @param reason why it was chosen
 * @param found every provider found, in {@link java.util.ServiceLoader} order
 * @param rejected for each other provider name, why it lost
 */
public record ProviderSelection(VerbsProvider chosen, String reason, List<VerbsProvider> found,
                                Map<String, String> rejected) {
    /** Copies the list and the map. */
    public ProviderSelection {
        found = List.copyOf(found);
        rejected = Map.copyOf(rejected);
    }
}
