package org.verbs4j.tools.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** Writes a {@link PerfReport} as JSON. */
final class PerfJson {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private PerfJson() {}

    static void write(PerfReport report, Path file) {
        try {
            MAPPER.writeValue(file.toFile(), report);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
