package org.verbs4j.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Runs one API's rows of a CPU-time harness ({@link NullverbsCpuTime}, {@link DisniCpuTime}) in a JVM of its own,
 * as JMH forks a trial. With every row in one JVM, the code the rows share (the post path, the stream, the
 * measuring loop) is compiled with the profiles of the rows run before it: on a quiet machine the same row gave
 * 22 to 36 ns per WR from one JVM to the next, and the bare FFM loop, which runs late, 16.7 ns where a JVM of its
 * own gives 10.0 (benchmarks/reports/api-forks.md). A child gets the parent's {@code java}, JVM options, class path
 * and environment.
 */
final class ApiFork {
    private ApiFork() {}

    /**
     * Runs {@code main} in a child JVM and returns the rows of the JSON it wrote.
     *
     * @param main the harness
     * @param args its arguments, given the file the child writes its JSON to
     * @return the child's result entries, joined by commas
     * @throws IOException if the child cannot start, fails, or writes no results
     */
    static String rows(Class<?> main, Function<Path, List<String>> args) throws IOException, InterruptedException {
        Path out = Files.createTempFile("verbs4j-" + main.getSimpleName() + "-", ".json");
        try {
            List<String> cmd = new ArrayList<>();
            cmd.add(ProcessHandle.current().info().command().orElse("java"));
            cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
            cmd.addAll(args.apply(out));
            Process child = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            int rc = child.waitFor();
            JsonNode results = Files.size(out) == 0 ? null : new ObjectMapper().readTree(out.toFile()).get("results");
            if (rc != 0 || results == null || !results.isArray()) {
                throw new IOException(String.join(" ", cmd) + " exited with status " + rc + " and wrote no results");
            }
            List<String> rows = new ArrayList<>();
            results.forEach(row -> rows.add(row.toString()));
            return String.join(",", rows);
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
