package org.verbs4j.benchmarks.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One entry of a JMH JSON result file ({@code -rf json}): a benchmark method with one set of parameters.
 *
 * @param benchmark   the class's simple name and the method, e.g. {@code PostBenchmark.wrSession}
 * @param params      the {@code @Param} values
 * @param threads     threads that ran it
 * @param score       the primary score, in {@code unit}
 * @param error       the 99.9% confidence half-width JMH gives, NaN when it has too few samples
 * @param unit        e.g. {@code ns/op} or {@code ops/s}
 * @param allocNorm   {@code gc.alloc.rate.norm} in bytes per operation, NaN when run without {@code -prof gc}
 * @param allocRate   {@code gc.alloc.rate} in MB (2^20 bytes) per second of wall time, NaN without {@code -prof gc}
 * @param vm          JDK version, VM name and version, JMH version, warm-up and measurement settings
 * @param iterations  the primary score of each measured iteration, every fork's in order ({@code rawData})
 */
record JmhResult(String benchmark, Map<String, String> params, int threads, double score, double error, String unit,
                 double allocNorm, double allocRate, Map<String, String> vm, double[] iterations) {

    /** Reads every entry of a JMH JSON file. */
    static List<JmhResult> read(Path file) throws IOException {
        JsonNode root = new ObjectMapper().readTree(file.toFile());
        if (root == null || !root.isArray()) {
            throw new IOException(file + " is not a JMH JSON result (an array was expected)");
        }
        List<JmhResult> out = new ArrayList<>();
        for (JsonNode n : root) {
            String full = n.path("benchmark").asText();
            int cls = full.lastIndexOf('.', full.lastIndexOf('.') - 1);
            Map<String, String> params = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> e : n.path("params").properties()) {
                params.put(e.getKey(), e.getValue().asText());
            }
            JsonNode primary = n.path("primaryMetric");
            double alloc = Double.NaN;
            double rate = Double.NaN;
            for (Map.Entry<String, JsonNode> e : n.path("secondaryMetrics").properties()) {
                // Older JMH versions prefix profiler metrics with a middle dot.
                String name = e.getKey().replace("\u00b7", "");
                if (name.equals("gc.alloc.rate.norm")) {
                    alloc = e.getValue().path("score").asDouble(Double.NaN);
                } else if (name.equals("gc.alloc.rate")) {
                    rate = e.getValue().path("score").asDouble(Double.NaN);
                }
            }
            Map<String, String> vm = new LinkedHashMap<>();
            for (String k : List.of("jdkVersion", "vmName", "vmVersion", "jmhVersion", "forks", "warmupIterations",
                    "warmupTime", "measurementIterations", "measurementTime")) {
                vm.put(k, n.path(k).asText());
            }
            out.add(new JmhResult(full.substring(cls + 1), params, n.path("threads").asInt(1),
                    primary.path("score").asDouble(Double.NaN), primary.path("scoreError").asDouble(Double.NaN),
                    primary.path("scoreUnit").asText(), alloc, rate, vm, iterations(primary.path("rawData"))));
        }
        return out;
    }

    private static double[] iterations(JsonNode rawData) {
        List<Double> v = new ArrayList<>();
        for (JsonNode fork : rawData) {
            for (JsonNode x : fork) {
                v.add(x.asDouble());
            }
        }
        return v.stream().mapToDouble(Double::doubleValue).toArray();
    }

    String param(String name) {
        return params.getOrDefault(name, "");
    }
}
