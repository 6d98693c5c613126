package org.verbs4j.tools.tck;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.verbs4j.tools.cli.UsageException;

/**
 * TCK rules that a device is known to break for reasons of its own, such as the rxe deviations listed in
 * {@code softroce/known-deviations.md}. A failure whose label (the test's display name, with the parameter
 * index for parameterized tests) starts with an entry is reported as known instead of failing the run.
 *
 * <p>The file has one entry a line; blank lines and lines starting with {@code #} are ignored.
 */
record KnownDeviations(List<String> entries) {
    static final KnownDeviations NONE = new KnownDeviations(List.of());

    KnownDeviations {
        entries = List.copyOf(entries);
    }

    static KnownDeviations read(Path file) {
        List<String> entries = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String entry = line.strip();
                if (!entry.isEmpty() && !entry.startsWith("#")) {
                    entries.add(entry);
                }
            }
        } catch (IOException e) {
            throw new UsageException("cannot read the known deviations in " + file + ": " + e.getMessage());
        }
        return new KnownDeviations(entries);
    }

    /** The entry that covers this failure ({@code "<label>: <message>"}), or null. */
    String match(String failure) {
        for (String e : entries) {
            if (failure.startsWith(e)) {
                return e;
            }
        }
        return null;
    }
}
