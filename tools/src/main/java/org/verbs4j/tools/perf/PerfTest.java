package org.verbs4j.tools.perf;

import java.util.Arrays;
import java.util.Locale;
import org.verbs4j.QpType;
import org.verbs4j.WrOpcode;

/**
 * The perftest tests {@code verbs4j perf} runs, named as perftest's {@code ib_*} programs without the prefix.
 *
 * @see "perftest: ib_write_bw(1), ib_send_lat(1)"
 */
public enum PerfTest {
    WRITE_BW(WrOpcode.RDMA_WRITE, Kind.BANDWIDTH),
    READ_BW(WrOpcode.RDMA_READ, Kind.BANDWIDTH),
    SEND_BW(WrOpcode.SEND, Kind.BANDWIDTH),
    ATOMIC_BW(WrOpcode.ATOMIC_FETCH_AND_ADD, Kind.BANDWIDTH),
    WRITE_LAT(WrOpcode.RDMA_WRITE, Kind.LATENCY),
    READ_LAT(WrOpcode.RDMA_READ, Kind.LATENCY),
    SEND_LAT(WrOpcode.SEND, Kind.LATENCY),
    ATOMIC_LAT(WrOpcode.ATOMIC_FETCH_AND_ADD, Kind.LATENCY);

    /** Whether a test measures bandwidth or latency. */
    public enum Kind { BANDWIDTH, LATENCY }

    /** The operand size of every atomic, bytes. */
    public static final int ATOMIC_SIZE = 8;

    private final WrOpcode opcode;
    private final Kind kind;

    PerfTest(WrOpcode opcode, Kind kind) {
        this.opcode = opcode;
        this.kind = kind;
    }

    /** The WR opcode the test posts (fetch-and-add for the atomic tests, as perftest's default). */
    public WrOpcode opcode() {
        return opcode;
    }

    public Kind kind() {
        return kind;
    }

    public boolean isAtomic() {
        return opcode.isAtomic();
    }

    /** Whether the receiving side must post receives. */
    public boolean usesReceives() {
        return opcode == WrOpcode.SEND;
    }

    /** The command-line name, such as {@code write_bw}. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether the QP type can run this test (UC has no READ or atomics; UD only sends). */
    public boolean runsOn(QpType type) {
        return opcode.isValidFor(type);
    }

    /**
     * The test with this command-line name.
     *
     * @throws IllegalArgumentException naming the tests there are
     */
    public static PerfTest ofCliName(String name) {
        for (PerfTest t : values()) {
            if (t.cliName().equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown test '" + name + "'; the tests are "
                + String.join(", ", Arrays.stream(values()).map(PerfTest::cliName).toList()));
    }

    @Override
    public String toString() {
        return cliName();
    }
}
