package org.verbs4j.benchmarks;

import java.util.List;

import org.verbs4j.Device;
import org.verbs4j.Verbs;
import org.verbs4j.spi.VerbsProvider;

/**
 * Checks that the null libibverbs ({@code benchmarks/c/null_ibverbs.c}) is what the named providers loaded, and
 * that it carries the benchmarks' traffic: each provider must be available, list exactly one device, {@code null0},
 * and on it post 4 x 32 RDMA WRITEs through a {@code WrSession}, 4 x 32 through {@code postSend} and 4 x 32 through a
 * {@code PreparedSends}, whose signaled
 * completions (every 32nd WR) must all come back, in order, through the provider's poll. {@code benchmarks/run
 * --nullverbs} runs it before measuring, with {@code LD_LIBRARY_PATH} on the null library; exit status 1 and the
 * reason on stderr when a check fails.
 *
 * <pre>LD_LIBRARY_PATH=benchmarks/target/nullverbs java --enable-native-access=ALL-UNNAMED \
 *     -cp benchmarks.jar org.verbs4j.benchmarks.NullverbsCheck ffm jnr</pre>
 */
public final class NullverbsCheck {
    private NullverbsCheck() {}

    public static void main(String[] args) {
        List<String> names = args.length == 0 ? List.of("ffm", "jnr") : List.of(args);
        int failed = 0;
        for (String name : names) {
            try {
                check(name);
                System.out.println("nullverbs check: " + name + " lists null0 and posts and polls on it");
            } catch (RuntimeException | AssertionError e) {
                failed++;
                System.err.println("nullverbs check FAILED for " + name + ": " + e);
                e.printStackTrace();
            }
        }
        System.exit(failed == 0 ? 0 : 1);
    }

    static void check(String name) {
        VerbsProvider p = Verbs.providers().stream().filter(x -> x.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no provider " + name + " on the class path"));
        if (!p.isAvailable()) {
            throw new AssertionError(name + " is unavailable: " + p.unavailabilityCause());
        }
        List<String> devices = p.devices().stream().map(Device::name).toList();
        if (!devices.equals(List.of("null0"))) {
            throw new AssertionError(name + " lists " + devices + ", not [null0]: is LD_LIBRARY_PATH on the null "
                    + "library?");
        }
        try (Loopback lb = new Loopback(name, WriteStream.SLOTS * WriteStream.MESSAGE)) {
            WriteStream s = new WriteStream(lb, 32);
            for (int i = 0; i < 4; i++) {
                s.wrSessionBatch(32);
            }
            expect(name + ", WrSession", s, 4, 128);
            for (int i = 0; i < 4; i++) {
                s.postSendBatch();
            }
            expect(name + ", postSend", s, 4, 256);
            for (int i = 0; i < 4; i++) {
                s.preparedBatch();
            }
            expect(name + ", PreparedSends", s, 4, 384);
        }
    }

    /** 128 WRs were posted, every 32nd signaled: 4 completions, in order (WriteStream checks each status). */
    private static void expect(String what, WriteStream s, int completions, long retired) {
        int got = 0;
        for (int tries = 0; got < completions && tries < 1000; tries++) {
            got += s.pollOnce();
        }
        if (got != completions || s.pollOnce() != 0) {
            throw new AssertionError(what + ": " + got + " completions (or more) for " + completions
                    + " signaled WRITEs");
        }
        if (s.retired() != retired) {
            throw new AssertionError(what + ": the last completion retired up to WR " + s.retired() + ", not "
                    + retired);
        }
    }
}
